//! The CPU back end: emits native Rust from the IR.
//!
//! Generated code refers to the runtime through a `__private` module: by default
//! `::weft::__private` (the facade), or `path::__private` for an item written with
//! `crate = path` (see [`with_paths`]).

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use crate::ir::*;
use crate::types::{Scalar, Type};

/// How generated code names what it uses, for one emission (see [`with_paths`]).
#[derive(Clone, Debug, Default)]
pub struct Paths {
    /// The runtime's `__private` module (`::weft::__private` when `None`).
    pub runtime: Option<TokenStream>,
    /// Structure name → a path to it that resolves where the code lands.
    pub structs: std::collections::HashMap<String, TokenStream>,
}

thread_local! {
    static PATHS: std::cell::RefCell<Paths> = Default::default();
}

/// Runs `f` (an emission) with generated code naming the runtime and structures by
/// `paths`: structures by a path that resolves where the code lands (e.g.
/// `<hash_grid_query as ::weft::__private::Named<ID>>::T`), so it never relies on
/// names the user did not import; structures not in `paths` by their bare name.
pub fn with_paths<R>(paths: Paths, f: impl FnOnce() -> R) -> R {
    let old = PATHS.with(|p| p.replace(paths));
    let out = f();
    PATHS.with(|p| p.replace(old));
    out
}

/// Tokens for the runtime's `__private` module (see [`with_paths`]).
fn rt() -> TokenStream {
    PATHS
        .with(|p| p.borrow().runtime.clone())
        .unwrap_or_else(|| quote!(::weft::__private))
}

/// How generated code names structure `name` (see [`with_paths`]).
pub fn struct_path(name: &str) -> TokenStream {
    PATHS
        .with(|p| p.borrow().structs.get(name).cloned())
        .unwrap_or_else(|| {
            let i = Ident::new(name, Span::call_site());
            quote!(#i)
        })
}

/// The Rust type used in generated CPU code for a kernel-language type.
pub fn rust_type(t: &Type) -> TokenStream {
    let rt = rt();
    match t {
        Type::Unit => quote!(()),
        Type::Scalar(s) => {
            let i = format_ident!("{}", s.name());
            quote!(#i)
        }
        Type::Array { elem, ndim, .. } => {
            let e = rust_type(elem);
            let n = Literal::usize_unsuffixed(*ndim as usize);
            quote!(#rt::ArrayView<#e, #n>)
        }
        Type::Struct(name) => {
            let i = struct_path(name);
            quote!(<#i as #rt::KernelStruct>::View)
        }
        Type::Tuple(ts) => {
            let ts = ts.iter().map(rust_type);
            quote!((#(#ts,)*))
        }
        Type::LocalArray { elem, len } => {
            let e = format_ident!("{}", elem.name());
            let n = Literal::usize_unsuffixed(*len as usize);
            quote!([#e; #n])
        }
        other => {
            let i = format_ident!("{}", other.rust_name());
            quote!(#rt::types::#i)
        }
    }
}

/// The Rust type of a kernel-language type as the user writes it in host code
/// (arrays as `Array<T, N>`, structs by name).
pub fn host_type(t: &Type) -> TokenStream {
    let rt = rt();
    match t {
        Type::Array { elem, ndim, .. } => {
            let e = rust_type(elem);
            let n = Literal::usize_unsuffixed(*ndim as usize);
            quote!(#rt::Array<#e, #n>)
        }
        Type::Struct(name) => struct_path(name),
        _ => rust_type(t),
    }
}

struct Emitter<'f> {
    f: &'f Function,
    rt: TokenStream,
    /// Values known to equal the flat thread index `tid()` (see [`tid_values`]).
    tid: std::collections::HashSet<ValueId>,
    /// Array values (from parameters in [`unsync_arrays`]) accessed with plain loads
    /// and stores.
    unsync: std::collections::HashSet<ValueId>,
    /// Array values (naming the arrays of [`tid_indexed_arrays`]) whose `tid()`
    /// accesses the launcher's main loop has already bounds-checked (`__in_bounds`).
    in_bounds: std::collections::HashSet<ValueId>,
    /// In hoisted functions, the values declared at the top (those defined inside
    /// an `if`, whose adjoint code lives in another block); the rest keep `let`.
    hoist: std::collections::HashSet<ValueId>,
    /// Values naming accumulation target `k` (see [`crate::accumulate`]): with
    /// `__PRIVATE` they are the launcher's view `__acc{k}`, updated with plain adds.
    acc: std::collections::HashMap<ValueId, usize>,
}

/// Values defined inside `if` branches (at any depth) of a hoisted function.
fn values_in_ifs(f: &Function) -> std::collections::HashSet<ValueId> {
    fn walk(b: &Block, in_if: bool, out: &mut std::collections::HashSet<ValueId>) {
        for s in &b.0 {
            match s {
                Stmt::Def(v, _) if in_if => {
                    out.insert(*v);
                }
                Stmt::If(_, a, c) => {
                    walk(a, true, out);
                    walk(c, true, out);
                }
                Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => walk(body, in_if, out),
                Stmt::While(c, _, body) => {
                    walk(c, in_if, out);
                    walk(body, in_if, out);
                }
                _ => {}
            }
        }
    }
    let mut out = std::collections::HashSet::new();
    if f.hoisted {
        walk(&f.body, false, &mut out);
    }
    out
}

/// Array values accessed with plain loads and stores: parameters in
/// [`unsync_arrays`], and arrays (also inside structures) the kernel only loads
/// from ([`crate::accumulate::loaded_only_values`]).
fn unsync_values(f: &Function) -> std::collections::HashSet<ValueId> {
    let mut out = param_values(f, &unsync_arrays(f));
    out.extend(crate::accumulate::loaded_only_values(f));
    out
}

/// The values that are kernel parameters `params` themselves (none in funcs).
fn param_values(
    f: &Function,
    params: &std::collections::HashSet<usize>,
) -> std::collections::HashSet<ValueId> {
    let mut out = std::collections::HashSet::new();
    fn walk(
        b: &Block,
        params: &std::collections::HashSet<usize>,
        out: &mut std::collections::HashSet<ValueId>,
    ) {
        for s in &b.0 {
            match s {
                Stmt::Def(v, Expr::Param(i)) if params.contains(i) => {
                    out.insert(*v);
                }
                Stmt::If(_, x, y) => {
                    walk(x, params, out);
                    walk(y, params, out);
                }
                Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => walk(body, params, out),
                Stmt::While(c, _, body) => {
                    walk(c, params, out);
                    walk(body, params, out);
                }
                _ => {}
            }
        }
    }
    if f.kind == FnKind::Kernel {
        walk(&f.body, params, &mut out);
    }
    out
}

/// Values equal to the flat thread index: `tid()` itself and reads of immutable
/// locals initialised with it. Array accesses indexed by these are emitted with a
/// `usize` bounds check against the thread index, which the optimizer removes in the
/// launcher's main loop (whose bound is the smallest such array length).
pub fn tid_values(f: &Function) -> std::collections::HashSet<ValueId> {
    use std::collections::HashSet;
    fn walk(b: &Block, f: &Function, tid: &mut HashSet<ValueId>, vars: &mut HashSet<VarId>) {
        for s in &b.0 {
            match s {
                Stmt::Def(v, Expr::Tid(None)) => {
                    tid.insert(*v);
                }
                Stmt::Def(v, Expr::Var(var)) if vars.contains(var) => {
                    tid.insert(*v);
                }
                Stmt::Let(var, v) if tid.contains(v) && !f.vars[var.0 as usize].mutable => {
                    vars.insert(*var);
                }
                Stmt::If(_, a, b) => {
                    walk(a, f, tid, vars);
                    walk(b, f, tid, vars);
                }
                Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => walk(body, f, tid, vars),
                Stmt::While(c, _, body) => {
                    walk(c, f, tid, vars);
                    walk(body, f, tid, vars);
                }
                _ => {}
            }
        }
    }
    let mut tid = HashSet::new();
    walk(&f.body, f, &mut tid, &mut HashSet::new());
    tid
}

/// Array parameters whose elements no two threads of a launch can touch
/// concurrently with a write, so plain loads and stores are race-free:
/// read-only arrays (nothing writes them during the launch: a writable parameter
/// is an exclusive borrow, so it cannot be the same array), and writable 1-D arrays
/// whose every access in the kernel is at index `tid()` (each thread owns its
/// element). Other writable arrays use relaxed atomic element accesses.
///
/// This relies on arrays never sharing memory; revisit when array views exist.
pub fn unsync_arrays(f: &Function) -> std::collections::HashSet<usize> {
    use std::collections::{HashMap, HashSet};
    let tid = tid_values(f);
    let mut param_of: HashMap<ValueId, usize> = HashMap::new();
    let mut disqualified: HashSet<usize> = HashSet::new();
    fn walk(
        b: &Block,
        tid: &HashSet<ValueId>,
        param_of: &mut HashMap<ValueId, usize>,
        bad: &mut HashSet<usize>,
    ) {
        let check = |a: &ValueId,
                     idx: &[ValueId],
                     bad: &mut HashSet<usize>,
                     param_of: &HashMap<ValueId, usize>| {
            if let Some(p) = param_of.get(a)
                && !(idx.len() == 1 && tid.contains(&idx[0]))
            {
                bad.insert(*p);
            }
        };
        for s in &b.0 {
            match s {
                Stmt::Def(v, Expr::Param(i)) => {
                    param_of.insert(*v, *i);
                }
                Stmt::Def(_, Expr::Load(a, idx)) | Stmt::Def(_, Expr::Atomic(_, a, idx, _)) => {
                    check(a, idx, bad, param_of);
                }
                Stmt::Def(_, Expr::Len(..)) => {}
                Stmt::Def(_, Expr::GradRead(g, p, idx, _)) | Stmt::GradAdd(g, p, idx, _) => {
                    check(g, idx, bad, param_of);
                    check(p, idx, bad, param_of);
                }
                Stmt::Def(_, e) => {
                    // Any other use of an array value (passed to a func, stored in a
                    // struct): its accesses are unknown here.
                    for u in e.operands() {
                        if let Some(p) = param_of.get(&u) {
                            bad.insert(*p);
                        }
                    }
                }
                Stmt::Store(a, idx, v) => {
                    check(a, idx, bad, param_of);
                    if let Some(p) = param_of.get(v) {
                        bad.insert(*p);
                    }
                }
                Stmt::If(_, x, y) => {
                    walk(x, tid, param_of, bad);
                    walk(y, tid, param_of, bad);
                }
                Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => {
                    walk(body, tid, param_of, bad)
                }
                Stmt::While(c, _, body) => {
                    walk(c, tid, param_of, bad);
                    walk(body, tid, param_of, bad);
                }
                _ => {}
            }
        }
    }
    walk(&f.body, &tid, &mut param_of, &mut disqualified);
    f.params
        .iter()
        .enumerate()
        .filter(|(i, p)| match &p.ty {
            Type::Array {
                access: crate::types::Access::Read,
                ..
            } => true,
            Type::Array { ndim: 1, .. } => !disqualified.contains(i),
            _ => false,
        })
        .map(|(i, _)| i)
        .collect()
}

/// The arrays — array parameters, or arrays inside structure parameters
/// (`model.x`) — that every thread of a kernel accesses as 1-D arrays at the
/// thread index (`x[tid()]`) before anything can return: statements of the body's
/// top level, up to the first that may return. A launch's thread indices below
/// the smallest length of these arrays access all of them in bounds (the
/// launcher's `__fast`); an array accessed only under a condition (an optional
/// input that may be empty) is left out, since it would shrink that bound.
pub fn tid_indexed_arrays(f: &Function) -> Vec<crate::access::ArraySource> {
    let tid = tid_values(f);
    let sources = crate::access::array_sources(f, &f.body);
    let mut out = std::collections::BTreeSet::new();
    for s in &f.body.0 {
        let access = match s {
            Stmt::Def(_, Expr::Load(a, idx))
            | Stmt::Def(_, Expr::Atomic(_, a, idx, _))
            | Stmt::Store(a, idx, _)
            // Gradient accesses are bounds-checked against the primal array.
            | Stmt::Def(_, Expr::GradRead(_, a, idx, _))
            | Stmt::GradAdd(_, a, idx, _) => Some((a, idx)),
            Stmt::Return(_) => break,
            Stmt::If(_, x, y) if may_return(x) || may_return(y) => break,
            Stmt::For(_, _, _, b) | Stmt::ForRev(_, _, _, b) if may_return(b) => break,
            Stmt::While(c, _, b) if may_return(c) || may_return(b) => break,
            _ => None,
        };
        if let Some((a, idx)) = access
            && idx.len() == 1
            && tid.contains(&idx[0])
            && matches!(f.ty(*a), Type::Array { ndim: 1, .. })
            && let Some(src) = sources.get(a)
        {
            out.insert(src.clone());
        }
    }
    out.into_iter().collect()
}

/// Whether a `return` occurs anywhere in `b`.
fn may_return(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Return(_) => true,
        Stmt::If(_, x, y) => may_return(x) || may_return(y),
        Stmt::For(_, _, _, b) | Stmt::ForRev(_, _, _, b) => may_return(b),
        Stmt::While(c, _, b) => may_return(c) || may_return(b),
        _ => false,
    })
}

/// The array values that name one of `arrays` (see [`tid_indexed_arrays`]).
fn source_values(
    f: &Function,
    arrays: &[crate::access::ArraySource],
) -> std::collections::HashSet<ValueId> {
    crate::access::array_sources(f, &f.body)
        .into_iter()
        .filter(|(v, src)| matches!(f.ty(*v), Type::Array { .. }) && arrays.contains(src))
        .map(|(v, _)| v)
        .collect()
}

fn val(v: ValueId) -> Ident {
    format_ident!("__v{}", v.0)
}

impl Emitter<'_> {
    fn var(&self, v: VarId) -> Ident {
        let name = &self.f.vars[v.0 as usize].name;
        let clean: String = name
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let clean = clean.trim_start_matches('_');
        format_ident!("{}__{}", if clean.is_empty() { "t" } else { clean }, v.0)
    }

    fn lit(&self, l: &Lit) -> TokenStream {
        match *l {
            Lit::Bool(b) => quote!(#b),
            Lit::Int(v, s) => {
                let l = match s {
                    Scalar::I32 => Literal::i32_suffixed(v as i32),
                    Scalar::U32 => Literal::u32_suffixed(v as u32),
                    Scalar::I64 => Literal::i64_suffixed(v as i64),
                    Scalar::U64 => Literal::u64_suffixed(v as u64),
                    _ => unreachable!("integer literal of type {s:?}"),
                };
                quote!(#l)
            }
            Lit::Float(x, Scalar::F32) => float_lit_f32(x as f32),
            Lit::Float(x, _) => float_lit_f64(x),
        }
    }

    /// The checked offset of an element of array `arr`: by thread index when the
    /// index is `tid()`, unchecked in the launcher's main loop for the arrays it
    /// has checked.
    fn offset(&self, arr: ValueId, idx: &[ValueId]) -> TokenStream {
        let a = val(arr);
        if idx.len() == 1 && self.tid.contains(&idx[0]) {
            if self.in_bounds.contains(&arr) {
                // SAFETY: `__in_bounds` is set only below the launcher's `__fast`,
                // the smallest length of the arrays in `tid_indexed_arrays`.
                return quote!(unsafe { #a.offset_tid_in_bounds(__tid, __in_bounds) });
            }
            return quote!(#a.offset_tid(__tid));
        }
        let idx = self.indices(idx);
        quote!(#a.offset(#idx))
    }

    fn indices(&self, idx: &[ValueId]) -> TokenStream {
        let idx = idx.iter().map(|i| {
            let i = val(*i);
            quote!(#i as i64)
        });
        quote!([#(#idx),*])
    }

    /// The `usize` index of element `i` of local array `var`, panicking with the
    /// array's name when `i` is out of range.
    fn local_index(&self, var: VarId, i: ValueId) -> TokenStream {
        let info = &self.f.vars[var.0 as usize];
        let Type::LocalArray { len, .. } = &info.ty else {
            unreachable!("local array of another type")
        };
        let name = &info.name;
        let len = Literal::i64_unsuffixed(*len as i64);
        let i = val(i);
        quote!({
            let __k = #i as i64;
            if !(0..#len).contains(&__k) {
                panic!("index {} out of range for local array `{}` of length {}", __k, #name, #len);
            }
            __k as usize
        })
    }

    fn expr(&self, e: &Expr) -> TokenStream {
        let rt = &self.rt;
        match e {
            Expr::Lit(l) => self.lit(l),
            Expr::LocalLoad(var, i) => {
                let n = self.var(*var);
                let k = self.local_index(*var, *i);
                quote!(#n[#k])
            }
            Expr::Param(i) => {
                let p = format_ident!("{}", self.f.params[*i].name);
                quote!(#p)
            }
            Expr::Var(v) => {
                let v = self.var(*v);
                quote!(#v)
            }
            Expr::Unary(UnOp::Neg, a) => {
                let int = matches!(self.f.ty(*a), Type::Scalar(s) if s.is_int());
                let a = val(*a);
                if int {
                    quote!(#a.wrapping_neg())
                } else {
                    quote!(-#a)
                }
            }
            Expr::Unary(UnOp::Not, a) => {
                let a = val(*a);
                quote!(!#a)
            }
            Expr::Binary(op, a, b) => self.binary(*op, *a, *b),
            Expr::Cast(v, s) => {
                let v = val(*v);
                let t = format_ident!("{}", s.name());
                quote!(#v as #t)
            }
            Expr::Builtin(name, args) => {
                let n = format_ident!("{}", name);
                let args = args.iter().map(|a| val(*a));
                quote!(#rt::builtins::#n(#(#args),*))
            }
            Expr::Rng(name, state, args) => {
                let n = format_ident!("{}", name);
                let s = self.var(*state);
                let args = args.iter().map(|a| val(*a));
                quote!(#rt::builtins::#n(&mut #s #(, #args)*))
            }
            Expr::Call { path, args, .. } => {
                let args = args.iter().map(|a| val(*a));
                quote!(#path(#(#args),*))
            }
            Expr::Construct(t, args) => self.construct(t, args),
            Expr::Splat(t, v) => {
                let t = rust_type(t);
                let v = val(*v);
                quote!(#t::splat(#v))
            }
            Expr::Extract(v, i) => {
                let vt = self.f.ty(*v);
                let a = val(*v);
                let acc = part_access(vt, *i, self.f);
                quote!(#a #acc)
            }
            Expr::Insert(v, i, x) => {
                let vt = self.f.ty(*v);
                let a = val(*v);
                let x = val(*x);
                let acc = part_access(vt, *i, self.f);
                quote!({ let mut __t = #a; __t #acc = #x; __t })
            }
            Expr::DynIndex(v, i) => {
                let (v, i) = (val(*v), val(*i));
                quote!(#rt::component(#v, #i as i64))
            }
            Expr::DynInsert(v, i, x) => {
                let (v, i, x) = (val(*v), val(*i), val(*x));
                quote!(#rt::with_component(#v, #i as i64, #x))
            }
            Expr::MatElem(m, r, c) => {
                let (m, r, c) = (val(*m), val(*r), val(*c));
                quote!(#rt::mat_elem(#m, #r as i64, #c as i64))
            }
            Expr::Load(a, idx) => {
                let unsync = self.unsync.contains(a);
                let o = self.offset(*a, idx);
                let a = val(*a);
                if unsync {
                    // SAFETY: no thread of this launch writes this element while
                    // another accesses it (see `unsync_arrays`).
                    quote!(unsafe { #a.read_unsync(#o) })
                } else {
                    quote!(#a.read(#o))
                }
            }
            Expr::Len(a, None) => {
                let a = val(*a);
                quote!(#a.len_i32())
            }
            Expr::Len(a, Some(d)) => {
                let a = val(*a);
                let d = *d as usize;
                quote!(#a.shape_i32(#d))
            }
            Expr::Atomic(op, a, idx, v) => {
                let private = self.acc.contains_key(a);
                let o = self.offset(*a, idx);
                let a = val(*a);
                let v = val(*v);
                let m = format_ident!("{}", op.name());
                if private {
                    let plain = match op {
                        AtomicOp::Add => format_ident!("add_plain"),
                        _ => format_ident!("sub_plain"),
                    };
                    // SAFETY: with `__PRIVATE` the view is this runner's private
                    // buffer, or the launch runs on one thread (see `accumulate`).
                    quote!(if __PRIVATE { unsafe { #a.#plain(#o, #v) } } else { #a.#m(#o, #v) })
                } else {
                    quote!(#a.#m(#o, #v))
                }
            }
            Expr::MatInsert(m, r, c, x) => {
                let (m, r, c, x) = (val(*m), val(*r), val(*c), val(*x));
                quote!(#rt::with_mat_elem(#m, #r as i64, #c as i64, #x))
            }
            // Adjoint accumulators start from `-0.0` (see `KernelZero::adj_zero`).
            Expr::Zero(t) => {
                let t = rust_type(t);
                quote!(<#t as #rt::KernelZero>::adj_zero())
            }
            Expr::Accum(a, b) => {
                let (a, b) = (val(*a), val(*b));
                quote!(#rt::Accum::accum(#a, #b))
            }
            Expr::Adjoint(name, args) => {
                let args = args.iter().map(|a| val(*a));
                if *name == "splat" {
                    quote!(#rt::adj_splat(#(#args),*))
                } else {
                    let n = format_ident!("adj_{}", name);
                    quote!(#rt::adjoint::#n(#(#args),*))
                }
            }
            Expr::FuncAdjoint { path, args, .. } => {
                let args = args.iter().map(|a| val(*a));
                let path = adjoint_path(path);
                quote!(#path(#(#args),*))
            }
            Expr::GradRead(g, p, idx, take) => {
                let unsync = self.unsync.contains(g);
                let o = self.offset(*p, idx);
                let g = val(*g);
                match (*take, unsync) {
                    // SAFETY: this thread owns element `tid` (see `unsync_arrays`).
                    (true, true) => quote!(unsafe { #g.grad_take_unsync(#o) }),
                    (false, true) => quote!(unsafe { #g.grad_read_unsync(#o) }),
                    (true, false) => quote!(#g.grad_take(#o)),
                    (false, false) => quote!(#g.grad_read(#o)),
                }
            }
            Expr::Tid(None) => quote!(__tid as i32),
            Expr::Tid(Some(d)) => {
                let d = *d as usize;
                quote!(__dims.index(__tid, #d) as i32)
            }
        }
    }

    fn binary(&self, op: BinOp, a: ValueId, b: ValueId) -> TokenStream {
        let ta = self.f.ty(a).clone();
        let (x, y) = (val(a), val(b));
        let int_scalar = matches!(ta, Type::Scalar(s) if s.is_int());
        let int_vec = matches!(ta, Type::Vector(_, s) if s.is_int());
        if int_scalar || int_vec {
            let m = match op {
                BinOp::Add => Some("wrapping_add"),
                BinOp::Sub => Some("wrapping_sub"),
                BinOp::Mul => Some("wrapping_mul"),
                BinOp::Div if int_scalar => Some("wrapping_div"),
                BinOp::Rem if int_scalar => Some("wrapping_rem"),
                _ => None,
            };
            if let Some(m) = m {
                let m = format_ident!("{}", m);
                if int_vec && self.f.ty(b).is_scalar() {
                    let t = rust_type(&ta);
                    return quote!(#x.#m(#t::splat(#y)));
                }
                return quote!(#x.#m(#y));
            }
            if matches!(op, BinOp::Shl | BinOp::Shr) {
                let m = format_ident!(
                    "{}",
                    if op == BinOp::Shl {
                        "wrapping_shl"
                    } else {
                        "wrapping_shr"
                    }
                );
                return quote!(#x.#m(#y as u32));
            }
        }
        // glam's SIMD quaternion products use an operation order the GPU cannot
        // reproduce; use the builtins' documented scalar order instead.
        if op == BinOp::Mul && matches!(ta, Type::Quat(_)) {
            let rt = &self.rt;
            return match self.f.ty(b) {
                Type::Quat(_) => quote!(#rt::builtins::traits::Rotation::mul(#x, #y)),
                Type::Vector(3, _) => quote!(#rt::builtins::quat_rotate(#x, #y)),
                _ => quote!(#x * #y),
            };
        }
        let o: TokenStream = op.symbol().parse().expect("operator");
        quote!(#x #o #y)
    }

    fn construct(&self, t: &Type, args: &[ValueId]) -> TokenStream {
        let args: Vec<Ident> = args.iter().map(|a| val(*a)).collect();
        let ty = rust_type(t);
        match t {
            Type::Vector(..) => quote!(#ty::new(#(#args),*)),
            Type::Matrix(..) => quote!(#ty::from_cols(#(#args),*)),
            Type::Quat(_) => quote!(#ty::from_xyzw(#(#args),*)),
            Type::Transform(_) | Type::SpatialVector(_) => quote!(#ty::new(#(#args),*)),
            Type::SpatialMatrix(_) => {
                let rows = args.chunks(6).map(|r| quote!([#(#r),*]));
                quote!(#ty { m: [#(#rows),*] })
            }
            Type::Tuple(_) => quote!((#(#args,)*)),
            Type::Unit => quote!(()),
            Type::Struct(name) => {
                // A path such as `<f as Named<ID>>::T` cannot start a struct
                // expression; a type alias can.
                let i = struct_path(name);
                let fields = self.struct_fields(name);
                quote!({ type __S = #i; __S { #(#fields: #args),* } })
            }
            _ => unreachable!("construct of {t}"),
        }
    }

    fn struct_fields(&self, name: &str) -> Vec<Ident> {
        self.f.structs[name]
            .fields
            .iter()
            .map(|(n, _)| format_ident!("{}", n))
            .collect()
    }

    /// Declarations of every value and variable, for hoisted functions.
    fn prologue(&self) -> TokenStream {
        if !self.f.hoisted {
            return quote!();
        }
        let rt = &self.rt;
        let vals = self
            .f
            .values
            .iter()
            .enumerate()
            .filter(|(i, v)| v.ty != Type::Unit && self.hoist.contains(&ValueId(*i as u32)))
            .map(|(i, v)| {
                let n = val(ValueId(i as u32));
                let t = rust_type(&v.ty);
                quote!(let mut #n: #t = <#t as #rt::KernelZero>::adj_zero();)
            });
        let vars = self.f.vars.iter().enumerate().map(|(i, v)| {
            let n = self.var(VarId(i as u32));
            let t = rust_type(&v.ty);
            if let Type::LocalArray { elem, len } = &v.ty {
                let e = format_ident!("{}", elem.name());
                let len = Literal::usize_unsuffixed(*len as usize);
                return quote!(let mut #n: #t = [<#e as ::core::default::Default>::default(); #len];);
            }
            quote!(let mut #n: #t = <#t as #rt::KernelZero>::adj_zero();)
        });
        quote! {
            let mut __stack = #rt::AdjointStack::new();
            #(#vals)*
            #(#vars)*
        }
    }

    fn block(&self, b: &Block) -> TokenStream {
        let stmts = b.0.iter().map(|s| self.stmt(s));
        quote!(#(#stmts)*)
    }

    fn stmt(&self, s: &Stmt) -> TokenStream {
        match s {
            Stmt::Def(v, e) => {
                let ty = self.f.ty(*v);
                let name = val(*v);
                let mut e = self.expr(e);
                if let Some(k) = self.acc.get(v) {
                    let a = format_ident!("__acc{}", k);
                    e = quote!(if __PRIVATE { #a } else { #e });
                }
                if *ty == Type::Unit {
                    // Bound anyway: a func's adjoint returns `()` for each
                    // non-differentiable parameter.
                    quote!(let #name = #e;)
                } else if self.hoist.contains(v) {
                    quote!(#name = #e;)
                } else {
                    let t = rust_type(ty);
                    quote!(let #name: #t = #e;)
                }
            }
            Stmt::Let(var, v) => {
                let t = rust_type(&self.f.vars[var.0 as usize].ty);
                let (n, v) = (self.var(*var), val(*v));
                if self.f.hoisted {
                    quote!(#n = #v;)
                } else {
                    quote!(let mut #n: #t = #v;)
                }
            }
            Stmt::Declare(var) => {
                if self.f.hoisted {
                    return quote!();
                }
                let t = rust_type(&self.f.vars[var.0 as usize].ty);
                let n = self.var(*var);
                quote!(let mut #n: #t;)
            }
            Stmt::ForRev(var, s, e, body) => {
                let n = self.var(*var);
                let (s, e) = (val(*s), val(*e));
                let body = self.block(body);
                quote!(for __i in (#s..#e).rev() { #n = __i; #body })
            }
            Stmt::Save(vals) => {
                let vals = vals.iter().map(|v| val(*v));
                quote!(#(__stack.push(#vals);)*)
            }
            Stmt::Restore(vars) => {
                let vars = vars.iter().rev().map(|v| self.var(*v));
                quote!(#(#vars = __stack.pop();)*)
            }
            Stmt::GradAdd(g, p, idx, v) => {
                let unsync = self.unsync.contains(g);
                let private = self.acc.contains_key(g);
                let o = self.offset(*p, idx);
                let (g, v) = (val(*g), val(*v));
                if unsync {
                    // SAFETY: this thread owns element `tid` (see `unsync_arrays`).
                    quote!(unsafe { #g.grad_add_unsync(#o, #v) };)
                } else if private {
                    // SAFETY: with `__PRIVATE` the view is this runner's private
                    // buffer, or the launch runs on one thread (see `accumulate`).
                    quote!(if __PRIVATE { unsafe { #g.grad_add_unsync(#o, #v) } } else { #g.grad_add(#o, #v) })
                } else {
                    quote!(#g.grad_add(#o, #v);)
                }
            }
            Stmt::Assign(var, v) => {
                let (n, v) = (self.var(*var), val(*v));
                quote!(#n = #v;)
            }
            Stmt::Store(a, idx, v) => {
                let unsync = self.unsync.contains(a);
                let o = self.offset(*a, idx);
                let a = val(*a);
                let v = val(*v);
                if unsync {
                    // SAFETY: this thread owns element `tid` (see `unsync_arrays`).
                    quote!(unsafe { #a.write_unsync(#o, #v) };)
                } else {
                    quote!(#a.write(#o, #v);)
                }
            }
            Stmt::If(c, t, e) => {
                let c = val(*c);
                let (t, e) = (self.block(t), self.block(e));
                quote!(if #c { #t } else { #e })
            }
            Stmt::For(var, s, e, body) => {
                let n = self.var(*var);
                let (s, e) = (val(*s), val(*e));
                let body = self.block(body);
                quote!(for #n in #s..#e { #body })
            }
            Stmt::While(cb, c, body) => {
                let cb = self.block(cb);
                let c = val(*c);
                let body = self.block(body);
                quote!(loop { #cb if !#c { break; } #body })
            }
            Stmt::LocalArray(var, v) => {
                let Type::LocalArray { elem, len } = &self.f.vars[var.0 as usize].ty else {
                    unreachable!("local array of another type")
                };
                let e = format_ident!("{}", elem.name());
                let len = Literal::usize_unsuffixed(*len as usize);
                let (n, v) = (self.var(*var), val(*v));
                if self.f.hoisted {
                    quote!(#n = [#v; #len];)
                } else {
                    quote!(let mut #n: [#e; #len] = [#v; #len];)
                }
            }
            Stmt::LocalStore(var, i, v) => {
                let n = self.var(*var);
                let k = self.local_index(*var, *i);
                let v = val(*v);
                quote!(#n[#k] = #v;)
            }
            Stmt::Break => quote!(break;),
            Stmt::Continue => quote!(continue;),
            Stmt::Return(None) => quote!(return;),
            Stmt::Return(Some(v)) => {
                let v = val(*v);
                quote!(return #v;)
            }
        }
    }
}

/// The path of a func's adjoint: `path::adjoint` (the func's macro also defines a
/// type of the same name, whose associated `adjoint` function this is).
pub fn adjoint_path(path: &TokenStream) -> TokenStream {
    quote!(#path::adjoint)
}

/// The field access (`.x`, `.p`, `.m[1][2]`, `.0`, `.name`) for part `i` of type `t`.
fn part_access(t: &Type, i: u32, f: &Function) -> TokenStream {
    match t {
        Type::Vector(..) | Type::Quat(_) => {
            let n = format_ident!("{}", ["x", "y", "z", "w"][i as usize]);
            quote!(.#n)
        }
        Type::Matrix(..) => {
            let n = format_ident!("{}", ["x_axis", "y_axis", "z_axis", "w_axis"][i as usize]);
            quote!(.#n)
        }
        Type::Transform(_) => {
            let n = format_ident!("{}", ["p", "q"][i as usize]);
            quote!(.#n)
        }
        Type::SpatialVector(_) => {
            let n = format_ident!("{}", ["top", "bottom"][i as usize]);
            quote!(.#n)
        }
        Type::SpatialMatrix(_) => {
            let (r, c) = (
                Literal::usize_unsuffixed(i as usize / 6),
                Literal::usize_unsuffixed(i as usize % 6),
            );
            quote!(.m[#r][#c])
        }
        Type::Tuple(_) => {
            let l = Literal::usize_unsuffixed(i as usize);
            quote!(.#l)
        }
        Type::Struct(name) => {
            let l = format_ident!("{}", f.structs[name].fields[i as usize].0);
            quote!(.#l)
        }
        _ => unreachable!("part access on {t}"),
    }
}

fn float_lit_f32(x: f32) -> TokenStream {
    if x.is_finite() {
        let l = Literal::f32_suffixed(x);
        quote!(#l)
    } else if x.is_nan() {
        quote!(f32::NAN)
    } else if x > 0.0 {
        quote!(f32::INFINITY)
    } else {
        quote!(f32::NEG_INFINITY)
    }
}

fn float_lit_f64(x: f64) -> TokenStream {
    if x.is_finite() {
        let l = Literal::f64_suffixed(x);
        quote!(#l)
    } else if x.is_nan() {
        quote!(f64::NAN)
    } else if x > 0.0 {
        quote!(f64::INFINITY)
    } else {
        quote!(f64::NEG_INFINITY)
    }
}

/// How an emitted func asks to be inlined into its callers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inlining {
    /// `#[inline(always)]`, as GPU back ends inline funcs: kernel loops see
    /// through them (a func's forward code).
    Always,
    /// `#[inline]`: available to every caller, inlined where LLVM finds it pays
    /// (a func's adjoint, which recomputes its callees forward and calls their
    /// adjoints: inlining those trees whole made single functions so large that
    /// LLVM spent most of half an hour on one of them).
    Hint,
}

/// Emits a func as a plain Rust function `#vis fn #name(params) -> ret`.
///
/// `written` optionally gives the parameter and result types as the user wrote them
/// (so their imports are used and type errors point at their tokens); array
/// parameters always use the kernel-side view type.
pub fn emit_func(
    f: &Function,
    vis: &TokenStream,
    written: Option<(Vec<TokenStream>, TokenStream)>,
    inlining: Inlining,
) -> TokenStream {
    let e = Emitter {
        f,
        rt: rt(),
        tid: tid_values(f),
        unsync: unsync_values(f),
        in_bounds: Default::default(),
        hoist: values_in_ifs(f),
        acc: Default::default(),
    };
    let name = format_ident!("{}", f.name);
    let (wp, wr) = match written {
        Some((p, r)) => (p.into_iter().map(Some).collect(), Some(r)),
        None => (vec![None; f.params.len()], None),
    };
    let params = f.params.iter().zip(wp).map(|(p, w)| {
        let n = format_ident!("{}", p.name);
        let t = match (w, &p.ty) {
            (Some(w), t) if !matches!(t, Type::Array { .. } | Type::Struct(_)) => w,
            _ => rust_type(&p.ty),
        };
        quote!(#n: #t)
    });
    let ret = match wr {
        Some(r) if !matches!(f.ret, Type::Struct(_)) => r,
        _ => rust_type(&f.ret),
    };
    let prologue = e.prologue();
    let body = e.block(&f.body);
    let body = quote!(#prologue #body);
    let inline = match inlining {
        Inlining::Always => quote!(#[inline(always)]),
        Inlining::Hint => quote!(#[inline]),
    };
    quote! {
        #[allow(unused, unused_mut, unused_variables, unreachable_code, unused_assignments, non_snake_case, clippy::all)]
        #inline
        #vis fn #name(#(#params),*) -> #ret { #body }
    }
}

/// Emits a kernel body as `fn #ident(__tid: usize, __in_bounds: bool, __dims: &Dims,
/// params..)`, called once per launch index by the CPU launcher.
///
/// A kernel with accumulation targets ([`crate::accumulate::accumulate_targets`])
/// gets `fn #ident<const __PRIVATE: bool>(.., params.., __acc0, __acc1, ..)`: one
/// extra view per target, which with `__PRIVATE` replaces the target's array and is
/// updated with plain adds (the launcher passes a private buffer, or the array
/// itself on one thread); without it the body uses atomics and ignores them.
pub fn emit_kernel_body(f: &Function, ident: &Ident) -> TokenStream {
    let targets = crate::accumulate::accumulate_targets(f);
    let e = Emitter {
        f,
        rt: rt(),
        tid: tid_values(f),
        unsync: unsync_values(f),
        in_bounds: source_values(f, &tid_indexed_arrays(f)),
        hoist: values_in_ifs(f),
        acc: crate::accumulate::target_values(f, &targets),
    };
    let rt = rt();
    let params = f.params.iter().map(|p| {
        let n = format_ident!("{}", p.name);
        let t = rust_type(&p.ty);
        quote!(#n: #t)
    });
    let acc_params = targets.iter().enumerate().map(|(k, t)| {
        let n = format_ident!("__acc{}", k);
        let t = rust_type(&t.ty);
        quote!(, #n: #t)
    });
    let generics = if targets.is_empty() {
        quote!()
    } else {
        quote!(<const __PRIVATE: bool>)
    };
    let prologue = e.prologue();
    let body = e.block(&f.body);
    let body = quote!(#prologue #body);
    quote! {
        #[allow(unused, unused_mut, unused_variables, unreachable_code, non_snake_case, unused_assignments, clippy::all)]
        #[inline(always)]
        fn #ident #generics(__tid: usize, __in_bounds: bool, __dims: &#rt::Dims, #(#params),* #(#acc_params)*) { #body }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Access;
    use crate::{Builder, Env};

    fn array(access: Access) -> Type {
        Type::Array {
            elem: Box::new(Type::F32),
            ndim: 1,
            access,
        }
    }

    fn param(name: &str, ty: Type) -> Param {
        Param {
            name: name.into(),
            ty,
            span: Span::call_site(),
            writable: false,
        }
    }

    /// `x[i] = x[i] + y[i + shift]`, plus `x[i - 1]` read when `neighbour`.
    fn kernel(neighbour: bool) -> Function {
        let env = Env::default();
        let s = Span::call_site();
        let params = vec![
            param("x", array(Access::Write)),
            param("y", array(Access::Read)),
            param("z", array(Access::Write)),
        ];
        let mut b = Builder::new(&env, "k", FnKind::Kernel, params, Type::Unit);
        let t = b.tid(1, s).unwrap()[0];
        let i = b.let_var("i", None, t, false).unwrap();
        let iv = b.read_var(i, s);
        let x = b.param(0, s);
        let xi = b.load(x, vec![iv], s).unwrap();
        let y = b.param(1, s);
        let one = b.lit_int(1, None, s).unwrap();
        let ip1 = b.binary(BinOp::Add, iv, one, s).unwrap();
        let yi = b.load(y, vec![ip1], s).unwrap();
        let mut sum = b.binary(BinOp::Add, xi, yi, s).unwrap();
        if neighbour {
            let im1 = b.binary(BinOp::Sub, iv, one, s).unwrap();
            let xn = b.load(x, vec![im1], s).unwrap();
            sum = b.binary(BinOp::Add, sum, xn, s).unwrap();
        }
        b.store(x, vec![iv], sum, s).unwrap();
        let z = b.param(2, s);
        let zero = b.lit_int(0, None, s).unwrap();
        b.atomic(AtomicOp::Add, z, vec![zero], sum, s).unwrap();
        b.finish(s).unwrap()
    }

    #[test]
    fn plain_access_only_where_race_free() {
        // x: written and read only at tid -> plain; y: read-only -> plain;
        // z: atomics at index 0 -> shared.
        let f = kernel(false);
        let mut u: Vec<_> = unsync_arrays(&f).into_iter().collect();
        u.sort();
        assert_eq!(u, vec![0, 1]);
        // Reading the neighbour x[i - 1] while others write x: x must stay atomic.
        let f = kernel(true);
        let mut u: Vec<_> = unsync_arrays(&f).into_iter().collect();
        u.sort();
        assert_eq!(u, vec![1]);
        let x = crate::access::ArraySource {
            param: 0,
            path: vec![],
        };
        assert_eq!(tid_indexed_arrays(&f), vec![x]);
    }

    #[test]
    fn emitted_kernel_uses_the_right_accessors() {
        let code = emit_kernel_body(&kernel(true), &format_ident!("body")).to_string();
        assert!(code.contains("read_unsync"), "{code}");
        assert!(!code.contains("write_unsync"), "{code}");
        assert!(code.contains("offset_tid"), "{code}");
        // z is only added into: an atomic and a plain-add variant.
        assert!(code.contains("const __PRIVATE"), "{code}");
        assert!(code.contains("add_plain"), "{code}");
        assert!(code.contains("atomic_add"), "{code}");
    }
}
