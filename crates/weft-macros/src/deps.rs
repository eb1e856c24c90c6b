//! Finds the user funcs and structs an item refers to, so their definitions can be
//! fetched through their exported `macro_rules!` before the item is lowered.

use std::collections::BTreeMap;

use quote::ToTokens;
use syn::visit::Visit;
use weft_ir::{Type, builtins};

/// Names that are part of the language rather than user items.
fn is_language_fn(name: &str) -> bool {
    builtins::doc(name).is_some()
        || matches!(
            name,
            "tid"
                | "atomic_add"
                | "atomic_sub"
                | "atomic_min"
                | "atomic_max"
                | "unroll"
                | "vec2"
                | "vec3"
                | "vec4"
                | "dvec2"
                | "dvec3"
                | "dvec4"
                | "ivec2"
                | "ivec3"
                | "ivec4"
                | "uvec2"
                | "uvec3"
                | "uvec4"
                | "quat"
        )
}

/// Common Rust types that are not part of the kernel language: reported directly
/// instead of being looked up as user structs.
pub const FOREIGN_TYPES: &[&str] = &[
    "usize", "isize", "u8", "i8", "u16", "i16", "u128", "i128", "f16", "f128", "char", "str",
    "String", "Vec", "Option", "Result", "Box", "HashMap", "Rc", "Arc",
];

fn is_language_type(name: &str) -> bool {
    name == "Array" || Type::from_builtin_name(name).is_some() || name == "Self"
}

#[derive(Default)]
struct Collector {
    /// Dependency paths by their printed form (dedup), in first-seen order.
    deps: BTreeMap<String, (usize, syn::Path)>,
    locals: Vec<String>,
}

impl Collector {
    fn add(&mut self, p: &syn::Path) {
        let key = p.to_token_stream().to_string();
        let n = self.deps.len();
        self.deps.entry(key).or_insert((n, p.clone()));
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let last = segs.last().cloned().unwrap_or_default();
            let is_ctor = segs.len() >= 2 && is_language_type(&segs[segs.len() - 2]);
            let is_local = segs.len() == 1 && self.locals.contains(&last);
            if !(is_ctor || is_local || segs.len() == 1 && is_language_fn(&last)) {
                self.add(&p.path);
            }
        } else {
            self.visit_expr(&c.func);
        }
        for a in &c.args {
            self.visit_expr(a);
        }
    }

    fn visit_expr_path(&mut self, _: &'ast syn::ExprPath) {}

    fn visit_type_path(&mut self, t: &'ast syn::TypePath) {
        if let Some(seg) = t.path.segments.last() {
            let n = seg.ident.to_string();
            if !is_language_type(&n) && !FOREIGN_TYPES.contains(&n.as_str()) {
                self.add(&t.path);
            }
            if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                for g in &a.args {
                    if let syn::GenericArgument::Type(t) = g {
                        self.visit_type(t);
                    }
                }
            }
        }
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        self.add(&s.path);
        for f in &s.fields {
            self.visit_expr(&f.expr);
        }
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.locals.push(p.ident.to_string());
    }
}

/// The dependency paths of a fn item (calls of non-builtin functions, user types).
pub fn of_fn(f: &syn::ItemFn) -> Vec<syn::Path> {
    let mut c = Collector::default();
    c.visit_item_fn(f);
    sorted(c)
}

/// The dependency paths of a struct item (user types of its fields).
pub fn of_struct(s: &syn::ItemStruct) -> Vec<syn::Path> {
    let mut c = Collector::default();
    for f in &s.fields {
        c.visit_type(&f.ty);
    }
    sorted(c)
}

fn sorted(c: Collector) -> Vec<syn::Path> {
    let mut v: Vec<_> = c.deps.into_values().collect();
    v.sort_by_key(|(i, _)| *i);
    v.into_iter().map(|(_, p)| p).collect()
}
