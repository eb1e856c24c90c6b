//! Expressions: literals, operators, casts, composite values, builtins, atomics and
//! the adjoint rules of operators, scalarized.

use super::algebra as al;
use super::build::B;
use super::emitter::{Em, Frame, Res};
use super::layout::{self, Comp};
use super::regs::{Class, Reg, bits, float_lit, ty};
use crate::ir::*;
use crate::types::{Scalar, Type};

pub(super) fn scalar_of(t: &Type) -> Res<Scalar> {
    t.scalar()
        .ok_or_else(|| format!("internal: `{t}` has no scalar type"))
}

impl Em<'_> {
    pub(super) fn expr(&mut self, fr: &mut Frame, e: &Expr, t: &Type) -> Res<Vec<Reg>> {
        Ok(match e {
            Expr::Lit(l) => vec![self.lit(*l)],
            Expr::LocalLoad(var, i) => self.local_load(fr, *var, *i)?,
            Expr::Param(i) => fr_param(fr, *i),
            Expr::Var(var) => {
                let src = fr_var(self, fr, *var);
                let comps = self.flat(fr, t);
                let dst = self.fresh(&comps);
                for (d, s) in dst.iter().zip(src) {
                    self.mov(*d, s);
                }
                dst
            }
            Expr::Unary(op, a) => {
                let at = fr.ty(*a).clone();
                let a = fr.get(*a)?;
                let s = scalar_of(&at)?;
                a.into_iter().map(|r| self.unary(*op, s, r)).collect()
            }
            Expr::Binary(op, a, b) => {
                let (ta, tb) = (fr.ty(*a).clone(), fr.ty(*b).clone());
                let (a, b) = (fr.get(*a)?, fr.get(*b)?);
                self.binary(fr, *op, &ta, &a, &tb, &b)?
            }
            Expr::Cast(a, to) => {
                let from = scalar_of(fr.ty(*a))?;
                let a = fr.get(*a)?[0];
                vec![self.cast(a, from, *to)]
            }
            Expr::Construct(_, parts) => {
                let mut out = Vec::new();
                for p in parts {
                    out.extend(fr.get(*p)?);
                }
                out
            }
            Expr::Splat(_, x) => {
                let x = fr.get(*x)?[0];
                let n = self.flat(fr, t).len();
                vec![x; n]
            }
            Expr::Extract(v, i) => {
                let vt = fr.ty(*v).clone();
                let regs = fr.get(*v)?;
                let ranges = layout::part_ranges(&vt, &fr.f.structs);
                let (_, r) = ranges
                    .get(*i as usize)
                    .ok_or("internal: part index out of range")?;
                regs[r.clone()].to_vec()
            }
            Expr::Insert(v, i, x) => {
                let vt = fr.ty(*v).clone();
                let mut regs = fr.get(*v)?;
                let ranges = layout::part_ranges(&vt, &fr.f.structs);
                let (_, r) = ranges
                    .get(*i as usize)
                    .ok_or("internal: part index out of range")?;
                let x = fr.get(*x)?;
                regs.splice(r.clone(), x);
                regs
            }
            Expr::DynIndex(v, i) => {
                let regs = fr.get(*v)?;
                let i = fr.get(*i)?[0];
                vec![self.select_index(&regs, i)]
            }
            Expr::DynInsert(v, i, x) => {
                let regs = fr.get(*v)?;
                let i = fr.get(*i)?[0];
                let x = fr.get(*x)?[0];
                self.insert_index(&regs, i, x)
            }
            Expr::MatElem(m, r, c) => {
                let Type::Matrix(n, _) = fr.ty(*m).clone() else {
                    return Err("internal: element of a non-matrix".into());
                };
                let regs = fr.get(*m)?;
                let k = self.mat_index(fr.get(*r)?[0], fr.get(*c)?[0], n);
                vec![self.select_index(&regs, k)]
            }
            Expr::MatInsert(m, r, c, x) => {
                let Type::Matrix(n, _) = fr.ty(*m).clone() else {
                    return Err("internal: element of a non-matrix".into());
                };
                let regs = fr.get(*m)?;
                let k = self.mat_index(fr.get(*r)?[0], fr.get(*c)?[0], n);
                let x = fr.get(*x)?[0];
                self.insert_index(&regs, k, x)
            }
            Expr::Load(arr, idx) => {
                let addr = self.address(fr, *arr, idx)?;
                let nc = self.read_only.contains(&fr.get(*arr)?[0]);
                self.load(fr, t, addr, nc)
            }
            Expr::Len(arr, d) => {
                let a = fr.get(*arr)?;
                match d {
                    Some(d) => vec![a[1 + *d as usize]],
                    None => {
                        let r = self.c.reg(Class::B32);
                        self.c.ins(format!("mov.b32 {r}, 1"));
                        for e in &a[1..] {
                            self.c.ins(format!("mul.lo.s32 {r}, {r}, {e}"));
                        }
                        vec![r]
                    }
                }
            }
            Expr::Atomic(op, arr, idx, v) => {
                let vt = fr.ty(*v).clone();
                let addr = self.address(fr, *arr, idx)?;
                let val = fr.get(*v)?;
                match op {
                    AtomicOp::Add => self.atomic_add_elem(fr, &vt, addr, &val, true),
                    AtomicOp::Sub => {
                        let s = scalar_of(&vt)?;
                        let neg: Vec<_> = val
                            .into_iter()
                            .map(|r| self.unary(UnOp::Neg, s, r))
                            .collect();
                        self.atomic_add_elem(fr, &vt, addr, &neg, true)
                    }
                    AtomicOp::Min | AtomicOp::Max => {
                        self.atomic_minmax(fr, *op, &vt, addr, &val)?
                    }
                }
            }
            Expr::Tid(d) => vec![self.tid(*d)],
            Expr::Zero(zt) => {
                let comps = self.flat(fr, zt);
                let regs = self.fresh(&comps);
                for (r, c) in regs.iter().zip(&comps) {
                    let z = match c {
                        Comp::Scalar(Scalar::Bool) => {
                            self.c.ins(format!("setp.ne.b32 {r}, 0, 0"));
                            continue;
                        }
                        // The additive identity of adjoints (`-0.0 + x == x`).
                        Comp::Scalar(Scalar::F32) => float_lit(-0.0, Scalar::F32),
                        Comp::Scalar(Scalar::F64) => float_lit(-0.0, Scalar::F64),
                        _ => "0".into(),
                    };
                    self.c.ins(format!("mov.{} {r}, {z}", cls_bits(r.class)));
                }
                regs
            }
            Expr::Accum(a, b) => {
                let at = fr.ty(*a).clone();
                let (a, b) = (fr.get(*a)?, fr.get(*b)?);
                let comps = self.flat(fr, &at);
                let mut out = Vec::new();
                for ((x, y), c) in a.into_iter().zip(b).zip(comps) {
                    match c {
                        Comp::Scalar(s) if s.is_float() => {
                            out.push(self.arith("add", s, x, y));
                        }
                        _ => out.push(x),
                    }
                }
                out
            }
            Expr::Builtin(name, args) => self.builtin(fr, name, args, t)?,
            Expr::Call { name, args, .. } => self.call(fr, name, args, t, false)?,
            Expr::FuncAdjoint { name, args, .. } => self.call(fr, name, args, t, true)?,
            Expr::Adjoint(name, args) => self.adjoint_rule(fr, name, args, t)?,
            Expr::GradRead(g, _p, idx, take) => {
                let garr = fr.get(*g)?;
                let comps = self.flat(fr, t);
                let out = self.fresh(&comps);
                for (r, c) in out.iter().zip(&comps) {
                    // No gradient array: the additive identity of adjoints.
                    let z = match c {
                        Comp::Scalar(s) if s.is_float() => float_lit(-0.0, *s),
                        _ => "0".into(),
                    };
                    self.c.ins(format!("mov.{} {r}, {z}", cls_bits(r.class)));
                }
                let skip = self.c.label("nograd");
                let p = self.c.reg(Class::Pred);
                self.c.ins(format!("setp.eq.u64 {p}, {}, 0", garr[0]));
                self.c.ins(format!("@{p} bra {skip}"));
                let addr = self.address(fr, *g, idx)?;
                let got = self.load(fr, t, addr, false);
                for (d, s) in out.iter().zip(&got) {
                    self.mov(*d, *s);
                }
                if *take {
                    let zeros: Vec<Reg> = comps
                        .iter()
                        .map(|c| {
                            let Comp::Scalar(s) = c else { unreachable!() };
                            let z = self.c.reg(Class::of(*s));
                            self.c
                                .ins(format!("mov.{} {z}, {}", bits(*s), float_lit(0.0, *s)));
                            z
                        })
                        .collect();
                    self.store(fr, t, addr, &zeros);
                }
                self.c.place(&skip);
                out
            }
            Expr::Rng(name, var, args) => {
                let args: Vec<Reg> = args
                    .iter()
                    .map(|v| Ok(fr.get(*v)?[0]))
                    .collect::<Res<_>>()?;
                self.rng(fr, name, *var, &args)?
            }
        })
    }

    fn lit(&mut self, l: Lit) -> Reg {
        match l {
            Lit::Bool(b) => {
                let p = self.c.reg(Class::Pred);
                self.c.ins(format!(
                    "setp.{}.b32 {p}, 0, 0",
                    if b { "eq" } else { "ne" }
                ));
                p
            }
            Lit::Int(v, s) => {
                let r = self.c.reg(Class::of(s));
                let v = match s {
                    Scalar::I32 => (v as i32) as i64 as i128,
                    Scalar::U32 => (v as u32) as i128,
                    Scalar::I64 => (v as i64) as i128,
                    _ => (v as u64) as i128,
                };
                self.c.ins(format!("mov.{} {r}, {v}", bits(s)));
                r
            }
            Lit::Float(x, s) => {
                let r = self.c.reg(Class::of(s));
                self.c
                    .ins(format!("mov.{} {r}, {}", bits(s), float_lit(x, s)));
                r
            }
        }
    }

    pub(super) fn flit(&mut self, x: f64, s: Scalar) -> Reg {
        self.lit(Lit::Float(x, s))
    }

    pub(super) fn unary(&mut self, op: UnOp, s: Scalar, a: Reg) -> Reg {
        let r = self.c.reg(a.class);
        match (op, s) {
            (UnOp::Neg, s) => self.c.ins(format!("neg.{} {r}, {a}", ty(s))),
            (UnOp::Not, Scalar::Bool) => self.c.ins(format!("not.pred {r}, {a}")),
            (UnOp::Not, s) => self.c.ins(format!("not.{} {r}, {a}", bits(s))),
        }
        r
    }

    /// A scalar arithmetic instruction; floats round to nearest (never fused).
    pub(super) fn arith(&mut self, op: &str, s: Scalar, a: Reg, b: Reg) -> Reg {
        let r = self.c.reg(Class::of(s));
        let ins = match (op, s.is_float()) {
            ("add" | "sub" | "mul" | "div", true) => format!("{op}.rn.{} {r}, {a}, {b}", ty(s)),
            ("mul", false) => format!("mul.lo.{} {r}, {a}, {b}", ty(s)),
            ("min" | "max", _) => format!("{op}.{} {r}, {a}, {b}", ty(s)),
            (op, _) => format!("{op}.{} {r}, {a}, {b}", ty(s)),
        };
        self.c.ins(ins);
        r
    }

    fn scalar_binary(&mut self, op: BinOp, s: Scalar, a: Reg, b: Reg) -> Res<Reg> {
        use BinOp::*;
        Ok(match op {
            Add => self.arith("add", s, a, b),
            Sub => self.arith("sub", s, a, b),
            Mul => self.arith("mul", s, a, b),
            Div => self.arith("div", s, a, b),
            Rem if s.is_int() => self.arith("rem", s, a, b),
            Rem => self.fmod(s, a, b),
            BitAnd | BitOr | BitXor => {
                let name = match op {
                    BitAnd => "and",
                    BitOr => "or",
                    _ => "xor",
                };
                let r = self.c.reg(a.class);
                self.c.ins(format!("{name}.{} {r}, {a}, {b}", bits(s)));
                r
            }
            Shl | Shr => {
                // PTX shift amounts are u32.
                let amount = match b.class {
                    Class::B64 => {
                        let t = self.c.reg(Class::B32);
                        self.c.ins(format!("cvt.u32.u64 {t}, {b}"));
                        t
                    }
                    _ => b,
                };
                let r = self.c.reg(a.class);
                let ins = match (op, s) {
                    (Shl, _) => format!("shl.{} {r}, {a}, {amount}", bits(s)),
                    (_, Scalar::I32 | Scalar::I64) => format!("shr.{} {r}, {a}, {amount}", ty(s)),
                    _ => format!("shr.{} {r}, {a}, {amount}", ty(s)),
                };
                self.c.ins(ins);
                r
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let p = self.c.reg(Class::Pred);
                if s == Scalar::Bool {
                    // a == b is !(a ^ b).
                    let x = self.c.reg(Class::Pred);
                    self.c.ins(format!("xor.pred {x}, {a}, {b}"));
                    match op {
                        Eq => self.c.ins(format!("not.pred {p}, {x}")),
                        Ne => return Ok(x),
                        _ => return Err("ordering comparisons of `bool`".into()),
                    }
                    return Ok(p);
                }
                let cmp = match op {
                    Eq => "eq",
                    Ne if s.is_float() => "neu",
                    Ne => "ne",
                    Lt => "lt",
                    Le => "le",
                    Gt => "gt",
                    _ => "ge",
                };
                self.c.ins(format!("setp.{cmp}.{} {p}, {a}, {b}", ty(s)));
                p
            }
        })
    }

    fn binary(
        &mut self,
        fr: &Frame,
        op: BinOp,
        ta: &Type,
        a: &[Reg],
        tb: &Type,
        b: &[Reg],
    ) -> Res<Vec<Reg>> {
        use Type as T;
        let s = scalar_of(ta).or_else(|_| scalar_of(tb))?;
        if op == BinOp::Rem && s.is_float() {
            // Rust's `%` per component; glam's SSE2 `Vec4 % Vec4` floors the quotient.
            let vec4 = super::builtins::is_vec4_f32(ta);
            let bb = if b.len() == 1 {
                vec![b[0]; a.len()]
            } else {
                b.to_vec()
            };
            return Ok(a
                .iter()
                .zip(&bb)
                .map(|(x, y)| {
                    if vec4 {
                        self.floor_rem(*x, *y)
                    } else {
                        self.fmod(s, *x, *y)
                    }
                })
                .collect());
        }
        let comp = |em: &mut Self, a: &[Reg], b: &[Reg]| -> Res<Vec<Reg>> {
            a.iter()
                .zip(b)
                .map(|(x, y)| em.scalar_binary(op, s, *x, *y))
                .collect()
        };
        if op.is_comparison() {
            if a.len() == 1 {
                return Ok(vec![self.scalar_binary(op, s, a[0], b[0])?]);
            }
            // Composite equality: all components equal (or any differs).
            let eqs = comp(self, a, b)?;
            let mut acc = eqs[0];
            for e in &eqs[1..] {
                let r = self.c.reg(Class::Pred);
                let how = if op == BinOp::Eq { "and" } else { "or" };
                self.c.ins(format!("{how}.pred {r}, {acc}, {e}"));
                acc = r;
            }
            return Ok(vec![acc]);
        }
        Ok(match (ta, tb) {
            (T::Scalar(_), T::Scalar(_)) => vec![self.scalar_binary(op, s, a[0], b[0])?],
            _ if ta == tb
                && matches!(
                    (op, ta),
                    (BinOp::Add | BinOp::Sub, _)
                        | (BinOp::Mul | BinOp::Div | BinOp::Rem, T::Vector(..))
                ) =>
            {
                comp(self, a, b)?
            }
            (_, T::Scalar(_)) if matches!(op, BinOp::Mul | BinOp::Div | BinOp::Rem) => {
                let bb = vec![b[0]; a.len()];
                comp(self, a, &bb)?
            }
            (T::Scalar(_), _) if op == BinOp::Mul => {
                let aa = vec![a[0]; b.len()];
                comp(self, &aa, b)?
            }
            (T::Matrix(n, _), T::Vector(..)) => self.mat_vec(*n as usize, s, a, b),
            (T::Matrix(n, _), T::Matrix(..)) => {
                let n = *n as usize;
                let mut out = Vec::new();
                for c in 0..n {
                    out.extend(self.mat_vec(n, s, a, &b[c * n..(c + 1) * n]));
                }
                out
            }
            (T::Quat(_), T::Quat(_)) => al::quat_mul(&B::new(self, fr, s), a, b),
            (T::Quat(_), T::Vector(3, _)) => al::quat_rotate(&B::new(self, fr, s), a, b),
            (T::Transform(_), T::Transform(_)) => al::transform_mul(&B::new(self, fr, s), a, b),
            (T::SpatialMatrix(_), T::SpatialVector(_)) => {
                al::spatial_mat_vec(&B::new(self, fr, s), a, b)
            }
            (T::SpatialMatrix(_), T::SpatialMatrix(_)) => {
                al::spatial_mat_mat(&B::new(self, fr, s), a, b)
            }
            _ => {
                return Err(format!(
                    "operator `{}` on `{ta}` and `{tb}` is not supported on CUDA yet",
                    op.symbol()
                ));
            }
        })
    }

    /// Column-major `m * v`.
    fn mat_vec(&mut self, n: usize, s: Scalar, m: &[Reg], v: &[Reg]) -> Vec<Reg> {
        (0..n)
            .map(|row| {
                let mut acc = self.arith("mul", s, m[row], v[0]);
                for c in 1..n {
                    let p = self.arith("mul", s, m[c * n + row], v[c]);
                    acc = self.arith("add", s, acc, p);
                }
                acc
            })
            .collect()
    }

    pub(super) fn cross(&mut self, s: Scalar, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        (0..3)
            .map(|k| {
                let (i, j) = ((k + 1) % 3, (k + 2) % 3);
                let x = self.arith("mul", s, a[i], b[j]);
                let y = self.arith("mul", s, a[j], b[i]);
                self.arith("sub", s, x, y)
            })
            .collect()
    }

    pub(super) fn dot(&mut self, s: Scalar, a: &[Reg], b: &[Reg]) -> Reg {
        let mut acc = self.arith("mul", s, a[0], b[0]);
        for k in 1..a.len() {
            let p = self.arith("mul", s, a[k], b[k]);
            acc = self.arith("add", s, acc, p);
        }
        acc
    }

    pub(super) fn cast(&mut self, a: Reg, from: Scalar, to: Scalar) -> Reg {
        use Scalar::*;
        let r = self.c.reg(Class::of(to));
        match (from, to) {
            _ if from == to => self.mov(r, a),
            (Bool, _) => {
                let (one, zero) = if to.is_float() {
                    (float_lit(1.0, to), float_lit(0.0, to))
                } else {
                    ("1".into(), "0".into())
                };
                self.c
                    .ins(format!("selp.{} {r}, {one}, {zero}, {a}", bits(to)));
            }
            (_, Bool) => {
                let z = if from.is_float() {
                    float_lit(0.0, from)
                } else {
                    "0".into()
                };
                self.c.ins(format!("setp.ne.{} {r}, {a}, {z}", ty(from)));
            }
            (F32, F64) => self.c.ins(format!("cvt.f64.f32 {r}, {a}")),
            (F64, F32) => self.c.ins(format!("cvt.rn.f32.f64 {r}, {a}")),
            // Float to integer: truncates, saturates, NaN gives 0 (as Rust's `as`).
            (F32 | F64, _) => self
                .c
                .ins(format!("cvt.rzi.{}.{} {r}, {a}", ty(to), ty(from))),
            (_, F32 | F64) => self
                .c
                .ins(format!("cvt.rn.{}.{} {r}, {a}", ty(to), ty(from))),
            // Integer to integer: wraps like Rust's `as` (truncates or extends).
            _ if from.size() == to.size() => self.mov(r, a),
            _ => self.c.ins(format!("cvt.{}.{} {r}, {a}", ty(to), ty(from))),
        }
        r
    }

    /// Component `i` (run time) of `regs`, by a chain of selects.
    fn select_index(&mut self, regs: &[Reg], i: Reg) -> Reg {
        let out = self.c.reg(regs[0].class);
        self.mov(out, regs[0]);
        for (k, r) in regs.iter().enumerate().skip(1) {
            let p = self.c.reg(Class::Pred);
            self.c.ins(format!("setp.eq.s32 {p}, {i}, {k}"));
            self.c.ins(format!(
                "selp.{} {out}, {r}, {out}, {p}",
                cls_bits(out.class)
            ));
        }
        out
    }

    fn insert_index(&mut self, regs: &[Reg], i: Reg, x: Reg) -> Vec<Reg> {
        regs.iter()
            .enumerate()
            .map(|(k, r)| {
                let p = self.c.reg(Class::Pred);
                self.c.ins(format!("setp.eq.s32 {p}, {i}, {k}"));
                let o = self.c.reg(r.class);
                self.c
                    .ins(format!("selp.{} {o}, {x}, {r}, {p}", cls_bits(o.class)));
                o
            })
            .collect()
    }

    /// The flattened index of `m[row][col]` (columns stored one after another).
    fn mat_index(&mut self, row: Reg, col: Reg, n: u8) -> Reg {
        let k = self.c.reg(Class::B32);
        self.c.ins(format!("mad.lo.s32 {k}, {col}, {n}, {row}"));
        k
    }

    fn atomic_minmax(
        &mut self,
        fr: &Frame,
        op: AtomicOp,
        t: &Type,
        addr: Reg,
        val: &[Reg],
    ) -> Res<Vec<Reg>> {
        let (_, _, comps) = layout::elem_layout(t, &fr.f.structs);
        let name = if op == AtomicOp::Min { "min" } else { "max" };
        let mut old = Vec::new();
        for ((off, s), r) in comps.into_iter().zip(val) {
            if s.is_float() {
                old.push(self.atomic_float_minmax(op, s, addr, off, *r));
                continue;
            }
            let o = self.c.reg(Class::of(s));
            self.c.ins(format!(
                "atom.global.{name}.{} {o}, [{addr}+{off}], {r}",
                ty(s)
            ));
            old.push(o);
        }
        Ok(old)
    }

    fn builtin(&mut self, fr: &Frame, name: &str, args: &[ValueId], t: &Type) -> Res<Vec<Reg>> {
        let a: Vec<Vec<Reg>> = args.iter().map(|v| fr.get(*v)).collect::<Res<_>>()?;
        let at: Vec<Type> = args.iter().map(|v| fr.ty(*v).clone()).collect();
        let s = at.first().and_then(|t| t.scalar()).unwrap_or(Scalar::F32);
        let each = |em: &mut Self, f: &dyn Fn(&mut Self, Reg) -> Reg| -> Vec<Reg> {
            a[0].iter().map(|r| f(em, *r)).collect()
        };
        Ok(match name {
            // The value itself; only the adjoint differs (it has none).
            "stop_gradient" => a[0].clone(),
            "thread_fence" => {
                // Acquire-release at device scope (PTX ISA 6.0, sm_70): what the
                // message-passing pattern needs, cheaper than `membar.gl`
                // (`fence.sc.gpu`, CUDA's `__threadfence()`).
                self.c.ins("fence.acq_rel.gpu");
                Vec::new()
            }
            "sqrt" => each(self, &|em, r| em.un(&format!("sqrt.rn.{}", ty(s)), r)),
            "floor" => each(self, &|em, r| em.un(&format!("cvt.rmi.{0}.{0}", ty(s)), r)),
            "ceil" => each(self, &|em, r| em.un(&format!("cvt.rpi.{0}.{0}", ty(s)), r)),
            "trunc" => each(self, &|em, r| em.un(&format!("cvt.rzi.{0}.{0}", ty(s)), r)),
            "round" => each(self, &|em, r| em.round(s, r)),
            "abs" => each(self, &|em, r| em.un(&format!("abs.{}", ty(s)), r)),
            "sign" => each(self, &|em, r| em.sign(s, r)),
            "min" | "max" => a[0]
                .iter()
                .zip(&a[1])
                .map(|(x, y)| self.arith(name, s, *x, *y))
                .collect(),
            "clamp" => a[0]
                .iter()
                .zip(&a[1])
                .zip(&a[2])
                .map(|((x, lo), hi)| self.clamp(s, *x, lo, hi))
                .collect(),
            "asin" | "acos" if s.is_float() => {
                // The argument clamped to [-1, 1], as the CPU's `asin`/`acos` do.
                let (lo, hi) = (float_lit(-1.0, s), float_lit(1.0, s));
                let x = self.clamp(s, a[0][0], &lo, &hi);
                let f = format!(
                    "__weft_{name}_{}",
                    if s == Scalar::F64 { "f64" } else { "f32" }
                );
                return self.inline(fr, &f, vec![vec![x]], t, false);
            }
            "fma" => {
                // One rounding, as IEEE `fusedMultiplyAdd` (the CPU's `mul_add`).
                let mut out = Vec::new();
                for ((x, y), z) in a[0].iter().zip(&a[1]).zip(&a[2]) {
                    let o = self.c.reg(x.class);
                    self.c.ins(format!("fma.rn.{} {o}, {x}, {y}, {z}", ty(s)));
                    out.push(o);
                }
                out
            }
            "rand_init" => vec![self.rand_init(a[0][0], a[1][0])],
            "dot" => vec![self.dot(s, &a[0], &a[1])],
            "length_sq" => vec![self.dot(s, &a[0], &a[0])],
            "length" => {
                let d = self.dot(s, &a[0], &a[0]);
                vec![self.un(&format!("sqrt.rn.{}", ty(s)), d)]
            }
            "cross" => self.cross(s, &a[0], &a[1]),
            "f32_to_bits" | "f32_from_bits" | "f64_to_bits" | "f64_from_bits" => {
                let comps = self.flat(fr, t);
                let r = self.fresh(&comps)[0];
                self.c
                    .ins(format!("mov.{} {r}, {}", cls_bits(r.class), a[0][0]));
                vec![r]
            }
            other => {
                if let Some(r) = self.algebra_builtin(fr, other, &a, &at) {
                    return r;
                }
                // Elementary functions: the kernel-language versions of weft-math.
                let double = s == Scalar::F64;
                let f = format!("__weft_{other}_{}", if double { "f64" } else { "f32" });
                if self.func(&f).is_some() && at.iter().all(|t| t.is_float_scalar()) {
                    return self.inline(fr, &f, a, t, false);
                }
                return Err(format!("builtin `{other}` is not supported on CUDA yet"));
            }
        })
    }

    /// `if x < lo { lo } else if x > hi { hi } else { x }` (a NaN `x` stays).
    fn clamp(
        &mut self,
        s: Scalar,
        x: Reg,
        lo: &dyn std::fmt::Display,
        hi: &dyn std::fmt::Display,
    ) -> Reg {
        let (p, q) = (self.c.reg(Class::Pred), self.c.reg(Class::Pred));
        self.c.ins(format!("setp.lt.{} {p}, {x}, {lo}", ty(s)));
        self.c.ins(format!("setp.gt.{} {q}, {x}, {hi}", ty(s)));
        let o = self.c.reg(x.class);
        self.c.ins(format!("selp.{} {o}, {hi}, {x}, {q}", bits(s)));
        self.c.ins(format!("selp.{} {o}, {lo}, {o}, {p}", bits(s)));
        o
    }

    /// A one-operand instruction `ins r, a` with a result of `a`'s class.
    pub(super) fn un(&mut self, ins: &str, a: Reg) -> Reg {
        let r = self.c.reg(a.class);
        self.c.ins(format!("{ins} {r}, {a}"));
        r
    }

    /// Rounds half away from zero (Rust's `round`).
    pub(super) fn round(&mut self, s: Scalar, x: Reg) -> Reg {
        let t = self.un(&format!("cvt.rzi.{0}.{0}", ty(s)), x);
        let d = self.arith("sub", s, x, t);
        let ad = self.un(&format!("abs.{}", ty(s)), d);
        let half = self.flit(0.5, s);
        let p = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.ge.{} {p}, {ad}, {half}", ty(s)));
        let one = self.flit(1.0, s);
        let so = self.c.reg(Class::of(s));
        // copysign(1, x)
        self.c.ins(format!("copysign.{} {so}, {x}, {one}", ty(s)));
        let r = self.arith("add", s, t, so);
        let o = self.c.reg(Class::of(s));
        self.c.ins(format!("selp.{} {o}, {r}, {t}, {p}", bits(s)));
        o
    }

    /// -1, 0 or 1; for floats `x` itself at ±0 (a zero of its sign) and NaN.
    fn sign(&mut self, s: Scalar, x: Reg) -> Reg {
        let (zero, one, mone) = if s.is_float() {
            (float_lit(0.0, s), float_lit(1.0, s), float_lit(-1.0, s))
        } else {
            ("0".into(), "1".into(), "-1".into())
        };
        let (p, q) = (self.c.reg(Class::Pred), self.c.reg(Class::Pred));
        self.c.ins(format!("setp.gt.{} {p}, {x}, {zero}", ty(s)));
        self.c.ins(format!("setp.lt.{} {q}, {x}, {zero}", ty(s)));
        let o = self.c.reg(Class::of(s));
        self.c.ins(format!("selp.{} {o}, {one}, {x}, {p}", bits(s)));
        self.c
            .ins(format!("selp.{} {o}, {mone}, {o}, {q}", bits(s)));
        // ±0 and NaN give `x` itself, as the CPU's `weft_math::sign`.
        o
    }
}

fn cls_bits(c: Class) -> &'static str {
    match c {
        Class::Pred => "pred",
        Class::B32 => "b32",
        Class::B64 => "b64",
        Class::F32 => "f32",
        Class::F64 => "f64",
    }
}

fn fr_param(fr: &Frame, i: usize) -> Vec<Reg> {
    fr.params[i].clone()
}

fn fr_var(em: &mut Em, fr: &mut Frame, var: VarId) -> Vec<Reg> {
    em.var_regs(fr, var)
}
