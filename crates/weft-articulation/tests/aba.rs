//! `forward_dynamics_aba` (articulated-body algorithm) against the
//! composite-rigid-body `forward_dynamics` on random states of trees with
//! every joint kind, its tape gradient against central finite differences,
//! and bad input.

mod common;

use common::{Rng, mixed_model, random_dofs, random_q};
use weft::prelude::*;
use weft_articulation::{AbaLayout, ArticulationLayout, forward_dynamics, forward_dynamics_aba};
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
