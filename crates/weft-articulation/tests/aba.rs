//! `forward_dynamics_aba` (articulated-body algorithm) against the
//! composite-rigid-body `forward_dynamics` on random states of trees with
//! every joint kind, its tape gradient against central finite differences
//! and CRBA's, the `FeatherstoneSolver` stepping with either, and bad input.

mod common;

use common::{Rng, mixed_model, random_dofs, random_q};
use weft::prelude::*;
use weft_articulation::{
    AbaLayout, ArticulationLayout, FeatherstoneSolver, ForwardDynamics, forward_dynamics,
    forward_dynamics_aba, inverse_dynamics, mass_matrix,
};
use weft_sim::Model;

/// `loss[0] += Σ_i w_i x_i`.
#[weft::kernel]
fn weighted_sum(x: &Array<f32>, w: &Array<f32>, loss: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut loss[0], w[i] * x[i]);
}

/// The mixed tree (free base, hinge, ball, universal, slider, D6, fixed)
/// with armature on every degree of freedom, and a double pendulum.
fn model_with_armature() -> Model {
    let mut b = common::builder(9.81);
    common::add_mixed_tree(&mut b);
    common::add_double_pendulum(&mut b, glam::Vec3::new(1.0, 0.0, 2.0), [0.4, -0.3]);
    let mut m = b.finalize(Device::Cpu).unwrap();
    let n = m.joint_dof_count();
    m.joint_armature =
        Array::from_vec(Device::Cpu, (0..n).map(|i| 0.01 * (i % 3) as f32).collect());
    m
}

#[test]
fn aba_matches_crba_on_random_states() {
    for (name, model) in [
        (
            "mixed tree + double pendulum",
            mixed_model(Device::Cpu, 9.81),
        ),
        ("the same with armature", model_with_armature()),
    ] {
        let layout = ArticulationLayout::new(&model).unwrap();
        let aba = AbaLayout::new(&model).unwrap();
        let mut rng = Rng(11);
        let mut worst = 0.0f32;
        for _ in 0..30 {
            let q = Array::from_vec(Device::Cpu, random_q(&model, &mut rng));
            let qd = Array::from_vec(Device::Cpu, random_dofs(&model, &mut rng, 2.0));
            let tau = Array::from_vec(Device::Cpu, random_dofs(&model, &mut rng, 5.0));
            let a = forward_dynamics_aba(&model, &aba, &q, &qd, &tau)
                .unwrap()
                .to_vec();
            let c = forward_dynamics(&model, &layout, &q, &qd, &tau)
                .unwrap()
                .to_vec();
            let scale = c.iter().fold(1.0f32, |m, x| m.max(x.abs()));
            let err = a
                .iter()
                .zip(&c)
                .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
            worst = worst.max(err / scale);
        }
        println!("{name}: ABA vs CRBA, 30 random states: worst {worst:.1e} relative to max |q̈|");
        assert!(worst < 1e-4, "{name}: {worst}");
    }
}

#[test]
fn aba_gradient_matches_finite_differences() {
    let model = model_with_armature();
    let aba = AbaLayout::new(&model).unwrap();
    let mut rng = Rng(3);
    let mut q = Array::from_vec(Device::Cpu, random_q(&model, &mut rng));
    let mut qd = Array::from_vec(Device::Cpu, random_dofs(&model, &mut rng, 1.0));
    let mut tau = Array::from_vec(Device::Cpu, random_dofs(&model, &mut rng, 2.0));
    let n = model.joint_dof_count();
    let w = Array::from_vec(
        Device::Cpu,
        (0..n).map(|i| 0.3 + 0.1 * (i % 5) as f32).collect(),
    );
    let r = gradcheck(&mut [&mut q, &mut qd, &mut tau], Some(1e-3), |x, loss| {
        let qdd = forward_dynamics_aba(&model, &aba, x[0], x[1], x[2])
            .map_err(|e| weft::Error::Shape(e.to_string()))?;
        loss.fill(0.0);
        weighted_sum::launch(n, &qdd, &w, loss)
    })
    .unwrap();
    println!("ABA q̈ gradient (q, q̇, τ): {r}");
    assert!(r.max_rel < 1e-2, "{r}");
    assert!(tau.grad_to_vec().unwrap().iter().any(|g| g.abs() > 1e-3));
}

/// The tape's `∂(w · q̈)/∂(q, q̇, τ)` of `forward` at a random state.
fn tape_gradient(
    model: &Model,
    forward: impl Fn(&Array<f32>, &Array<f32>, &Array<f32>) -> Array<f32>,
) -> Vec<f32> {
    let mut rng = Rng(8);
    let q = Array::from_vec(Device::Cpu, random_q(model, &mut rng)).requires_grad();
    let qd = Array::from_vec(Device::Cpu, random_dofs(model, &mut rng, 1.5)).requires_grad();
    let tau = Array::from_vec(Device::Cpu, random_dofs(model, &mut rng, 3.0)).requires_grad();
    let mut tape = Tape::new();
    let mut qdd = tape.record(|| forward(&q, &qd, &tau));
    let seed: Vec<f32> = (0..model.joint_dof_count())
        .map(|i| 1.0 - 0.1 * (i % 7) as f32)
        .collect();
    tape.backward_from(&mut qdd, &seed).unwrap();
    let mut g = q.grad_to_vec().unwrap();
    g.extend(qd.grad_to_vec().unwrap());
    g.extend(tau.grad_to_vec().unwrap());
    g
}

#[test]
fn aba_tape_gradient_matches_crba_tape_gradient() {
    // Both exact derivatives of the same function: they agree to rounding,
    // much closer than finite differences in f32 can check.
    let model = model_with_armature();
    let (layout, aba) = (
        ArticulationLayout::new(&model).unwrap(),
        AbaLayout::new(&model).unwrap(),
    );
    let a = tape_gradient(&model, |q, qd, tau| {
        forward_dynamics_aba(&model, &aba, q, qd, tau).unwrap()
    });
    let c = tape_gradient(&model, |q, qd, tau| {
        forward_dynamics(&model, &layout, q, qd, tau).unwrap()
    });
    let scale = c.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let err = a
        .iter()
        .zip(&c)
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
    println!(
        "ABA vs CRBA tape gradients ({} entries): worst {:.1e} relative to the largest",
        a.len(),
        err / scale
    );
    assert!(err / scale < 1e-4, "{}", err / scale);
}

#[test]
fn aba_refuses_arrays_and_layouts_of_another_model() {
    let model = mixed_model(Device::Cpu, 9.81);
    let aba = AbaLayout::new(&model).unwrap();
    let n = model.joint_dof_count();
    let q = Array::from_vec(Device::Cpu, model.joint_q.to_vec());
    let qd = Array::zeros(Device::Cpu, [n]);
    let short = Array::zeros(Device::Cpu, [n - 1]);
    let e = forward_dynamics_aba(&model, &aba, &q, &qd, &short)
        .unwrap_err()
        .to_string();
    assert!(e.contains("tau"), "{e}");
    let other = common::pendulum(Device::Cpu, 1.0, 0.1, 1.0, 0.2);
    let e = forward_dynamics_aba(&model, &AbaLayout::new(&other).unwrap(), &q, &qd, &qd)
        .unwrap_err()
        .to_string();
    assert!(e.contains("ABA layout"), "{e}");
}

#[test]
fn featherstone_steps_agree_with_either_forward_dynamics() {
    // Drives, damping, friction, limits, armature and an external wrench:
    // the implicit terms go on CRBA's diagonal and on ABA's pivots.
    let mut model = model_with_armature();
    let n = model.joint_dof_count();
    let per_dof = |f: &dyn Fn(usize) -> f32| Array::from_vec(Device::Cpu, (0..n).map(f).collect());
    model.joint_damping = per_dof(&|i| 0.05 * (i % 2) as f32);
    model.joint_friction = per_dof(&|i| if i % 5 == 0 { 0.2 } else { 0.0 });
    model.joint_target_kd = per_dof(&|i| if i == 6 { 3.0 } else { 0.0 });
    model.joint_target_ke = per_dof(&|i| if i == 6 { 40.0 } else { 0.0 });
    model.joint_target_pos = per_dof(&|i| if i == 6 { 0.8 } else { 0.0 });
    model.joint_limit_lower = per_dof(&|i| if i == 6 { -0.2 } else { f32::MIN });
    model.joint_limit_upper = per_dof(&|i| if i == 6 { 0.6 } else { f32::MAX });
    model.joint_limit_ke = per_dof(&|_| 1e4);
    model.joint_limit_kd = per_dof(&|_| 10.0);
    let control = weft_sim::Control::new(&model).unwrap();
    let push = Array::from_vec(
        Device::Cpu,
        (0..model.body_count())
            .map(|b| {
                weft::SpatialVector::new(
                    glam::Vec3::new(0.5, -0.2 * b as f32, 1.0),
                    glam::Vec3::new(0.0, 0.1, -0.05 * b as f32),
                )
            })
            .collect(),
    );
    // Off the tape ABA runs one thread per tree (`tree.rs`); on it, one
    // launch per level: the taped rollout checks the one against the other.
    let rollout = |dynamics: ForwardDynamics, taped: bool| -> Vec<f32> {
        let mut solver = FeatherstoneSolver::with_dynamics(&model, dynamics).unwrap();
        assert_eq!(solver.dynamics(), dynamics);
        let mut s = weft_sim::State::new(&model).unwrap();
        let mut tape = Tape::new();
        for _ in 0..200 {
            // A new output state per step, as the tape wants.
            let mut next = weft_sim::State::new(&model).unwrap();
            s.body_f.copy_from(&push).unwrap();
            if taped {
                tape.record(|| solver.step(&model, &s, &mut next, &control, 2e-3))
                    .unwrap();
            } else {
                solver.step(&model, &s, &mut next, &control, 2e-3).unwrap();
            }
            s = next;
        }
        let mut out = s.joint_q.to_vec();
        out.extend(s.joint_qd.to_vec());
        out
    };
    let c = rollout(ForwardDynamics::CompositeRigidBody, false);
    assert!(c.iter().all(|x| x.is_finite()));
    let worst = |x: &[f32], y: &[f32]| {
        x.iter()
            .zip(y)
            .fold(0.0f32, |m, (x, y)| m.max((x - y).abs() / x.abs().max(1.0)))
    };
    let a = rollout(ForwardDynamics::ArticulatedBody, false);
    let levels = rollout(ForwardDynamics::ArticulatedBody, true);
    let (w, wl) = (worst(&c, &a), worst(&a, &levels));
    println!(
        "200 steps with drives, limits, friction and pushes: CRBA vs ABA solver worst {w:.1e}; \
         ABA one thread per tree vs per level (taped) {wl:.1e}"
    );
    assert!(w < 1e-4, "{w}");
    assert!(wl < 1e-4, "{wl}");
}

#[test]
fn one_thread_per_tree_matches_the_taped_levels() {
    // Several articulations of different depths in one model.
    let model = model_with_armature();
    let aba = AbaLayout::new(&model).unwrap();
    let mut rng = Rng(29);
    let mut worst = 0.0f32;
    for _ in 0..20 {
        let q = Array::from_vec(Device::Cpu, random_q(&model, &mut rng));
        let qd = Array::from_vec(Device::Cpu, random_dofs(&model, &mut rng, 2.0));
        let tau = Array::from_vec(Device::Cpu, random_dofs(&model, &mut rng, 5.0));
        let tree = forward_dynamics_aba(&model, &aba, &q, &qd, &tau)
            .unwrap()
            .to_vec();
        let mut tape = Tape::new();
        let levels = tape
            .record(|| forward_dynamics_aba(&model, &aba, &q, &qd, &tau))
            .unwrap()
            .to_vec();
        let scale = levels.iter().fold(1.0f32, |m, x| m.max(x.abs()));
        for (a, b) in tree.iter().zip(&levels) {
            worst = worst.max((a - b).abs() / scale);
        }
    }
    println!("ABA one thread per tree vs one launch per level: worst {worst:.1e} of max |q̈|");
    assert!(worst < 1e-5, "{worst}");
}

#[test]
fn one_launch_inverse_dynamics_and_mass_matrix_match_the_taped_kernels() {
    // Off the tape `inverse_dynamics` and `mass_matrix` walk the kinematics
    // and the recursion in one launch; on it, separate level kernels run.
    let model = model_with_armature();
    let layout = ArticulationLayout::new(&model).unwrap();
    let mut rng = Rng(31);
    let (mut worst_tau, mut worst_m) = (0.0f32, 0.0f32);
    let rel = |a: &[f32], b: &[f32]| {
        let scale = b.iter().fold(1.0f32, |m, x| m.max(x.abs()));
        assert_eq!(a.len(), b.len());
        a.iter()
            .zip(b)
            .fold(0.0f32, |w, (x, y)| w.max((x - y).abs() / scale))
    };
    for _ in 0..10 {
        let q = Array::from_vec(Device::Cpu, random_q(&model, &mut rng));
        let qd = Array::from_vec(Device::Cpu, random_dofs(&model, &mut rng, 2.0));
        let qdd = Array::from_vec(Device::Cpu, random_dofs(&model, &mut rng, 5.0));
        let tau = inverse_dynamics(&model, &q, &qd, &qdd).unwrap().to_vec();
        let m = mass_matrix(&model, &layout, &q).unwrap().to_vec();
        let mut tape = Tape::new();
        let (tau_l, m_l) = tape.record(|| {
            (
                inverse_dynamics(&model, &q, &qd, &qdd).unwrap(),
                mass_matrix(&model, &layout, &q).unwrap(),
            )
        });
        worst_tau = worst_tau.max(rel(&tau, &tau_l.to_vec()));
        worst_m = worst_m.max(rel(&m, &m_l.to_vec()));
    }
    println!("one launch vs taped kernels: efforts {worst_tau:.1e}, mass matrix {worst_m:.1e}");
    assert!(worst_tau < 1e-5 && worst_m < 1e-5, "{worst_tau} {worst_m}");
}

#[test]
fn featherstone_rollout_gradients_agree_with_either_forward_dynamics() {
    let model = model_with_armature();
    let gradient = |dynamics: ForwardDynamics| -> Vec<f32> {
        let mut solver = FeatherstoneSolver::with_dynamics(&model, dynamics).unwrap();
        let mut states: Vec<weft_sim::State> = (0..=10)
            .map(|_| weft_sim::State::new(&model).unwrap().requires_grad())
            .collect();
        let mut control = weft_sim::Control::new(&model).unwrap();
        control.joint_f = control.joint_f.requires_grad();
        let mut tape = Tape::new();
        tape.record(|| {
            for k in 0..10 {
                let (done, next) = states.split_at_mut(k + 1);
                solver
                    .step(&model, &done[k], &mut next[0], &control, 5e-3)
                    .unwrap();
            }
        });
        let seed: Vec<f32> = (0..model.joint_coord_count())
            .map(|i| 1.0 - 0.05 * i as f32)
            .collect();
        tape.backward_from(&mut states[10].joint_q, &seed).unwrap();
        let mut g = states[0].joint_q.grad_to_vec().unwrap();
        g.extend(states[0].joint_qd.grad_to_vec().unwrap());
        g.extend(control.joint_f.grad_to_vec().unwrap());
        g
    };
    let (c, a) = (
        gradient(ForwardDynamics::CompositeRigidBody),
        gradient(ForwardDynamics::ArticulatedBody),
    );
    let scale = c.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let err = a
        .iter()
        .zip(&c)
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
    println!(
        "10-step rollout gradients ({} entries), ABA vs CRBA solver: worst {:.1e} relative to the largest",
        c.len(),
        err / scale
    );
    assert!(scale > 0.0 && err / scale < 1e-4, "{}", err / scale);
}
