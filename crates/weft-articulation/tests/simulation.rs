//! Rollouts of the Featherstone solver against analytic results: a
//! pendulum's small-angle period and its energy, a double pendulum's energy,
//! a free body's momenta without gravity, a slider accelerating at `g · axis`,
//! a PD drive reaching its target, an effort limit and a joint limit.

mod common;

use common::{G, body, builder, energy, momentum, pendulum};
use glam::{Quat, Vec3};
use weft::{Array, Device, Transform};
use weft_articulation::{ArticulationLayout, FeatherstoneSolver, eval_fk, forward_dynamics};
use weft_sim::{Control, JointDesc, JointDrive, Model, State};

/// Runs `steps` steps of `dt`, calling `each(step, state)` after every one.
fn rollout(
    model: &Model,
    control: &Control,
    dt: f32,
    steps: usize,
    mut each: impl FnMut(usize, &State),
) -> State {
    let mut solver = FeatherstoneSolver::new(model).unwrap();
    let (mut a, mut b) = (State::new(model).unwrap(), State::new(model).unwrap());
    eval_fk(model, &mut a).unwrap();
    each(0, &a);
    for k in 1..=steps {
        solver.step(model, &a, &mut b, control, dt).unwrap();
        std::mem::swap(&mut a, &mut b);
        each(k, &a);
    }
    a
}

#[test]
fn pendulum_small_angle_period() {
    let (m, r, l) = (1.0f32, 0.05f32, 1.0f32);
    let model = pendulum(Device::Cpu, m, r, l, 0.01);
    let dt = 1e-3;
    let mut angles = Vec::new();
    rollout(&model, &Control::new(&model).unwrap(), dt, 6000, |_, s| {
        angles.push(s.joint_q.to_vec()[0] as f64)
    });
    // Downward zero crossings, interpolated.
    let crossings: Vec<f64> = angles
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] > 0.0 && w[1] <= 0.0)
        .map(|(k, w)| (k as f64 + w[0] / (w[0] - w[1])) * dt as f64)
        .collect();
    let periods = (crossings.len() - 1) as f64;
    let measured = (crossings[crossings.len() - 1] - crossings[0]) / periods;
    let (m, r, l) = (m as f64, r as f64, l as f64);
    let pivot_inertia = 0.4 * m * r * r + m * l * l;
    let analytic = 2.0 * std::f64::consts::PI * (pivot_inertia / (m * G as f64 * l)).sqrt();
    let rel = (measured - analytic).abs() / analytic;
    println!(
        "pendulum period over {periods} periods: {measured:.6} s vs analytic {analytic:.6} s (relative {rel:.2e})"
    );
    assert!(periods >= 2.0);
    assert!(rel < 2e-4, "{rel}");
}

/// Total energy relative to its swing (the potential's range).
fn energy_drift(model: &Model, dt: f32, steps: usize) -> (f64, f64) {
    let mut e0 = None;
    let (mut worst, mut swing) = (0.0f64, 0.0f64);
    let mut last = 0.0;
    rollout(model, &Control::new(model).unwrap(), dt, steps, |_, s| {
        let (ke, pe) = energy(model, s, G);
        let e = ke + pe;
        let e0 = *e0.get_or_insert(e);
        worst = worst.max((e - e0).abs());
        swing = swing.max(ke);
        last = e - e0;
    });
    (worst / swing, last / swing)
}

#[test]
fn pendulum_conserves_energy() {
    let model = pendulum(Device::Cpu, 1.0, 0.05, 1.0, 1.0);
    let (worst, end) = energy_drift(&model, 1e-3, 5000);
    println!(
        "pendulum (1 rad, 5 s, dt 1 ms): worst energy error {worst:.2e}, at the end {end:.2e} of the largest kinetic energy"
    );
    assert!(worst < 3e-3 && end.abs() < 3e-3, "{worst} {end}");
}

#[test]
fn double_pendulum_conserves_energy() {
    let mut b = builder(G);
    common::add_double_pendulum(&mut b, Vec3::ZERO, [1.2, -0.5]);
    let model = b.finalize(Device::Cpu).unwrap();
    let (worst, end) = energy_drift(&model, 5e-4, 6000);
    println!(
        "double pendulum (3 s, dt 0.5 ms): worst energy error {worst:.2e}, at the end {end:.2e} of the largest kinetic energy"
    );
    assert!(worst < 5e-3 && end.abs() < 5e-3, "{worst} {end}");
}

/// Worst relative changes of linear momentum, angular momentum and kinetic
/// energy of a spinning, drifting free body without gravity over 2 s.
fn free_body_drift(dt: f32) -> (f32, f32, f64) {
    let mut b = builder(0.0);
    // The centre of mass off the body origin couples the joint's linear and
    // angular coordinates.
    let bob = body(
        &mut b,
        2.0,
        Vec3::new(0.1, -0.05, 0.2),
        Vec3::new(0.08, 0.1, 0.15),
    );
    b.add_joint(
        JointDesc::free(bob)
            .with_q(&[0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 1.0])
            .with_qd(&[0.5, -0.2, 0.3, 0.4, 1.5, -0.3]),
    )
    .unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    let mut start = None;
    let (mut dp, mut dl, mut de) = (0.0f32, 0.0f32, 0.0f64);
    let steps = (2.0 / dt).round() as usize;
    rollout(&model, &Control::new(&model).unwrap(), dt, steps, |_, s| {
        let (p, l) = momentum(&model, s);
        let (ke, _) = energy(&model, s, 0.0);
        let (p0, l0, e0) = *start.get_or_insert((p, l, ke));
        dp = dp.max((p - p0).length() / p0.length());
        dl = dl.max((l - l0).length() / l0.length());
        de = de.max((ke - e0).abs() / e0);
    });
    (dp, dl, de)
}

/// Semi-implicit Euler in the free joint's coordinates (body-origin
/// velocity, local angular velocity) keeps the momenta to first order in the
/// step: the errors are small and halve with the step.
#[test]
fn free_body_without_gravity_keeps_its_momenta() {
    let coarse = free_body_drift(1e-3);
    let fine = free_body_drift(5e-4);
    for (dt, (dp, dl, de)) in [(1e-3, coarse), (5e-4, fine)] {
        println!(
            "free body (2 s, dt {dt}): linear momentum {dp:.2e}, angular momentum {dl:.2e}, kinetic energy {de:.2e} (relative)"
        );
    }
    assert!(
        coarse.0 < 2e-3 && coarse.1 < 2e-3 && coarse.2 < 2e-3,
        "{coarse:?}"
    );
    let ratios = [
        coarse.0 / fine.0,
        coarse.1 / fine.1,
        (coarse.2 / fine.2) as f32,
    ];
    println!("error ratios dt / (dt / 2): {ratios:?}");
    assert!(ratios.iter().all(|r| (1.6..2.5).contains(r)), "{ratios:?}");
}

#[test]
fn slider_accelerates_at_g_along_its_axis() {
    let mut b = builder(G);
    let cart = body(
        &mut b,
        1.5,
        Vec3::new(0.1, 0.0, 0.0),
        Vec3::new(0.01, 0.02, 0.03),
    );
    let axis = Vec3::new(1.0, 0.0, -1.0).normalize();
    let frame = Transform::new(Vec3::new(0.0, 0.0, 1.0), Quat::from_rotation_z(0.3));
    b.add_joint(JointDesc::prismatic(-1, cart, axis).with_frames(frame, Transform::IDENTITY))
        .unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    let want = Vec3::new(0.0, 0.0, -G).dot(frame.q * axis);
    let layout = ArticulationLayout::new(&model).unwrap();
    let zero = Array::from_slice(Device::Cpu, &[0.0f32]);
    let qdd = forward_dynamics(
        &model,
        &layout,
        &zero,
        &Array::from_slice(Device::Cpu, &[0.7]),
        &zero,
    )
    .unwrap()
    .to_vec()[0];
    let (dt, steps) = (1e-3f32, 500);
    let end = rollout(&model, &Control::new(&model).unwrap(), dt, steps, |_, _| {});
    // Semi-implicit Euler under constant a: q_n = a h² n (n + 1) / 2.
    let n = steps as f32;
    let q_want = want * dt * dt * n * (n + 1.0) / 2.0;
    let q = end.joint_q.to_vec()[0];
    println!("slider: q̈ {qdd} vs g·axis {want}; q after {steps} steps {q} vs {q_want}");
    assert!((qdd - want).abs() < 1e-5 * G, "{qdd} vs {want}");
    assert!((q - q_want).abs() < 1e-4 * q_want.abs(), "{q} vs {q_want}");
}

/// A hinge about Z (no gravity torque) with a stiff PD drive reaches its
/// target; the same drive with an effort limit accelerates at limit / I.
#[test]
fn drives_reach_targets_and_respect_effort_limits() {
    let make = |limit: f32| {
        let mut b = builder(G);
        let arm = body(
            &mut b,
            1.0,
            Vec3::new(0.5, 0.0, 0.0),
            Vec3::new(0.001, 0.08, 0.08),
        );
        let mut j = JointDesc::revolute(-1, arm, Vec3::Z);
        j.angular[0].drive = JointDrive {
            target_pos: 1.0,
            stiffness: 1.0e4,
            damping: 200.0,
            effort_limit: limit,
            ..Default::default()
        };
        b.add_joint(j).unwrap();
        b.finalize(Device::Cpu).unwrap()
    };
    let model = make(f32::INFINITY);
    let end = rollout(
        &model,
        &Control::new(&model).unwrap(),
        1e-3,
        1000,
        |_, _| {},
    );
    let q = end.joint_q.to_vec()[0];
    println!("PD drive (ke 1e4, kd 200, 1 s): q = {q} for target 1");
    assert!((q - 1.0).abs() < 1e-3, "{q}");
    // Limited to 0.5 N·m: q̈ = 0.5 / (0.08 + 1 · 0.5²) from rest.
    let limited = make(0.5);
    let mut q1 = 0.0;
    rollout(
        &limited,
        &Control::new(&limited).unwrap(),
        1e-3,
        100,
        |k, s| {
            if k == 100 {
                q1 = s.joint_q.to_vec()[0];
            }
        },
    );
    let a = 0.5 / (0.08 + 0.25);
    let want = a * 1e-6 * 100.0 * 101.0 / 2.0;
    println!("effort-limited drive: q after 0.1 s {q1} vs {want}");
    assert!((q1 - want).abs() < 1e-3 * want, "{q1} vs {want}");
    // The targets of the control override the model's.
    let mut control = Control::new(&model).unwrap();
    control.joint_target_pos = Array::from_slice(Device::Cpu, &[-0.5f32]);
    let end = rollout(&model, &control, 1e-3, 1000, |_, _| {});
    let q = end.joint_q.to_vec()[0];
    assert!((q + 0.5).abs() < 1e-3, "{q}");
}

/// A horizontal arm falls onto its lower limit and rests there, pressed in
/// by m g L / limit_ke.
#[test]
fn joint_limit_stops_a_falling_arm() {
    let mut b = builder(G);
    let arm = body(&mut b, 1.0, Vec3::new(1.0, 0.0, 0.0), Vec3::splat(0.01));
    let mut j = JointDesc::revolute(-1, arm, Vec3::Y);
    j.angular[0] = j.angular[0].with_limits(-0.4, 0.4);
    j.angular[0].damping = 0.5;
    b.add_joint(j).unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    // About +Y, a positive angle lowers the arm's +X end: the limit at 0.4 stops it.
    let mut peak = 0.0f32;
    let end = rollout(
        &model,
        &Control::new(&model).unwrap(),
        1e-3,
        3000,
        |_, s| {
            peak = peak.max(s.joint_q.to_vec()[0]);
        },
    );
    let q = end.joint_q.to_vec()[0];
    let sag = 1.0 * G * 1.0 * 0.4f32.cos() / 1.0e4;
    println!("joint limit: rests at {q} (limit 0.4, expected sag {sag:.2e}), peak {peak}");
    assert!((q - (0.4 + sag)).abs() < 2e-4, "{q}");
    assert!(peak < 0.5, "{peak}");
}
