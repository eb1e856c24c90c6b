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
/// order (see [`array_accesses_with`] for the arrays funcs use).
pub fn array_accesses(f: &Function) -> Vec<ArrayAccess> {
    array_accesses_with(f, &|_| None)
}

/// Every array `f` loads from or writes to, in parameter and field order,
/// including what the funcs it calls do with the arrays it hands them: `callee`
/// gives a func's own accesses by name (by the func's parameters, as this function
/// returns them for `f`; `None` for a func it does not know).
pub fn array_accesses_with(
    f: &Function,
    callee: &dyn Fn(&str) -> Option<Vec<ArrayAccess>>,
) -> Vec<ArrayAccess> {
    /// Per source: read, written, written other than by add/sub, the array's type.
    type Found = BTreeMap<ArraySource, (bool, bool, bool, Type)>;
    #[derive(Clone, Copy)]
    enum Access {
        Read,
        Accumulate,
        Overwrite,
    }
    fn note(found: &mut Found, src: ArraySource, ty: &Type, how: Access) {
        let e = found
            .entry(src)
            .or_insert_with(|| (false, false, false, ty.clone()));
        match how {
            Access::Read => e.0 = true,
            Access::Accumulate => e.1 = true,
            Access::Overwrite => (e.1, e.2) = (true, true),
        }
    }
    struct Walk<'a> {
        f: &'a Function,
        sources: HashMap<ValueId, ArraySource>,
        callee: &'a dyn Fn(&str) -> Option<Vec<ArrayAccess>>,
        found: Found,
    }
    impl Walk<'_> {
        fn direct(&mut self, a: &ValueId, how: Access) {
            if let Some(src) = self.sources.get(a) {
                note(&mut self.found, src.clone(), self.f.ty(*a), how);
            }
        }
        fn walk(&mut self, b: &Block) {
            for s in &b.0 {
                match s {
                    Stmt::Def(_, Expr::Load(a, _)) => self.direct(a, Access::Read),
                    Stmt::Def(_, Expr::Atomic(AtomicOp::Add | AtomicOp::Sub, a, _, _)) => {
                        self.direct(a, Access::Accumulate)
                    }
                    Stmt::Def(_, Expr::Atomic(_, a, _, _)) | Stmt::Store(a, _, _) => {
                        self.direct(a, Access::Overwrite)
                    }
                    // The func's accesses through its parameters, moved onto the
                    // arguments (an array, or a structure holding arrays).
                    Stmt::Def(_, Expr::Call { name, args, .. }) => {
                        for acc in (self.callee)(name).into_iter().flatten() {
                            let Some(src) =
                                args.get(acc.source.param).and_then(|a| self.sources.get(a))
                            else {
                                continue;
                            };
                            let mut src = src.clone();
                            src.path.extend(&acc.source.path);
                            let hows = [
                                (acc.read, Access::Read),
                                (acc.accumulated, Access::Accumulate),
                                (acc.written && !acc.accumulated, Access::Overwrite),
                            ];
                            for (_, how) in hows.into_iter().filter(|(on, _)| *on) {
                                note(&mut self.found, src.clone(), &acc.ty, how);
                            }
                        }
                    }
                    Stmt::If(_, x, y) | Stmt::While(x, _, y) => {
                        self.walk(x);
                        self.walk(y);
                    }
                    Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => self.walk(body),
                    _ => {}
                }
            }
        }
    }
    let mut w = Walk {
        f,
        sources: array_sources(f, &f.body),
        callee,
        found: BTreeMap::new(),
    };
    w.walk(&f.body);
    w.found
        .into_iter()
        .map(|(source, (read, written, overwritten, ty))| ArrayAccess {
            fields: field_names(f, &source),
            ty,
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
