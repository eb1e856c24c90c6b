//! 1 s contact-free rollouts (the solver's contacts off) (τ = 0 from rest, 500 steps of 2 ms) of the
//! double pendulum and the arm against MuJoCo's (tests/data/references).
//!
//! - MuJoCo's `Euler` is semi-implicit Euler (q̇ += h q̈, then q += h q̇): the
//!   step of Weft's `FeatherstoneSolver` with damping, drives and limits off,
//!   so the integrators match and only f32 rounding separates the two.
//! - MuJoCo's `RK4` is matched here by the classical RK4 on the host over
//!   Weft's `forward_dynamics` (the robots have hinges only, so q ⊕ h q̇ is
//!   q + h q̇): the same scheme, f64 sums over f32 accelerations.
//!
//! Both motions are chaotic: the reference files store how far q(1 s) moves
//! when q0 moves by 1e-9 (`sensitivity_1e-9`), i.e. the amplification `A` of
//! an early error. The bound on the largest |Δq| over the stored samples is
//! `1e-6 · A · 10` rad, at least 1e-4: an early f32 error of 1e-6 rad (what
//! the double pendulum shows, A ≈ 2), amplified, times 10 for accumulation
//! over 500 steps. For the arm's Euler run (A = 1.4e5: MuJoCo's own run moves
//! by 1.5e-4 when q0 moves by 1e-9) that bound is weak (1.4 rad; measured
//! 0.2 rad); its RK4 run (A = 2.6e3) is the informative one. Errors and
//! bounds are printed.

mod support;

use support::{Robot, reference, to_f64, vector};
use weft::{Array, Device};
use weft_articulation::{ArticulationLayout, FeatherstoneSolver, forward_dynamics};
use weft_sim::{Control, State};

/// Samples of q every `stride` steps (t = 0 first) of Weft's semi-implicit Euler.
fn weft_euler(robot: &Robot, q0: &[f64], dt: f32, steps: usize, stride: usize) -> Vec<Vec<f64>> {
    let model = &robot.model;
    let mut solver = FeatherstoneSolver::new(model).unwrap();
    // The references are contact-free (the arm would fall onto its floor).
    solver.enable_contacts = false;
    let control = Control::new(model).unwrap();
    let (mut a, mut b) = (State::new(model).unwrap(), State::new(model).unwrap());
    a.joint_q = robot.q(q0);
    a.joint_qd = Array::zeros(Device::Cpu, [model.joint_dof_count()]);
    let mut out = vec![q0.to_vec()];
    for k in 1..=steps {
        solver.step(model, &a, &mut b, &control, dt).unwrap();
        std::mem::swap(&mut a, &mut b);
        if k % stride == 0 {
            out.push(to_f64(&a.joint_q.to_vec()));
        }
    }
    out
}

/// Samples of q of the classical RK4 over Weft's accelerations (hinges only).
fn weft_rk4(robot: &Robot, q0: &[f64], dt: f64, steps: usize, stride: usize) -> Vec<Vec<f64>> {
    let model = &robot.model;
    let layout = ArticulationLayout::new(model).unwrap();
    let n = q0.len();
    let zero = Array::zeros(Device::Cpu, [n]);
    let accel = |q: &[f64], qd: &[f64]| -> Vec<f64> {
        let f = |x: &[f64]| Array::from_vec(Device::Cpu, x.iter().map(|&v| v as f32).collect());
        to_f64(
            &forward_dynamics(model, &layout, &f(q), &f(qd), &zero)
                .unwrap()
                .to_vec(),
        )
    };
    let axpy = |x: &[f64], h: f64, y: &[f64]| -> Vec<f64> {
        x.iter().zip(y).map(|(a, b)| a + h * b).collect()
    };
    let (mut q, mut qd) = (q0.to_vec(), vec![0.0; n]);
    let mut out = vec![q.clone()];
    for k in 1..=steps {
        let (k1q, k1v) = (qd.clone(), accel(&q, &qd));
        let (q2, v2) = (axpy(&q, dt / 2.0, &k1q), axpy(&qd, dt / 2.0, &k1v));
        let (k2q, k2v) = (v2.clone(), accel(&q2, &v2));
        let (q3, v3) = (axpy(&q, dt / 2.0, &k2q), axpy(&qd, dt / 2.0, &k2v));
        let (k3q, k3v) = (v3.clone(), accel(&q3, &v3));
        let (q4, v4) = (axpy(&q, dt, &k3q), axpy(&qd, dt, &k3v));
        let (k4q, k4v) = (v4.clone(), accel(&q4, &v4));
        for i in 0..n {
            q[i] += dt / 6.0 * (k1q[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + k4q[i]);
            qd[i] += dt / 6.0 * (k1v[i] + 2.0 * k2v[i] + 2.0 * k3v[i] + k4v[i]);
        }
        if k % stride == 0 {
            out.push(q.clone());
        }
    }
    out
}

fn compare(file: &str, name: &str) -> Vec<String> {
    let robot = Robot::load(file);
    let r = &reference(name)["rollouts"];
    let q0 = vector(&r["q0"]);
    let mut failures = Vec::new();
    for key in ["euler", "rk4"] {
        let run = &r[key];
        let dt = run["dt"].as_f64().unwrap();
        let steps = run["steps"].as_u64().unwrap() as usize;
        let stride = run["stride"].as_u64().unwrap() as usize;
        let got = match key {
            "euler" => weft_euler(&robot, &q0, dt as f32, steps, stride),
            _ => weft_rk4(&robot, &q0, dt, steps, stride),
        };
        let want: Vec<Vec<f64>> = run["q"].as_array().unwrap().iter().map(vector).collect();
        assert_eq!(got.len(), want.len(), "{file} {key}");
        let err = got
            .iter()
            .zip(&want)
            .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
            .fold(0.0f64, f64::max);
        let amplification = run["sensitivity_1e-9"].as_f64().unwrap() / 1e-9;
        let bound = (1e-6 * amplification * 10.0).max(1e-4);
        println!(
            "{file:<20} {key:<5} worst |Δq| over 1 s {err:.1e} rad (bound {bound:.1e}, amplification {amplification:.1e})"
        );
        if err.is_nan() || err > bound {
            failures.push(format!("{file} {key}: {err:.2e} > {bound:.2e}"));
        }
    }
    failures
}

#[test]
fn double_pendulum_and_arm_rollouts_match_mujoco() {
    let mut failures = compare("double_pendulum.xml", "double_pendulum");
    failures.extend(compare("arm7.xml", "arm7"));
    assert!(failures.is_empty(), "{failures:?}");
}
