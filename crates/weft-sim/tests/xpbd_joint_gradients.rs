//! Joints of `XpbdRigid` on the tape: a taped step against a plain one (a
//! 3-link hinge chain, a driven prismatic cart carrying a pendulum, a
//! four-bar linkage closed by a loop joint, a link resting on its limit),
//! and the tape's gradients against central finite differences (initial
//! velocities, drive targets and stiffnesses, inverse masses, limits).
//!
//! No contacts here (no shapes, no ground). What finite differences can
//! check: the loss of a jointed XPBD rollout is rough at small scales (the
//! joints hold to ~1e-5 m, and a swinging chain amplifies the solver's
//! rounding), so central differences disagree with the tape *more* as their
//! step shrinks — the 3-link chain after 30 steps: 1.0e-2 over ±3e-2 m/s,
//! 3.0e-2 over ±1e-2, 0.11 over ±3e-3, 0.33 over ±1e-3; after 5 steps
//! 2.6e-5 … 4.8e-4 over the same steps. The checks take steps where the loss
//! is smooth, and say so. The tolerances are the contact gradient tests'
//! (`rigid_xpbd_gradients.rs`: max relative error 1e-2 … 2e-2).

use weft::prelude::*;
use weft_geom::MassProperties;
use weft_sim::{
    BodyDesc, BodyMass, Control, JointDesc, JointDof, Model, ModelBuilder, SimError, State,
    XpbdRigid,
};

const DT: f32 = 1.0 / 60.0;
const G: f32 = 9.81;

/// `loss[0] = Σ_b w_b · c_b` over the bodies' centres of mass `c_b`.
#[weft::kernel]
fn com_loss(q: &Array<Transform>, com: &Array<Vec3>, w: &Array<Vec3>, loss: &mut Array<f32>) {
    let b = tid();
    let x = q[b];
    atomic_add(&mut loss[0], dot(w[b], x.p + quat_rotate(x.q, com[b])));
}

/// A builder without ground, gravity along -Z.
fn builder() -> ModelBuilder {
    let mut b = ModelBuilder::new();
    b.ground = None;
    b.gravity = Vec3::new(0.0, 0.0, -G);
    b
}

/// Adds a body at `pose` of `mass`, centre of mass `com` (body frame) and
/// diagonal inertia `inertia` about it.
fn body(b: &mut ModelBuilder, pose: Transform, mass: f32, com: Vec3, inertia: Vec3) -> usize {
    let mut d = BodyDesc::new(pose);
    d.mass = BodyMass::Given(MassProperties {
        mass,
        com,
        inertia: Mat3::from_diagonal(inertia),
    });
    b.add_body(d)
}

/// A rod of length `len` along its frame's +X from its hinge at the origin.
fn rod(b: &mut ModelBuilder, pose: Transform, mass: f32, len: f32) -> usize {
    let i = mass * len * len / 12.0;
    body(
        b,
        pose,
        mass,
        Vec3::new(0.5 * len, 0.0, 0.0),
        Vec3::new(1e-3, i, i),
    )
}

/// Three 0.5 m links hinged about Y in a chain from the world, released
/// horizontal under gravity (the first link 1 kg, the others 0.8 and 0.6).
fn chain() -> Model {
    let mut b = builder();
    let len = 0.5;
    for (i, m) in [1.0, 0.8, 0.6].into_iter().enumerate() {
        let x = Transform::from_translation(Vec3::new(len * i as f32, 0.0, 0.0));
        let link = rod(&mut b, x, m, len);
        let j = if i == 0 {
            JointDesc::revolute(-1, link, Vec3::Y)
        } else {
            JointDesc::revolute(link as i32 - 1, link, Vec3::Y).with_frames(
                Transform::from_translation(Vec3::new(len, 0.0, 0.0)),
                Transform::IDENTITY,
            )
        };
        b.add_joint(j).unwrap();
    }
    b.finalize(Device::Cpu).unwrap()
}

/// A 2 kg cart on a prismatic joint along X, driven toward x = 0.3 (stiffness
/// 40, damping 4), carrying a 0.5 m pendulum (0.5 kg) hinged about Y with a
/// weak damping drive toward 0 (kd 0.2).
fn cart_pendulum() -> Model {
    let mut b = builder();
    let cart = body(
        &mut b,
        Transform::IDENTITY,
        2.0,
        Vec3::ZERO,
        Vec3::splat(0.02),
    );
    let hang = Transform::from_rotation(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2));
    let pole = rod(&mut b, hang, 0.5, 0.5);
    let mut slide = JointDesc::prismatic(-1, cart, Vec3::X);
    slide.linear[0].drive.stiffness = 40.0;
    slide.linear[0].drive.damping = 4.0;
    slide.linear[0].drive.target_pos = 0.3;
    b.add_joint(slide).unwrap();
    let mut hinge = JointDesc::revolute(cart as i32, pole, Vec3::Y)
        .with_frames(
            Transform::IDENTITY,
            Transform::from_rotation(hang.q.inverse()),
        )
        .with_q(&[0.0]);
    hinge.angular[0].drive.damping = 0.2;
    b.add_joint(hinge).unwrap();
    b.finalize(Device::Cpu).unwrap()
}

/// Two 0.5 m links hinged about Y; the first is held at its upper limit 0.1
/// rad by gravity (limits [−0.5, 0.1]) while the second swings from 0.8 rad
/// below it (its limits ±3 never reached). Both joints' limits are finite,
/// so finite differences can move them.
fn limited_chain() -> Model {
    let mut b = builder();
    let len = 0.5;
    let (q0, q1) = (0.1f32, 0.8f32);
    let r0 = Quat::from_rotation_y(q0);
    let x0 = Transform::from_rotation(r0);
    let first = rod(&mut b, x0, 1.0, len);
    let tip = r0 * Vec3::new(len, 0.0, 0.0);
    let x1 = Transform::new(tip, Quat::from_rotation_y(q0 + q1));
    let second = rod(&mut b, x1, 0.5, len);
    let mut j0 = JointDesc::revolute(-1, first, Vec3::Y).with_q(&[q0]);
    j0.angular[0] = JointDof::new(Vec3::Y).with_limits(-0.5, 0.1);
    b.add_joint(j0).unwrap();
    let mut j1 = JointDesc::revolute(first as i32, second, Vec3::Y)
        .with_frames(
            Transform::from_translation(Vec3::new(len, 0.0, 0.0)),
            Transform::IDENTITY,
        )
        .with_q(&[q1]);
    j1.angular[0] = JointDof::new(Vec3::Y).with_limits(-3.0, 3.0);
    b.add_joint(j1).unwrap();
    b.finalize(Device::Cpu).unwrap()
}

/// A four-bar linkage in the XZ plane (ground pivots at x = 0 and 1; crank
/// 0.4, coupler 1.0, rocker 0.6, rods along their frames' −Z), the crank
/// upright, closed by a loop joint between the coupler's end and the
/// rocker's tip; gravity swings it.
fn four_bar() -> Model {
    let mut b = builder();
    let (lc, lk, lr) = (0.4f32, 1.0f32, 0.6f32);
    let bpt = Vec3::new(0.0, 0.0, lc);
    let dpt = Vec3::new(1.0, 0.0, 0.0);
    let (dx, dz) = (dpt.x - bpt.x, dpt.z - bpt.z);
    let d = (dx * dx + dz * dz).sqrt();
    let a = (lk * lk - lr * lr + d * d) / (2.0 * d);
    let hh = (lk * lk - a * a).sqrt();
    let mid = Vec3::new(bpt.x + a * dx / d, 0.0, bpt.z + a * dz / d);
    let cpt = Vec3::new(mid.x - hh * dz / d, 0.0, mid.z + hh * dx / d);
    // The turn about Y that points −Z along u.
    let angle = |u: Vec3| (-u.x).atan2(-u.z);
    let (q_crank, q_coupler, q_rocker) = (angle(bpt), angle(cpt - bpt), angle(cpt - dpt));
    let rod_z = |b: &mut ModelBuilder, at: Vec3, turn: f32, len: f32| {
        let i = len * len / 12.0;
        let x = Transform::new(at, Quat::from_rotation_y(turn));
        body(
            b,
            x,
            1.0,
            Vec3::new(0.0, 0.0, -0.5 * len),
            Vec3::new(i, i, 1e-3),
        )
    };
    let crank = rod_z(&mut b, Vec3::ZERO, q_crank, lc);
    let coupler = rod_z(&mut b, bpt, q_coupler, lk);
    let rocker = rod_z(&mut b, dpt, q_rocker, lr);
    b.add_joint(JointDesc::revolute(-1, crank, Vec3::Y).with_q(&[q_crank]))
        .unwrap();
    b.add_joint(
        JointDesc::revolute(crank as i32, coupler, Vec3::Y)
            .with_frames(
                Transform::from_translation(Vec3::new(0.0, 0.0, -lc)),
                Transform::IDENTITY,
            )
            .with_q(&[q_coupler - q_crank]),
    )
    .unwrap();
    b.add_joint(
        JointDesc::revolute(-1, rocker, Vec3::Y)
            .with_frames(Transform::from_translation(dpt), Transform::IDENTITY)
            .with_q(&[q_rocker]),
    )
    .unwrap();
    b.add_loop_joint(
        JointDesc::revolute(coupler as i32, rocker, Vec3::Y).with_frames(
            Transform::from_translation(Vec3::new(0.0, 0.0, -lk)),
            Transform::from_translation(Vec3::new(0.0, 0.0, -lr)),
        ),
    )
    .unwrap();
    b.finalize(Device::Cpu).unwrap()
}

/// The states of `steps` steps from velocities `v0` with a fresh solver
/// (`control`: the drives' targets; `None`: the model's).
fn rollout(
    model: &Model,
    v0: &Array<SpatialVector>,
    control: Option<&Control>,
    steps: usize,
) -> Result<Vec<State>, SimError> {
    let mut solver = XpbdRigid::new(model, Default::default())?;
    let mut states: Vec<State> = (0..=steps)
        .map(|_| State::new(model))
        .collect::<Result<_, _>>()?;
    states[0].body_qd = v0.share();
    for k in 0..steps {
        let (done, next) = states.split_at_mut(k + 1);
        match control {
            Some(c) => solver.step(model, &mut done[k], &mut next[0], c, DT)?,
            None => solver.simulate(model, &mut done[k], &mut next[0], DT)?,
        }
    }
    Ok(states)
}

/// The loss of a rollout's final state into `loss`.
fn loss_of(
    model: &Model,
    v0: &Array<SpatialVector>,
    control: Option<&Control>,
    steps: usize,
    w: &Array<Vec3>,
    loss: &mut Array<f32>,
) -> Result<(), weft::Error> {
    let states =
        rollout(model, v0, control, steps).map_err(|e| weft::Error::Shape(e.to_string()))?;
    loss.fill(0.0);
    com_loss::launch(
        model.body_count(),
        &states[steps].body_q,
        &model.body_com,
        w,
        loss,
    )
}

/// Loss weights: a different direction per body.
fn weights(n: usize) -> Array<Vec3> {
    Array::from_vec(
        Device::Cpu,
        (0..n)
            .map(|i| {
                Vec3::new(
                    1.0 + 0.5 * i as f32,
                    0.3 - 0.2 * i as f32,
                    0.7 + 0.3 * i as f32,
                )
            })
            .collect(),
    )
}

/// A control whose position targets are the model's, as its own array.
fn control_of(model: &Model) -> Control {
    let mut c = Control::new(model).unwrap();
    c.joint_target_pos = Array::from_vec(Device::Cpu, model.joint_target_pos.to_vec());
    c
}

/// The most any pose (position in m, quaternion component) of two
/// rollouts' final states differ by.
fn pose_gap(a: &State, b: &State) -> f32 {
    let (a, b) = (a.body_q.to_vec(), b.body_q.to_vec());
    a.iter()
        .zip(&b)
        .map(|(x, y)| {
            let dq = (x.q - y.q).length();
            (x.p - y.p).abs().max_element().max(dq)
        })
        .fold(0.0, f32::max)
}

#[test]
fn the_taped_joint_solve_has_an_adjoint() {
    use weft_sim::rigid::joint_taped_kernels::solve_joints_by_body;
    if let Err(e) = solve_joints_by_body::ADJOINT_PTX {
        panic!("solve_joints_by_body has no adjoint: {e}");
    }
}

#[test]
fn a_taped_jointed_step_equals_a_plain_one() {
    let steps = 50;
    for (name, model, driven) in [
        ("3-link chain", chain(), false),
        ("driven cart and pendulum", cart_pendulum(), true),
        ("link on its limit", limited_chain(), false),
        ("four-bar linkage", four_bar(), false),
    ] {
        let v0 = model.body_qd.share();
        let control = driven.then(|| control_of(&model));
        let start = std::time::Instant::now();
        let plain = rollout(&model, &v0, control.as_ref(), steps).unwrap();
        let t_plain = start.elapsed();
        let mut tape = Tape::new();
        let start = std::time::Instant::now();
        let taped = tape
            .record(|| rollout(&model, &v0, control.as_ref(), steps))
            .unwrap();
        let t_taped = start.elapsed();
        assert!(!tape.is_empty(), "{name}: nothing was recorded");
        let gap = pose_gap(&plain[steps], &taped[steps]);
        let (va, vb) = (plain[steps].body_qd.to_vec(), taped[steps].body_qd.to_vec());
        let vgap = va
            .iter()
            .zip(&vb)
            .map(|(x, y)| {
                (x.top - y.top)
                    .abs()
                    .max_element()
                    .max((x.bottom - y.bottom).abs().max_element())
            })
            .fold(0.0f32, f32::max);
        let moved = pose_gap(&plain[0], &plain[steps]);
        println!(
            "{name}, {steps} steps: taped − plain poses {gap:.1e}, velocities {vgap:.1e} (the bodies moved {moved:.3}); plain {:.1} ms/step, taped {:.1} ms/step",
            t_plain.as_secs_f64() * 1e3 / steps as f64,
            t_taped.as_secs_f64() * 1e3 / steps as f64
        );
        assert!(moved > 0.05, "{name}: the bodies hardly moved ({moved})");
        assert!(gap <= 1e-5 && vgap <= 1e-5, "{name}: {gap}, {vgap}");
    }
}

/// The chain's final centres of mass against its initial velocities (30
/// steps, 0.5 s, the chain swings 1.9 m; differences over ±3e-2 m/s, see
/// the top) and its links' inverse masses.
#[test]
fn chain_gradients_match_finite_differences() {
    let model = chain();
    let w = weights(3);
    let steps = 30;
    let mut v0 = Array::from_vec(Device::Cpu, model.body_qd.to_vec());
    let rep = gradcheck(&mut [&mut v0], Some(3e-2), |v, l| {
        loss_of(&model, v[0], None, steps, &w, l)
    })
    .unwrap();
    println!("XPBD 3-link chain, initial velocities: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
    let v0 = model.body_qd.share();
    let mut inv_mass = Array::from_vec(Device::Cpu, model.body_inv_mass.to_vec());
    let rep = gradcheck(&mut [&mut inv_mass], Some(3e-2), |m, l| {
        let mut mm = model.share();
        mm.body_inv_mass = m[0].share();
        loss_of(&mm, &v0, None, steps, &w, l)
    })
    .unwrap();
    println!("XPBD 3-link chain, inverse masses: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
}

/// The driven cart: its final centres of mass against the drives' position
/// targets (a `Control`), the drives' stiffnesses (the model's) and the
/// initial velocities.
#[test]
fn drive_gradients_match_finite_differences() {
    let model = cart_pendulum();
    let w = weights(2);
    let steps = 40;
    let v0 = model.body_qd.share();
    let base = control_of(&model);
    let mut targets = base.joint_target_pos.share();
    let rep = gradcheck(&mut [&mut targets], Some(1e-2), |t, l| {
        let mut c = control_of(&model);
        c.joint_target_pos = t[0].share();
        loss_of(&model, &v0, Some(&c), steps, &w, l)
    })
    .unwrap();
    println!("XPBD driven cart, drive targets: {rep}");
    assert!(rep.max_rel < 1e-2, "{rep}");
    let mut ke = Array::from_vec(Device::Cpu, model.joint_target_ke.to_vec());
    let rep = gradcheck(&mut [&mut ke], Some(1e-2), |k, l| {
        let mut mm = model.share();
        mm.joint_target_ke = k[0].share();
        loss_of(&mm, &v0, None, steps, &w, l)
    })
    .unwrap();
    println!("XPBD driven cart, drive stiffnesses: {rep}");
    assert!(rep.max_rel < 1e-2, "{rep}");
    let mut v = Array::from_vec(Device::Cpu, model.body_qd.to_vec());
    let rep = gradcheck(&mut [&mut v], Some(1e-2), |v, l| {
        loss_of(&model, v[0], None, steps, &w, l)
    })
    .unwrap();
    println!("XPBD driven cart, initial velocities: {rep}");
    assert!(rep.max_rel < 1e-2, "{rep}");
}

/// The first link stays on its upper limit all along (checked) while the
/// second swings: gradients through the active limit, against the initial
/// velocities (differences over ±1e-2) and the limits. The loss has a kink
/// at the first link's upper limit: lowered, the limit kicks the link up in
/// the first substep (XPBD derives that velocity from the correction), so
/// central differences over ±1e-2 rad give −2.47 where the one-sided slope
/// (the limit raised by 1e-2 … 1e-3 rad) is −0.903 … −0.913 and lowered by
/// 3e-4 −0.909; the tape gives −0.918. The check compares the tape with the
/// one-sided difference, and the inactive limits' gradients with 0.
#[test]
fn gradients_through_an_active_limit_match_finite_differences() {
    let model = limited_chain();
    let w = weights(2);
    let steps = 30;
    let states = rollout(&model, &model.body_qd, None, steps).unwrap();
    for (k, s) in states.iter().enumerate() {
        let x = s.body_q.to_vec()[0];
        let (axis, angle) = x.q.to_axis_angle();
        let q = angle * axis.y.signum();
        assert!(
            (q - 0.1).abs() < 1e-4,
            "step {k}: the first link left its limit: {q}"
        );
    }
    let mut v0 = Array::from_vec(Device::Cpu, model.body_qd.to_vec());
    let rep = gradcheck(&mut [&mut v0], Some(1e-2), |v, l| {
        loss_of(&model, v[0], None, steps, &w, l)
    })
    .unwrap();
    println!("XPBD chain on a limit, initial velocities: {rep}");
    assert!(rep.max_rel < 1e-2, "{rep}");
    // The tape's gradient of the limits.
    let v0 = model.body_qd.share();
    let upper = Array::from_vec(Device::Cpu, model.joint_limit_upper.to_vec()).requires_grad();
    let lower = Array::from_vec(Device::Cpu, model.joint_limit_lower.to_vec()).requires_grad();
    let mut loss: Array<f32> = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| {
        let mut mm = model.share();
        mm.joint_limit_upper = upper.share();
        mm.joint_limit_lower = lower.share();
        loss_of(&mm, &v0, None, steps, &w, &mut loss)
    })
    .unwrap();
    tape.backward(&mut loss).unwrap();
    let (gu, gl) = (upper.grad_to_vec().unwrap(), lower.grad_to_vec().unwrap());
    // One-sided differences, the first joint's upper limit raised.
    let at = |u: f32| {
        let mut mm = model.share();
        mm.joint_limit_upper = Array::from_vec(Device::Cpu, vec![u, 3.0]);
        let mut l = Array::zeros(Device::Cpu, [1]);
        loss_of(&mm, &v0, None, steps, &w, &mut l).unwrap();
        l.to_vec()[0]
    };
    let l0 = at(0.1);
    let slopes: Vec<f32> = [1e-2f32, 3e-3, 1e-3]
        .iter()
        .map(|e| (at(0.1 + e) - l0) / e)
        .collect();
    println!(
        "XPBD chain on a limit: d loss / d upper limits: tape {gu:?}, one-sided differences of the first {slopes:?}; d / d lower limits: tape {gl:?}"
    );
    for d in &slopes {
        assert!((gu[0] - d).abs() < 2e-2 * d.abs(), "{gu:?} vs {slopes:?}");
    }
    assert!(
        gu[1] == 0.0 && gl.iter().all(|g| *g == 0.0),
        "{gu:?} {gl:?}"
    );
}

/// The four-bar linkage (a loop joint): its final centres of mass against
/// the initial velocities, 20 steps, differences over ±3e-2 m/s (its loss
/// is rougher than the chain's: over ±1e-2 7e-2 after 20 steps, 1.8e-2
/// after 10; over ±3e-2 3.5e-3 after 10, 2.1e-2 after 30).
#[test]
fn loop_joint_gradients_match_finite_differences() {
    let model = four_bar();
    let w = weights(3);
    let steps = 20;
    let mut v0 = Array::from_vec(Device::Cpu, model.body_qd.to_vec());
    let rep = gradcheck(&mut [&mut v0], Some(3e-2), |v, l| {
        loss_of(&model, v[0], None, steps, &w, l)
    })
    .unwrap();
    println!("XPBD four-bar linkage, initial velocities: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
}

/// `q[b]` from a position and a quaternion's components (gradcheck moves
/// `Vec3`s and `Vec4`s, not transforms).
#[weft::kernel]
fn make_poses(p: &Array<Vec3>, r: &Array<Vec4>, q: &mut Array<Transform>) {
    let b = tid();
    q[b] = Transform::new(p[b], Quat::from_xyzw(r[b].x, r[b].y, r[b].z, r[b].w));
}

/// One launch of the taped joint solve (a hinge off by 0.02 rad and a few
/// mm, without and with an active limit) against differences over ±1e-4 of
/// its input pose: the kernel's adjoint alone, where the loss is smooth.
#[test]
fn one_taped_joint_launch_matches_finite_differences() {
    use weft_sim::rigid::joint_kernels::eval_dof_start;
    use weft_sim::rigid::joint_taped_kernels::solve_joints_by_body;
    for (name, limited) in [("free hinge", false), ("limited hinge", true)] {
        let mut b = builder();
        let x0 = Transform::from_rotation(Quat::from_rotation_y(0.3));
        let link = rod(&mut b, x0, 1.0, 0.5);
        let mut j = JointDesc::revolute(-1, link, Vec3::Y);
        if limited {
            j.angular[0] = JointDof::new(Vec3::Y).with_limits(-0.5, 0.1);
        }
        b.add_joint(j).unwrap();
        let model = b.finalize(Device::Cpu).unwrap();
        let slot = Array::from_vec(Device::Cpu, vec![0i32]);
        let xq = Quat::from_rotation_y(0.32) * Quat::from_rotation_x(0.01);
        let mut p = Array::from_vec(Device::Cpu, vec![Vec3::new(0.003, -0.002, 0.001)]);
        let mut r = Array::from_vec(Device::Cpu, vec![Vec4::new(xq.x, xq.y, xq.z, xq.w)]);
        let q0 = Array::from_vec(Device::Cpu, vec![x0]);
        // The hinge's angle at the substep's start (the drive's and
        // friction's reference), fixed here.
        let mut start = Array::zeros(Device::Cpu, [1]);
        eval_dof_start::launch(1, &model, &q0, &mut start).unwrap();
        let w = weights(1);
        let run =
            |p: &Array<Vec3>, r: &Array<Vec4>, l: &mut Array<f32>| -> Result<(), weft::Error> {
                let mut q = Array::zeros(Device::Cpu, [1]);
                make_poses::launch(1, p, r, &mut q)?;
                let lam_in = Array::zeros(Device::Cpu, [1]);
                let mut lam_out = Array::zeros(Device::Cpu, [1]);
                let mut q_out = Array::zeros(Device::Cpu, [1]);
                solve_joints_by_body::launch(
                    1,
                    &model,
                    &slot,
                    0,
                    &model.joint_target_pos,
                    &model.joint_target_vel,
                    &model.joint_f,
                    1.0 / 960.0,
                    true,
                    &q,
                    &start,
                    &lam_in,
                    &mut lam_out,
                    &mut q_out,
                )?;
                l.fill(0.0);
                com_loss::launch(1, &q_out, &model.body_com, &w, l)
            };
        let r2 = r.share();
        let rep = gradcheck(&mut [&mut p], Some(1e-4), |x, l| run(x[0], &r2, l)).unwrap();
        println!("one joint launch, {name}: positions {rep}");
        assert!(rep.max_rel < 1e-3, "{rep}");
        let p2 = p.share();
        let rep = gradcheck(&mut [&mut r], Some(1e-4), |x, l| run(&p2, x[0], l)).unwrap();
        println!("one joint launch, {name}: rotations {rep}");
        assert!(rep.max_rel < 1e-3, "{rep}");
    }
}
