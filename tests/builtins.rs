//! Every builtin, called from a kernel, against a reference (glam or f64 math) on
//! random inputs; with a GPU, the CUDA results against the CPU's (integers exactly,
//! floats within `weft_testkit::devices::FLOAT_ULPS` ulp).

use approx::assert_relative_eq;
use proptest::prelude::*;
use weft::prelude::*;
use weft_testkit::devices::on_devices;

fn cfg() -> ProptestConfig {
    ProptestConfig {
        cases: if cfg!(debug_assertions) { 48 } else { 256 },
        ..ProptestConfig::default()
    }
}

#[weft::kernel]
fn scalar_unary(x: &Array<f32>, out: &mut Array<f32, 2>) {
    let i = tid();
    let v = x[i];
    let a = abs(v);
    out[i][0] = sin(v);
    out[i][1] = cos(v);
    out[i][2] = tan(v);
    out[i][3] = asin(v / (a + 1.0));
    out[i][4] = acos(v / (a + 1.0));
    out[i][5] = atan(v);
    out[i][6] = sinh(v);
    out[i][7] = cosh(v);
    out[i][8] = tanh(v);
    out[i][9] = exp(v);
    out[i][10] = exp2(v);
    out[i][11] = log(a + 0.5);
    out[i][12] = log2(a + 0.5);
    out[i][13] = log10(a + 0.5);
    out[i][14] = sqrt(a);
    out[i][15] = cbrt(v);
    out[i][16] = floor(v);
    out[i][17] = ceil(v);
    out[i][18] = round(v);
    out[i][19] = trunc(v);
    out[i][20] = a;
    out[i][21] = sign(v);
    out[i][22] = v.sqrt().abs() + v.sin();
}

fn scalar_reference(v: f32) -> [f64; 23] {
    let x = v as f64;
    let a = x.abs();
    let a32 = v.abs();
    let r = (v / (a32 + 1.0)) as f64;
    [
        x.sin(),
        x.cos(),
        x.tan(),
        r.asin(),
        r.acos(),
        x.atan(),
        x.sinh(),
        x.cosh(),
        x.tanh(),
        x.exp(),
        x.exp2(),
        ((a32 + 0.5) as f64).ln(),
        ((a32 + 0.5) as f64).log2(),
        ((a32 + 0.5) as f64).log10(),
        a.sqrt(),
        x.cbrt(),
        x.floor(),
        x.ceil(),
        x.round(),
        x.trunc(),
        a,
        if v > 0.0 {
            1.0
        } else if v < 0.0 {
            -1.0
        } else {
            0.0
        },
        x.sqrt().abs() + x.sin(),
    ]
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn scalar_builtins(xs in prop::collection::vec(-8.0f32..8.0, 1..64)) {
        let n = xs.len();
        let out = on_devices("scalar_unary", |d| {
            let x = Array::from_slice(d, &xs);
            let mut out: Array<f32, 2> = Array::zeros(d, [n, 23]);
            scalar_unary::launch(n, &x, &mut out).unwrap();
            out.to_vec()
        });
        for (i, &v) in xs.iter().enumerate() {
            let reference = scalar_reference(v);
            for (k, &r) in reference.iter().enumerate() {
                let got = out[i * 23 + k] as f64;
                if r.is_nan() {
                    prop_assert!(got.is_nan(), "builtin #{k} of {v}: {got} vs NaN");
                } else {
                    // A few f32 ulp (the ulp sweep in weft-math is the precise check).
                    let tol = 4.0 * f32::EPSILON as f64 * r.abs().max(1e-30) + 1e-37;
                    prop_assert!((got - r).abs() <= tol, "builtin #{k} of {v}: {got} vs {r}");
                }
            }
        }
    }
}

#[weft::kernel]
fn scalar_binary(x: &Array<f32>, y: &Array<f32>, out: &mut Array<f32, 2>, ix: &mut Array<i32, 2>) {
    let i = tid();
    let (a, b) = (x[i], y[i]);
    out[i][0] = atan2(a, b);
    out[i][1] = pow(abs(a), b);
    out[i][2] = min(a, b);
    out[i][3] = max(a, b);
    out[i][4] = clamp(a, -1.0, 1.0);
    out[i][5] = a % b;
    out[i][6] = a.powf(2.0) - a.powi(2);
    let (p, q) = (a as i32, b as i32);
    ix[i][0] = min(p, q);
    ix[i][1] = max(p, q);
    ix[i][2] = clamp(p, -2, 2);
    ix[i][3] = abs(p) + sign(q);
    ix[i][4] = (p & 7) | (q ^ 3);
    ix[i][5] = (p << 2) >> 1;
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn binary_builtins(pairs in prop::collection::vec((-6.0f32..6.0, 0.25f32..4.0), 1..64)) {
        let n = pairs.len();
        let xs: Vec<f32> = pairs.iter().map(|p| p.0).collect();
        let ys: Vec<f32> = pairs.iter().map(|p| p.1).collect();
        let (out, ix) = on_devices("scalar_binary", |d| {
            let x = Array::from_slice(d, &xs);
            let y = Array::from_slice(d, &ys);
            let mut out: Array<f32, 2> = Array::zeros(d, [n, 7]);
            let mut ix: Array<i32, 2> = Array::zeros(d, [n, 6]);
            scalar_binary::launch(n, &x, &y, &mut out, &mut ix).unwrap();
            (out.to_vec(), ix.to_vec())
        });
        for i in 0..n {
            let (a, b) = (xs[i], ys[i]);
            let (ad, bd) = (a as f64, b as f64);
            let reference = [ad.atan2(bd), ad.abs().powf(bd), a.min(b) as f64, a.max(b) as f64, a.clamp(-1.0, 1.0) as f64, (a % b) as f64, 0.0];
            for (k, r) in reference.iter().enumerate() {
                let got = out[i * 7 + k] as f64;
                let tol = 4.0 * f32::EPSILON as f64 * r.abs().max(1.0);
                prop_assert!((got - r).abs() <= tol, "#{k} of ({a}, {b}): {got} vs {r}");
            }
            let (p, q) = (a as i32, b as i32);
            let ir = [p.min(q), p.max(q), p.clamp(-2, 2), p.abs() + q.signum(), (p & 7) | (q ^ 3), (p << 2) >> 1];
            prop_assert_eq!(&ix[i * 6..i * 6 + 6], &ir[..]);
        }
    }
}

fn vec3s() -> impl Strategy<Value = Vec3> {
    (-4.0f32..4.0, -4.0f32..4.0, -4.0f32..4.0).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn unit_quats() -> impl Strategy<Value = Quat> {
    (vec3s(), -3.0f32..3.0).prop_map(|(a, angle)| {
        let axis = if a.length() < 1e-3 {
            Vec3::X
        } else {
            a.normalize()
        };
        Quat::from_axis_angle(axis, angle)
    })
}

#[weft::kernel]
fn vector_ops(a: &Array<Vec3>, b: &Array<Vec3>, s: &mut Array<f32, 2>, v: &mut Array<Vec3, 2>) {
    let i = tid();
    let (x, y) = (a[i], b[i]);
    s[i][0] = dot(x, y);
    s[i][1] = length(x);
    s[i][2] = length_sq(x);
    s[i][3] = x.length_squared();
    v[i][0] = cross(x, y);
    v[i][1] = normalize(x);
    v[i][2] = min(x, y);
    v[i][3] = max(x, y);
    v[i][4] = abs(x);
    v[i][5] = x * y - x / 2.0 + 3.0 * y;
    v[i][6] = -x;
    v[i][7] = clamp(x, Vec3::splat(-1.0), Vec3::ONE);
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn vector_builtins(pairs in prop::collection::vec((vec3s(), vec3s()), 1..32)) {
        let n = pairs.len();
        let (s, v) = on_devices("vector_ops", |d| {
            let a = Array::from_vec(d, pairs.iter().map(|p| p.0).collect());
            let b = Array::from_vec(d, pairs.iter().map(|p| p.1).collect());
            let mut s: Array<f32, 2> = Array::zeros(d, [n, 4]);
            let mut v: Array<Vec3, 2> = Array::zeros(d, [n, 8]);
            vector_ops::launch(n, &a, &b, &mut s, &mut v).unwrap();
            (s.to_vec(), v.to_vec())
        });
        for (i, (x, y)) in pairs.iter().copied().enumerate() {
            assert_relative_eq!(s[i * 4], x.dot(y), epsilon = 1e-5, max_relative = 1e-5);
            assert_relative_eq!(s[i * 4 + 1], x.length(), max_relative = 1e-6);
            assert_relative_eq!(s[i * 4 + 2], x.length_squared(), max_relative = 1e-6);
            assert_relative_eq!(s[i * 4 + 3], x.length_squared(), max_relative = 1e-6);
            let expect = [x.cross(y), x.normalize_or_zero(), x.min(y), x.max(y), x.abs(), x * y - x / 2.0 + 3.0 * y, -x, x.clamp(Vec3::splat(-1.0), Vec3::ONE)];
            for (k, e) in expect.iter().enumerate() {
                assert_relative_eq!(v[i * 8 + k], *e, epsilon = 1e-5, max_relative = 1e-5);
            }
        }
    }
}

#[weft::kernel]
fn matrix_ops(
    m: &Array<Mat3>,
    a: &Array<Vec3>,
    s: &mut Array<f32, 2>,
    mo: &mut Array<Mat3, 2>,
    vo: &mut Array<Vec3, 2>,
) {
    let i = tid();
    let (x, v) = (m[i], a[i]);
    s[i][0] = determinant(x);
    s[i][1] = trace(x);
    mo[i][0] = transpose(x);
    mo[i][1] = inverse(x);
    mo[i][2] = outer(v, v);
    mo[i][3] = diag(v);
    mo[i][4] = skew(v);
    mo[i][5] = x * x + x - 2.0 * x;
    vo[i][0] = x * v;
    vo[i][1] = skew(v) * x.col(0);
    vo[i][2] = x.row(1);
}

fn well_conditioned() -> impl Strategy<Value = Mat3> {
    (vec3s(), vec3s(), vec3s())
        .prop_map(|(a, b, c)| Mat3::from_cols(a, b, c) * 0.1 + Mat3::IDENTITY * 2.0)
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn matrix_builtins(items in prop::collection::vec((well_conditioned(), vec3s()), 1..16)) {
        let n = items.len();
        let (s, mo, vo) = on_devices("matrix_ops", |d| {
            let m = Array::from_vec(d, items.iter().map(|p| p.0).collect());
            let a = Array::from_vec(d, items.iter().map(|p| p.1).collect());
            let mut s: Array<f32, 2> = Array::zeros(d, [n, 2]);
            let mut mo: Array<Mat3, 2> = Array::zeros(d, [n, 6]);
            let mut vo: Array<Vec3, 2> = Array::zeros(d, [n, 3]);
            matrix_ops::launch(n, &m, &a, &mut s, &mut mo, &mut vo).unwrap();
            (s.to_vec(), mo.to_vec(), vo.to_vec())
        });
        for (i, (x, v)) in items.iter().copied().enumerate() {
            assert_relative_eq!(s[i * 2], x.determinant(), max_relative = 1e-5);
            assert_relative_eq!(s[i * 2 + 1], x.x_axis.x + x.y_axis.y + x.z_axis.z, max_relative = 1e-6);
            let skew = Mat3::from_cols(Vec3::new(0.0, v.z, -v.y), Vec3::new(-v.z, 0.0, v.x), Vec3::new(v.y, -v.x, 0.0));
            let outer = Mat3::from_cols(v * v.x, v * v.y, v * v.z);
            let expect = [x.transpose(), x.inverse(), outer, Mat3::from_diagonal(v), skew, x * x + x - 2.0 * x];
            for (k, e) in expect.iter().enumerate() {
                assert_relative_eq!(mo[i * 6 + k], *e, epsilon = 1e-4, max_relative = 1e-4);
            }
            assert_relative_eq!(vo[i * 3], x * v, epsilon = 1e-5, max_relative = 1e-5);
            assert_relative_eq!(vo[i * 3 + 1], v.cross(x.x_axis), epsilon = 1e-5, max_relative = 1e-5);
            assert_relative_eq!(vo[i * 3 + 2], x.row(1), epsilon = 1e-6);
        }
    }
}

#[weft::kernel]
fn quat_transform_ops(
    q: &Array<Quat>,
    p: &Array<Vec3>,
    vo: &mut Array<Vec3, 2>,
    qo: &mut Array<Quat, 2>,
    mo: &mut Array<Mat3>,
    to: &mut Array<Transform>,
) {
    let i = tid();
    let (r, v) = (q[i], p[i]);
    vo[i][0] = quat_rotate(r, v);
    vo[i][1] = quat_rotate_inv(r, v);
    vo[i][2] = r * v;
    let t = Transform::new(v, r);
    vo[i][3] = transform_point(t, Vec3::X);
    vo[i][4] = transform_vector(t, Vec3::X);
    vo[i][5] = transform_point(transform_inverse(t) * t, Vec3::Y);
    qo[i][0] = quat_inverse(r);
    qo[i][1] = r * r;
    qo[i][2] = quat_from_matrix(quat_to_matrix(r));
    qo[i][3] = quat_from_axis_angle(Vec3::Z, v.x);
    qo[i][4] = normalize(r * 2.0);
    mo[i] = quat_to_matrix(r);
    to[i] = t * t;
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn quaternion_and_transform_builtins(items in prop::collection::vec((unit_quats(), vec3s()), 1..16)) {
        let n = items.len();
        let (vo, qo, mo, to) = on_devices("quat_transform_ops", |d| {
            let q = Array::from_vec(d, items.iter().map(|p| p.0).collect());
            let p = Array::from_vec(d, items.iter().map(|p| p.1).collect());
            let mut vo: Array<Vec3, 2> = Array::zeros(d, [n, 6]);
            let mut qo: Array<Quat, 2> = Array::zeros(d, [n, 5]);
            let mut mo: Array<Mat3> = Array::zeros(d, [n]);
            let mut to: Array<Transform> = Array::zeros(d, [n]);
            quat_transform_ops::launch(n, &q, &p, &mut vo, &mut qo, &mut mo, &mut to).unwrap();
            (vo.to_vec(), qo.to_vec(), mo.to_vec(), to.to_vec())
        });
        for (i, (r, v)) in items.iter().copied().enumerate() {
            let e = 1e-5;
            assert_relative_eq!(vo[i * 6], r * v, epsilon = e * 4.0);
            assert_relative_eq!(vo[i * 6 + 1], r.inverse() * v, epsilon = e * 4.0);
            assert_relative_eq!(vo[i * 6 + 2], r * v, epsilon = e * 4.0);
            assert_relative_eq!(vo[i * 6 + 3], r * Vec3::X + v, epsilon = e * 4.0);
            assert_relative_eq!(vo[i * 6 + 4], r * Vec3::X, epsilon = e);
            assert_relative_eq!(vo[i * 6 + 5], Vec3::Y, epsilon = 1e-4);
            assert_relative_eq!(qo[i * 5], r.inverse(), epsilon = e);
            assert_relative_eq!(qo[i * 5 + 1], r * r, epsilon = e);
            let back = qo[i * 5 + 2];
            prop_assert!((back.dot(r).abs() - 1.0).abs() < 1e-5, "{back:?} vs {r:?}");
            assert_relative_eq!(qo[i * 5 + 3], Quat::from_axis_angle(Vec3::Z, v.x), epsilon = e);
            assert_relative_eq!(qo[i * 5 + 4], r, epsilon = e);
            assert_relative_eq!(mo[i], Mat3::from_quat(r), epsilon = e);
            assert_relative_eq!(to[i].p, r * v + v, epsilon = e * 4.0);
            assert_relative_eq!(to[i].q, r * r, epsilon = e);
        }
    }
}

#[weft::kernel]
fn spatial_ops(
    a: &Array<SpatialVector>,
    b: &Array<SpatialVector>,
    s: &mut Array<f32>,
    o: &mut Array<SpatialVector, 2>,
    tops: &mut Array<Vec3>,
) {
    let i = tid();
    let (x, y) = (a[i], b[i]);
    s[i] = dot(x, y);
    o[i][0] = spatial_cross(x, y);
    o[i][1] = spatial_cross_dual(x, y);
    o[i][2] = x + y * 2.0 - x;
    tops[i] = spatial_top(x) + spatial_bottom(y);
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn spatial_builtins(items in prop::collection::vec((vec3s(), vec3s(), vec3s(), vec3s()), 1..16)) {
        let n = items.len();
        let sv = |t: Vec3, b: Vec3| SpatialVector::new(t, b);
        let (s, o, tops) = on_devices("spatial_ops", |d| {
            let a = Array::from_vec(d, items.iter().map(|p| sv(p.0, p.1)).collect());
            let b = Array::from_vec(d, items.iter().map(|p| sv(p.2, p.3)).collect());
            let mut s: Array<f32> = Array::zeros(d, [n]);
            let mut o: Array<SpatialVector, 2> = Array::zeros(d, [n, 3]);
            let mut tops: Array<Vec3> = Array::zeros(d, [n]);
            spatial_ops::launch(n, &a, &b, &mut s, &mut o, &mut tops).unwrap();
            (s.to_vec(), o.to_vec(), tops.to_vec())
        });
        for (i, &(lin_a, ang_a, lin_b, ang_b)) in items.iter().enumerate() {
            assert_relative_eq!(s[i], lin_a.dot(lin_b) + ang_a.dot(ang_b), epsilon = 1e-4, max_relative = 1e-5);
            // Motion cross product with (linear, angular) ordering:
            // [w×v' + v×w', w×w'] and its dual [w×f, w×n + v×f].
            let crm = sv(ang_a.cross(lin_b) + lin_a.cross(ang_b), ang_a.cross(ang_b));
            let crf = sv(ang_a.cross(lin_b), ang_a.cross(ang_b) + lin_a.cross(lin_b));
            assert_relative_eq!(o[i * 3].top, crm.top, epsilon = 1e-4);
            assert_relative_eq!(o[i * 3].bottom, crm.bottom, epsilon = 1e-4);
            assert_relative_eq!(o[i * 3 + 1].top, crf.top, epsilon = 1e-4);
            assert_relative_eq!(o[i * 3 + 1].bottom, crf.bottom, epsilon = 1e-4);
            assert_relative_eq!(o[i * 3 + 2].top, lin_b * 2.0, epsilon = 1e-5);
            assert_relative_eq!(tops[i], lin_a + ang_b, epsilon = 1e-6);
        }
    }
}

#[weft::kernel]
fn f64_ops(x: &Array<f64>, out: &mut Array<f64, 2>, v: &mut Array<DVec3>) {
    let i = tid();
    let a = x[i];
    out[i][0] = sin(a) + cos(a);
    out[i][1] = exp(a / 4.0) - log(abs(a) + 1.0);
    out[i][2] = atan2(a, 1.5) * pow(abs(a) + 1.0, 0.5);
    v[i] = normalize(DVec3::new(a, 1.0, -a)) * sqrt(abs(a));
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn f64_builtins(xs in prop::collection::vec(-10.0f64..10.0, 1..32)) {
        let n = xs.len();
        let (out, v) = on_devices("f64_ops", |d| {
            let x = Array::from_slice(d, &xs);
            let mut out: Array<f64, 2> = Array::zeros(d, [n, 3]);
            let mut v: Array<DVec3> = Array::zeros(d, [n]);
            f64_ops::launch(n, &x, &mut out, &mut v).unwrap();
            (out.to_vec(), v.to_vec())
        });
        for (i, &a) in xs.iter().enumerate() {
            let r = [a.sin() + a.cos(), (a / 4.0).exp() - (a.abs() + 1.0).ln(), a.atan2(1.5) * (a.abs() + 1.0).powf(0.5)];
            for k in 0..3 {
                assert_relative_eq!(out[i * 3 + k], r[k], epsilon = 1e-14, max_relative = 1e-14);
            }
            assert_relative_eq!(v[i], DVec3::new(a, 1.0, -a).normalize() * a.abs().sqrt(), epsilon = 1e-14);
        }
    }
}

#[weft::kernel]
fn bit_casts(x: &Array<f32>, bits: &mut Array<u32>, back: &mut Array<f32>) {
    let i = tid();
    bits[i] = f32_to_bits(x[i]);
    back[i] = f32_from_bits(bits[i]);
}

#[test]
fn bit_cast_builtins() {
    let xs = [0.0f32, -0.0, 1.5, f32::MAX, f32::MIN_POSITIVE];
    let (bits, back) = on_devices("bit_casts", |d| {
        let x = Array::from_slice(d, &xs);
        let mut bits: Array<u32> = Array::zeros(d, [5]);
        let mut back: Array<f32> = Array::zeros(d, [5]);
        bit_casts::launch(5, &x, &mut bits, &mut back).unwrap();
        (bits.to_vec(), back.to_vec())
    });
    assert_eq!(bits, xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    assert_eq!(
        back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn every_kernel_here_has_ptx() {
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(
            scalar_unary,
            scalar_binary,
            vector_ops,
            matrix_ops,
            quat_transform_ops,
            spatial_ops,
            f64_ops,
            bit_casts,
        ),
        &[],
    );
}

#[weft::kernel]
fn fused(
    a: &Array<Vec3>,
    b: &Array<Vec3>,
    c: &Array<Vec3>,
    out: &mut Array<Vec3>,
    wide: &mut Array<f64>,
) {
    let i = tid();
    out[i] = fma(a[i], b[i], c[i]);
    let (x, y, z) = (a[i].x as f64, b[i].y as f64, c[i].z as f64);
    wide[i] = fma(x * 0.1, y * 0.3, z);
}

/// `fma` rounds once, exactly as IEEE's fused multiply-add (`mul_add`), bit for bit
/// on the CPU and on CUDA, including where the separately rounded `a * b + c` differs.
#[test]
fn fma_is_fused_and_identical_on_every_device() {
    let n = 4096;
    let mut rng = 0x2545_f491u32;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        rng as f32 / u32::MAX as f32 * 4.0 - 2.0
    };
    let mut abc: [Vec<Vec3>; 3] = Default::default();
    for v in &mut abc {
        *v = (0..n).map(|_| Vec3::new(next(), next(), next())).collect();
    }
    // A product's rounding error survives only when fused: 0.1 * 10 - 1.
    abc[0][0] = Vec3::splat(0.1);
    abc[1][0] = Vec3::splat(10.0);
    abc[2][0] = Vec3::splat(-1.0);
    let run = |d: Device| {
        let [a, b, c] = abc.each_ref().map(|v| Array::from_slice(d, v));
        let mut out = Array::zeros(d, [n]);
        let mut wide = Array::zeros(d, [n]);
        fused::launch(n, &a, &b, &c, &mut out, &mut wide).unwrap();
        (out.to_vec(), wide.to_vec())
    };
    let (out, wide) = run(Device::Cpu);
    let mut differs = 0;
    for i in 0..n {
        let (a, b, c) = (abc[0][i], abc[1][i], abc[2][i]);
        for k in 0..3 {
            let fused = a[k].mul_add(b[k], c[k]);
            assert_eq!(out[i][k].to_bits(), fused.to_bits(), "fma at {i}.{k}");
            differs += (fused != a[k] * b[k] + c[k]) as usize;
        }
        let (x, y, z) = (a.x as f64 * 0.1, b.y as f64 * 0.3, c.z as f64);
        assert_eq!(
            wide[i].to_bits(),
            x.mul_add(y, z).to_bits(),
            "f64 fma at {i}"
        );
    }
    assert_eq!(out[0], Vec3::splat(1.4901161e-8));
    assert!(
        differs > n / 10,
        "only {differs} fused results differ from a * b + c"
    );
    if let Some(d) = weft_testkit::devices::cuda() {
        let (g_out, g_wide) = run(d);
        let bits = |v: &[Vec3]| -> Vec<u32> {
            v.iter()
                .flat_map(|v| v.to_array())
                .map(f32::to_bits)
                .collect()
        };
        assert_eq!(bits(&out), bits(&g_out), "CUDA fma differs from the CPU's");
        let bits64 = |v: &[f64]| -> Vec<u64> { v.iter().map(|x| x.to_bits()).collect() };
        assert_eq!(
            bits64(&wide),
            bits64(&g_wide),
            "CUDA f64 fma differs from the CPU's"
        );
    }
}
