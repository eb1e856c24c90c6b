//! Ball-joint cone limits and position drives of ball and free joints in the
//! Featherstone solver, against analytic equilibria: an inverted ball
//! pendulum resting on its cone (`ke (θ − θmax) = m g l sin θ`), a hanging
//! one held by a drive (`ke (θt − θ) = m g l sin θ`), drives reaching their
//! targets without gravity, a stiff cone on a light link staying stable, and
//! tape gradients of short rollouts against central finite differences.

mod common;

use common::{G, body, builder};
use glam::{DQuat, Quat, Vec3};
use weft::prelude::*;
use weft_articulation::ball_drives::quat_log;
use weft_articulation::joint_math::quat_at;
use weft_articulation::{FeatherstoneSolver, ForwardDynamics, eval_fk};
use weft_sim::{Control, JointDesc, Model, State};

const M: f32 = 1.0;
const L: f32 = 1.0;
const R: f32 = 0.05;

/// A ball pendulum: a sphere of mass `M`, radius `R`, its centre `L` from a
/// ball joint at the origin — above it (`up`) or below it at the identity
/// rotation — starting at rotation `q0`; `tune` sets the joint's dynamics.
fn ball_pendulum(g: f32, up: bool, q0: Quat, tune: impl FnOnce(JointDesc) -> JointDesc) -> Model {
    let mut b = builder(g);
    let bob = body(&mut b, M, Vec3::ZERO, Vec3::splat(0.4 * M * R * R));
    let z = if up { -L } else { L };
    let j = JointDesc::ball(-1, bob)
        .with_frames(
            Transform::IDENTITY,
            Transform::from_translation(Vec3::new(0.0, 0.0, z)),
        )
        .with_q(&q0.to_array());
    b.add_joint(tune(j)).unwrap();
    b.finalize(Device::Cpu).unwrap()
}

/// Steps `model` from its initial state `steps` times, calling `each` with
/// the joint coordinates after every step; returns the final state.
fn rollout(
    model: &Model,
    control: &Control,
    dynamics: ForwardDynamics,
    dt: f32,
    steps: usize,
    mut each: impl FnMut(&[f32]),
) -> State {
    let mut solver = FeatherstoneSolver::with_dynamics(model, dynamics).unwrap();
    let (mut a, mut b) = (State::new(model).unwrap(), State::new(model).unwrap());
    eval_fk(model, &mut a).unwrap();
    for _ in 0..steps {
        solver.step(model, &a, &mut b, control, dt).unwrap();
        std::mem::swap(&mut a, &mut b);
        each(&a.joint_q.to_vec());
    }
    a
}

/// The quaternion `(x, y, z, w)` at `q[s..]`, in f64.
fn quat(q: &[f32], s: usize) -> DQuat {
    DQuat::from_xyzw(
        q[s] as f64,
        q[s + 1] as f64,
        q[s + 2] as f64,
        q[s + 3] as f64,
    )
    .normalize()
}

/// The rotation angle of `r` in `[0, π]`.
fn angle(r: DQuat) -> f64 {
    2.0 * r.xyz().length().atan2(r.w.abs())
}

/// The root of `f` near `x` by Newton's method (derivative by differences).
fn solve(f: impl Fn(f64) -> f64, mut x: f64) -> f64 {
    for _ in 0..50 {
        let d = (f(x + 1e-7) - f(x - 1e-7)) / 2e-7;
        x -= f(x) / d;
    }
    x
}

/// A horizontal unit axis off the frame's axes, so the rotations mix them.
fn tilt_axis() -> Vec3 {
    Vec3::new(1.0, 2.0, 0.0).normalize()
}

#[test]
fn an_inverted_ball_pendulum_rests_on_its_cone() {
    let (max, ke, kd) = (0.5f32, 200.0f32, 5.0f32);
    let mgl = (M * G * L) as f64;
    let analytic = solve(|t| ke as f64 * (t - max as f64) - mgl * t.sin(), max as f64);
    let q0 = Quat::from_axis_angle(tilt_axis(), 0.2);
    for dynamics in [
        ForwardDynamics::CompositeRigidBody,
        ForwardDynamics::ArticulatedBody,
    ] {
        let model = ball_pendulum(G, true, q0, |mut j| {
            j.limit_ke = ke;
            j.limit_kd = kd;
            j.angular.iter_mut().for_each(|d| d.damping = 0.5);
            j.with_cone_limit(max)
        });
        let control = Control::new(&model).unwrap();
        let mut peak = 0.0f64;
        let end = rollout(&model, &control, dynamics, 2e-3, 4000, |q| {
            peak = peak.max(angle(quat(q, 0)))
        });
        let r = quat(&end.joint_q.to_vec(), 0);
        let theta = angle(r);
        // It fell in the plane of its tilt: still turned about the same axis.
        let off_axis = (r.xyz().normalize() - tilt_axis().as_dvec3()).length();
        let rel = (theta - analytic).abs() / analytic;
        let rel_pen = (theta - analytic).abs() / (analytic - max as f64);
        println!(
            "{dynamics:?}: rests at θ = {theta:.6} vs analytic {analytic:.6} (relative {rel:.2e}, {rel_pen:.2e} of the penetration); peak {peak:.4}; off its axis {off_axis:.1e}"
        );
        assert!(rel < 1e-3 && rel_pen < 1e-2, "{theta} vs {analytic}");
        assert!(off_axis < 1e-3, "{off_axis}");
        // The impact overshoots the rest angle by the penalty's give only.
        assert!(peak < max as f64 + 0.15, "{peak}");
    }
}

#[test]
fn a_stiff_cone_holds_within_a_percent_and_an_unlimited_ball_falls_past() {
    let max = 0.5f32;
    let q0 = Quat::from_axis_angle(tilt_axis(), 0.2);
    let limited = ball_pendulum(G, true, q0, |mut j| {
        j.limit_ke = 1e5;
        j.limit_kd = 1e3;
        j.with_cone_limit(max)
    });
    let free = ball_pendulum(G, true, q0, |j| j);
    let mut peaks = [0.0f64; 2];
    for (k, model) in [&limited, &free].into_iter().enumerate() {
        let control = Control::new(model).unwrap();
        rollout(
            model,
            &control,
            ForwardDynamics::CompositeRigidBody,
            2e-3,
            1000,
            |q| peaks[k] = peaks[k].max(angle(quat(q, 0))),
        );
    }
    let over = (peaks[0] - max as f64) / max as f64;
    println!(
        "peak angle: limited {:.5} ({over:.2e} over the cone), unlimited {:.4}",
        peaks[0], peaks[1]
    );
    assert!(over < 1e-2, "{over}");
    assert!(peaks[1] > 2.0, "{}", peaks[1]);
}

#[test]
fn a_stiff_cone_on_a_light_link_is_stable_in_every_direction() {
    // h² ke ≫ the link's inertia: only the exact implicit block (w wᵀ) keeps
    // it stable away from the joint's axes, and without limit damping.
    let (m, l, max) = (0.1f32, 0.1f32, 0.5f32);
    let axes = [Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::new(1.0, 1.0, 1.0)];
    for dynamics in [
        ForwardDynamics::CompositeRigidBody,
        ForwardDynamics::ArticulatedBody,
    ] {
        for axis in axes {
            for kd in [100.0f32, 0.0] {
                let mut b = builder(G);
                let bob = body(&mut b, m, Vec3::ZERO, Vec3::splat(4e-6));
                let mut j = JointDesc::ball(-1, bob)
                    .with_frames(
                        Transform::IDENTITY,
                        Transform::from_translation(Vec3::new(0.0, 0.0, -l)),
                    )
                    .with_q(&Quat::from_axis_angle(axis.normalize(), 0.45).to_array())
                    .with_cone_limit(max);
                j.limit_kd = kd;
                b.add_joint(j).unwrap();
                let model = b.finalize(Device::Cpu).unwrap();
                let control = Control::new(&model).unwrap();
                let mut peak = 0.0f64;
                let end = rollout(&model, &control, dynamics, 2e-3, 500, |q| {
                    peak = peak.max(angle(quat(q, 0)))
                });
                let theta = angle(quat(&end.joint_q.to_vec(), 0));
                println!(
                    "{dynamics:?}, tilt about {axis}, limit kd {kd}: peak {peak:.5}, end {theta:.6} (ke h²/I = {:.0})",
                    1e4 * 4e-6 / (m * l * l)
                );
                assert!(peak < 1.03 * max as f64 && (theta - max as f64).abs() < 1e-3);
            }
        }
    }
}

#[test]
fn a_ball_drive_holds_a_pendulum_against_gravity() {
    let (target, ke, kd) = (0.6f32, 50.0f32, 5.0f32);
    let mgl = (M * G * L) as f64;
    let analytic = solve(|t| ke as f64 * (target as f64 - t) - mgl * t.sin(), 0.3);
    let rv = tilt_axis() * target;
    for dynamics in [
        ForwardDynamics::CompositeRigidBody,
        ForwardDynamics::ArticulatedBody,
    ] {
        let model = ball_pendulum(G, false, Quat::IDENTITY, |mut j| {
            for (d, t) in j.angular.iter_mut().zip(rv.to_array()) {
                d.drive.stiffness = ke;
                d.drive.damping = kd;
                d.drive.target_pos = t;
            }
            j
        });
        let control = Control::new(&model).unwrap();
        let end = rollout(&model, &control, dynamics, 2e-3, 3000, |_| {});
        let r = quat(&end.joint_q.to_vec(), 0);
        let theta = angle(r);
        let off_axis = (r.xyz().normalize() - tilt_axis().as_dvec3()).length();
        let rel = (theta - analytic).abs() / analytic;
        println!(
            "{dynamics:?}: held at θ = {theta:.6} vs analytic {analytic:.6} (relative {rel:.2e}); off the target's axis {off_axis:.1e}"
        );
        assert!(rel < 1e-3, "{theta} vs {analytic}");
        assert!(off_axis < 1e-3, "{off_axis}");
    }
}

#[test]
fn a_ball_drive_reaches_its_target_without_gravity() {
    let axis = Vec3::new(0.31, -0.72, 0.62).normalize();
    let rv = axis * 0.7;
    let start = Quat::from_axis_angle(Vec3::new(-0.5, 0.2, 0.9).normalize(), 1.1);
    let model = ball_pendulum(0.0, false, start, |mut j| {
        for (d, t) in j.angular.iter_mut().zip(rv.to_array()) {
            d.drive.stiffness = 20.0;
            d.drive.damping = 4.0;
            d.drive.target_pos = t;
        }
        j.with_qd(&[0.5, -1.0, 0.3])
    });
    let control = Control::new(&model).unwrap();
    let end = rollout(
        &model,
        &control,
        ForwardDynamics::CompositeRigidBody,
        2e-3,
        3000,
        |_| {},
    );
    let r = quat(&end.joint_q.to_vec(), 0);
    let goal = DQuat::from_axis_angle(axis.as_dvec3(), 0.7);
    let miss = angle(r.inverse() * goal);
    println!("ball drive without gravity: {miss:.2e} rad from the target");
    assert!(miss < 1e-3, "{miss}");
}

#[test]
fn a_free_joint_drive_pulls_a_floating_body_to_its_target() {
    let mut b = builder(0.0);
    let bob = body(
        &mut b,
        2.0,
        Vec3::new(0.05, -0.03, 0.02),
        Vec3::new(0.02, 0.03, 0.04),
    );
    let frame = Transform::new(
        Vec3::new(0.5, -1.0, 0.3),
        Quat::from_axis_angle(Vec3::new(0.3, 0.4, 0.5).normalize(), 0.8),
    );
    let (p, rv) = (
        Vec3::new(0.3, -0.2, 0.5),
        Vec3::new(-1.0, 0.5, 2.0).normalize() * 0.8,
    );
    let mut j = JointDesc::free(bob)
        .with_frames(frame, Transform::IDENTITY)
        .with_qd(&[0.2, 0.0, -0.3, 1.0, 0.5, -0.5]);
    let targets = p.to_array().into_iter().chain(rv.to_array());
    for (d, t) in j.linear.iter_mut().chain(j.angular.iter_mut()).zip(targets) {
        d.drive.stiffness = 30.0;
        d.drive.damping = 6.0;
        d.drive.target_pos = t;
    }
    // The angular gains scaled to the inertia, for a similar settling time.
    for d in &mut j.angular {
        d.drive.stiffness = 1.0;
        d.drive.damping = 0.2;
    }
    b.add_joint(j).unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    let control = Control::new(&model).unwrap();
    // The body's world pose is the parent frame times the target.
    let want = frame * Transform::new(p, Quat::from_axis_angle(rv.normalize(), rv.length()));
    for dynamics in [
        ForwardDynamics::CompositeRigidBody,
        ForwardDynamics::ArticulatedBody,
    ] {
        let end = rollout(&model, &control, dynamics, 2e-3, 4000, |_| {});
        let x = end.body_q.to_vec()[bob];
        let dp = (x.p - want.p).length();
        let dr = angle(x.q.as_dquat().inverse() * want.q.as_dquat());
        println!("{dynamics:?}: free joint drive {dp:.2e} m and {dr:.2e} rad from the target");
        assert!(dp < 1e-3 && dr < 1e-3, "{dp} {dr}");
    }
}

/// `loss[0] = dot(w, log r) + |log r|` of the ball rotation at `q[0..4]`.
#[weft::kernel]
fn rotation_loss(q: &Array<f32>, w: Vec3, loss: &mut Array<f32>) {
    let rv = quat_log(quat_at(q, 0));
    loss[0] = dot(w, rv) + length(rv);
}

/// Which gain an extra input of [`ball_loss`] replaces.
#[derive(Clone, Copy)]
enum Gain {
    Drive,
    Limit,
}

/// Rolls the ball pendulum `model` out from velocities `x[0]` with the
/// position targets `x[1]` and the gains `x[2..]` (which ones: `gains`) and
/// writes [`rotation_loss`] of the end (`dynamics` finds the accelerations).
fn ball_loss(
    model: &Model,
    x: &[&Array<f32>],
    gains: &[Gain],
    dynamics: ForwardDynamics,
    steps: usize,
    loss: &mut Array<f32>,
) -> Result<(), weft::Error> {
    let err = |e: weft_sim::SimError| weft::Error::Shape(e.to_string());
    let mut model = model.share();
    for (g, k) in gains.iter().zip(&x[2..]) {
        match g {
            Gain::Drive => model.joint_target_ke = k.share(),
            Gain::Limit => model.joint_limit_ke = k.share(),
        }
    }
    let mut solver = FeatherstoneSolver::with_dynamics(&model, dynamics).map_err(err)?;
    let mut states: Vec<State> = (0..=steps)
        .map(|_| State::new(&model).unwrap().requires_grad())
        .collect();
    states[0].joint_qd = x[0].share();
    let mut control = Control::new(&model)?;
    control.joint_target_pos = x[1].share();
    for k in 0..steps {
        let (done, next) = states.split_at_mut(k + 1);
        solver
            .step(&model, &done[k], &mut next[0], &control, 1e-2)
            .map_err(err)?;
    }
    rotation_loss::launch(1, &states[steps].joint_q, Vec3::new(0.3, -0.5, 0.2), loss)
}

/// Gradchecks [`ball_loss`] over 20 steps of `model` from velocities `qd0`,
/// targets `target` and gains `gains`, the accelerations by both dynamics;
/// returns the largest relative error.
fn check(
    name: &str,
    model: &Model,
    qd0: [f32; 3],
    target: [f32; 3],
    gains: &[(Gain, [f32; 3])],
) -> f64 {
    let mut qd0 = Array::from_slice(Device::Cpu, &qd0);
    let mut target = Array::from_slice(Device::Cpu, &target);
    let which: Vec<Gain> = gains.iter().map(|g| g.0).collect();
    let mut g: Vec<Array<f32>> = gains
        .iter()
        .map(|k| Array::from_slice(Device::Cpu, &k.1))
        .collect();
    let mut inputs: Vec<&mut Array<f32>> = vec![&mut qd0, &mut target];
    inputs.extend(g.iter_mut());
    let mut worst = 0.0f64;
    for dynamics in [
        ForwardDynamics::CompositeRigidBody,
        ForwardDynamics::ArticulatedBody,
    ] {
        let r = gradcheck(&mut inputs, Some(1e-3), |x, loss| {
            ball_loss(model, x, &which, dynamics, 20, loss)
        })
        .unwrap();
        println!("{name}, {dynamics:?}: {r}");
        assert!(r.max_abs.is_finite(), "{r}");
        worst = worst.max(r.max_rel);
    }
    worst
}

#[test]
fn ball_drive_and_cone_gradients_match_finite_differences() {
    let drive = |ke: f32| {
        move |mut j: JointDesc| {
            for d in &mut j.angular {
                d.drive.stiffness = ke;
                d.drive.damping = 2.0;
            }
            j
        }
    };
    // A drive swinging a hanging pendulum about: d/d(velocity, target, ke).
    let q0 = Quat::from_axis_angle(tilt_axis(), 0.3);
    let hanging = ball_pendulum(G, false, q0, drive(30.0));
    let gains = [(Gain::Drive, [30.0; 3])];
    let e1 = check(
        "drive",
        &hanging,
        [0.4, -0.3, 0.5],
        [0.2, -0.4, 0.3],
        &gains,
    );
    // At rest at the identity with a zero target: the rotation vector's
    // derivative at zero rotation.
    let still = ball_pendulum(G, false, Quat::IDENTITY, drive(20.0));
    let gains = [(Gain::Drive, [20.0; 3])];
    let e2 = check("drive at zero rotation", &still, [0.0; 3], [0.0; 3], &gains);
    // An inverted pendulum pressing on its cone the whole time: d/d(limit ke).
    let q0 = Quat::from_axis_angle(tilt_axis(), 0.56);
    let cone = ball_pendulum(G, true, q0, |mut j| {
        j.limit_ke = 200.0;
        j.limit_kd = 5.0;
        j.with_cone_limit(0.5)
    });
    let gains = [(Gain::Limit, [200.0; 3])];
    let e3 = check("cone", &cone, [0.1, -0.05, 0.02], [0.0; 3], &gains);
    for e in [e1, e2, e3] {
        assert!(e < 1e-2, "{e}");
    }
}
