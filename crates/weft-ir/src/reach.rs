//! Which parts of its structure parameters a function can reach: the fields it
//! extracts and uses, directly or through the funcs it calls. A CPU launch
//! builds kernel views of only those arrays (a structure such as a simulation
//! model holds a hundred, a kernel reads a few), leaving the others null.
//!
//! Conservative: a structure value used in any way other than a field
//! extraction or a call of a func whose own reach is known (stored in a
//! variable, handed to a builtin, returned, rebuilt) counts as reached whole.

use std::collections::{BTreeSet, HashMap};

use crate::access::{ArraySource, array_sources};
use crate::ir::*;

/// What of one parameter a function reaches: paths of field indices (outermost
/// first), each reaching everything under it; the empty path is the whole
/// parameter. Empty: nothing.
pub type Reach = BTreeSet<Vec<u32>>;

/// Per parameter of `f`, what it reaches (see the module doc); `callee` gives a
/// func's own per-parameter reach by name (`None` for a func it does not know:
/// its structure arguments count as reached whole).
pub fn param_reach_with(f: &Function, callee: &dyn Fn(&str) -> Option<Vec<Reach>>) -> Vec<Reach> {
    let sources = array_sources(f, &f.body);
    let mut out = vec![Reach::new(); f.params.len()];
    walk(&f.body, &sources, callee, &mut out);
    out.iter_mut().for_each(prune);
    out
}

/// Marks `src`'s path (and with it everything below) reached.
fn mark(out: &mut [Reach], src: &ArraySource, extra: &[u32]) {
    let mut path = src.path.clone();
    path.extend_from_slice(extra);
    out[src.param].insert(path);
}

fn walk(
    b: &Block,
    sources: &HashMap<ValueId, ArraySource>,
    callee: &dyn Fn(&str) -> Option<Vec<Reach>>,
    out: &mut [Reach],
) {
    let uses = |vs: &[ValueId], out: &mut [Reach]| {
        for v in vs {
            if let Some(src) = sources.get(v) {
                mark(out, src, &[]);
            }
        }
    };
    for s in &b.0 {
        match s {
            // A field of a parameter's part: an array or structure is a part of
            // its own (tracked in `sources`, reached where it is used); any
            // other value is read here.
            Stmt::Def(v, Expr::Extract(a, k)) => {
                if let Some(src) = sources.get(a)
                    && !sources.contains_key(v)
                {
                    mark(out, src, &[*k]);
                }
            }
            Stmt::Def(_, Expr::Call { name, args, .. }) => match callee(name) {
                Some(reach) => {
                    for (i, a) in args.iter().enumerate() {
                        let Some(src) = sources.get(a) else { continue };
                        match reach.get(i) {
                            Some(r) => r.iter().for_each(|p| mark(out, src, p)),
                            None => mark(out, src, &[]),
                        }
                    }
                }
                None => uses(args, out),
            },
            Stmt::Def(_, e) => uses(&e.operands(), out),
            Stmt::Let(_, v) | Stmt::Assign(_, v) | Stmt::Return(Some(v)) => uses(&[*v], out),
            Stmt::Store(a, idx, v) => {
                uses(&[*a, *v], out);
                uses(idx, out);
            }
            Stmt::GradAdd(g, p, idx, v) => {
                uses(&[*g, *p, *v], out);
                uses(idx, out);
            }
            Stmt::If(c, x, y) => {
                uses(&[*c], out);
                walk(x, sources, callee, out);
                walk(y, sources, callee, out);
            }
            Stmt::For(_, lo, hi, body) | Stmt::ForRev(_, lo, hi, body) => {
                uses(&[*lo, *hi], out);
                walk(body, sources, callee, out);
            }
            Stmt::While(c, v, body) => {
                uses(&[*v], out);
                walk(c, sources, callee, out);
                walk(body, sources, callee, out);
            }
            Stmt::Save(vs) => uses(vs, out),
            Stmt::LocalArray(_, v) => uses(&[*v], out),
            Stmt::LocalStore(_, i, v) => uses(&[*i, *v], out),
            Stmt::Declare(_)
            | Stmt::Break
            | Stmt::Continue
            | Stmt::Return(None)
            | Stmt::Restore(_) => {}
        }
    }
}

/// Drops the paths that a shorter path in the set already covers.
fn prune(r: &mut Reach) {
    let all: Vec<Vec<u32>> = r.iter().cloned().collect();
    r.retain(|p| !all.iter().any(|q| q.len() < p.len() && p.starts_with(q)));
}
