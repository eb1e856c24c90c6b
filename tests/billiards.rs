//! The billiards shot of `examples/billiards.rs`, short (0.9 s at 3 ms, the
//! balls nearer the pocket): the gradient of the red ball's final distance to
//! the pocket with respect to the cue ball's velocity matches finite
//! differences through the collision, and a few Adam steps bring it closer.

use weft::prelude::*;
use weft_testkit::billiards::{Adam, ShotConfig, ShotRollout};

#[test]
fn the_shot_gradient_matches_finite_differences_and_adam_closes_in_on_the_pocket() {
    let config = ShotConfig::small();
    let mut rollout = ShotRollout::new(config, Device::Cpu).unwrap();
    // Straight at the red ball at 1 m/s: it is hit full and rolls 25° below
    // the line to the pocket.
    let aim = (config.balls[1] - config.balls[0]).normalize();
    let mut cue = Array::from_slice(Device::Cpu, &[aim.extend(0.0)]).requires_grad();

    let r = gradcheck(&mut [&mut cue], Some(1e-2), |v, loss| {
        rollout.run(v[0], loss)
    })
    .unwrap();
    let g = cue.grad_to_vec().unwrap()[0];
    println!("{r}; gradient {g}");
    assert!(g.is_finite() && g.length() > 0.1, "gradient {g}");
    // Measured 2.6e-2 (smoothed ball contacts, viscous cloth friction); with
    // weft-sim's fixed-normal ball contacts the sign was wrong.
    assert!(r.max_rel < 0.1, "{r}");

    let mut adam = Adam::new(0.06, 0.9);
    let mut loss = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    let mut losses = Vec::new();
    for _ in 0..15 {
        rollout.gradient(&mut tape, &cue, &mut loss).unwrap();
        losses.push(loss.to_vec()[0]);
        let g = cue.grad_to_vec().unwrap()[0].truncate();
        let v = adam.step(cue.to_vec()[0].truncate(), g);
        cue.copy_from_slice(&[v.extend(0.0)]).unwrap();
    }
    rollout.run(&cue, &mut loss).unwrap();
    let last = loss.to_vec()[0];
    let (q, _) = rollout.final_state();
    println!("loss {losses:?} -> {last}; red ball at {}", q[1].p);
    assert!(losses[0] > 0.05, "the guess starts far off: {}", losses[0]);
    assert!(
        last < 0.25 * losses[0],
        "loss {} -> {last}: {losses:?}",
        losses[0]
    );
}
