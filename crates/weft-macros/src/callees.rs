//! What a kernel learns from the funcs it calls: their IR, the arrays they access,
//! whether their adjoints are sound, whether they use `fma`.

use std::collections::HashMap;

use weft_ir::{Env, Error, FnKind};

use crate::chain::Def;
use crate::defs::CUSTOM_ADJOINT_MARK;
use crate::infer::lower_fn;

/// The funcs a kernel may call, lowered to IR, by name (funcs with a user-supplied
/// adjoint excluded: their derivative is Rust code).
pub fn dep_funcs(
    env: &Env,
    defs: &[(Def, syn::Item)],
) -> Result<HashMap<String, weft_ir::Function>, Error> {
    let mut funcs = HashMap::new();
    for (_, item) in defs {
        if let syn::Item::Fn(f) = item {
            if f.attrs
                .iter()
                .any(|a| a.path().is_ident(CUSTOM_ADJOINT_MARK))
            {
                continue;
            }
            let mut env = env.clone();
            env.funcs.remove(&f.sig.ident.to_string());
            funcs.insert(f.sig.ident.to_string(), lower_fn(&env, f, FnKind::Func)?);
        }
    }
    Ok(funcs)
}

/// The arrays func `name` accesses through its parameters (and those of the funcs
/// it calls in turn), or `None` for a func not among `funcs`.
pub fn func_accesses(
    funcs: &HashMap<String, weft_ir::Function>,
    name: &str,
) -> Option<Vec<weft_ir::access::ArrayAccess>> {
    let f = funcs.get(name)?;
    Some(weft_ir::access::array_accesses_with(f, &|n| {
        func_accesses(funcs, n)
    }))
}

/// What of each of its parameters func `name` reaches, through the funcs it
/// calls too ([`weft_ir::reach`]), memoised in `cache`.
pub fn func_reach(
    funcs: &HashMap<String, weft_ir::Function>,
    name: &str,
    cache: &std::cell::RefCell<HashMap<String, Vec<weft_ir::reach::Reach>>>,
) -> Option<Vec<weft_ir::reach::Reach>> {
    if let Some(r) = cache.borrow().get(name) {
        return Some(r.clone());
    }
    let f = funcs.get(name)?;
    let r = weft_ir::reach::param_reach_with(f, &|n| func_reach(funcs, n, cache));
    cache.borrow_mut().insert(name.to_string(), r.clone());
    Some(r)
}

/// Why the adjoints of the funcs a kernel calls (directly or through other funcs)
/// would be wrong, prefixed with the func's name: the funcs whose adjoints matter
/// to it ([`weft_ir::autodiff::Adjoint::calls`]), and theirs in turn.
///
/// Also where gradient would be lost between them: a null gradient array handed
/// to a func that differentiates through the array
/// ([`weft_ir::autodiff::lost_gradients`]).
pub fn func_adjoint_blockers(
    funcs: &HashMap<String, weft_ir::Function>,
    kernel: &weft_ir::autodiff::Adjoint,
) -> Vec<String> {
    let cache = std::cell::RefCell::new(HashMap::new());
    let adjoint_of = |name: &str| {
        if let Some(a) = cache.borrow().get(name) {
            return Some(Clone::clone(a));
        }
        let a = weft_ir::autodiff::adjoint_with(funcs.get(name)?, &|n| func_accesses(funcs, n));
        cache.borrow_mut().insert(name.to_string(), a.clone());
        Some(a)
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut todo: Vec<String> = kernel.calls.clone();
    todo.extend(kernel.handed.iter().map(|h| h.func.clone()));
    let mut out = Vec::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(adj) = adjoint_of(&name) {
            for b in adj.blockers {
                out.push(format!("func `{name}`: {b}"));
            }
            todo.extend(adj.calls);
            todo.extend(adj.handed.iter().map(|h| h.func.clone()));
        }
    }
    out.extend(weft_ir::autodiff::lost_gradients(kernel, &adjoint_of));
    out
}

/// Whether kernel `f`, or a func it calls (directly or through others), uses the
/// `fma` builtin.
pub fn uses_fma(f: &weft_ir::Function, funcs: &HashMap<String, weft_ir::Function>) -> bool {
    use weft_ir::{Block, Expr, Stmt};
    fn walk(b: &Block, calls: &mut Vec<String>) -> bool {
        b.0.iter().any(|s| match s {
            Stmt::Def(_, Expr::Builtin("fma", _)) => true,
            Stmt::Def(_, Expr::Call { name, .. }) => {
                calls.push(name.clone());
                false
            }
            Stmt::If(_, a, c) => walk(a, calls) | walk(c, calls),
            Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => walk(body, calls),
            Stmt::While(c, _, body) => walk(c, calls) | walk(body, calls),
            _ => false,
        })
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = Vec::new();
    if walk(&f.body, &mut todo) {
        return true;
    }
    while let Some(name) = todo.pop() {
        if seen.insert(name.clone())
            && let Some(g) = funcs.get(&name)
            && walk(&g.body, &mut todo)
        {
            return true;
        }
    }
    false
}
