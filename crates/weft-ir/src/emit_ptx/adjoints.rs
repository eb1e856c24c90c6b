//! The adjoint rules of the builtins and operators (`Expr::Adjoint`): the formulas of
//! `weft_types::adjoint`, in the same operation order, so CPU and GPU gradients
//! agree to rounding (bit for bit where the forward values agree).

use super::algebra as al;
use super::build::B;
use super::emitter::{Em, Frame, Res};
use super::layout;
use super::regs::Reg;
use crate::ir::ValueId;
use crate::types::{Scalar, Type};

impl Em<'_> {
    /// Adjoint rule `name`: forward arguments, then the result's adjoint; yields the
    /// arguments' adjoints, concatenated.
    pub(super) fn adjoint_rule(
        &mut self,
        fr: &Frame,
        name: &str,
        args: &[ValueId],
        t: &Type,
    ) -> Res<Vec<Reg>> {
        let a: Vec<Vec<Reg>> = args.iter().map(|v| fr.get(*v)).collect::<Res<_>>()?;
        let at: Vec<Type> = args.iter().map(|v| fr.ty(*v).clone()).collect();
        let unsupported = || format!("the derivative of `{name}` is not supported on CUDA yet");
        let s = at
            .iter()
            .find_map(|t| t.scalar().filter(|s| s.is_float()))
            .ok_or_else(unsupported)?;
        let n_out = layout::flatten(t, &fr.f.structs).len();
        let b = B::new(self, fr, s);
        let out = rule(&b, name, &a, &at).ok_or_else(unsupported)??;
        debug_assert_eq!(out.len(), n_out, "adjoint of `{name}`");
        if out.len() != n_out {
            return Err(format!(
                "internal: the adjoint of `{name}` has {} components, expected {n_out}",
                out.len()
            ));
        }
        Ok(out)
    }
}

/// `a[r][c]` of the matrix type `t`, if it is one: its dimension.
fn mat_n(t: &Type) -> Option<usize> {
    match t {
        Type::Matrix(n, _) => Some(*n as usize),
        _ => None,
    }
}

/// `⟨g, x⟩` as the CPU computes it: a fold from zero for (spatial) matrices, the
/// builtin `dot` (left to right) otherwise.
fn inner(b: &B, t: &Type, g: &[Reg], x: &[Reg]) -> Reg {
    if matches!(t, Type::Matrix(..) | Type::SpatialMatrix(_)) {
        let p = b.vmul(g, x);
        b.sum0(&p)
    } else {
        b.dot(g, x)
    }
}

fn cat(mut a: Vec<Reg>, b: Vec<Reg>) -> Vec<Reg> {
    a.extend(b);
    a
}

/// The rule, or `None` if there is none for these types.
pub(super) fn rule(b: &B, name: &str, a: &[Vec<Reg>], at: &[Type]) -> Option<Res<Vec<Reg>>> {
    use Type as T;
    let g = a.last()?;
    let z = || b.lit(0.0);
    let x = &a[0];
    let scalarish = |t: &Type| matches!(t, T::Scalar(_) | T::Vector(..));
    Some(Ok(match (name, a.len()) {
        ("splat", 1) => vec![b.sum0(x)],
        ("neg", 2) => b.vneg(g),
        ("add", 3) if at[0] == at[1] => cat(g.clone(), g.clone()),
        ("sub", 3) if at[0] == at[1] => cat(g.clone(), b.vneg(g)),
        ("mul", 3) => match mul(b, &a[0], &at[0], &a[1], &at[1], g) {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        },
        ("div", 3) => {
            let (y, ty) = (&a[1], &at[1]);
            if at[0] == *ty && scalarish(ty) {
                let ga: Vec<Reg> = g.iter().zip(y).map(|(g, y)| b.div(*g, *y)).collect();
                let gb = (0..ga.len())
                    .map(|k| b.neg(b.mul(ga[k], b.div(x[k], y[k]))))
                    .collect();
                cat(ga, gb)
            } else if ty.is_scalar() {
                let ga = b.vdiv(g, y[0]);
                let q = b.vdiv(x, y[0]);
                let gs = b.neg(inner(b, &at[0], &ga, &q));
                cat(ga, vec![gs])
            } else {
                return None;
            }
        }
        ("rem", 3) => {
            let y = &a[1];
            if at[0].is_scalar() {
                let q = b.trunc(b.div(x[0], y[0]));
                vec![g[0], b.neg(b.mul(q, g[0]))]
            } else {
                let ys = if y.len() == 1 {
                    vec![y[0]; x.len()]
                } else {
                    y.clone()
                };
                let vec4 = super::builtins::is_vec4_f32(&at[0]);
                let q: Vec<Reg> = (0..x.len())
                    .map(|k| {
                        let r = if vec4 {
                            b.floor_rem(x[k], ys[k])
                        } else {
                            b.fmod(x[k], ys[k])
                        };
                        b.round(b.div(b.sub(x[k], r), ys[k]))
                    })
                    .collect();
                if y.len() == 1 {
                    cat(g.clone(), vec![b.neg(b.dot(&q, g))])
                } else {
                    cat(g.clone(), b.vneg(&b.vmul(&q, g)))
                }
            }
        }
        ("dot", 3) => cat(b.scale(&a[1], g[0]), b.scale(x, g[0])),
        ("cross", 3) => cat(b.cross(&a[1], g), b.cross(g, x)),
        ("length_sq", 2) => b.scale(x, b.add(g[0], g[0])),
        ("length", 2) => {
            let l = b.sqrt(b.dot(x, x));
            let nz = b.cmp("neu", l, z());
            let k = b.div(g[0], l);
            let zero = z();
            b.scale(x, k)
                .into_iter()
                .map(|v| b.sel(nz, v, zero))
                .collect()
        }
        ("normalize", 2) => adj_normalize(b, x, g),
        ("sqrt", 2) => {
            let r = b.sqrt(x[0]);
            let v = b.div(g[0], b.add(r, r));
            vec![b.sel(b.cmp("gt", x[0], z()), v, z())]
        }
        ("abs", 2) => x
            .iter()
            .zip(g)
            .map(|(&x, &g)| {
                let zero = z();
                let o = b.sel(b.cmp("gt", x, zero), g, zero);
                b.sel(b.cmp("lt", x, zero), b.neg(g), o)
            })
            .collect(),
        ("sign" | "floor" | "ceil" | "round" | "trunc", 2) => x.iter().map(|_| z()).collect(),
        ("min" | "max", 3) => {
            let cmp = if name == "min" { "le" } else { "ge" };
            let (mut ga, mut gb) = (Vec::new(), Vec::new());
            for ((&x, &y), &g) in x.iter().zip(&a[1]).zip(g) {
                // To `x` when `!x.is_nan() && (x <= y || y.is_nan())`.
                let p = b.pred("or", b.cmp(cmp, x, y), b.cmp("nan", y, y));
                let p = b.pred("and", p, b.cmp("num", x, x));
                let zero = z();
                ga.push(b.sel(p, g, zero));
                gb.push(b.sel(p, zero, g));
            }
            cat(ga, gb)
        }
        ("fma", 4) => cat(cat(b.vmul(g, &a[1]), b.vmul(g, x)), g.clone()),
        ("clamp", 4) => {
            let (mut gx, mut glo, mut ghi) = (Vec::new(), Vec::new(), Vec::new());
            for (((&x, &lo), &hi), &g) in x.iter().zip(&a[1]).zip(&a[2]).zip(g) {
                let below = b.cmp("lt", x, lo);
                let above = b.pred("and", b.cmp("gt", x, hi), b.not(below));
                let zero = z();
                gx.push(b.sel(b.pred("or", below, above), zero, g));
                glo.push(b.sel(below, g, zero));
                ghi.push(b.sel(above, g, zero));
            }
            cat(cat(gx, glo), ghi)
        }
        (
            "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "sinh" | "cosh" | "tanh" | "exp"
            | "exp2" | "log" | "log2" | "log10" | "cbrt",
            2,
        ) => match elementary(b, name, x[0], g[0]) {
            Ok(r) => vec![r],
            Err(e) => return Some(Err(e)),
        },
        ("atan2", 3) => {
            let (y, x, g) = (a[0][0], a[1][0], g[0]);
            let sc = b.max(b.abs(x), b.abs(y));
            let bad = b.pred("or", b.cmp("eq", sc, z()), b.not(b.finite(sc)));
            let (xs, ys) = (b.div(x, sc), b.div(y, sc));
            let k = b.div(g, b.mul(b.add(b.mul(xs, xs), b.mul(ys, ys)), sc));
            let zero = z();
            vec![
                b.sel(bad, zero, b.mul(k, xs)),
                b.sel(bad, zero, b.neg(b.mul(k, ys))),
            ]
        }
        ("pow", 3) => {
            let (x, y, g) = (a[0][0], a[1][0], g[0]);
            let (zero, one) = (z(), b.lit(1.0));
            let k = b.mul(g, y);
            let at_zero = b.pred("and", b.cmp("eq", x, zero), b.cmp("lt", y, one));
            let no_dx = b.pred("or", b.cmp("eq", k, zero), at_zero);
            let dx = match b.fun("pow", &[x, b.sub(y, one)]) {
                Ok(p) => b.mul(k, p),
                Err(e) => return Some(Err(e)),
            };
            let dy = match (b.fun("pow", &[x, y]), b.fun("log", &[x])) {
                (Ok(p), Ok(l)) => b.mul(b.mul(g, p), l),
                (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
            };
            let dy_ok = b.pred("and", b.cmp("gt", x, zero), b.cmp("neu", g, zero));
            vec![b.sel(no_dx, zero, dx), b.sel(dy_ok, dy, zero)]
        }
        ("outer", 3) => {
            let n = x.len();
            let gt = al::transpose(g, n);
            cat(al::mat_vec(b, g, n, &a[1]), al::mat_vec(b, &gt, n, x))
        }
        ("transpose", 2) => al::transpose(g, mat_n(&at[0])?),
        ("determinant", 2) => {
            let c = al::cofactor_matrix(b, x, mat_n(&at[0])?);
            b.scale(&c, g[0])
        }
        ("trace", 2) => {
            let zero = z();
            al::mat(mat_n(&at[0])?, |r, c| if r == c { g[0] } else { zero })
        }
        ("diag", 2) => {
            let n = x.len();
            (0..n).map(|i| al::e(g, n, i, i)).collect()
        }
        ("skew", 2) => {
            let e = |r, c| al::e(g, 3, r, c);
            vec![
                b.sub(e(2, 1), e(1, 2)),
                b.sub(e(0, 2), e(2, 0)),
                b.sub(e(1, 0), e(0, 1)),
            ]
        }
        ("inverse", 2) if mat_n(&at[0]).is_some() => {
            let n = mat_n(&at[0])?;
            let rt = al::transpose(&al::inverse(b, x, n), n);
            let p = al::mat_mat(b, &al::mat_mat(b, &rt, n, g), n, &rt);
            b.vneg(&p)
        }
        ("inverse" | "quat_inverse", 2) if matches!(at[0], T::Quat(_)) => adj_quat_inverse(b, x, g),
        ("inverse" | "transform_inverse", 2) if matches!(at[0], T::Transform(_)) => {
            adj_transform_inverse(b, x, g)
        }
        ("quat_to_matrix", 2) => adj_quat_to_matrix(b, x, g),
        ("quat_rotate", 3) => {
            let (aq, av) = adj_rotate(b, x, &a[1], g);
            cat(aq, av)
        }
        ("quat_rotate_inv", 3) => {
            let (aq, av) = adj_rotate(b, &al::conj(b, x), &a[1], g);
            cat(al::conj(b, &aq), av)
        }
        ("quat_from_axis_angle", 3) => {
            let angle = a[1][0];
            let half = b.mul(angle, b.lit(0.5));
            let (sn, cs) = match b.sincos(half) {
                Ok(sc) => sc,
                Err(e) => return Some(Err(e)),
            };
            let gv = &g[0..3];
            let ga = b.mul(b.lit(0.5), b.sub(b.mul(b.dot(gv, x), cs), b.mul(g[3], sn)));
            cat(b.scale(gv, sn), vec![ga])
        }
        ("quat_from_matrix", 2) => adj_quat_from_matrix(b, x, g),
        ("transform_point", 3) => {
            let (aq, ap) = adj_rotate(b, &x[3..7], &a[1], g);
            cat(cat(g.clone(), aq), ap)
        }
        ("transform_vector", 3) => {
            let (aq, av) = adj_rotate(b, &x[3..7], &a[1], g);
            cat(cat(vec![z(), z(), z()], aq), av)
        }
        ("spatial_top", 2) => cat(g.clone(), vec![z(), z(), z()]),
        ("spatial_bottom", 2) => cat(vec![z(), z(), z()], g.clone()),
        ("spatial_cross", 3) => {
            let (v, w, vb, wb) = (&x[0..3], &x[3..6], &a[1][0..3], &a[1][3..6]);
            let (gt, gb) = (&g[0..3], &g[3..6]);
            let da = cat(b.cross(wb, gt), b.vadd(&b.cross(vb, gt), &b.cross(wb, gb)));
            let db = cat(b.cross(gt, w), b.vadd(&b.cross(gt, v), &b.cross(gb, w)));
            cat(da, db)
        }
        ("spatial_cross_dual", 3) => {
            let (v, w, ff, tau) = (&x[0..3], &x[3..6], &a[1][0..3], &a[1][3..6]);
            let (gt, gb) = (&g[0..3], &g[3..6]);
            let da = cat(b.cross(ff, gb), b.vadd(&b.cross(ff, gt), &b.cross(tau, gb)));
            let df = cat(b.vadd(&b.cross(gt, w), &b.cross(gb, v)), b.cross(gb, w));
            cat(da, df)
        }
        _ => return None,
    }))
}

/// The adjoints of the elementary functions (`weft_types::adjoint::scalar`).
fn elementary(b: &B, name: &str, x: Reg, g: Reg) -> Res<Reg> {
    let one = || b.lit(1.0);
    let (ln2, ln10) = if b.s == Scalar::F32 {
        (
            std::f32::consts::LN_2 as f64,
            std::f32::consts::LN_10 as f64,
        )
    } else {
        (std::f64::consts::LN_2, std::f64::consts::LN_10)
    };
    // `1 / sqrt((1 - x)(1 + x))`, or 0 where that is not finite and positive.
    let inv_sqrt = || {
        let d = b.mul(b.sub(one(), x), b.add(one(), x));
        let z = b.lit(0.0);
        b.sel(b.cmp("gt", d, z), b.div(one(), b.sqrt(d)), z)
    };
    // `g / d`, but 0 when `g == 0`.
    let div_or_zero = |d: Reg| {
        let z = b.lit(0.0);
        b.sel(b.cmp("eq", g, z), z, b.div(g, d))
    };
    Ok(match name {
        "sin" => b.mul(g, b.fun("cos", &[x])?),
        "cos" => b.neg(b.mul(g, b.fun("sin", &[x])?)),
        "tan" => {
            let t = b.fun("tan", &[x])?;
            b.mul(g, b.add(one(), b.mul(t, t)))
        }
        "asin" => b.mul(g, inv_sqrt()),
        "acos" => b.neg(b.mul(g, inv_sqrt())),
        "atan" => b.div(g, b.add(one(), b.mul(x, x))),
        "sinh" => b.mul(g, b.fun("cosh", &[x])?),
        "cosh" => b.mul(g, b.fun("sinh", &[x])?),
        "tanh" => {
            let t = b.fun("tanh", &[x])?;
            b.mul(g, b.sub(one(), b.mul(t, t)))
        }
        "exp" => b.mul(g, b.fun("exp", &[x])?),
        "exp2" => b.mul(b.mul(g, b.fun("exp2", &[x])?), b.lit(ln2)),
        "log" => div_or_zero(x),
        "log2" => div_or_zero(b.mul(x, b.lit(ln2))),
        "log10" => div_or_zero(b.mul(x, b.lit(ln10))),
        "cbrt" => {
            let c = b.fun("cbrt", &[x])?;
            let z = b.lit(0.0);
            let v = b.div(g, b.mul(b.mul(b.lit(3.0), c), c));
            b.sel(b.cmp("eq", c, z), z, v)
        }
        _ => unreachable!("not an elementary function: {name}"),
    })
}

/// `(adj_a, adj_b)` of `a * c` for every operand combination of the IR.
fn mul(b: &B, a: &[Reg], ta: &Type, c: &[Reg], tc: &Type, g: &[Reg]) -> Res<Vec<Reg>> {
    use Type as T;
    let unsupported = || format!("the derivative of `{ta} * {tc}` is not supported on CUDA yet");
    Ok(match (ta, tc) {
        (T::Scalar(_), T::Scalar(_)) => vec![b.mul(g[0], c[0]), b.mul(g[0], a[0])],
        (T::Vector(..), T::Vector(..)) => cat(b.vmul(g, c), b.vmul(g, a)),
        (_, T::Scalar(_)) => {
            let gs = inner(b, ta, g, a);
            cat(b.scale(g, c[0]), vec![gs])
        }
        (T::Scalar(_), _) => {
            let gs = inner(b, tc, g, c);
            cat(vec![gs], b.scale(g, a[0]))
        }
        (T::Matrix(n, _), T::Matrix(..)) => {
            let n = *n as usize;
            let ga = al::mat_mat(b, g, n, &al::transpose(c, n));
            let gb = al::mat_mat(b, &al::transpose(a, n), n, g);
            cat(ga, gb)
        }
        (T::Matrix(n, _), T::Vector(..)) => {
            let n = *n as usize;
            cat(
                al::outer(b, g, c),
                al::mat_vec(b, &al::transpose(a, n), n, g),
            )
        }
        (T::Quat(_), T::Quat(_)) => {
            let ga = al::quat_mul(b, g, &al::conj(b, c));
            let gb = al::quat_mul(b, &al::conj(b, a), g);
            cat(ga, gb)
        }
        (T::Quat(_), T::Vector(3, _)) => {
            let (aq, av) = adj_rotate(b, a, c, g);
            cat(aq, av)
        }
        (T::Transform(_), T::Transform(_)) => {
            let (aq_rot, abp) = adj_rotate(b, &a[3..7], &c[0..3], &g[0..3]);
            let aq_mul = al::quat_mul(b, &g[3..7], &al::conj(b, &c[3..7]));
            let abq = al::quat_mul(b, &al::conj(b, &a[3..7]), &g[3..7]);
            let ga = cat(g[0..3].to_vec(), b.vadd(&aq_rot, &aq_mul));
            cat(ga, cat(abp, abq))
        }
        (T::SpatialMatrix(_), T::SpatialMatrix(_)) => {
            let ga = al::spatial_mat_mat(b, g, &al::spatial_transpose(c));
            let gb = al::spatial_mat_mat(b, &al::spatial_transpose(a), g);
            cat(ga, gb)
        }
        (T::SpatialMatrix(_), T::SpatialVector(_)) => {
            let mut o = Vec::with_capacity(36);
            for gr in &g[..6] {
                o.extend(c[..6].iter().map(|ck| b.mul(*gr, *ck)));
            }
            cat(o, al::spatial_mat_vec(b, &al::spatial_transpose(a), g))
        }
        _ => return Err(unsupported()),
    })
}

/// Adjoint of `normalize(v)`: `(g - n dot(n, g)) / l`, zero where `l == 0`.
fn adj_normalize(b: &B, v: &[Reg], g: &[Reg]) -> Vec<Reg> {
    let l = b.sqrt(b.dot(v, v));
    // `normalize(v)` as the forward computes it (a division per component).
    let n = b.vdiv(v, l);
    let d = b.dot(&n, g);
    let r = b.vdiv(&b.vsub(g, &b.scale(&n, d)), l);
    let z = b.lit(0.0);
    let nz = b.cmp("neu", l, z);
    r.into_iter().map(|x| b.sel(nz, x, z)).collect()
}

/// Adjoint of `quat_rotate(q, v)`: `(q̄, v̄)`.
fn adj_rotate(b: &B, q: &[Reg], v: &[Reg], g: &[Reg]) -> (Vec<Reg>, Vec<Reg>) {
    let (u, w) = (&q[0..3], q[3]);
    let two = b.lit(2.0);
    let t = b.scale(&b.cross(u, v), two);
    let at = b.vadd(&b.scale(g, w), &b.cross(g, u));
    let aw = b.dot(g, &t);
    let au = b.vadd(&b.cross(&t, g), &b.scale(&b.cross(v, &at), two));
    let av = b.vadd(g, &b.scale(&b.cross(&at, u), two));
    (cat(au, vec![aw]), av)
}

/// Adjoint of `quat_inverse(q) = conjugate(q) / n`.
fn adj_quat_inverse(b: &B, q: &[Reg], g: &[Reg]) -> Vec<Reg> {
    let n = b.dot(q, q);
    let k = b.div(b.dot(&al::conj(b, q), g), n);
    let r = b.vsub(&al::conj(b, g), &b.scale(q, b.add(k, k)));
    b.vdiv(&r, n)
}

/// Adjoint of `transform_inverse(t)`.
fn adj_transform_inverse(b: &B, t: &[Reg], g: &[Reg]) -> Vec<Reg> {
    let qc = al::conj(b, &t[3..7]);
    let (aqc, ap) = adj_rotate(b, &qc, &t[0..3], &b.vneg(&g[0..3]));
    cat(ap, al::conj(b, &b.vadd(&aqc, &g[3..7])))
}

/// Adjoint of `quat_to_matrix(q)` (glam's formula as a quadratic form of `q`).
fn adj_quat_to_matrix(b: &B, q: &[Reg], g: &[Reg]) -> Vec<Reg> {
    let (x, y, z, w) = (q[0], q[1], q[2], q[3]);
    let e = |r, c| al::e(g, 3, r, c);
    let (sxy, sxz, syz) = (
        b.add(e(1, 0), e(0, 1)),
        b.add(e(2, 0), e(0, 2)),
        b.add(e(2, 1), e(1, 2)),
    );
    let (dx, dy, dz) = (
        b.sub(e(2, 1), e(1, 2)),
        b.sub(e(0, 2), e(2, 0)),
        b.sub(e(1, 0), e(0, 1)),
    );
    let two = b.lit(2.0);
    // p*s + q*t + r*u - 2 v (d0 + d1), left to right.
    let term = |p, s, q, t, r, u, v, d0, d1| {
        let acc = b.add(b.add(b.mul(p, s), b.mul(q, t)), b.mul(r, u));
        b.sub(acc, b.mul(b.mul(two, v), b.add(d0, d1)))
    };
    let ax = term(y, sxy, z, sxz, w, dx, x, e(1, 1), e(2, 2));
    let ay = term(x, sxy, z, syz, w, dy, y, e(0, 0), e(2, 2));
    let az = term(x, sxz, y, syz, w, dz, z, e(0, 0), e(1, 1));
    let aw = b.add(b.add(b.mul(x, dx), b.mul(y, dy)), b.mul(z, dz));
    [ax, ay, az, aw].iter().map(|v| b.mul(two, *v)).collect()
}

/// Adjoint of `quat_from_matrix(m)`: every Shepperd branch's rule, the one the
/// forward takes selected.
fn adj_quat_from_matrix(b: &B, m: &[Reg], g: &[Reg]) -> Vec<Reg> {
    let (p, d) = al::shepperd_branches(b, m);
    let half = b.lit(0.5);
    let mut out: Vec<Reg> = Vec::new();
    for big in 0..4 {
        let h = b.sqrt(d[big]);
        let f = b.div(half, h);
        let raw = al::shepperd_raw(b, m, big, h, f);
        let gq = adj_normalize(b, &raw, g);
        let mut acc = [[b.lit(0.0); 3]; 3];
        let mut af = b.lit(0.0);
        for &(k, (r0, c0), (r1, c1), minus) in &al::SHEPPERD[big] {
            let (u, v) = (al::e(m, 3, r0, c0), al::e(m, 3, r1, c1));
            let s = if minus { b.sub(u, v) } else { b.add(u, v) };
            af = b.add(af, b.mul(gq[k], s));
            acc[r0][c0] = b.add(acc[r0][c0], b.mul(gq[k], f));
            let sg = if minus { b.neg(gq[k]) } else { gq[k] };
            acc[r1][c1] = b.add(acc[r1][c1], b.mul(sg, f));
        }
        let ah = b.sub(b.mul(half, gq[big]), b.div(b.mul(af, f), h));
        let ad = b.mul(ah, f);
        for (i, row) in acc.iter_mut().enumerate() {
            let v = if big == 3 || i == big { ad } else { b.neg(ad) };
            row[i] = b.add(row[i], v);
        }
        let a = al::mat(3, |r, c| acc[r][c]);
        out = if big == 0 {
            a
        } else {
            b.selv(p[big], &a, &out)
        };
    }
    out
}
