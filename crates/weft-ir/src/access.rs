//! Which arrays a kernel reads and writes, including arrays inside structure
//! parameters (`model.x`): the tape stamps them for its overwrite check, gives
//! written arrays gradients, and the adjoint finds their gradient arrays.

use std::collections::{BTreeMap, HashMap};

use crate::ir::*;
use crate::types::Type;

/// Where an array value comes from: a parameter, then a path of field indices
/// through nested structures (empty for an array parameter itself).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArraySource {
    /// The parameter's index.
    pub param: usize,
    /// Field indices, outermost first.
    pub path: Vec<u32>,
}

/// How a kernel uses one array.
#[derive(Clone, Debug)]
pub struct ArrayAccess {
    /// Where the array comes from.
    pub source: ArraySource,
    /// Field names along the path (`["x"]` for `model.x`).
    pub fields: Vec<String>,
    /// The array's type.
    pub ty: Type,
    /// Loaded from.
    pub read: bool,
    /// Stored to or updated atomically.
    pub written: bool,
    /// Written only by `atomic_add` / `atomic_sub` (never by a plain store, a
    /// min or a max): a pure accumulator, whose gradient no adjoint consumes.
    pub accumulated: bool,
}

impl ArrayAccess {
    /// The name users know the array by: `x`, or `model.x` inside a structure.
    pub fn label(&self, f: &Function) -> String {
        let mut s = f.params[self.source.param].name.clone();
        for n in &self.fields {
            s.push('.');
            s.push_str(n);
        }
        s
    }

    /// Whether its elements carry gradients (floats, vectors, matrices…).
    pub fn differentiable(&self) -> bool {
        matches!(&self.ty, Type::Array { elem, .. } if elem.is_float_based())
    }
}

/// The SSA values that name a parameter or a part of one (arrays and structures
/// reached from parameters through field extraction), anywhere in `b`.
pub fn array_sources(f: &Function, b: &Block) -> HashMap<ValueId, ArraySource> {
    fn walk(f: &Function, b: &Block, out: &mut HashMap<ValueId, ArraySource>) {
        for s in &b.0 {
            match s {
                Stmt::Def(v, Expr::Param(i)) if holds_arrays(f.ty(*v)) => {
                    out.insert(
                        *v,
                        ArraySource {
                            param: *i,
                            path: vec![],
                        },
                    );
                }
                Stmt::Def(v, Expr::Extract(s, k)) if holds_arrays(f.ty(*v)) => {
                    if let Some(src) = out.get(s).cloned() {
                        let mut path = src.path;
                        path.push(*k);
                        out.insert(
                            *v,
                            ArraySource {
                                param: src.param,
                                path,
                            },
                        );
                    }
                }
                Stmt::If(_, a, c) => {
                    walk(f, a, out);
                    walk(f, c, out);
                }
                Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => walk(f, body, out),
                Stmt::While(c, _, body) => {
                    walk(f, c, out);
                    walk(f, body, out);
                }
                _ => {}
            }
        }
    }
    fn holds_arrays(t: &Type) -> bool {
        matches!(t, Type::Array { .. } | Type::Struct(_))
    }
    let mut out = HashMap::new();
    walk(f, b, &mut out);
    out
}

/// Every array a kernel's body loads from or writes to, in parameter and field
/// order.
pub fn array_accesses(f: &Function) -> Vec<ArrayAccess> {
    let sources = array_sources(f, &f.body);
    // Per source: read, written, written other than by add/sub, a value naming it.
    let mut found: BTreeMap<ArraySource, (bool, bool, bool, ValueId)> = BTreeMap::new();
    let mut note = |a: &ValueId, how: Access| {
        if let Some(src) = sources.get(a) {
            let e = found
                .entry(src.clone())
                .or_insert((false, false, false, *a));
            match how {
                Access::Read => e.0 = true,
                Access::Accumulate => e.1 = true,
                Access::Overwrite => (e.1, e.2) = (true, true),
            }
        }
    };
    #[derive(Clone, Copy)]
    enum Access {
        Read,
        Accumulate,
        Overwrite,
    }
    fn walk(b: &Block, note: &mut dyn FnMut(&ValueId, Access)) {
        for s in &b.0 {
            match s {
                Stmt::Def(_, Expr::Load(a, _)) => note(a, Access::Read),
                Stmt::Def(_, Expr::Atomic(AtomicOp::Add | AtomicOp::Sub, a, _, _)) => {
                    note(a, Access::Accumulate)
                }
                Stmt::Def(_, Expr::Atomic(_, a, _, _)) | Stmt::Store(a, _, _) => {
                    note(a, Access::Overwrite)
                }
                Stmt::If(_, x, y) => {
                    walk(x, note);
                    walk(y, note);
                }
                Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => walk(body, note),
                Stmt::While(c, _, body) => {
                    walk(c, note);
                    walk(body, note);
                }
                _ => {}
            }
        }
    }
    walk(&f.body, &mut note);
    found
        .into_iter()
        .map(|(source, (read, written, overwritten, v))| ArrayAccess {
            fields: field_names(f, &source),
            ty: f.ty(v).clone(),
            source,
            read,
            written,
            accumulated: written && !overwritten,
        })
        .collect()
}

/// The field names along a source's path.
pub fn field_names(f: &Function, src: &ArraySource) -> Vec<String> {
    let mut names = Vec::new();
    let mut t = f.params[src.param].ty.clone();
    for k in &src.path {
        let Type::Struct(s) = &t else { break };
        let Some(def) = f.structs.get(s) else { break };
        let (n, ft) = def.fields[*k as usize].clone();
        names.push(n);
        t = ft;
    }
    names
}
