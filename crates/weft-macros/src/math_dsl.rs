//! The elementary functions in the kernel language (`weft_math::dsl`), lowered to
//! IR for the PTX emitter.

use std::collections::HashMap;

use quote::quote;

use crate::callees::dep_funcs;
use crate::chain::{Def, Kind};
use crate::env::build_env;

/// The kernel-language versions of the elementary functions (`weft_math::dsl`),
/// lowered to IR once per compilation, for the PTX emitter.
pub fn math_funcs() -> std::rc::Rc<HashMap<String, weft_ir::Function>> {
    thread_local! {
        static FUNCS: std::cell::OnceCell<std::rc::Rc<HashMap<String, weft_ir::Function>>> =
            const { std::cell::OnceCell::new() };
    }
    FUNCS.with(|c| {
        c.get_or_init(|| std::rc::Rc::new(lower_math_funcs()))
            .clone()
    })
}

fn lower_math_funcs() -> HashMap<String, weft_ir::Function> {
    {
        let mut out = HashMap::new();
        for src in [weft_math::dsl::F32, weft_math::dsl::F64] {
            let Ok(file) = syn::parse_file(src) else {
                continue;
            };
            let defs: Vec<(Def, syn::Item)> = file
                .items
                .into_iter()
                .filter_map(|item| match item {
                    syn::Item::Fn(mut f) => {
                        f.attrs
                            .retain(|a| a.path().segments.last().is_none_or(|s| s.ident != "func"));
                        let tokens = quote!(#f);
                        Some((
                            Def {
                                kind: Kind::Func,
                                item: tokens,
                                via: None,
                            },
                            syn::Item::Fn(f),
                        ))
                    }
                    _ => None,
                })
                .collect();
            let Ok(env) = build_env(&defs, None) else {
                continue;
            };
            if let Ok(funcs) = dep_funcs(&env, &defs) {
                out.extend(funcs);
            }
        }
        out
    }
}
