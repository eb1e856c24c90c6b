//! Gradient arrays handed down to the adjoints of funcs, and the places where a
//! func would differentiate through an array its caller has no gradient array for.
//!
//! A func's adjoint takes a gradient array for each of its float array parameters,
//! and a structure of gradient arrays for each structure parameter holding float
//! arrays (see [`Adjoint::function`]). A kernel hands down the gradient arrays of
//! its parameters; a func hands on those it received. An array in a local
//! structure has none, and a null array goes down instead: [`lost_gradients`]
//! finds where a func then uses it, which must be refused.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::adjoint::Adjoint;
use crate::access::ArraySource;

/// The gradient arrays handed to a func's adjoint for one of its parameters: an
/// array of floats, or a structure holding such arrays (handed as a structure of
/// their gradient arrays).
#[derive(Clone, Debug, PartialEq)]
pub struct HandedGrad {
    /// The func called.
    pub func: String,
    /// Its parameter.
    pub param: usize,
    /// Where the gradient arrays come from.
    pub from: GradFrom,
    /// The float arrays in the argument: their field paths within it (empty for an
    /// array argument) and how the caller names them (for messages: "array
    /// `state.x`").
    pub arrays: Vec<(Vec<u32>, String)>,
}

/// Where the gradient arrays of an argument come from.
#[derive(Clone, Debug, PartialEq)]
pub enum GradFrom {
    /// A kernel's gradient arrays (of a parameter, or a field of one).
    Kernel,
    /// The gradient arrays of a func's own parameter, or of a field of it.
    Param(ArraySource),
    /// None: the argument is (in) a local structure, whose arrays carry no gradient
    /// arrays, and null arrays are handed on.
    Missing,
}

/// Why gradient would be lost in `root` (a kernel's or func's adjoint) or in the
/// funcs it calls: each place where a null gradient array is handed to a func whose
/// adjoint uses it (directly, or by handing it on to a func that does).
/// `adjoint_of` gives a func's adjoint by name; a func it does not know (one with a
/// user-written adjoint, say) counts as using every gradient array.
pub fn lost_gradients(root: &Adjoint, adjoint_of: &dyn Fn(&str) -> Option<Adjoint>) -> Vec<String> {
    let mut memo = HashMap::new();
    let mut out = BTreeSet::new();
    let mut seen = HashSet::new();
    let mut todo = vec![(None, root.clone())];
    while let Some((name, a)) = todo.pop() {
        for h in a.handed.iter().filter(|h| h.from == GradFrom::Missing) {
            for (path, label) in &h.arrays {
                let src = ArraySource {
                    param: h.param,
                    path: path.clone(),
                };
                if uses(&h.func, &src, adjoint_of, &mut memo) {
                    let at = match &name {
                        Some(n) => format!("func `{n}` hands"),
                        None => "it hands".into(),
                    };
                    out.insert(format!(
                        "{at} {label} to func `{}`, which differentiates through it, but the array has no gradient array there (structures built in a kernel or func carry none); hand the func the parameter's array or structure",
                        h.func
                    ));
                }
            }
        }
        for f in a.calls.iter().chain(a.handed.iter().map(|h| &h.func)) {
            if seen.insert(f.clone())
                && let Some(next) = adjoint_of(f)
            {
                todo.push((Some(f.clone()), next));
            }
        }
    }
    out.into_iter().collect()
}

/// Whether func `func`'s adjoint uses the gradient array of its parameter array
/// `src`, directly or through the funcs it hands it to.
fn uses(
    func: &str,
    src: &ArraySource,
    adjoint_of: &dyn Fn(&str) -> Option<Adjoint>,
    memo: &mut HashMap<(String, ArraySource), bool>,
) -> bool {
    let key = (func.to_string(), src.clone());
    if let Some(u) = memo.get(&key) {
        return *u;
    }
    let u = match adjoint_of(func) {
        None => true,
        Some(a) => {
            a.grad_uses.contains(src)
                || a.handed.iter().any(|h| match &h.from {
                    GradFrom::Param(p) if p.param == src.param && src.path.starts_with(&p.path) => {
                        let inner = ArraySource {
                            param: h.param,
                            path: src.path[p.path.len()..].to_vec(),
                        };
                        uses(&h.func, &inner, adjoint_of, memo)
                    }
                    _ => false,
                })
        }
    };
    memo.insert(key, u);
    u
}
