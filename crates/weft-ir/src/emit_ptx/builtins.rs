//! The builtins written as formulas ([`super::algebra`]), random numbers, the float
//! remainder and float atomic min/max.

use super::algebra as al;
use super::build::B;
use super::emitter::{Em, Frame, Res};
use super::regs::{Class, Reg, bits, ty};
use crate::ir::{AtomicOp, VarId};
use crate::types::{Scalar, Type};

impl Em<'_> {
    /// Matrix, quaternion, transform and spatial builtins; `None` if `name` is not one.
    pub(super) fn algebra_builtin(
        &mut self,
        fr: &Frame,
        name: &str,
        a: &[Vec<Reg>],
        at: &[Type],
    ) -> Option<Res<Vec<Reg>>> {
        let s = at.first()?.scalar()?;
        if !s.is_float() {
            return None;
        }
        let b = B::new(self, fr, s);
        let n = match &at[0] {
            Type::Matrix(n, _) | Type::Vector(n, _) => *n as usize,
            _ => 0,
        };
        Some(Ok(match (name, &at[0]) {
            ("outer", _) => al::outer(&b, &a[0], &a[1]),
            ("transpose", Type::Matrix(..)) => al::transpose(&a[0], n),
            ("determinant", Type::Matrix(..)) => vec![al::determinant(&b, &a[0], n)],
            ("trace", Type::Matrix(..)) => {
                let d: Vec<Reg> = (0..n).map(|i| al::e(&a[0], n, i, i)).collect();
                vec![b.sum(&d)]
            }
            ("inverse", Type::Matrix(..)) => al::inverse(&b, &a[0], n),
            ("inverse" | "quat_inverse", Type::Quat(_)) => al::quat_inverse(&b, &a[0]),
            ("inverse" | "transform_inverse", Type::Transform(_)) => {
                al::transform_inverse(&b, &a[0])
            }
            ("diag", Type::Vector(..)) => {
                let z = b.lit(0.0);
                al::mat(n, |r, c| if r == c { a[0][r] } else { z })
            }
            ("skew", Type::Vector(3, _)) => {
                let v = &a[0];
                let z = b.lit(0.0);
                vec![
                    z,
                    v[2],
                    b.neg(v[1]),
                    b.neg(v[2]),
                    z,
                    v[0],
                    v[1],
                    b.neg(v[0]),
                    z,
                ]
            }
            ("quat_from_axis_angle", _) => match al::quat_from_axis_angle(&b, &a[0], a[1][0]) {
                Ok(q) => q,
                Err(e) => return Some(Err(e)),
            },
            ("quat_to_matrix", _) => al::quat_to_matrix(&b, &a[0]),
            ("quat_from_matrix", _) => al::quat_from_matrix(&b, &a[0]),
            ("quat_rotate", _) => al::quat_rotate(&b, &a[0], &a[1]),
            ("quat_rotate_inv", _) => al::quat_rotate(&b, &al::conj(&b, &a[0]), &a[1]),
            ("transform_point", _) => al::transform_point(&b, &a[0], &a[1]),
            ("transform_vector", _) => al::quat_rotate(&b, &a[0][3..7], &a[1]),
            ("spatial_top", _) => a[0][0..3].to_vec(),
            ("spatial_bottom", _) => a[0][3..6].to_vec(),
            ("spatial_cross", _) => al::spatial_cross(&b, &a[0], &a[1]),
            ("spatial_cross_dual", _) => al::spatial_cross_dual(&b, &a[0], &a[1]),
            ("normalize", _) => al::normalize(&b, &a[0]),
            _ => return None,
        }))
    }

    /// `rand_init(seed, offset)`: `pcg_hash(seed ^ pcg_hash(offset))`.
    pub(super) fn rand_init(&mut self, seed: Reg, offset: Reg) -> Reg {
        let h = self.pcg_hash(offset);
        let x = self.c.reg(Class::B32);
        self.c.ins(format!("xor.b32 {x}, {seed}, {h}"));
        self.pcg_hash(x)
    }

    fn pcg_step(&mut self, s: Reg) -> Reg {
        let r = self.c.reg(Class::B32);
        self.c
            .ins(format!("mad.lo.u32 {r}, {s}, 747796405, 2891336453"));
        r
    }

    fn pcg_output(&mut self, s: Reg) -> Reg {
        let (sh, x, w, o) = (
            self.c.reg(Class::B32),
            self.c.reg(Class::B32),
            self.c.reg(Class::B32),
            self.c.reg(Class::B32),
        );
        self.c.ins(format!("shr.u32 {sh}, {s}, 28"));
        self.c.ins(format!("add.u32 {sh}, {sh}, 4"));
        self.c.ins(format!("shr.u32 {x}, {s}, {sh}"));
        self.c.ins(format!("xor.b32 {x}, {x}, {s}"));
        self.c.ins(format!("mul.lo.u32 {w}, {x}, 277803737"));
        self.c.ins(format!("shr.u32 {o}, {w}, 22"));
        self.c.ins(format!("xor.b32 {o}, {o}, {w}"));
        o
    }

    fn pcg_hash(&mut self, x: Reg) -> Reg {
        let s = self.pcg_step(x);
        self.pcg_output(s)
    }

    /// A uniform `f32` in `[0, 1)` from the state in `state`, advancing it.
    fn randf(&mut self, state: Reg) -> Reg {
        let v = self.pcg_output(state);
        let next = self.pcg_step(state);
        self.mov(state, next);
        let (k, f) = (self.c.reg(Class::B32), self.c.reg(Class::F32));
        self.c.ins(format!("shr.u32 {k}, {v}, 8"));
        self.c.ins(format!("cvt.rn.f32.u32 {f}, {k}"));
        let scale = self.flit(5.960_464_5e-8_f32 as f64, Scalar::F32);
        self.arith("mul", Scalar::F32, f, scale)
    }

    /// `randi randf randf_range randn` on the `u32` state in variable `var`: the
    /// generator of `weft_math::random`, operation for operation.
    pub(super) fn rng(
        &mut self,
        fr: &mut Frame,
        name: &str,
        var: VarId,
        args: &[Reg],
    ) -> Res<Vec<Reg>> {
        let state = self.var_regs(fr, var)[0];
        let f32 = Scalar::F32;
        Ok(vec![match name {
            "randi" => {
                let v = self.pcg_output(state);
                let next = self.pcg_step(state);
                self.mov(state, next);
                v
            }
            "randf" => self.randf(state),
            "randf_range" => {
                let u = self.randf(state);
                let d = self.arith("sub", f32, args[1], args[0]);
                let m = self.arith("mul", f32, d, u);
                self.arith("add", f32, args[0], m)
            }
            "randn" => {
                let u1 = self.randf(state);
                let u2 = self.randf(state);
                let b = B::new(self, fr, f32);
                let l = b.fun("log", &[b.sub(b.lit(1.0), u1)])?;
                let r = b.sqrt(b.mul(b.lit(-2.0), l));
                let two_pi = b.lit(6.283_185_5_f32 as f64);
                let c = b.fun("cos", &[b.mul(two_pi, u2)])?;
                b.mul(r, c)
            }
            other => return Err(format!("internal: unknown random builtin `{other}`")),
        }])
    }

    /// The float remainder `x % y` as Rust's `%` (C's `fmod`, exact): the bit-level
    /// long division of musl's `fmod`.
    pub(super) fn fmod(&mut self, s: Scalar, x: Reg, y: Reg) -> Reg {
        let (w, ic, mant, ebits, emax) = match s {
            Scalar::F32 => (Class::B32, "b32", 23u32, 8u32, 0xffu32),
            _ => (Class::B64, "b64", 52, 11, 0x7ff),
        };
        let n = if s == Scalar::F32 { 32 } else { 64 };
        let (u, i) = (
            if n == 32 { "u32" } else { "u64" },
            if n == 32 { "s32" } else { "s64" },
        );
        let reg = |em: &mut Self| em.c.reg(w);
        let out = self.c.reg(Class::of(s));
        let (ux, uy) = (reg(self), reg(self));
        self.c.ins(format!("mov.{ic} {ux}, {x}"));
        self.c.ins(format!("mov.{ic} {uy}, {y}"));
        let done = self.c.label("fmod_done");
        let nan = self.c.label("fmod_nan");
        let ret_x = self.c.label("fmod_x");
        let ret_zero = self.c.label("fmod_zero");
        // Exponent fields (as s32) and the sign of x.
        let (ex, ey) = (self.c.reg(Class::B32), self.c.reg(Class::B32));
        let field = |em: &mut Self, dst: Reg, src: Reg| {
            let t = em.c.reg(w);
            em.c.ins(format!("shr.{u} {t}, {src}, {mant}"));
            if n == 64 {
                em.c.ins(format!("cvt.u32.u64 {dst}, {t}"));
            } else {
                em.mov(dst, t);
            }
            em.c.ins(format!("and.b32 {dst}, {dst}, {emax}"));
        };
        field(self, ex, ux);
        field(self, ey, uy);
        let sign = reg(self);
        self.c
            .ins(format!("and.{ic} {sign}, {ux}, 0x{:X}U", 1u64 << (n - 1)));
        // y == 0, y NaN, or x not finite: NaN.
        let (ax2, ay2) = (reg(self), reg(self));
        self.c.ins(format!("shl.{ic} {ax2}, {ux}, 1"));
        self.c.ins(format!("shl.{ic} {ay2}, {uy}, 1"));
        let p = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.eq.{u} {p}, {ay2}, 0"));
        self.c.ins(format!("@{p} bra {nan}"));
        self.c.ins(format!("setp.nan.{} {p}, {y}, {y}", ty(s)));
        self.c.ins(format!("@{p} bra {nan}"));
        self.c.ins(format!("setp.eq.s32 {p}, {ex}, {emax}"));
        self.c.ins(format!("@{p} bra {nan}"));
        // |x| <= |y|: x, or a zero of x's sign when equal.
        self.c.ins(format!("setp.lt.{u} {p}, {ax2}, {ay2}"));
        self.c.ins(format!("@{p} bra {ret_x}"));
        self.c.ins(format!("setp.eq.{u} {p}, {ax2}, {ay2}"));
        self.c.ins(format!("@{p} bra {ret_zero}"));
        // Normalize the significands (subnormals shifted up, exponents adjusted).
        let implicit = 1u64 << mant;
        for (e, m) in [(ex, ux), (ey, uy)] {
            let (sub, join) = (self.c.label("fmod_sub"), self.c.label("fmod_norm"));
            self.c.ins(format!("setp.eq.s32 {p}, {e}, 0"));
            self.c.ins(format!("@{p} bra {sub}"));
            self.c
                .ins(format!("and.{ic} {m}, {m}, 0x{:X}U", implicit - 1));
            self.c.ins(format!("or.{ic} {m}, {m}, 0x{implicit:X}U"));
            self.c.ins(format!("bra.uni {join}"));
            self.c.place(&sub);
            // e = 1 - (leading zeros of m beyond the exponent field); m <<= 1 - e.
            self.c
                .ins(format!("and.{ic} {m}, {m}, 0x{:X}U", implicit - 1));
            let lz = self.c.reg(Class::B32);
            self.c.ins(format!("clz.b{n} {lz}, {m}"));
            self.c.ins(format!("sub.s32 {lz}, {lz}, {}", ebits));
            self.c.ins(format!("shl.{ic} {m}, {m}, {lz}"));
            self.c.ins(format!("sub.s32 {e}, 1, {lz}"));
            self.c.place(&join);
        }
        // Long division: one quotient bit per exponent step.
        let (top, last) = (self.c.label("fmod_loop"), self.c.label("fmod_last"));
        let d = reg(self);
        let q = self.c.reg(Class::Pred);
        self.c.place(&top);
        self.c.ins(format!("setp.le.s32 {p}, {ex}, {ey}"));
        self.c.ins(format!("@{p} bra {last}"));
        self.c.ins(format!("sub.{i} {d}, {ux}, {uy}"));
        self.c.ins(format!("setp.ge.{i} {q}, {d}, 0"));
        self.c.ins(format!("selp.{ic} {ux}, {d}, {ux}, {q}"));
        self.c.ins(format!("setp.eq.{i} {p}, {d}, 0"));
        self.c.ins(format!("and.pred {p}, {p}, {q}"));
        self.c.ins(format!("@{p} bra {ret_zero}"));
        self.c.ins(format!("shl.{ic} {ux}, {ux}, 1"));
        self.c.ins(format!("sub.s32 {ex}, {ex}, 1"));
        self.c.ins(format!("bra.uni {top}"));
        self.c.place(&last);
        self.c.ins(format!("sub.{i} {d}, {ux}, {uy}"));
        self.c.ins(format!("setp.ge.{i} {q}, {d}, 0"));
        self.c.ins(format!("selp.{ic} {ux}, {d}, {ux}, {q}"));
        self.c.ins(format!("setp.eq.{i} {p}, {d}, 0"));
        self.c.ins(format!("and.pred {p}, {p}, {q}"));
        self.c.ins(format!("@{p} bra {ret_zero}"));
        // Renormalize: shift the leading one back to the implicit bit.
        let lz = self.c.reg(Class::B32);
        self.c.ins(format!("clz.b{n} {lz}, {ux}"));
        self.c.ins(format!("sub.s32 {lz}, {lz}, {}", ebits));
        self.c.ins(format!("shl.{ic} {ux}, {ux}, {lz}"));
        self.c.ins(format!("sub.s32 {ex}, {ex}, {lz}"));
        let (subn, pack) = (self.c.label("fmod_subn"), self.c.label("fmod_pack"));
        self.c.ins(format!("setp.le.s32 {p}, {ex}, 0"));
        self.c.ins(format!("@{p} bra {subn}"));
        let e64 = reg(self);
        if n == 64 {
            self.c.ins(format!("cvt.u64.u32 {e64}, {ex}"));
        } else {
            self.mov(e64, ex);
        }
        self.c.ins(format!("sub.{u} {ux}, {ux}, 0x{implicit:X}U"));
        self.c.ins(format!("shl.{ic} {e64}, {e64}, {mant}"));
        self.c.ins(format!("or.{ic} {ux}, {ux}, {e64}"));
        self.c.ins(format!("bra.uni {pack}"));
        self.c.place(&subn);
        let sh = self.c.reg(Class::B32);
        self.c.ins(format!("sub.s32 {sh}, 1, {ex}"));
        self.c.ins(format!("shr.{u} {ux}, {ux}, {sh}"));
        self.c.place(&pack);
        self.c.ins(format!("or.{ic} {ux}, {ux}, {sign}"));
        self.c.ins(format!("mov.{ic} {out}, {ux}"));
        self.c.ins(format!("bra.uni {done}"));
        // x * 0: a zero with x's sign.
        self.c.place(&ret_zero);
        self.c.ins(format!("mov.{ic} {out}, {sign}"));
        self.c.ins(format!("bra.uni {done}"));
        self.c.place(&ret_x);
        self.mov(out, x);
        self.c.ins(format!("bra.uni {done}"));
        self.c.place(&nan);
        let qnan = if n == 32 {
            "0f7FC00000".to_string()
        } else {
            "0d7FF8000000000000".to_string()
        };
        self.c.ins(format!("mov.{} {out}, {qnan}", bits(s)));
        self.c.place(&done);
        out
    }

    /// glam's SSE2 `Vec4 % Vec4`: `x - floor(x / y) * y`, with `floor` of
    /// `m128_floor` (exact for finite values; `-0.0` floors to `+0.0`).
    pub(super) fn floor_rem(&mut self, x: Reg, y: Reg) -> Reg {
        let s = Scalar::F32;
        let q = self.arith("div", s, x, y);
        let f = self.c.reg(Class::F32);
        self.c.ins(format!("cvt.rmi.f32.f32 {f}, {q}"));
        // m128_floor returns +0.0 for -0.0 (and for -0.x truncating to 0 then -1).
        let z = self.flit(0.0, s);
        let p = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.eq.f32 {p}, {f}, {z}"));
        self.c.ins(format!("selp.f32 {f}, {z}, {f}, {p}"));
        let m = self.arith("mul", s, f, y);
        self.arith("sub", s, x, m)
    }

    /// Float `atomic_min`/`atomic_max` as a compare-and-swap loop: the element
    /// becomes `v` when `v < old` (`v > old`), as on the CPU (a NaN `v` is ignored).
    pub(super) fn atomic_float_minmax(
        &mut self,
        op: AtomicOp,
        s: Scalar,
        addr: Reg,
        off: usize,
        v: Reg,
    ) -> Reg {
        let (w, ic) = if s == Scalar::F32 {
            (Class::B32, "b32")
        } else {
            (Class::B64, "b64")
        };
        let (old, vb, got) = (self.c.reg(w), self.c.reg(w), self.c.reg(w));
        let f = self.c.reg(Class::of(s));
        self.c.ins(format!("mov.{ic} {vb}, {v}"));
        self.c.ins(format!("ld.global.{ic} {old}, [{addr}+{off}]"));
        let (top, done) = (self.c.label("amm"), self.c.label("amm_done"));
        let p = self.c.reg(Class::Pred);
        self.c.place(&top);
        self.c.ins(format!("mov.{ic} {f}, {old}"));
        let cmp = if op == AtomicOp::Min { "lt" } else { "gt" };
        self.c.ins(format!("setp.{cmp}.{} {p}, {v}, {f}", ty(s)));
        self.c.ins(format!("@!{p} bra {done}"));
        self.c.ins(format!(
            "atom.global.cas.{ic} {got}, [{addr}+{off}], {old}, {vb}"
        ));
        self.c.ins(format!("setp.ne.{ic} {p}, {got}, {old}"));
        self.c.ins(format!("mov.{ic} {old}, {got}"));
        self.c.ins(format!("@{p} bra {top}"));
        self.c.place(&done);
        let out = self.c.reg(Class::of(s));
        self.c.ins(format!("mov.{ic} {out}, {old}"));
        out
    }
}

/// Whether `t` is `Vec4` of `f32` (whose `%` is glam's SSE2 floor formula on the CPU).
pub(super) fn is_vec4_f32(t: &Type) -> bool {
    matches!(t, Type::Vector(4, Scalar::F32))
}
