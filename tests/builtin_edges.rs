//! The builtins' documented edge semantics (README, "Builtins"), through kernels:
//! `asin`/`acos` clamp their argument, `sign` keeps zeros, `inverse` of a singular
//! matrix is zero (with a zero gradient), `normalize` divides each component, and the
//! gradients at singular points take their documented values. The PTX back end is
//! checked to emit the same rules (its results are compared with the CPU's bit for bit
//! by the GPU runs of `tests/builtins.rs`).

use weft::prelude::*;

#[weft::kernel]
fn inverse_trig(x: &Array<f32>, out: &mut Array<f32, 2>) {
    let i = tid();
    out[i][0] = asin(x[i]);
    out[i][1] = acos(x[i]);
}

#[weft::kernel]
fn signs(x: &Array<f32>, out: &mut Array<f32>) {
    let i = tid();
    out[i] = sign(x[i]);
}

#[weft::kernel]
fn invert(m: &Array<Mat3>, out: &mut Array<Mat3>, loss: &mut Array<f32>) {
    let i = tid();
    let r = inverse(m[i]);
    out[i] = r;
    atomic_add(&mut loss[0], trace(r) + r.x_axis.y * 3.0);
}

#[weft::kernel]
fn normalized(v: &Array<Vec3>, out: &mut Array<Vec3>) {
    let i = tid();
    out[i] = normalize(v[i]);
}

/// One scalar function per row of `x` (columns: arguments), summed into `loss`.
#[weft::kernel]
fn singular(x: &Array<f32, 2>, loss: &mut Array<f32>) {
    let i = tid();
    let a = x[i][0];
    let b = x[i][1];
    let mut r = 0.0;
    if i == 0 {
        r = sqrt(a);
    } else if i == 1 {
        r = cbrt(a);
    } else if i == 2 {
        r = pow(a, b);
    } else if i == 3 {
        r = atan2(a, b);
    } else if i == 4 {
        r = asin(a);
    } else {
        r = acos(a);
    }
    atomic_add(&mut loss[0], r);
}

#[test]
fn asin_and_acos_clamp_their_argument() {
    let one_up = f32::from_bits(1.0f32.to_bits() + 1);
    let xs = [one_up, -one_up, 2.0, -1e30, f32::NAN, 0.5];
    let x = Array::from_slice(Device::Cpu, &xs);
    let mut out = Array::zeros(Device::Cpu, [xs.len(), 2]);
    inverse_trig::launch(xs.len(), &x, &mut out).unwrap();
    let o = out.to_vec();
    let (asin1, acos1, acos_m1) = (weft::math::asin(1.0), 0.0, weft::math::acos(-1.0));
    assert_eq!(&o[0..2], &[asin1, acos1]);
    assert_eq!(&o[2..4], &[-asin1, acos_m1]);
    assert_eq!(&o[4..6], &[asin1, acos1]);
    assert_eq!(&o[6..8], &[-asin1, acos_m1]);
    assert!(
        o[8].is_nan() && o[9].is_nan(),
        "NaN stays NaN: {:?}",
        &o[8..10]
    );
    assert_eq!(&o[10..12], &[weft::math::asin(0.5), weft::math::acos(0.5)]);
}

#[test]
fn sign_of_zero_is_that_zero() {
    let xs = [0.0f32, -0.0, 3.0, -2.0, f32::NAN];
    let mut out = Array::zeros(Device::Cpu, [xs.len()]);
    signs::launch(xs.len(), &Array::from_slice(Device::Cpu, &xs), &mut out).unwrap();
    let bits: Vec<u32> = out.to_vec().iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits[..4], [0.0f32, -0.0, 1.0, -1.0].map(f32::to_bits));
    assert!(out.to_vec()[4].is_nan());
}

#[test]
fn inverse_of_a_singular_matrix_is_zero_with_zero_gradient() {
    let singular = Mat3::from_cols(Vec3::X, Vec3::Y, Vec3::X + Vec3::Y);
    let rank_one = Mat3::from_cols(Vec3::ONE, Vec3::ONE * 2.0, Vec3::ONE * -1.0);
    let tiny = Mat3::from_diagonal(Vec3::splat(1e-20)); // det underflows to 0
    let regular = Mat3::from_cols(Vec3::new(2.0, 0.0, 1.0), Vec3::Y, Vec3::new(0.0, 1.0, 3.0));
    let ms = [singular, rank_one, tiny, regular];
    let m = Array::from_slice(Device::Cpu, &ms).requires_grad();
    let mut out = Array::zeros(Device::Cpu, [ms.len()]);
    let mut loss = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| invert::launch(ms.len(), &m, &mut out, &mut loss))
        .unwrap();
    tape.backward(&mut loss).unwrap();
    let (o, g) = (out.to_vec(), m.grad_to_vec().unwrap());
    for k in 0..3 {
        assert_eq!(o[k], Mat3::ZERO, "matrix {k}");
        assert_eq!(g[k], Mat3::ZERO, "gradient {k}");
    }
    assert!((o[3] * regular).abs_diff_eq(Mat3::IDENTITY, 1e-6));
    assert!(g[3].is_finite() && g[3] != Mat3::ZERO);
}

#[test]
fn normalize_divides_each_component_by_the_length() {
    // Enough vectors that a product by `1 / l` would differ in some component.
    let vs: Vec<Vec3> = (1..2000)
        .map(|k| {
            let t = k as f32;
            Vec3::new(t.sin() * 3.0, (t * 0.7).cos() + 0.1, t * 1e-3 - 1.0)
        })
        .collect();
    let mut out = Array::zeros(Device::Cpu, [vs.len()]);
    normalized::launch(vs.len(), &Array::from_slice(Device::Cpu, &vs), &mut out).unwrap();
    for (v, n) in vs.iter().zip(out.to_vec()) {
        let l = v.dot(*v).sqrt();
        assert_eq!(n, *v / l, "{v:?}");
    }
}

#[test]
fn gradients_at_singular_points_are_the_documented_values() {
    // (a, b) per row, and the expected d/da, d/db (README, "Gradients").
    let rows: [([f32; 2], [f32; 2]); 8] = [
        ([0.0, 0.0], [0.0, 0.0]),      // sqrt at 0
        ([0.0, 0.0], [0.0, 0.0]),      // cbrt at 0
        ([0.0, 0.5], [0.0, 0.0]),      // pow(0, 0.5): infinite d/dx → 0; d/dy 0
        ([0.0, 0.0], [0.0, 0.0]),      // atan2 at the origin
        ([1.5, 0.0], [0.0, 0.0]),      // asin beyond 1 (clamped)
        ([-1.0, 0.0], [0.0, 0.0]),     // acos at -1
        ([1.0, 0.0], [0.0, 0.0]),      // acos at 1
        ([f32::MAX, 0.0], [0.0, 0.0]), // acos far outside
    ];
    let flat: Vec<f32> = rows.iter().flat_map(|(a, _)| *a).collect();
    let x = Array::from_vec_shaped(Device::Cpu, flat, [rows.len(), 2])
        .unwrap()
        .requires_grad();
    let mut loss = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| singular::launch(rows.len(), &x, &mut loss))
        .unwrap();
    tape.backward(&mut loss).unwrap();
    let g = x.grad_to_vec().unwrap();
    for (k, (_, want)) in rows.iter().enumerate() {
        assert_eq!([g[2 * k], g[2 * k + 1]], *want, "row {k}");
    }
    // atan2 with huge arguments stays finite and correct: d/dy = x / (x² + y²).
    let (dy, dx) = weft::adjoint::adj_atan2(3e30f32, 4e30, 1.0);
    assert!((dy / 1.6e-31 - 1.0).abs() < 1e-6, "{dy}");
    assert!((dx / -1.2e-31 - 1.0).abs() < 1e-6, "{dx}");
}

/// The PTX of `asin`/`acos` clamps the argument (`x < -1 ? -1 : x > 1 ? 1 : x`)
/// before the elementary function; `sign` keeps `x` for zeros (no `+0` override).
#[test]
fn ptx_emits_the_same_rules() {
    let ptx = inverse_trig::PTX.unwrap();
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let clamps = lines
        .windows(2)
        .filter(|w| {
            w[0].starts_with("setp.lt.f32")
                && w[0].ends_with(", 0fBF800000;")
                && w[1].starts_with("setp.gt.f32")
                && w[1].ends_with(", 0f3F800000;")
        })
        .count();
    assert!(clamps >= 2, "asin and acos each clamp:\n{ptx}");
    let sign = signs::PTX.unwrap();
    assert!(
        !sign.contains("setp.eq.f32"),
        "sign(±0) is x itself:\n{sign}"
    );
    let inv = invert::PTX.unwrap();
    assert!(
        inv.contains("setp.eq.f32"),
        "inverse checks its quotients:\n{inv}"
    );
}
