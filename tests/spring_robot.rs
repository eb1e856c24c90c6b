//! The spring robot of `examples/spring_robot.rs`: the gradient of the distance
//! walked with respect to the controller's parameters (through the controller
//! kernel, springs, ground contact and friction) against finite differences, and
//! a few steps of gradient descent making the robot walk further.

use weft::prelude::*;
use weft_testkit::spring_robot::{Adam, Robot, RobotParams, Rollout};

#[test]
fn controller_gradient_matches_finite_differences() {
    // A short rollout (0.1 s) from the settled pose: the feet stay pressed into the
    // ground (no contact starts or ends), and a friction coefficient of 5 keeps
    // friction in its viscous regime (below the Coulomb cap). Both switches are
    // kinks of the loss that central differences would step across; the example
    // reports what the check gives with them, on its longer rollout.
    let params = RobotParams {
        mu: 5.0,
        ..Default::default()
    };
    let robot = Robot::new(Device::Cpu, &params).unwrap();
    let (w, b) = robot.initial_parameters(3, 0.5);
    let mut weights = Array::from_vec(Device::Cpu, w);
    let mut bias = Array::from_vec(Device::Cpu, b);
    let mut rollout = Rollout::new(robot, 48).unwrap();
    let r = gradcheck(&mut [&mut weights, &mut bias], Some(1e-2), |p, loss| {
        rollout.run(p[0], p[1], loss)
    })
    .unwrap();
    let g: Vec<f32> = weights
        .grad_to_vec()
        .unwrap()
        .into_iter()
        .chain(bias.grad_to_vec().unwrap())
        .collect();
    let scale = g.iter().fold(0.0f32, |m, x| m.max(x.abs())) as f64;
    assert!(scale > 1e-6, "the gradient is (nearly) zero: {scale:e}");
    let e = r.max_abs / scale;
    println!("{r}; worst error / largest gradient {e:.2e}");
    assert!(e < 1e-2, "{e:.2e}: {r}");
    // Still standing: no particle sinks through the ground or rises above the
    // body's top at rest (0.42 m).
    let (low, high) = rollout.height_range();
    assert!(
        low > 0.0 && high < 0.43,
        "the robot left its stance: heights {low}..{high}"
    );
}

#[test]
fn gradient_descent_walks_further() {
    // Adam on a 0.5 s rollout from random weights: after a few iterations the
    // centre of mass moves clearly further along +X than at first. (A gradient of
    // the wrong sign, or one that is noise, walks backwards or nowhere.)
    let robot = Robot::new(Device::Cpu, &RobotParams::default()).unwrap();
    let (w, b) = robot.initial_parameters(1, 0.5);
    let n_w = w.len();
    let mut x: Vec<f32> = w.iter().chain(&b).copied().collect();
    let mut weights = Array::from_vec(Device::Cpu, w).requires_grad();
    let mut bias = Array::from_vec(Device::Cpu, b).requires_grad();
    let mut rollout = Rollout::new(robot, 240).unwrap();
    let mut adam = Adam::new(x.len(), 0.1);
    let mut loss = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    let mut walked = Vec::new();
    for _ in 0..6 {
        rollout
            .gradient(&mut tape, &weights, &bias, &mut loss)
            .unwrap();
        walked.push(rollout.distance());
        let g: Vec<f32> = weights
            .grad_to_vec()
            .unwrap()
            .into_iter()
            .chain(bias.grad_to_vec().unwrap())
            .collect();
        adam.step(&mut x, &g);
        weights.copy_from_slice(&x[..n_w]).unwrap();
        bias.copy_from_slice(&x[n_w..]).unwrap();
    }
    rollout.run(&weights, &bias, &mut loss).unwrap();
    walked.push(rollout.distance());
    println!("distance walked per iteration (m): {walked:.4?}");
    let (first, last) = (walked[0], walked[walked.len() - 1]);
    assert!(
        last > first + 0.02,
        "the robot did not learn to walk forward: {walked:.4?}"
    );
    assert!(
        (-loss.to_vec()[0] - last).abs() < 1e-4,
        "loss is minus the distance"
    );
}
