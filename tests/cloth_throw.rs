//! The cloth throw of `examples/cloth_throw.rs`, small (a 4 × 4-cell cloth, 150
//! steps): the gradient of the landing point with respect to the shared initial
//! velocity matches finite differences, and a few steps of gradient descent bring
//! the centre of mass onto a reachable target.

use weft::prelude::*;
use weft_testkit::cloth_throw::{ThrowConfig, ThrowRollout};

/// Where the centre of mass of the small cloth thrown at `v` comes to rest.
fn landing(config: ThrowConfig, v: Vec3) -> Vec3 {
    let mut probe = ThrowRollout::new(config, Device::Cpu, Vec3::ZERO).unwrap();
    let throw = Array::from_slice(Device::Cpu, &[v]);
    probe
        .run(&throw, &mut Array::zeros(Device::Cpu, [1]))
        .unwrap();
    assert!(
        probe.final_max_speed() < 0.05,
        "the cloth thrown at {v} still moves at {} m/s at the last step",
        probe.final_max_speed()
    );
    probe.final_com()
}

#[test]
fn the_throw_gradient_matches_finite_differences_and_descent_reaches_the_target() {
    let config = ThrowConfig::small();
    let target = landing(config, Vec3::new(1.6, 0.5, 1.6));
    assert!(
        target.z < 0.05 && target.x > 0.0,
        "the probe throw lands on the ground ahead: {target}"
    );
    let mut rollout = ThrowRollout::new(config, Device::Cpu, target).unwrap();
    let mut v0 = Array::from_slice(Device::Cpu, &[Vec3::new(0.5, -0.5, 2.2)]).requires_grad();

    // The loss is continuously differentiable through the landing (rounded
    // contact, smoothed friction): central differences agree to f32 precision.
    let r = gradcheck(&mut [&mut v0], None, |v, loss| rollout.run(v[0], loss)).unwrap();
    let g = v0.grad_to_vec().unwrap()[0];
    println!("{r}; gradient {g}");
    assert!(g.is_finite() && g.length() > 0.1, "gradient {g}");
    assert!(
        r.worst
            .is_some_and(|(.., t, fd)| t.is_finite() && fd.is_finite()),
        "{r}"
    );
    assert!(r.max_rel < 5e-3, "{r}");

    // Gradient descent (the loss's curvature is about 1 here, so a step of 1):
    // the loss falls by orders of magnitude in a few iterations.
    let mut loss = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    let mut losses = Vec::new();
    for _ in 0..6 {
        rollout.gradient(&mut tape, &v0, &mut loss).unwrap();
        losses.push(loss.to_vec()[0]);
        let g = v0.grad_to_vec().unwrap()[0];
        v0.copy_from_slice(&[v0.to_vec()[0] - g * 1.0]).unwrap();
    }
    rollout.run(&v0, &mut loss).unwrap();
    let last = loss.to_vec()[0];
    println!(
        "loss {losses:?} -> {last}; ends at {} (target {target})",
        rollout.final_com()
    );
    assert!(losses[0] > 0.3, "the guess starts far off: {}", losses[0]);
    assert!(
        last < 1e-3 * losses[0],
        "loss {} -> {last}: {losses:?}",
        losses[0]
    );
}
