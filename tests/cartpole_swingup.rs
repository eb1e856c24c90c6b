//! The cart-pole swing-up of `examples/cartpole_swingup.rs` (the example's
//! own code, included below), on a short horizon: the tape's gradient of the
//! loss with respect to the force sequence matches finite differences, and a
//! few Adam iterations lower the loss.

#[allow(dead_code)]
#[path = "../examples/cartpole_swingup.rs"]
mod example;

use example::{Adam, Swingup, SwingupConfig, angle_error, initial_guess};
use weft::prelude::*;

/// 0.5 s: 50 steps of 10 ms, 10 intervals of 50 ms.
fn short() -> SwingupConfig {
    SwingupConfig {
        intervals: 10,
        ..SwingupConfig::example()
    }
}

#[test]
fn the_force_gradient_matches_finite_differences() {
    let mut rollout = Swingup::new(short()).unwrap();
    assert_eq!(
        rollout.cartpole.effort_limit, 10.0,
        "the file's motor: gear 10, ctrlrange ±1"
    );
    let mut u = Array::from_vec(Device::Cpu, initial_guess(10)).requires_grad();
    let r = gradcheck(&mut [&mut u], Some(1e-2), |x, loss| rollout.run(x[0], loss)).unwrap();
    let g = u.grad_to_vec().unwrap();
    println!("{r}; gradient {g:?}");
    assert!(g.iter().all(|x| x.is_finite()), "{g:?}");
    assert!(
        g.iter().any(|x| x.abs() > 1e-3),
        "the forces move the loss: {g:?}"
    );
    assert!(r.max_rel < 1e-2, "{r}");
}

#[test]
fn a_few_adam_iterations_lower_the_loss() {
    // 1 s (20 intervals): too short to swing up, long enough to swing.
    let config = SwingupConfig {
        intervals: 20,
        ..SwingupConfig::example()
    };
    let mut rollout = Swingup::new(config).unwrap();
    let mut u = Array::from_vec(Device::Cpu, initial_guess(config.intervals)).requires_grad();
    let mut loss = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    let mut adam = Adam::new(config.intervals, 0.2);
    let mut losses = Vec::new();
    for _ in 0..10 {
        losses.push(
            rollout
                .descend(&mut tape, &mut adam, &mut u, &mut loss)
                .unwrap(),
        );
    }
    rollout.run(&u, &mut loss).unwrap();
    let last = loss.to_vec()[0];
    let [x, theta, v, omega] = rollout.final_state();
    let err = angle_error(theta);
    println!("losses {losses:?} -> {last}; angle error {err}, θ̇ {omega}, x {x}, ẋ {v}");
    assert!(losses.iter().all(|l| l.is_finite()));
    assert!(
        losses[0] > 1.9,
        "the pole starts hanging: loss {}",
        losses[0]
    );
    assert!(
        last < 0.7 * losses[0],
        "loss {} -> {last}: {losses:?}",
        losses[0]
    );
    assert!(
        err < 2.0,
        "the pole swings up part of the way: {err} rad from upright"
    );
    assert!(
        u.to_vec().iter().all(|u| u.abs() <= 1.0),
        "forces within the limit"
    );
}
