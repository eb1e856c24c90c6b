//! The formulas of the matrix, quaternion, transform and spatial builtins, in the
//! operation order of their CPU implementations (`weft_types::builtins`, glam's
//! operators), so both back ends round identically.
//!
//! Values are flattened as [`super::layout::flatten`] does: matrices column by
//! column (`m[c * n + r]` is row `r`, column `c`), quaternions `x y z w`, transforms
//! `p` then `q`, spatial vectors top then bottom, spatial matrices row by row.

use super::build::B;
use super::regs::Reg;

/// Element (row `r`, column `c`) of an `n`×`n` column-major matrix.
pub(super) fn e(m: &[Reg], n: usize, r: usize, c: usize) -> Reg {
    m[c * n + r]
}

/// Builds an `n`×`n` column-major matrix from `f(row, col)`.
pub(super) fn mat(n: usize, mut f: impl FnMut(usize, usize) -> Reg) -> Vec<Reg> {
    let mut out = Vec::with_capacity(n * n);
    for c in 0..n {
        for r in 0..n {
            out.push(f(r, c));
        }
    }
    out
}

pub(super) fn transpose(m: &[Reg], n: usize) -> Vec<Reg> {
    mat(n, |r, c| e(m, n, c, r))
}

/// glam's `m * v`: `col0 * v.x + col1 * v.y + …`, componentwise.
pub(super) fn mat_vec(b: &B, m: &[Reg], n: usize, v: &[Reg]) -> Vec<Reg> {
    (0..n)
        .map(|r| {
            let mut acc = b.mul(e(m, n, r, 0), v[0]);
            for (c, vc) in v.iter().enumerate().take(n).skip(1) {
                acc = b.add(acc, b.mul(e(m, n, r, c), *vc));
            }
            acc
        })
        .collect()
}

/// glam's `a * m`: `a * col` for every column of `m`.
pub(super) fn mat_mat(b: &B, a: &[Reg], n: usize, m: &[Reg]) -> Vec<Reg> {
    (0..n)
        .flat_map(|c| mat_vec(b, a, n, &m[c * n..(c + 1) * n]))
        .collect()
}

/// `outer(a, c)`: element (i, j) is `a[i] * c[j]`.
pub(super) fn outer(b: &B, a: &[Reg], c: &[Reg]) -> Vec<Reg> {
    mat(a.len(), |i, j| b.mul(a[i], c[j]))
}

pub(super) fn determinant(b: &B, m: &[Reg], n: usize) -> Reg {
    let x = |r, c| e(m, n, r, c);
    match n {
        2 => b.sub(b.mul(x(0, 0), x(1, 1)), b.mul(x(0, 1), x(1, 0))),
        3 => {
            let c = cofactors3(b, m);
            let t = [
                b.mul(x(0, 0), c[0][0]),
                b.mul(x(0, 1), c[0][1]),
                b.mul(x(0, 2), c[0][2]),
            ];
            b.sum(&t)
        }
        _ => {
            let (s, c) = minors4(b, m);
            det4(b, &s, &c)
        }
    }
}

fn det4(b: &B, s: &[Reg; 6], c: &[Reg; 6]) -> Reg {
    // s0 c5 - s1 c4 + s2 c3 + s3 c2 - s4 c1 + s5 c0, left to right.
    let mut acc = b.mul(s[0], c[5]);
    acc = b.sub(acc, b.mul(s[1], c[4]));
    acc = b.add(acc, b.mul(s[2], c[3]));
    acc = b.add(acc, b.mul(s[3], c[2]));
    acc = b.sub(acc, b.mul(s[4], c[1]));
    b.add(acc, b.mul(s[5], c[0]))
}

/// The cofactors `c[row][col]` of a 3×3 matrix (`weft_types`' `cofactors3`).
pub(super) fn cofactors3(b: &B, m: &[Reg]) -> [[Reg; 3]; 3] {
    let x = |r, c| e(m, 3, r, c);
    // Each cofactor is `x(a) x(b) - x(c) x(d)`.
    const T: [[[(usize, usize); 4]; 3]; 3] = [
        [
            [(1, 1), (2, 2), (1, 2), (2, 1)],
            [(1, 2), (2, 0), (1, 0), (2, 2)],
            [(1, 0), (2, 1), (1, 1), (2, 0)],
        ],
        [
            [(0, 2), (2, 1), (0, 1), (2, 2)],
            [(0, 0), (2, 2), (0, 2), (2, 0)],
            [(0, 1), (2, 0), (0, 0), (2, 1)],
        ],
        [
            [(0, 1), (1, 2), (0, 2), (1, 1)],
            [(0, 2), (1, 0), (0, 0), (1, 2)],
            [(0, 0), (1, 1), (0, 1), (1, 0)],
        ],
    ];
    T.map(|row| {
        row.map(|[p, q, u, v]| {
            b.sub(
                b.mul(x(p.0, p.1), x(q.0, q.1)),
                b.mul(x(u.0, u.1), x(v.0, v.1)),
            )
        })
    })
}

/// The 2×2 minors of rows 0–1 (`s`) and rows 2–3 (`c`) of a 4×4 matrix.
fn minors4(b: &B, m: &[Reg]) -> ([Reg; 6], [Reg; 6]) {
    let x = |r, c| e(m, 4, r, c);
    const P: [(usize, usize); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    let s = P.map(|(i, j)| b.sub(b.mul(x(0, i), x(1, j)), b.mul(x(1, i), x(0, j))));
    let c = P.map(|(i, j)| b.sub(b.mul(x(2, i), x(3, j)), b.mul(x(3, i), x(2, j))));
    (s, c)
}

/// The adjugate `b[row][col]` and the determinant of a 4×4 matrix (`weft_types`'
/// `adjugate4`).
pub(super) fn adjugate4(b: &B, m: &[Reg]) -> ([[Reg; 4]; 4], Reg) {
    let (s, c) = minors4(b, m);
    let det = det4(b, &s, &c);
    // Each entry: (first term negated, three (row, col, minor) products); the terms
    // alternate in sign: `±m k ∓ m k ± m k`. Minors 0–5 are `s`, 6–11 are `c`.
    type Entry = (bool, [(usize, usize, usize); 3]);
    const T: [[Entry; 4]; 4] = [
        [
            (false, [(1, 1, 11), (1, 2, 10), (1, 3, 9)]),
            (true, [(0, 1, 11), (0, 2, 10), (0, 3, 9)]),
            (false, [(3, 1, 5), (3, 2, 4), (3, 3, 3)]),
            (true, [(2, 1, 5), (2, 2, 4), (2, 3, 3)]),
        ],
        [
            (true, [(1, 0, 11), (1, 2, 8), (1, 3, 7)]),
            (false, [(0, 0, 11), (0, 2, 8), (0, 3, 7)]),
            (true, [(3, 0, 5), (3, 2, 2), (3, 3, 1)]),
            (false, [(2, 0, 5), (2, 2, 2), (2, 3, 1)]),
        ],
        [
            (false, [(1, 0, 10), (1, 1, 8), (1, 3, 6)]),
            (true, [(0, 0, 10), (0, 1, 8), (0, 3, 6)]),
            (false, [(3, 0, 4), (3, 1, 2), (3, 3, 0)]),
            (true, [(2, 0, 4), (2, 1, 2), (2, 3, 0)]),
        ],
        [
            (true, [(1, 0, 9), (1, 1, 7), (1, 2, 6)]),
            (false, [(0, 0, 9), (0, 1, 7), (0, 2, 6)]),
            (true, [(3, 0, 3), (3, 1, 1), (3, 2, 0)]),
            (false, [(2, 0, 3), (2, 1, 1), (2, 2, 0)]),
        ],
    ];
    let minor = |k: usize| if k < 6 { s[k] } else { c[k - 6] };
    let adj = T.map(|row| {
        row.map(|(neg, t)| {
            let term = |(r, col, k): (usize, usize, usize), negate: bool| {
                let x = e(m, 4, r, col);
                let x = if negate { b.neg(x) } else { x };
                b.mul(x, minor(k))
            };
            let t0 = term(t[0], neg);
            let (t1, t2) = (term(t[1], false), term(t[2], false));
            if neg {
                b.sub(b.add(t0, t1), t2)
            } else {
                b.add(b.sub(t0, t1), t2)
            }
        })
    });
    (adj, det)
}

/// The inverse of an `n`×`n` matrix: adjugate / determinant, element by element.
///
/// Zeros when any element of the quotient is not finite (a singular matrix), as the
/// CPU's `weft_types::builtins::inverse`: `Σ (r - r)` is `0` exactly when every `r` is
/// finite, NaN otherwise.
pub(super) fn inverse(b: &B, m: &[Reg], n: usize) -> Vec<Reg> {
    let r = inverse_quotients(b, m, n);
    let diffs: Vec<Reg> = r.iter().map(|x| b.sub(*x, *x)).collect();
    let z = b.lit(0.0);
    let finite = b.cmp("eq", b.sum(&diffs), z);
    r.into_iter().map(|x| b.sel(finite, x, z)).collect()
}

/// The adjugate divided by the determinant, elementwise.
fn inverse_quotients(b: &B, m: &[Reg], n: usize) -> Vec<Reg> {
    let x = |r, c| e(m, n, r, c);
    match n {
        2 => {
            let det = determinant(b, m, 2);
            let (m00, m01, m10, m11) = (x(0, 0), x(0, 1), x(1, 0), x(1, 1));
            vec![
                b.div(m11, det),
                b.div(b.neg(m10), det),
                b.div(b.neg(m01), det),
                b.div(m00, det),
            ]
        }
        3 => {
            let c = cofactors3(b, m);
            let t = [
                b.mul(x(0, 0), c[0][0]),
                b.mul(x(0, 1), c[0][1]),
                b.mul(x(0, 2), c[0][2]),
            ];
            let det = b.sum(&t);
            mat(3, |r, col| b.div(c[col][r], det))
        }
        _ => {
            let (adj, det) = adjugate4(b, m);
            mat(4, |r, col| b.div(adj[r][col], det))
        }
    }
}

/// The cofactor matrix (`C_ij`, column-major) of an `n`×`n` matrix, as the CPU's
/// adjoint of `determinant` computes it.
pub(super) fn cofactor_matrix(b: &B, m: &[Reg], n: usize) -> Vec<Reg> {
    let x = |r, c| e(m, n, r, c);
    match n {
        2 => vec![x(1, 1), b.neg(x(0, 1)), b.neg(x(1, 0)), x(0, 0)],
        3 => {
            let c = cofactors3(b, m);
            mat(3, |r, col| c[r][col])
        }
        _ => {
            let (adj, _) = adjugate4(b, m);
            mat(4, |r, col| adj[col][r])
        }
    }
}

// ---------------------------------------------------------------------------------
// Quaternions (x, y, z, w)
// ---------------------------------------------------------------------------------

pub(super) fn conj(b: &B, q: &[Reg]) -> Vec<Reg> {
    vec![b.neg(q[0]), b.neg(q[1]), b.neg(q[2]), q[3]]
}

/// The Hamilton product `a * c` in `Rotation::mul`'s order.
pub(super) fn quat_mul(b: &B, a: &[Reg], c: &[Reg]) -> Vec<Reg> {
    let (x0, y0, z0, w0) = (a[0], a[1], a[2], a[3]);
    let (x1, y1, z1, w1) = (c[0], c[1], c[2], c[3]);
    // Terms summed left to right, `true` for `+`.
    let terms = [
        [
            (w0, x1, true),
            (x0, w1, true),
            (y0, z1, true),
            (z0, y1, false),
        ],
        [
            (w0, y1, true),
            (x0, z1, false),
            (y0, w1, true),
            (z0, x1, true),
        ],
        [
            (w0, z1, true),
            (x0, y1, true),
            (y0, x1, false),
            (z0, w1, true),
        ],
        [
            (w0, w1, true),
            (x0, x1, false),
            (y0, y1, false),
            (z0, z1, false),
        ],
    ];
    terms
        .iter()
        .map(|t| {
            let mut acc = b.mul(t[0].0, t[0].1);
            for &(p, q, plus) in &t[1..] {
                let m = b.mul(p, q);
                acc = if plus { b.add(acc, m) } else { b.sub(acc, m) };
            }
            acc
        })
        .collect()
}

/// `quat_rotate(q, v)`: `t = cross(u, v) * 2`, `v + w t + cross(u, t)`.
pub(super) fn quat_rotate(b: &B, q: &[Reg], v: &[Reg]) -> Vec<Reg> {
    let u = &q[0..3];
    let two = b.lit(2.0);
    let t = b.scale(&b.cross(u, v), two);
    let d = b.cross(u, &t);
    (0..3)
        .map(|k| b.add(b.add(v[k], b.mul(q[3], t[k])), d[k]))
        .collect()
}

/// `quat_inverse(q)`: `(-x/n, -y/n, -z/n, w/n)`, `n = dot(q, q)`.
pub(super) fn quat_inverse(b: &B, q: &[Reg]) -> Vec<Reg> {
    let n = b.dot(q, q);
    let c = conj(b, q);
    b.vdiv(&c, n)
}

/// `normalize` of a vector or quaternion: zero stays zero. An IEEE division per
/// component (`div.rn`), as the CPU's `weft_types::builtins::normalize` computes it.
pub(super) fn normalize(b: &B, v: &[Reg]) -> Vec<Reg> {
    let l = b.sqrt(b.dot(v, v));
    let z = b.lit(0.0);
    let nz = b.cmp("neu", l, z);
    let q = b.vdiv(v, l);
    q.into_iter().map(|x| b.sel(nz, x, z)).collect()
}

pub(super) fn quat_to_matrix(b: &B, q: &[Reg]) -> Vec<Reg> {
    let (x, y, z, w) = (q[0], q[1], q[2], q[3]);
    let (x2, y2, z2) = (b.add(x, x), b.add(y, y), b.add(z, z));
    let (xx, xy, xz) = (b.mul(x, x2), b.mul(x, y2), b.mul(x, z2));
    let (yy, yz, zz) = (b.mul(y, y2), b.mul(y, z2), b.mul(z, z2));
    let (wx, wy, wz) = (b.mul(w, x2), b.mul(w, y2), b.mul(w, z2));
    let one = b.lit(1.0);
    vec![
        b.sub(one, b.add(yy, zz)),
        b.add(xy, wz),
        b.sub(xz, wy),
        b.sub(xy, wz),
        b.sub(one, b.add(xx, zz)),
        b.add(yz, wx),
        b.add(xz, wy),
        b.sub(yz, wx),
        b.sub(one, b.add(xx, yy)),
    ]
}

/// Shepperd's branches of `quat_from_matrix`, indexed by the component computed as
/// `0.5 h` (0–2: `x y z`; 3: `w`, the trace branch). Each lists the three other
/// components `k` as `(m[r0][c0] ± m[r1][c1]) * f`: `(k, (r0, c0), (r1, c1), minus)`.
pub(super) type ShepperdTerm = (usize, (usize, usize), (usize, usize), bool);
pub(super) const SHEPPERD: [[ShepperdTerm; 3]; 4] = [
    [
        (1, (0, 1), (1, 0), false),
        (2, (2, 0), (0, 2), false),
        (3, (2, 1), (1, 2), true),
    ],
    [
        (0, (0, 1), (1, 0), false),
        (2, (1, 2), (2, 1), false),
        (3, (0, 2), (2, 0), true),
    ],
    [
        (0, (2, 0), (0, 2), false),
        (1, (1, 2), (2, 1), false),
        (3, (1, 0), (0, 1), true),
    ],
    [
        (0, (2, 1), (1, 2), true),
        (1, (0, 2), (2, 0), true),
        (2, (1, 0), (0, 1), true),
    ],
];

/// The branch predicates of `quat_from_matrix` (one true, in [`SHEPPERD`]'s order)
/// and the radicand `d` of each branch.
pub(super) fn shepperd_branches(b: &B, m: &[Reg]) -> ([Reg; 4], [Reg; 4]) {
    let x = |i| e(m, 3, i, i);
    let (m00, m11, m22) = (x(0), x(1), x(2));
    let t = b.add(b.add(m00, m11), m22);
    let z = b.lit(0.0);
    let one = b.lit(1.0);
    let p3 = b.cmp("ge", t, z);
    let n3 = b.not(p3);
    let big0 = b.pred("and", b.cmp("ge", m00, m11), b.cmp("ge", m00, m22));
    let p0 = b.pred("and", n3, big0);
    let rest = b.pred("and", n3, b.not(big0));
    let big1 = b.cmp("ge", m11, m22);
    let p1 = b.pred("and", rest, big1);
    let p2 = b.pred("and", rest, b.not(big1));
    let d = [
        b.add(b.sub(m00, b.add(m11, m22)), one),
        b.add(b.sub(m11, b.add(m22, m00)), one),
        b.add(b.sub(m22, b.add(m00, m11)), one),
        b.add(t, one),
    ];
    ([p0, p1, p2, p3], d)
}

/// The unnormalized quaternion of branch `big` with `h = sqrt(d)`, `f = 0.5 / h`.
pub(super) fn shepperd_raw(b: &B, m: &[Reg], big: usize, h: Reg, f: Reg) -> Vec<Reg> {
    let half = b.lit(0.5);
    let mut raw = vec![h; 4];
    raw[big] = b.mul(half, h);
    for &(k, (r0, c0), (r1, c1), minus) in &SHEPPERD[big] {
        let (u, v) = (e(m, 3, r0, c0), e(m, 3, r1, c1));
        let s = if minus { b.sub(u, v) } else { b.add(u, v) };
        raw[k] = b.mul(s, f);
    }
    raw
}

pub(super) fn quat_from_matrix(b: &B, m: &[Reg]) -> Vec<Reg> {
    let (p, d) = shepperd_branches(b, m);
    let half = b.lit(0.5);
    let mut q = Vec::new();
    for big in 0..4 {
        let h = b.sqrt(d[big]);
        let f = b.div(half, h);
        let raw = shepperd_raw(b, m, big, h, f);
        q = if big == 0 {
            raw
        } else {
            b.selv(p[big], &raw, &q)
        };
    }
    normalize(b, &q)
}

pub(super) fn quat_from_axis_angle(b: &B, axis: &[Reg], angle: Reg) -> Result<Vec<Reg>, String> {
    let half = b.mul(angle, b.lit(0.5));
    let (s, c) = b.sincos(half)?;
    let mut q = b.scale(axis, s);
    q.push(c);
    Ok(q)
}

// ---------------------------------------------------------------------------------
// Transforms (p, q) and spatial vectors (top, bottom)
// ---------------------------------------------------------------------------------

pub(super) fn transform_point(b: &B, t: &[Reg], p: &[Reg]) -> Vec<Reg> {
    let r = quat_rotate(b, &t[3..7], p);
    b.vadd(&r, &t[0..3])
}

pub(super) fn transform_inverse(b: &B, t: &[Reg]) -> Vec<Reg> {
    let q = conj(b, &t[3..7]);
    let r = quat_rotate(b, &q, &t[0..3]);
    let mut out = b.vneg(&r);
    out.extend(q);
    out
}

/// Composition `a * c`: `p = quat_rotate(a.q, c.p) + a.p`, `q = a.q * c.q`.
pub(super) fn transform_mul(b: &B, a: &[Reg], c: &[Reg]) -> Vec<Reg> {
    let mut out = transform_point(b, a, &c[0..3]);
    out.extend(quat_mul(b, &a[3..7], &c[3..7]));
    out
}

pub(super) fn spatial_cross(b: &B, a: &[Reg], c: &[Reg]) -> Vec<Reg> {
    let t0 = b.cross(&a[3..6], &c[0..3]);
    let t1 = b.cross(&a[0..3], &c[3..6]);
    let mut out = b.vadd(&t0, &t1);
    out.extend(b.cross(&a[3..6], &c[3..6]));
    out
}

pub(super) fn spatial_cross_dual(b: &B, a: &[Reg], f: &[Reg]) -> Vec<Reg> {
    let b0 = b.cross(&a[3..6], &f[3..6]);
    let b1 = b.cross(&a[0..3], &f[0..3]);
    let mut out = b.cross(&a[3..6], &f[0..3]);
    out.extend(b.vadd(&b0, &b1));
    out
}

/// Spatial matrix (row-major 6×6) times spatial vector: each row's products summed
/// left to right.
pub(super) fn spatial_mat_vec(b: &B, m: &[Reg], v: &[Reg]) -> Vec<Reg> {
    (0..6).map(|r| b.dot(&m[r * 6..r * 6 + 6], v)).collect()
}

/// Spatial matrix product: `out[r][c] = Σ_k a[r][k] m[k][c]`, left to right.
pub(super) fn spatial_mat_mat(b: &B, a: &[Reg], m: &[Reg]) -> Vec<Reg> {
    let mut out = Vec::with_capacity(36);
    for r in 0..6 {
        for c in 0..6 {
            let col: Vec<Reg> = (0..6).map(|k| m[k * 6 + c]).collect();
            out.push(b.dot(&a[r * 6..r * 6 + 6], &col));
        }
    }
    out
}

pub(super) fn spatial_transpose(m: &[Reg]) -> Vec<Reg> {
    (0..36).map(|k| m[(k % 6) * 6 + k / 6]).collect()
}
