//! Joints as constraints in the maximal-coordinate solver (`XpbdRigid`),
//! checked against physics: a pendulum's small-angle period, the
//! reduced-coordinate solver on a tree with every joint kind, energy of a
//! double pendulum, drives (position, velocity, effort limit), limits, dry
//! friction, a four-bar linkage closed by a loop joint, and the inputs it
//! refuses.

mod common;

use common::{
    G, Rng, add_double_pendulum, body, builder, energy, mixed_model, pendulum, random_dofs,
    random_q,
};
use glam::Vec3;
use weft::prelude::*;
use weft_articulation::{FeatherstoneSolver, eval_fk, eval_ik};
use weft_sim::{Control, JointDesc, JointDof, Model, ModelBuilder, State, XpbdRigid};

/// A state of `model` at its joints' coordinates (bodies placed by forward
/// kinematics).
fn fk_state(model: &Model) -> State {
    let mut s = State::new(model).unwrap();
    eval_fk(model, &mut s).unwrap();
    s
}

/// A copy of `s` (its own arrays).
fn copy(model: &Model, s: &State) -> State {
    let mut t = State::new(model).unwrap();
    t.copy_from(s).unwrap();
    t
}

/// Steps `model` with XPBD from `s` for `steps` of `dt`, calling `each`
/// with the time and the state after every step.
fn run_xpbd(
    model: &Model,
    s: State,
    control: Option<&Control>,
    dt: f32,
    steps: usize,
    mut each: impl FnMut(f32, &mut State),
) -> State {
    let mut solver = XpbdRigid::new(model, Default::default()).unwrap();
    let (mut a, mut b) = (s, State::new(model).unwrap());
    for k in 0..steps {
        match control {
            Some(c) => solver.step(model, &mut a, &mut b, c, dt).unwrap(),
            None => solver.simulate(model, &mut a, &mut b, dt).unwrap(),
        }
        std::mem::swap(&mut a, &mut b);
        each((k + 1) as f32 * dt, &mut a);
    }
    a
}

/// The largest distance between the bodies' poses and the poses the joints
/// give at the coordinates read off them: how far the joints have come apart
/// (metres, and radians of rotation).
fn joint_residual(model: &Model, s: &State) -> (f32, f32) {
    let mut t = copy(model, s);
    eval_ik(model, &mut t).unwrap();
    eval_fk(model, &mut t).unwrap();
    let (a, b) = (s.body_q.to_vec(), t.body_q.to_vec());
    let mut worst = (0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(&b) {
        worst.0 = worst.0.max((x.p - y.p).length());
        let d = y.q * x.q.inverse();
        worst.1 = worst
            .1
            .max(2.0 * glam::Vec3::new(d.x, d.y, d.z).length().min(1.0).asin());
    }
    worst
}

/// Joint coordinates read off the poses of `s`.
fn coords(model: &Model, s: &State) -> Vec<f32> {
    let mut t = copy(model, s);
    eval_ik(model, &mut t).unwrap();
    t.joint_q.to_vec()
}

#[test]
fn xpbd_pendulum_period_matches_the_small_angle_formula() {
    let (m, r, l) = (1.0, 0.05, 1.0);
    let model = pendulum(Device::Cpu, m, r, l, 0.05);
    let i_pivot = 0.4 * m * r * r + m * l * l;
    let expected = 2.0 * std::f32::consts::PI * (i_pivot / (m * G * l)).sqrt();
    let dt = 1.0 / 120.0;
    let mut last = (0.0f32, model.joint_q.to_vec()[0]);
    let mut crossings = Vec::new();
    let mut amplitude = 0.0f32;
    run_xpbd(&model, fk_state(&model), None, dt, 900, |t, s| {
        let q = coords(&model, s)[0];
        if last.1 < 0.0 && q >= 0.0 {
            crossings.push(last.0 + dt * (-last.1) / (q - last.1));
        }
        if t > 6.0 {
            amplitude = amplitude.max(q.abs());
        }
        last = (t, q);
    });
    assert!(crossings.len() >= 3, "crossings {crossings:?}");
    let periods: Vec<f32> = crossings.windows(2).map(|w| w[1] - w[0]).collect();
    let period = periods.iter().sum::<f32>() / periods.len() as f32;
    let err = (period - expected).abs() / expected;
    println!(
        "XPBD pendulum: period {period:.5} s vs {expected:.5} s ({err:.1e}); amplitude after 6 s {amplitude:.5} of 0.05"
    );
    assert!(err < 2e-3, "period {period} vs {expected}");
    assert!(
        amplitude > 0.049 && amplitude < 0.0505,
        "amplitude {amplitude}"
    );
}

#[test]
fn xpbd_follows_featherstone_on_every_joint_kind() {
    // Free base, revolute, ball, universal, prismatic, D6, fixed, and a double
    // pendulum, from random coordinates and velocities, 0.2 s.
    let model = mixed_model(Device::Cpu, G);
    let mut rng = Rng(7);
    let mut worst = 0.0f32;
    for _ in 0..3 {
        let mut s0 = State::new(&model).unwrap();
        s0.joint_q = Array::from_vec(Device::Cpu, random_q(&model, &mut rng));
        s0.joint_qd = Array::from_vec(Device::Cpu, random_dofs(&model, &mut rng, 1.0));
        eval_fk(&model, &mut s0).unwrap();
        // Reduced coordinates, 0.25 ms steps (converged to 1e-4 m here).
        let mut fs = FeatherstoneSolver::new(&model).unwrap();
        let control = Control::new(&model).unwrap();
        let (mut a, mut b) = (copy(&model, &s0), State::new(&model).unwrap());
        for _ in 0..800 {
            fs.step(&model, &a, &mut b, &control, 2.5e-4).unwrap();
            std::mem::swap(&mut a, &mut b);
        }
        eval_fk(&model, &mut a).unwrap();
        // Maximal coordinates, 10 ms steps of 16 substeps.
        let x = run_xpbd(&model, s0, None, 0.01, 20, |_, _| {});
        let (pa, pb) = (a.body_q.to_vec(), x.body_q.to_vec());
        let com = model.body_com.to_vec();
        let diff = pa
            .iter()
            .zip(&pb)
            .zip(&com)
            .map(|((u, v), c)| ((u.p + u.q * *c) - (v.p + v.q * *c)).length())
            .fold(0.0f32, f32::max);
        let (res_p, res_r) = joint_residual(&model, &x);
        println!(
            "XPBD vs Featherstone after 0.2 s: centres of mass {diff:.2e} m apart; XPBD joint residual {res_p:.1e} m, {res_r:.1e} rad"
        );
        assert!(
            res_p < 1e-4 && res_r < 1e-3,
            "joints came apart: {res_p} m, {res_r} rad"
        );
        worst = worst.max(diff);
    }
    assert!(worst < 5e-3, "XPBD and Featherstone differ by {worst} m");
}

#[test]
fn xpbd_double_pendulum_keeps_its_energy_and_joints() {
    let mut b = builder(G);
    add_double_pendulum(&mut b, Vec3::ZERO, [1.0, 0.5]);
    let model = b.finalize(Device::Cpu).unwrap();
    let s0 = fk_state(&model);
    let e0 = {
        let (k, p) = energy(&model, &s0, G);
        k + p
    };
    let (mut gain, mut loss, mut residual) = (0.0f64, 0.0f64, (0.0f32, 0.0f32));
    run_xpbd(&model, s0, None, 1.0 / 120.0, 360, |_, s| {
        let (k, p) = energy(&model, s, G);
        gain = gain.max(k + p - e0);
        loss = loss.max(e0 - (k + p));
        let r = joint_residual(&model, s);
        residual = (residual.0.max(r.0), residual.1.max(r.1));
    });
    // Energy scale: m g l of one rod.
    let scale = (1.0 * G * 1.0) as f64;
    println!(
        "XPBD double pendulum, 3 s: energy +{:.1e} / -{:.1e} of m g l; joint residual {:.1e} m, {:.1e} rad",
        gain / scale,
        loss / scale,
        residual.0,
        residual.1
    );
    assert!(gain / scale < 1e-2, "energy grew by {gain}");
    assert!(loss / scale < 5e-2, "energy fell by {loss}");
    assert!(residual.0 < 1e-4 && residual.1 < 1e-4, "{residual:?}");
}

/// The bob's inertia about its centre (kg·m²). Maximal coordinates want
/// links whose inertia is not tiny against their mass times the lever to the
/// joint: a point-like bob (1e-3 at 1 m) chatters on a hard limit (its
/// orientation is corrected a thousand times more readily than its position).
const BOB_I: f32 = 0.05;

/// A pendulum without gravity whose hinge has `dof`'s drive, limits and friction.
fn driven(dof: JointDof, g: f32, q0: f32) -> Model {
    let mut b = builder(g);
    let bob = body(&mut b, 1.0, Vec3::ZERO, Vec3::splat(BOB_I));
    let mut j = JointDesc::revolute(-1, bob, Vec3::Y)
        .with_frames(
            Transform::IDENTITY,
            Transform::from_translation(Vec3::new(0.0, 0.0, 1.0)),
        )
        .with_q(&[q0]);
    j.angular[0] = JointDof {
        axis: Vec3::Y,
        ..dof
    };
    b.add_joint(j).unwrap();
    b.finalize(Device::Cpu).unwrap()
}

#[test]
fn xpbd_drives_reach_their_targets() {
    // Position: ke 1e3, kd 50 toward 0.5 rad.
    let mut dof = JointDof::new(Vec3::Y);
    dof.drive.stiffness = 1e3;
    dof.drive.damping = 50.0;
    dof.drive.target_pos = 0.5;
    let model = driven(dof, 0.0, 0.0);
    let s = run_xpbd(&model, fk_state(&model), None, 1.0 / 60.0, 120, |_, _| {});
    let q = coords(&model, &s)[0];
    println!("position drive: {q:.6} rad (target 0.5)");
    assert!((q - 0.5).abs() < 1e-4, "{q}");

    // Velocity: kd 100 toward 2 rad/s, set through a Control.
    let mut dof = JointDof::new(Vec3::Y);
    dof.drive.damping = 100.0;
    let model = driven(dof, 0.0, 0.0);
    let mut control = Control::new(&model).unwrap();
    control.joint_target_vel = Array::from_vec(Device::Cpu, vec![2.0]);
    let s = run_xpbd(
        &model,
        fk_state(&model),
        Some(&control),
        1.0 / 60.0,
        60,
        |_, _| {},
    );
    let w = s.body_qd.to_vec()[0].bottom.y;
    println!("velocity drive: {w:.6} rad/s (target 2)");
    assert!((w - 2.0).abs() < 1e-3, "{w}");

    // Effort limit: a stiff drive toward 3 rad capped at 0.5 N·m; I about
    // the hinge = 1 + BOB_I, so q = 0.5 / I · t² / 2 over 1 s.
    let mut dof = JointDof::new(Vec3::Y);
    dof.drive.stiffness = 1e5;
    dof.drive.target_pos = 3.0;
    dof.drive.effort_limit = 0.5;
    let model = driven(dof, 0.0, 0.0);
    let s = run_xpbd(&model, fk_state(&model), None, 1.0 / 60.0, 60, |_, _| {});
    let q = coords(&model, &s)[0];
    let expected = 0.5 / (1.0 + BOB_I) * 0.5;
    println!("effort-limited drive after 1 s: {q:.6} rad (constant torque: {expected:.6})");
    assert!((q - expected).abs() < 2e-3 * expected, "{q} vs {expected}");

    // Feed-forward effort alone: 0.2 N·m through the control.
    let model = driven(JointDof::new(Vec3::Y), 0.0, 0.0);
    let mut control = Control::new(&model).unwrap();
    control.joint_f = Array::from_vec(Device::Cpu, vec![0.2]);
    let s = run_xpbd(
        &model,
        fk_state(&model),
        Some(&control),
        1.0 / 60.0,
        60,
        |_, _| {},
    );
    let q = coords(&model, &s)[0];
    let expected = 0.2 / (1.0 + BOB_I) * 0.5;
    println!("feed-forward effort after 1 s: {q:.6} rad ({expected:.6})");
    assert!((q - expected).abs() < 2e-3 * expected, "{q} vs {expected}");
}

#[test]
fn xpbd_limits_and_friction_hold() {
    // A hinge limited to [-0.3, 0.2] released at 0 under gravity toward +q
    // (the bob starts out to the side): it rests on the upper limit.
    let dof = JointDof::new(Vec3::Y).with_limits(-0.3, 0.2);
    let model = driven(dof, G, 0.0);
    let mut s0 = fk_state(&model);
    // Start horizontal-ish: turn the whole thing so gravity pulls toward +q.
    s0.joint_q = Array::from_vec(Device::Cpu, vec![0.1]);
    eval_fk(&model, &mut s0).unwrap();
    let mut worst = f32::MIN;
    let mut model_tilted = model.share();
    model_tilted.gravity = Vec3::new(-9.81, 0.0, 0.0);
    let s = run_xpbd(&model_tilted, s0, None, 1.0 / 60.0, 120, |_, s| {
        worst = worst.max(coords(&model_tilted, s)[0]);
    });
    let q = coords(&model_tilted, &s)[0];
    println!("revolute limit 0.2: rests at {q:.6}, peak {worst:.6}");
    assert!(
        (q - 0.2).abs() < 1e-4 && worst < 0.2 + 2e-3,
        "{q}, peak {worst}"
    );

    // A slider along X limited to [-0.1, 0.25] under gravity along +X.
    let mut b = builder(0.0);
    b.gravity = Vec3::new(9.81, 0.0, 0.0);
    let cart = body(&mut b, 2.0, Vec3::ZERO, Vec3::splat(0.01));
    let mut j = JointDesc::prismatic(-1, cart, Vec3::X);
    j.linear[0] = j.linear[0].with_limits(-0.1, 0.25);
    b.add_joint(j).unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    let s = run_xpbd(&model, fk_state(&model), None, 1.0 / 60.0, 120, |_, _| {});
    let x = s.body_q.to_vec()[0].p;
    println!("prismatic limit 0.25: rests at {:?}", x);
    assert!(
        (x.x - 0.25).abs() < 1e-4 && x.y.abs() < 1e-5 && x.z.abs() < 1e-5,
        "{x:?}"
    );

    // Dry friction: the bob held out at 0.3 rad feels m g l sin 0.3 = 2.90
    // N·m; a friction of 3.2 holds it, 1.0 lets it swing down.
    for (friction, holds) in [(3.2, true), (1.0, false)] {
        let mut dof = JointDof::new(Vec3::Y);
        dof.friction = friction;
        let model = driven(dof, G, 0.3);
        let s = run_xpbd(&model, fk_state(&model), None, 1.0 / 60.0, 60, |_, _| {});
        let q = coords(&model, &s)[0];
        println!("joint friction {friction} N·m at 0.3 rad: q after 1 s {q:.5}");
        if holds {
            assert!((q - 0.3).abs() < 1e-3, "{q}");
        } else {
            assert!(q < 0.2, "{q}");
        }
    }
}

#[test]
fn xpbd_four_bar_linkage_closes_its_loop() {
    // Ground pivots at x = 0 and x = 1; crank 0.4, coupler 1.0, rocker 0.6
    // (rods along their local -Z from their hinge, in the XZ plane). The crank
    // starts at 90°; gravity swings it.
    let mut b = builder(G);
    let rod = |b: &mut ModelBuilder, len: f32| {
        body(
            b,
            1.0,
            Vec3::new(0.0, 0.0, -0.5 * len),
            Vec3::new(len * len / 12.0, len * len / 12.0, 1e-3),
        )
    };
    let (lc, lk, lr) = (0.4f32, 1.0f32, 0.6f32);
    let crank = rod(&mut b, lc);
    let coupler = rod(&mut b, lk);
    let rocker = rod(&mut b, lr);
    // Crank tip B at (0, 0, 0.4) (crank pointing up: angle π about Y from
    // hanging). Rocker pivot D at (1, 0, 0); find C with |BC| = 1, |DC| = 0.6.
    let bpt = Vec3::new(0.0, 0.0, lc);
    let dpt = Vec3::new(1.0, 0.0, 0.0);
    let (dx, dz) = (dpt.x - bpt.x, dpt.z - bpt.z);
    let d = (dx * dx + dz * dz).sqrt();
    let a = (lk * lk - lr * lr + d * d) / (2.0 * d);
    let hh = (lk * lk - a * a).sqrt();
    let mid = Vec3::new(bpt.x + a * dx / d, 0.0, bpt.z + a * dz / d);
    let cpt = Vec3::new(mid.x - hh * dz / d, 0.0, mid.z + hh * dx / d);
    // Angle about Y turning -Z into direction u: atan2(-u.x, -u.z).
    let angle = |u: Vec3| (-u.x).atan2(-u.z);
    let q_crank = angle(bpt);
    let q_coupler = angle(cpt - bpt) - q_crank;
    let q_rocker = angle(cpt - dpt);
    b.add_joint(JointDesc::revolute(-1, crank, Vec3::Y).with_q(&[q_crank]))
        .unwrap();
    b.add_joint(
        JointDesc::revolute(crank as i32, coupler, Vec3::Y)
            .with_frames(
                Transform::from_translation(Vec3::new(0.0, 0.0, -lc)),
                Transform::IDENTITY,
            )
            .with_q(&[q_coupler]),
    )
    .unwrap();
    b.add_joint(
        JointDesc::revolute(-1, rocker, Vec3::Y)
            .with_frames(Transform::from_translation(dpt), Transform::IDENTITY)
            .with_q(&[q_rocker]),
    )
    .unwrap();
    // Close the loop: the coupler's far end hinged to the rocker's tip.
    b.add_loop_joint(
        JointDesc::revolute(coupler as i32, rocker, Vec3::Y).with_frames(
            Transform::from_translation(Vec3::new(0.0, 0.0, -lk)),
            Transform::from_translation(Vec3::new(0.0, 0.0, -lr)),
        ),
    )
    .unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    let s0 = fk_state(&model);
    let tip = |s: &State, body: usize, len: f32| {
        let x = s.body_q.to_vec()[body];
        x.p + x.q * Vec3::new(0.0, 0.0, -len)
    };
    assert!((tip(&s0, coupler, lk) - tip(&s0, rocker, lr)).length() < 1e-5);
    let e0 = {
        let (k, p) = energy(&model, &s0, G);
        k + p
    };
    let (mut gap, mut turn, mut gain, mut off_plane) = (0.0f32, 0.0f32, 0.0f64, 0.0f32);
    run_xpbd(&model, s0, None, 1.0 / 120.0, 240, |_, s| {
        gap = gap.max((tip(s, coupler, lk) - tip(s, rocker, lr)).length());
        let q = coords(&model, s);
        turn = turn.max((q[0] - q_crank).abs());
        let (k, p) = energy(&model, s, G);
        gain = gain.max(k + p - e0);
        for x in s.body_q.to_vec() {
            off_plane = off_plane.max(x.p.y.abs());
        }
    });
    println!(
        "four-bar, 2 s: loop gap {gap:.1e} m, crank turned up to {turn:.3} rad, energy gain {gain:.1e} J, off its plane {off_plane:.1e} m"
    );
    assert!(gap < 1e-4, "the loop opened by {gap} m");
    assert!(turn > 0.5, "the linkage did not move ({turn} rad)");
    assert!(gain < 2e-2, "energy grew by {gain} J");
    assert!(off_plane < 1e-4, "left its plane by {off_plane} m");
}

#[test]
fn loop_joints_and_bad_controls_are_refused_where_they_cannot_work() {
    let mut b = builder(G);
    add_double_pendulum(&mut b, Vec3::ZERO, [0.2, 0.1]);
    b.add_loop_joint(JointDesc::ball(-1, 1).with_frames(
        Transform::from_translation(Vec3::new(0.0, 0.0, -2.0)),
        Transform::from_translation(Vec3::new(0.0, 0.0, -1.0)),
    ))
    .unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    let e = FeatherstoneSolver::new(&model).err().expect("refused");
    assert_eq!(
        e.to_string(),
        "the model has 1 loop joints; reduced coordinates cannot close loops (step it with weft_sim::XpbdRigid)"
    );
    let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
    let (mut s0, mut s1) = (fk_state(&model), State::new(&model).unwrap());
    let mut control = Control::new(&model).unwrap();
    control.joint_f = Array::from_vec(Device::Cpu, vec![0.0; 3]);
    let e = solver
        .step(&model, &mut s0, &mut s1, &control, 0.01)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "control.joint_f has 3 entries; the model has 2 joint degrees of freedom"
    );
    // Joints, loop joints included, are recorded on a tape (gradients:
    // weft-sim's tests/xpbd_joint_gradients.rs).
    let mut tape = Tape::new();
    tape.record(|| solver.simulate(&model, &mut s0, &mut s1, 0.01))
        .unwrap();
    assert!(!tape.is_empty());
}
