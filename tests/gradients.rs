//! Adjoint kernels against central finite differences (f64 kernels, so the check is
//! tight), for straight-line code, builtins, branches, loops that carry values,
//! `while`/`break`/early `return`, funcs calling funcs, and atomics; with a GPU, the
//! CUDA gradients against the CPU's (bounds in `weft_testkit::devices`).

use weft::prelude::*;

use weft_testkit::fd_check::{Run, inputs};

/// [`weft_testkit::fd_check::check`] with this file's weights.
fn check(n: usize, x0: &[f64], run: Run) -> f64 {
    weft_testkit::fd_check::check(n, x0, 99, false, run)
}
#[weft::kernel]
fn scalar_math(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let a = x[i];
    let b = sin(a) * a * a + exp(a / 4.0) - log(a * a + 1.0) / (2.0 + cos(a));
    let c = atan2(b, 1.5) + pow(a * a + 0.5, 0.75) + sqrt(abs(a) + 1.0) + tanh(a) * sinh(a / 3.0);
    y[i] = max(b, c) + min(a, 0.5) * clamp(a, -1.0, 1.0) + (a as i32) as f64;
}

#[test]
fn scalar_builtins() {
    let n = 64;
    let x0 = inputs(n, 1, -2.0, 2.0);
    let err = check(n, &x0, &|x, y| scalar_math::launch(n, x, y).unwrap());
    // `as i32` is piecewise constant (no gradient); everything else is smooth at
    // random inputs.
    assert!(err < 1e-5, "worst relative error {err}");
}

#[weft::kernel]
fn vector_math(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let a = x[i];
    let v = DVec3::new(a, a * a - 1.0, 2.0 - a);
    let u = normalize(v + DVec3::new(0.3, -0.2, 0.1));
    let w = cross(u, v) * length(v) + v.dot(u) * DVec3::ONE;
    let m = DMat3::from_cols(v, w, u + DVec3::Z);
    let r = inverse(m) * v + transpose(m) * w;
    let q = quat_from_axis_angle(normalize(DVec3::new(1.0, 2.0, 3.0)), a);
    let t = quat_rotate(q, r) + quat_to_matrix(q) * v;
    y[i] = t.x + 2.0 * t.y - t.z + determinant(m) + length_sq(w);
}

#[test]
fn vector_matrix_quaternion_builtins() {
    let n = 48;
    let x0 = inputs(n, 2, -1.5, 1.5);
    let err = check(n, &x0, &|x, y| vector_math::launch(n, x, y).unwrap());
    assert!(err < 1e-5, "worst relative error {err}");
}

#[weft::kernel]
fn loops(x: &Array<f64>, y: &mut Array<f64>, steps: i32) {
    let i = tid();
    let mut s = x[i];
    let mut total = 0.0;
    // An iterated map with a running sum: both carried across iterations.
    for k in 0..steps {
        s = s * 0.9 + sin(s) * 0.3 + (k as f64) * 0.01;
        total += s * s;
    }
    // A while loop with a data-dependent break.
    let mut z = s;
    let mut n = 0;
    while n < 20 {
        z = z * 0.5 + 0.1 * total;
        n += 1;
        if abs(z) < 0.2 {
            break;
        }
    }
    // Nested loops with a carried product.
    let mut p = 1.0;
    for a in 0..3 {
        for b in 0..a + 1 {
            p = p * (1.0 + 0.1 * s * (b as f64)) + 0.01 * z;
        }
    }
    y[i] = total + z + p;
}

#[test]
fn loops_carrying_values() {
    let n = 32;
    let x0 = inputs(n, 3, -1.0, 1.0);
    let err = check(n, &x0, &|x, y| loops::launch(n, x, y, 12).unwrap());
    assert!(err < 1e-5, "worst relative error {err}");
}

#[weft::func]
fn inner(a: f64, b: f64) -> f64 {
    if a > b {
        return a * b;
    }
    a + b * b
}

#[weft::func]
fn outer_sum(a: f64) -> (f64, f64) {
    let mut acc = 0.0;
    for k in 0..4 {
        acc += inner(a, k as f64 * 0.5);
        if acc > 10.0 {
            return (acc, a);
        }
    }
    (acc * a, acc)
}

#[weft::kernel]
fn funcs_and_returns(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let (p, q) = outer_sum(x[i]);
    if x[i] < -1.0 {
        y[i] = p;
        return;
    }
    y[i] = p * q + inner(q, p);
}

#[test]
fn funcs_branches_and_early_returns() {
    let n = 64;
    let x0 = inputs(n, 4, -3.0, 3.0);
    let err = check(n, &x0, &|x, y| funcs_and_returns::launch(n, x, y).unwrap());
    assert!(err < 1e-5, "worst relative error {err}");
}

#[weft::kernel]
fn reduce(x: &Array<f64>, loss: &mut Array<f64>) {
    let i = tid();
    let v = x[i];
    atomic_add(&mut loss[0], v * v * 0.5 + sin(v));
}

#[test]
fn atomic_add_is_differentiable() {
    let n = 100;
    let x0 = inputs(n, 5, -2.0, 2.0);
    for d in weft_testkit::devices::devices() {
        let x = Array::from_slice(d, &x0).requires_grad();
        let mut loss = Array::zeros(d, [1]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| reduce::launch(n, &x, &mut loss)).unwrap();
        tape.backward(&mut loss).unwrap();
        for (g, x) in x.grad_to_vec().unwrap().iter().zip(&x0) {
            assert!((g - (x + x.cos())).abs() < 1e-12, "{d:?}");
        }
    }
}

#[weft::kernel]
fn in_place(x: &mut Array<f64>, v: &Array<f64>) {
    let i = tid();
    x[i] = x[i] + v[i];
}

#[test]
fn in_place_updates_refuse_to_differentiate() {
    let mut x = Array::from_slice(Device::Cpu, &[1.0]).requires_grad();
    let v = Array::from_slice(Device::Cpu, &[1.0]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| in_place::launch(1, &mut x, &v)).unwrap();
    let e = tape.backward(&mut x).unwrap_err();
    assert!(e.to_string().contains("reads and writes array `x`"), "{e}");
}

#[weft::kernel]
fn scale(a: &Array<f64>, b: &mut Array<f64>, k: f64) {
    let i = tid();
    b[i] = a[i] * k;
}

#[test]
fn overwriting_a_recorded_input_is_reported_with_both_launches() {
    let mut a = Array::from_slice(Device::Cpu, &[1.0, 2.0]).requires_grad();
    let mut b = Array::zeros(Device::Cpu, [2]).requires_grad();
    let mut c = Array::zeros(Device::Cpu, [2]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| {
        scale::launch(2, &a, &mut b, 2.0)?;
        // Overwrites `a`, which the first launch needs again in backward.
        scale::launch(2, &b, &mut a, 3.0)?;
        scale::launch(2, &a, &mut c, 1.0)
    })
    .unwrap();
    let e = tape.backward(&mut c).unwrap_err();
    assert_eq!(
        e.to_string(),
        "tape: kernel `scale` read array `a`, which kernel `scale` (launched later) overwrote before backward; its gradient would be wrong (write to a new array, or record a fresh tape)"
    );
    // Host writes are caught too.
    let x = Array::from_slice(Device::Cpu, &[1.0]).requires_grad();
    let mut y = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| scale::launch(1, &x, &mut y, 2.0)).unwrap();
    let mut x = x;
    x.fill(5.0);
    let e = tape.backward(&mut y).unwrap_err();
    assert!(
        e.to_string()
            .contains("was modified outside the recorded launches"),
        "{e}"
    );
}

#[test]
fn a_chain_of_launches_and_zeroing() {
    // y = 3 (2 x) = 6 x through two recorded launches, twice, zeroing in between.
    let x = Array::from_slice(Device::Cpu, &[1.0, -1.0]).requires_grad();
    let mut mid = Array::zeros(Device::Cpu, [2]).requires_grad();
    let mut y = Array::zeros(Device::Cpu, [2]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| {
        scale::launch(2, &x, &mut mid, 2.0)?;
        scale::launch(2, &mid, &mut y, 3.0)
    })
    .unwrap();
    assert_eq!(tape.kernels(), vec!["scale", "scale"]);
    tape.backward(&mut y).unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![6.0, 6.0]);
    tape.zero();
    assert_eq!(x.grad_to_vec().unwrap(), vec![0.0, 0.0]);
    tape.backward(&mut y).unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![6.0, 6.0]);
}

/// A straight-through estimator: rounds in the forward pass, passes the gradient
/// through (clipped) in the backward pass — a case the automatic adjoint cannot
/// express (its derivative of `round` is zero).
#[weft::func(adjoint = round_ste_adjoint)]
fn round_ste(x: f64) -> f64 {
    round(x)
}

/// The user-supplied adjoint: the forward arguments, then the result's adjoint;
/// returns one adjoint per parameter.
fn round_ste_adjoint(_x: f64, adj_result: f64) -> (f64,) {
    (adj_result.clamp(-1.0, 1.0),)
}

#[weft::kernel]
fn quantize(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    y[i] = round_ste(x[i]) * 0.5;
}

#[test]
fn user_supplied_func_adjoints() {
    let x = Array::from_slice(Device::Cpu, &[0.3, 1.7, -2.2]).requires_grad();
    let mut y = Array::zeros(Device::Cpu, [3]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| quantize::launch(3, &x, &mut y)).unwrap();
    tape.backward_from(&mut y, &[1.0, 4.0, -6.0]).unwrap();
    // d(0.5 r)/dr = 0.5, then the custom rule clips 0.5·seed to [-1, 1].
    assert_eq!(x.grad_to_vec().unwrap(), vec![0.5, 1.0, -1.0]);
    assert_eq!(y.to_vec(), vec![0.0, 1.0, -1.0]);
}

/// A typical f32 physics kernel: spring energies between neighbouring particles.
#[weft::kernel]
fn spring_energy(x: &Array<Vec3>, e: &mut Array<f32>, k: f32, rest: f32) {
    let i = tid();
    if i + 1 >= x.len() {
        e[i] = 0.0;
        return;
    }
    let d = x[i + 1] - x[i];
    let stretch = length(d) - rest;
    e[i] = 0.5 * k * stretch * stretch;
}

#[test]
fn vec3_arrays_in_f32() {
    let n = 16;
    let r = weft_testkit::random_f32s(3 * n, 11, -1.0, 1.0);
    let x0: Vec<Vec3> = (0..n)
        .map(|i| Vec3::new(i as f32 + r[3 * i], r[3 * i + 1], r[3 * i + 2]))
        .collect();
    let energy = |x: &[Vec3]| -> f64 {
        let xa = Array::from_slice(Device::Cpu, x);
        let mut e = Array::zeros(Device::Cpu, [n]);
        spring_energy::launch(n, &xa, &mut e, 3.0, 0.8).unwrap();
        e.to_vec().iter().map(|&v| v as f64).sum()
    };
    let x = Array::from_slice(Device::Cpu, &x0).requires_grad();
    let mut e = Array::zeros(Device::Cpu, [n]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| spring_energy::launch(n, &x, &mut e, 3.0, 0.8))
        .unwrap();
    tape.backward(&mut e).unwrap();
    let gx = x.grad_to_vec().unwrap();
    let g = gx;
    let mut worst: f64 = 0.0;
    for i in 0..n {
        for c in 0..3 {
            let h = 1e-2f32;
            let (mut xp, mut xm) = (x0.clone(), x0.clone());
            xp[i][c] += h;
            xm[i][c] -= h;
            let fd = (energy(&xp) - energy(&xm)) / (2.0 * h as f64);
            worst = worst.max((fd - g[i][c] as f64).abs() / fd.abs().max(1.0));
        }
    }
    println!("f32 Vec3 springs: worst relative error {worst:.2e}");
    assert!(worst < 1e-2, "{worst}");
}

#[weft::kernel]
fn pendulum_loss(theta0: &Array<f32>, omega0: &Array<f32>, loss: &mut Array<f32>, steps: i32) {
    // A damped pendulum integrated with semi-implicit Euler; the loss is the final
    // angle's distance to a target.
    let i = tid();
    let mut th = theta0[i];
    let mut om = omega0[i];
    for _k in 0..steps {
        om = om - (9.81 * sin(th) + 0.1 * om) * 0.01;
        th = th + om * 0.01;
    }
    atomic_add(&mut loss[0], (th - 0.5) * (th - 0.5));
}

#[test]
fn gradcheck_reports_the_worst_error() {
    let mut th = Array::from_slice(Device::Cpu, &[0.3f32, -0.8, 1.2]);
    let mut om = Array::from_slice(Device::Cpu, &[0.0f32, 1.5, -0.4]);
    let report = gradcheck(&mut [&mut th, &mut om], None, |x, loss| {
        loss.fill(0.0);
        pendulum_loss::launch(3, x[0], x[1], loss, 100)
    })
    .unwrap();
    println!("{report}");
    assert_eq!(report.checked, 6);
    // f32 through 100 steps: finite differences are good to ~1e-3 here.
    assert!(report.max_rel < 2e-2, "{report}");
    // The inputs are restored.
    assert_eq!(th.to_vec(), vec![0.3, -0.8, 1.2]);
}

#[weft::kernel]
fn sqrt_loss(x: &Array<f32>, loss: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut loss[0], sqrt(x[i]));
}

#[test]
fn gradcheck_fails_on_non_finite_gradients() {
    // sqrt at 0: the tape's gradient is infinite and the finite difference NaN
    // (sqrt(-h)). A NaN must read as an infinite error, never as no error.
    let mut x = Array::from_slice(Device::Cpu, &[4.0f32, 0.0, 9.0]);
    let report = gradcheck(&mut [&mut x], None, |x, loss| {
        loss.fill(0.0);
        sqrt_loss::launch(3, x[0], loss)
    })
    .unwrap();
    println!("{report}");
    assert_eq!(report.checked, 3);
    assert!(
        report.max_rel.is_infinite() && report.max_abs.is_infinite(),
        "{report}"
    );
    let (_, element, ..) = report.worst.expect("a worst component");
    assert_eq!(element, 1, "{report}");
}

#[weft::kernel]
fn sum_into(x: &Array<f32>, total: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut total[0], x[i]);
}

#[weft::kernel]
fn square_total(total: &Array<f32>, loss: &mut Array<f32>) {
    loss[0] = total[0] * total[0];
}

#[test]
fn gradients_do_not_carry_over_between_tapes() {
    // `total` is cleared on the host and only accumulated into: no adjoint
    // consumes its gradient, so without the zeroing at record time the second
    // iteration would start from the first one's gradient (and report 2x).
    let x = Array::from_slice(Device::Cpu, &[1.0f32, 2.0, 3.0]).requires_grad();
    let mut total = Array::<f32>::zeros(Device::Cpu, [1]);
    let mut loss = Array::<f32>::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    for iteration in 0..3 {
        tape.reset();
        x.zero_grad();
        total.fill(0.0);
        tape.record(|| {
            sum_into::launch(3, &x, &mut total)?;
            square_total::launch(1, &total, &mut loss)
        })
        .unwrap();
        tape.backward(&mut loss).unwrap();
        // d (sum x)^2 / dx_i = 2 sum x = 12.
        assert_eq!(
            x.grad_to_vec().unwrap(),
            vec![12.0; 3],
            "iteration {iteration}"
        );
    }
}

#[test]
fn outputs_of_recorded_launches_get_gradients() {
    // Only the input asks for a gradient; the intermediate `mid` gets one from the
    // tape, so the chain x -> mid -> y is not cut.
    let x = Array::from_slice(Device::Cpu, &[1.0, -1.0]).requires_grad();
    let mut mid = Array::zeros(Device::Cpu, [2]);
    let mut y = Array::zeros(Device::Cpu, [2]);
    let mut tape = Tape::new();
    tape.record(|| {
        scale::launch(2, &x, &mut mid, 2.0)?;
        scale::launch(2, &mid, &mut y, 3.0)
    })
    .unwrap();
    assert!(mid.has_grad() && y.has_grad());
    tape.backward(&mut y).unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![6.0, 6.0]);
}

#[weft::kernel]
fn contact64(x: &Array<DVec3>, v: &Array<DVec3>, f: &mut Array<DVec3>, ke: f64, kd: f64) {
    let i = tid();
    let p = x[i];
    let u = v[i];
    let mut force = DVec3::ZERO;
    if p.z < 0.0 {
        force += DVec3::Z * (-ke * p.z - kd * min(u.z, 0.0));
    }
    let wall = 2.0 - p.x;
    if wall < 0.0 {
        force += DVec3::NEG_X * (-ke * wall + kd * max(u.x, 0.0));
    }
    f[i] = force;
}

#[weft::kernel]
fn integrate64(
    x: &Array<DVec3>,
    v: &Array<DVec3>,
    f: &Array<DVec3>,
    x_new: &mut Array<DVec3>,
    v_new: &mut Array<DVec3>,
    dt: f64,
) {
    let i = tid();
    let vel = v[i] + (f[i] + DVec3::new(0.0, 0.0, -9.81)) * dt;
    v_new[i] = vel;
    x_new[i] = x[i] + vel * dt;
}

#[weft::kernel]
fn loss64(x: &Array<DVec3>, target: DVec3, loss: &mut Array<f64>) {
    let i = tid();
    let d = x[i] - target;
    atomic_add(&mut loss[0], dot(d, d));
}

#[test]
fn contact_rollout_gradient_in_f64() {
    let x0 = Array::from_slice(Device::Cpu, &[DVec3::new(-0.5, 0.0, 1.0)]);
    // Not (5, 0, -5): from there the ball reaches the wall exactly at a step
    // boundary, where the discretized trajectory jumps and differences are useless.
    let mut v0 = Array::from_slice(Device::Cpu, &[DVec3::new(4.7, 0.0, -5.3)]);
    let report = gradcheck(&mut [&mut v0], Some(1e-7), |v, loss| {
        let mut x = x0.clone();
        let mut vel = v[0].share();
        for _ in 0..288 {
            let mut f = Array::zeros(Device::Cpu, [1]);
            let mut xn = Array::zeros(Device::Cpu, [1]);
            let mut vn = Array::zeros(Device::Cpu, [1]);
            contact64::launch(1, &x, &vel, &mut f, 2.0e4, 10.0)?;
            integrate64::launch(1, &x, &vel, &f, &mut xn, &mut vn, 1.0 / 480.0)?;
            x = xn;
            vel = vn;
        }
        loss.fill(0.0);
        loss64::launch(1, &x, DVec3::new(-2.0, 0.0, 1.5), loss)
    })
    .unwrap();
    println!("{report}");
    assert!(report.max_rel < 1e-4, "{report}");
}

/// A model and a state passed as structures holding arrays (nested: the model's
/// material is a structure of its own), as the simulators pass them.
#[weft::structure]
pub struct Material {
    pub stiffness: Array<f64>,
}

#[weft::structure]
pub struct Model {
    pub mass: Array<f64>,
    pub material: Material,
    pub gravity: f64,
}

#[weft::structure]
pub struct State {
    pub x: Array<f64>,
    pub v: Array<f64>,
}

/// A spring to the origin per particle, semi-implicit Euler.
#[weft::kernel]
fn spring_step(model: &Model, s: &State, out: &mut State, dt: f64) {
    let i = tid();
    let k = model.material.stiffness[i];
    let f = -k * s.x[i] * s.x[i] * s.x[i] - model.mass[i] * model.gravity;
    let v = s.v[i] + f / model.mass[i] * dt;
    out.v[i] = v;
    out.x[i] = s.x[i] + v * dt;
}

#[weft::kernel]
fn state_loss(s: &State, loss: &mut Array<f64>) {
    let i = tid();
    atomic_add(&mut loss[0], s.x[i] * s.x[i] + 0.1 * s.v[i]);
}

#[test]
fn structure_parameters_holding_arrays() {
    let n = 4;
    let mut mass = Array::from_vec(Device::Cpu, inputs(n, 1, 0.5, 2.0));
    let mut stiffness = Array::from_vec(Device::Cpu, inputs(n, 2, 1.0, 5.0));
    let mut x0 = Array::from_vec(Device::Cpu, inputs(n, 3, -1.0, 1.0));
    let mut v0 = Array::from_vec(Device::Cpu, inputs(n, 4, -1.0, 1.0));
    let mut states: Vec<State> = (0..3)
        .map(|_| State {
            x: Array::zeros(Device::Cpu, [n]),
            v: Array::zeros(Device::Cpu, [n]),
        })
        .collect();
    // Three steps through fresh states, then the loss: gradients with respect to
    // the initial state and to arrays of the model, nested structure included.
    let report = gradcheck(
        &mut [&mut x0, &mut v0, &mut mass, &mut stiffness],
        None,
        |a, loss| {
            let s0 = State {
                x: a[0].share(),
                v: a[1].share(),
            };
            let model = Model {
                mass: a[2].share(),
                material: Material {
                    stiffness: a[3].share(),
                },
                gravity: 9.81,
            };
            spring_step::launch(n, &model, &s0, &mut states[0], 0.1)?;
            for k in 1..3 {
                let (done, next) = states.split_at_mut(k);
                spring_step::launch(n, &model, &done[k - 1], &mut next[0], 0.1)?;
            }
            loss.fill(0.0);
            state_loss::launch(n, &states[2], loss)
        },
    )
    .unwrap();
    println!("{report}");
    assert!(report.checked == 4 * n, "{report}");
    assert!(report.max_rel < 1e-6, "{report}");
}

#[weft::kernel]
fn state_in_place(s: &mut State, dt: f64) {
    let i = tid();
    s.x[i] = s.x[i] + s.v[i] * dt;
}

#[test]
fn in_place_updates_of_structure_arrays_refuse_to_differentiate() {
    let mut s = State {
        x: Array::from_slice(Device::Cpu, &[1.0]).requires_grad(),
        v: Array::from_slice(Device::Cpu, &[1.0]).requires_grad(),
    };
    let mut tape = Tape::new();
    tape.record(|| state_in_place::launch(1, &mut s, 0.1))
        .unwrap();
    let e = tape.backward(&mut s.x).unwrap_err();
    assert!(
        e.to_string().contains("reads and writes array `s.x`"),
        "{e}"
    );
}

#[test]
fn an_overwritten_output_passes_no_gradient() {
    // y = 2x, then y = 3x overwrites it: d(sum y)/dx = 3, not 5. Every adjoint of a
    // store consumes the gradient it reads, so intermediate gradients end at zero.
    let x = Array::from_slice(Device::Cpu, &[1.0, 2.0]).requires_grad();
    let mut y = Array::zeros(Device::Cpu, [2]).requires_grad();
    let mut mid = Array::zeros(Device::Cpu, [2]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| {
        scale::launch(2, &x, &mut y, 2.0)?;
        scale::launch(2, &x, &mut y, 3.0)?;
        scale::launch(2, &x, &mut mid, 1.0)?;
        scale::launch(2, &mid, &mut y, 3.0)
    })
    .unwrap();
    tape.backward(&mut y).unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![3.0, 3.0]);
    assert_eq!(mid.grad_to_vec().unwrap(), vec![0.0, 0.0]);
    assert_eq!(y.grad_to_vec().unwrap(), vec![0.0, 0.0]);
}

#[weft::func]
fn scale_by(x: f64, k: i32) -> (f64, i32) {
    (x * k as f64, k + 1)
}

#[weft::kernel]
fn int_params(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let (a, k) = scale_by(x[i], 3);
    y[i] = a * k as f64;
}

#[test]
fn funcs_with_integer_parameters_and_results_differentiate() {
    // y = 3 x · 4.
    for d in weft_testkit::devices::devices() {
        let x = Array::from_slice(d, &[1.0, 2.0]).requires_grad();
        let mut y = Array::zeros(d, [2]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| int_params::launch(2, &x, &mut y)).unwrap();
        tape.backward(&mut y).unwrap();
        assert_eq!(x.grad_to_vec().unwrap(), vec![12.0, 12.0]);
    }
}

/// Kernels the CUDA back end cannot run, with the reason (a substring of the
/// error): a func with a Rust-only adjoint (`round_ste`) is not available to it.
const NO_CUDA_ADJOINT: &[(&str, &str)] = &[("quantize", "round_ste")];

#[test]
fn every_kernel_here_has_ptx() {
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(
            scalar_math,
            vector_math,
            loops,
            funcs_and_returns,
            reduce,
            in_place,
            scale,
            quantize,
            spring_energy,
            pendulum_loss,
            contact64,
            integrate64,
            loss64,
            spring_step,
            state_loss,
            state_in_place,
            int_params,
            snap_energy,
            through_pair,
            through_handle,
        ),
        NO_CUDA_ADJOINT,
    );
}

/// A search: the index of the site nearest to `p` (a loop carrying a float).
#[weft::func]
fn nearest_site(sites: &Array<f64>, p: f64) -> i32 {
    let mut best = 0;
    let mut best_d = abs(sites[0] - p);
    let mut k = 1;
    while k < sites.len() {
        let d = abs(sites[k] - p);
        if d < best_d {
            best_d = d;
            best = k;
        }
        k += 1;
    }
    best
}

#[weft::kernel]
fn snap_energy(x: &Array<f64>, sites: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let k = nearest_site(sites, x[i]);
    let d = x[i] - sites[k];
    y[i] = d * d * sites[k];
}

#[test]
fn funcs_with_integer_results_pass_no_gradient_and_need_no_adjoint() {
    // The search reads a float array inside a func (whose gradient could not flow
    // back) but returns an index: the kernel differentiates through its own reads,
    // and the adjoint needs no per-thread stack (so it also has PTX).
    assert!(
        snap_energy::ADJOINT_PTX.is_ok(),
        "{:?}",
        snap_energy::ADJOINT_PTX.err()
    );
    let n = 40;
    let err = check(n, &inputs(n, 31, -2.0, 3.0), &|x, y| {
        // On the device of the input (`check` also runs on CUDA when present).
        let sites = Array::from_slice(x.device(), &[-1.0, 0.25, 0.5, 2.0]);
        snap_energy::launch(n, x, &sites, y).unwrap()
    });
    assert!(err < 1e-6, "{err:e}");
}

#[weft::structure]
pub struct Pair {
    pub a: f64,
    pub b: f64,
}

#[weft::func]
fn make_pair(x: f64) -> Pair {
    Pair { a: x * 2.0, b: x }
}

#[weft::kernel]
fn through_pair(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let p = make_pair(x[i]);
    y[i] = p.a + p.b;
}

#[test]
fn gradients_pass_through_structure_results_of_funcs() {
    // Refused before structures carried adjoints; `tests/structure_gradients.rs`
    // checks harder cases against finite differences.
    let x = Array::from_slice(Device::Cpu, &[1.0, 2.0]).requires_grad();
    let mut y = Array::zeros(Device::Cpu, [2]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| through_pair::launch(2, &x, &mut y)).unwrap();
    assert_eq!(y.to_vec(), vec![3.0, 6.0]);
    tape.backward_from(&mut y, &[1.0, 1.0]).unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![3.0, 3.0]);
}

/// A structure holding an array and a float: a handle, whose float field carries
/// no adjoint.
#[weft::structure]
pub struct Scaled {
    pub x: Array<f64>,
    pub k: f64,
}

#[weft::kernel]
fn through_handle(s: &Scaled, y: &mut Array<f64>) {
    let i = tid();
    let mut t = s;
    t.k = s.x[i] * 2.0;
    y[i] = t.k;
}

#[test]
fn gradients_through_float_fields_of_structures_with_arrays_are_refused() {
    let s = Scaled {
        x: Array::from_slice(Device::Cpu, &[1.0, 2.0]).requires_grad(),
        k: 1.0,
    };
    let mut y = Array::zeros(Device::Cpu, [2]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| through_handle::launch(2, &s, &mut y))
        .unwrap();
    assert_eq!(y.to_vec(), vec![2.0, 4.0]);
    let e = tape
        .backward_from(&mut y, &[1.0, 1.0])
        .unwrap_err()
        .to_string();
    assert!(e.contains("structure that holds arrays"), "{e}");
}

#[weft::kernel]
fn double_into_v(s: &mut State) {
    let i = tid();
    s.v[i] = s.x[i] * 2.0;
}

#[test]
fn arrays_only_read_through_a_mutable_structure_are_not_overwrites() {
    // `s.x` is only read, though `s` is `&mut`: launching twice must not look to the
    // tape like an overwrite of the first launch's input.
    let mut s = State {
        x: Array::from_slice(Device::Cpu, &[1.0, -2.0]).requires_grad(),
        v: Array::zeros(Device::Cpu, [2]).requires_grad(),
    };
    let mut loss = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| {
        double_into_v::launch(2, &mut s)?;
        double_into_v::launch(2, &mut s)?;
        state_loss::launch(2, &s, &mut loss)
    })
    .unwrap();
    tape.backward(&mut loss).unwrap();
    // loss = Σ x² + 0.1 v with v = 2x (the second write replaces the first).
    assert_eq!(s.x.grad_to_vec().unwrap(), vec![2.0 + 0.2, -4.0 + 0.2]);
}

/// A func with more parameters than the smaller tuples the runtime spells out.
#[weft::func]
fn twelve(
    a: f64,
    b: f64,
    c: Vec3,
    d: f64,
    e: f64,
    f: f64,
    g: f64,
    h: f64,
    k: f64,
    m: f64,
    n: i32,
    o: f64,
) -> f64 {
    let s0 = a * b + (c.x as f64) * d;
    let s1 = e * f - g * h;
    let s2 = k * m * (n as f64) + o;
    s0 + s1 * s2
}

#[weft::kernel]
fn many_params(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let v = x[i];
    let c = Vec3::new(0.5, 1.0, 2.0);
    y[i] = twelve(
        v,
        v * v,
        c,
        2.0 * v,
        sin(v),
        3.0,
        v,
        v + 1.0,
        0.5,
        v,
        3,
        cos(v),
    );
}

#[test]
fn funcs_with_many_parameters_are_differentiable() {
    let n = 32;
    let x0 = inputs(n, 9, -2.0, 2.0);
    let err = check(n, &x0, &|x, y| many_params::launch(n, x, y).unwrap());
    assert!(err < 1e-6, "worst relative error {err}");
}

/// A loop that carries ten differentiated values from one iteration to the next.
#[weft::kernel]
fn ten_carried(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let v = x[i];
    let (mut a, mut b, mut c, mut d, mut e) = (v, 1.0f64, 0.5 * v, 0.0f64, 2.0f64);
    let (mut f, mut g, mut h, mut k, mut m) = (v * v, 0.1f64, -v, 0.3f64, 1.5f64);
    for _step in 0..3 {
        let t = a;
        a = 0.5 * b + 0.1 * m;
        b = 0.9 * c - 0.2 * t;
        c = sin(d) + 0.3 * e;
        d = 0.7 * e * f;
        e = 0.4 * f + g;
        f = 0.2 * g * h + 0.5;
        g = 0.6 * h - 0.1 * k;
        h = cos(k) * 0.8;
        k = 0.5 * m + 0.2 * t;
        m = 0.3 * t + 0.1 * a;
    }
    y[i] = a + b + c + d + e + f + g + h + k + m;
}

#[test]
fn loops_carrying_many_values_are_differentiable() {
    let n = 32;
    let x0 = inputs(n, 10, -2.0, 2.0);
    let err = check(n, &x0, &|x, y| ten_carried::launch(n, x, y).unwrap());
    assert!(err < 1e-6, "worst relative error {err}");
}

/// A func that returns ten values.
#[weft::func]
fn ten_out(v: f64) -> (f64, f64, f64, f64, f64, f64, f64, f64, i32, f64) {
    (
        v,
        2.0 * v,
        v * v,
        sin(v),
        cos(v),
        0.5 * v,
        -v,
        v + 1.0,
        3,
        v * 3.0,
    )
}

#[weft::kernel]
fn ten_results(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let (a, b, c, d, e, f, g, h, k, m) = ten_out(x[i]);
    y[i] = a + b * c + d * e + f * g + h * (k as f64) + m;
}

#[test]
fn funcs_returning_many_values_are_differentiable() {
    let n = 32;
    let x0 = inputs(n, 11, -2.0, 2.0);
    let err = check(n, &x0, &|x, y| ten_results::launch(n, x, y).unwrap());
    assert!(err < 1e-6, "worst relative error {err}");
}

/// A table of coefficients a func reads (a float array inside a structure).
#[weft::structure]
pub struct Coefficients {
    /// One coefficient per launch index.
    pub values: Array<f64>,
}

/// `c x²` with the coefficient read inside the func as a constant.
#[weft::func]
fn stopped_lookup(c: &Coefficients, k: i32, x: f64) -> f64 {
    stop_gradient(c.values[k]) * x * x
}

/// The same without `stop_gradient`: the coefficient's gradient reaches the
/// structure's array.
#[weft::func]
fn plain_lookup(c: &Coefficients, k: i32, x: f64) -> f64 {
    c.values[k] * x * x
}

/// `y = stop(x) x + c x²`.
#[weft::kernel]
fn stopped(c: &Coefficients, x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let s = stop_gradient(x[i]);
    y[i] = s * x[i] + stopped_lookup(c, i, x[i]);
}

/// `y = c x²` through [`plain_lookup`].
#[weft::kernel]
fn unstopped(c: &Coefficients, x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    y[i] = plain_lookup(c, i, x[i]);
}

#[test]
fn stop_gradient_passes_values_and_blocks_gradients() {
    let n = 32;
    let x0 = inputs(n, 21, -2.0, 2.0);
    let c0 = inputs(n, 22, 0.5, 1.5);
    for d in weft_testkit::devices::devices() {
        let c = Coefficients {
            values: Array::from_slice(d, &c0).requires_grad(),
        };
        let x = Array::from_slice(d, &x0).requires_grad();
        let mut y = Array::zeros(d, [n]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| stopped::launch(n, &c, &x, &mut y)).unwrap();
        tape.backward_from(&mut y, &vec![1.0; n]).unwrap();
        let (y, g) = (y.to_vec(), x.grad_to_vec().unwrap());
        for i in 0..n {
            let (x, c) = (x0[i], c0[i]);
            assert!((y[i] - (x * x + c * x * x)).abs() < 1e-12, "{d:?}");
            // d/dx of stop(x) x + stop(c) x² = x + 2 c x.
            assert!(
                (g[i] - (x + 2.0 * c * x)).abs() < 1e-12,
                "{d:?}: {} against {}",
                g[i],
                x + 2.0 * c * x
            );
        }
        assert!(
            c.values.grad_to_vec().unwrap().iter().all(|&g| g == 0.0),
            "{d:?}"
        );

        let mut y = Array::zeros(d, [n]).requires_grad();
        x.zero_grad();
        let mut tape = Tape::new();
        tape.record(|| unstopped::launch(n, &c, &x, &mut y))
            .unwrap();
        tape.backward_from(&mut y, &vec![1.0; n]).unwrap();
        let (gx, gc) = (x.grad_to_vec().unwrap(), c.values.grad_to_vec().unwrap());
        for i in 0..n {
            let (x, c) = (x0[i], c0[i]);
            assert!((gx[i] - 2.0 * c * x).abs() < 1e-12, "{d:?}");
            assert!((gc[i] - x * x).abs() < 1e-12, "{d:?}");
        }
    }
}

/// A destructuring assignment in a loop: `(a, b) = (b, a x)` three times.
#[weft::kernel]
fn rotate_products(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let mut a = 1.0;
    let mut b = x[i];
    for _k in 0..3 {
        (a, b) = (b, a * x[i]);
    }
    y[i] = a + 2.0 * b;
}

#[test]
fn destructuring_assignment_is_differentiable() {
    let n = 8;
    let x0 = inputs(n, 31, -1.5, 1.5);
    for d in weft_testkit::devices::devices() {
        let x = Array::from_slice(d, &x0).requires_grad();
        let mut y = Array::zeros(d, [n]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| rotate_products::launch(n, &x, &mut y))
            .unwrap();
        tape.backward_from(&mut y, &vec![1.0; n]).unwrap();
        // (a, b): (1, x) → (x, x) → (x, x²) → (x², x²): y = x² + 2 x², dy/dx = 6 x.
        for ((g, y), x) in x.grad_to_vec().unwrap().iter().zip(y.to_vec()).zip(&x0) {
            assert!((y - 3.0 * x * x).abs() < 1e-12, "{d:?}");
            assert!(
                (g - 6.0 * x).abs() < 1e-12,
                "{d:?}: {g} against {}",
                6.0 * x
            );
        }
    }
}
