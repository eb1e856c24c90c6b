//! Gradients through Featherstone rollouts (the tape) against central finite
//! differences (`weft::gradcheck`): a pendulum's and a double pendulum's
//! final state with respect to their initial coordinates, velocities and
//! joint efforts.

mod common;

use common::{G, builder, pendulum};
use glam::Vec3;
use weft::prelude::*;
use weft_articulation::FeatherstoneSolver;
use weft_sim::{Control, Model, State};

/// `loss[0] += Σ_i w_i x_i`.
#[weft::kernel]
fn weighted_sum(x: &Array<f32>, w: &Array<f32>, loss: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut loss[0], w[i] * x[i]);
}

/// `loss[0] += Σ_b dot(w_b, p_b)` over body positions.
#[weft::kernel]
fn position_sum(q: &Array<Transform>, w: &Array<Vec3>, loss: &mut Array<f32>) {
    let b = tid();
    atomic_add(&mut loss[0], dot(w[b], q[b].p));
}

/// Rolls `model` out for `steps` from `(q0, qd0)` under efforts `f` and
/// writes a weighted sum of the final coordinates, velocities and body
/// positions to `loss`.
fn rollout_loss(
    model: &Model,
    inputs: &[&Array<f32>],
    steps: usize,
    dt: f32,
    loss: &mut Array<f32>,
) -> Result<(), weft::Error> {
    let err = |e: weft_sim::SimError| weft::Error::Shape(e.to_string());
    let mut solver = FeatherstoneSolver::new(model).map_err(err)?;
    let mut states: Vec<State> = (0..=steps)
        .map(|_| State::new(model).unwrap().requires_grad())
        .collect();
    states[0].joint_q = inputs[0].share();
    states[0].joint_qd = inputs[1].share();
    let mut control = Control::new(model)?;
    if let Some(f) = inputs.get(2) {
        control.joint_f = f.share();
    }
    for k in 0..steps {
        let (done, next) = states.split_at_mut(k + 1);
        solver
            .step(model, &done[k], &mut next[0], &control, dt)
            .map_err(err)?;
    }
    let end = &states[steps];
    let nq = model.joint_coord_count();
    let nd = model.joint_dof_count();
    let wq = Array::from_vec(
        model.device(),
        (0..nq).map(|i| 0.7 + 0.3 * i as f32).collect(),
    );
    let wd = Array::from_vec(
        model.device(),
        (0..nd).map(|i| 0.2 - 0.1 * i as f32).collect(),
    );
    let wp = Array::from_vec(
        model.device(),
        (0..model.body_count())
            .map(|b| Vec3::new(0.5, 0.1 * b as f32, -0.4))
            .collect(),
    );
    loss.fill(0.0);
    weighted_sum::launch(nq, &end.joint_q, &wq, loss)?;
    weighted_sum::launch(nd, &end.joint_qd, &wd, loss)?;
    position_sum::launch(model.body_count(), &end.body_q, &wp, loss)
}

#[test]
fn pendulum_rollout_gradient_matches_finite_differences() {
    let model = pendulum(Device::Cpu, 1.0, 0.05, 1.0, 0.0);
    let mut q0 = Array::from_slice(Device::Cpu, &[0.6f32]);
    let mut qd0 = Array::from_slice(Device::Cpu, &[-0.8f32]);
    let r = gradcheck(&mut [&mut q0, &mut qd0], Some(1e-3), |x, loss| {
        rollout_loss(&model, x, 100, 1e-2, loss)
    })
    .unwrap();
    println!("pendulum, 100 steps of 10 ms: {r}");
    assert!(r.max_rel < 1e-2, "{r}");
}

#[test]
fn double_pendulum_rollout_gradient_matches_finite_differences() {
    let mut b = builder(G);
    common::add_double_pendulum(&mut b, Vec3::ZERO, [0.0, 0.0]);
    let model = b.finalize(Device::Cpu).unwrap();
    let mut q0 = Array::from_slice(Device::Cpu, &[0.5f32, -0.4]);
    let mut qd0 = Array::from_slice(Device::Cpu, &[0.3f32, 0.9]);
    let mut effort = Array::from_slice(Device::Cpu, &[1.5f32, -0.7]);
    let r = gradcheck(
        &mut [&mut q0, &mut qd0, &mut effort],
        Some(1e-3),
        |x, loss| rollout_loss(&model, x, 50, 1e-2, loss),
    )
    .unwrap();
    println!("double pendulum, 50 steps of 10 ms: {r}");
    assert!(r.max_rel < 1e-2, "{r}");
    // Something passed: the efforts move the final state.
    let g = effort.grad_to_vec().unwrap();
    assert!(g.iter().all(|x| x.abs() > 1e-4), "{g:?}");
}
