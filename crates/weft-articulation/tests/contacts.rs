//! Contacts of articulated links (`FeatherstoneSolver`'s penalty contacts)
//! against physics: a sphere on a free joint rests at the sink `m g / ke`
//! the spring predicts; a sphere bouncing with `kd = 0` does not gain
//! energy; a box on an incline with `μ > tan θ` does not slide (anchored
//! friction; viscous friction creeps at `F_t / kf`), and a solver reused
//! from a reset state does not carry its anchors over; a hinged
//! link does not collide with its parent; a contact rollout's gradient
//! matches finite differences; ABA and CRBA give the same contact rollout.

mod common;

use common::{G, body, builder};
use glam::{Quat, Vec2, Vec3};
use weft::prelude::*;
use weft_articulation::FeatherstoneSolver;
use weft_collide::{Geometry, Material};
use weft_sim::{Control, JointDesc, Model, ModelBuilder, State};

/// A material with the given stiffness, damping, friction stiffness and μ.
fn material(ke: f32, kd: f32, kf: f32, mu: f32) -> Material {
    Material {
        ke,
        kd,
        kf,
        mu,
        mu_static: mu,
        ..Material::default()
    }
}

/// A static plane through the origin turned by `tilt`.
fn plane(b: &mut ModelBuilder, tilt: Quat, m: Material) {
    b.add_body_shape_with(
        -1,
        Transform::new(Vec3::ZERO, tilt),
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
        m,
    );
}

/// A body of mass `m` on a free joint at `p`, with one shape.
fn free_body(
    b: &mut ModelBuilder,
    m: f32,
    inertia: Vec3,
    shape: Geometry,
    mat: Material,
    p: Vec3,
    rot: Quat,
) -> usize {
    let body = body(b, m, Vec3::ZERO, inertia);
    b.add_body_shape_with(body as i32, Transform::IDENTITY, shape, mat);
    b.add_joint(JointDesc::free(body).with_q(&[p.x, p.y, p.z, rot.x, rot.y, rot.z, rot.w]))
        .unwrap();
    body
}

/// A sphere of mass `m`, radius `r` on a free joint, its centre at height
/// `z`, above a plane; both shapes of material `mat`.
fn sphere_on_plane(m: f32, r: f32, z: f32, mat: Material) -> Model {
    let mut b = builder(G);
    plane(&mut b, Quat::IDENTITY, mat);
    let i = 0.4 * m * r * r;
    free_body(
        &mut b,
        m,
        Vec3::splat(i),
        Geometry::Sphere { radius: r },
        mat,
        Vec3::new(0.0, 0.0, z),
        Quat::IDENTITY,
    );
    b.finalize(Device::Cpu).unwrap()
}

/// Runs `steps` steps of `dt`, calling `each(step, state)` after every one.
fn rollout(
    model: &Model,
    dt: f32,
    steps: usize,
    each: impl FnMut(usize, &State),
) -> (State, FeatherstoneSolver) {
    rollout_with(model, dt, steps, true, each)
}

/// [`rollout`] with friction anchored or not (`anchor_friction`).
fn rollout_with(
    model: &Model,
    dt: f32,
    steps: usize,
    anchor: bool,
    mut each: impl FnMut(usize, &State),
) -> (State, FeatherstoneSolver) {
    let mut solver = FeatherstoneSolver::new(model).unwrap();
    solver.anchor_friction = anchor;
    let control = Control::new(model).unwrap();
    let (mut a, mut b) = (State::new(model).unwrap(), State::new(model).unwrap());
    weft_articulation::eval_fk(model, &mut a).unwrap();
    for k in 1..=steps {
        solver.step(model, &a, &mut b, &control, dt).unwrap();
        std::mem::swap(&mut a, &mut b);
        each(k, &a);
    }
    (a, solver)
}

#[test]
fn sphere_rests_at_the_penalty_sink() {
    let (m, r, ke) = (1.0f32, 0.1f32, 1.0e4f32);
    // Both shapes ke and kd: the contact's spring is ke / 2 (in series).
    let model = sphere_on_plane(m, r, r + 0.02, material(ke, 100.0, 100.0, 0.5));
    let (end, solver) = rollout(&model, 1e-3, 1500, |_, s| {
        assert!(s.joint_q.to_vec().iter().all(|x| x.is_finite()));
    });
    let z = end.joint_q.to_vec()[2];
    let sink = m * G / (0.5 * ke);
    let expected = r - sink;
    let vz = end.joint_qd.to_vec()[2];
    println!(
        "sphere at rest: z = {z:.6} m, predicted r − m g / ke = {expected:.6} m (sink {sink:.6} m, error {:.2e} m, {:.2e} of the sink), v_z {vz:.1e}",
        (z - expected).abs(),
        (z - expected).abs() / sink
    );
    assert!(
        (z - expected).abs() < 0.01 * sink,
        "z {z}, expected {expected}"
    );
    let report = solver.contact_report().unwrap();
    assert!(report.found >= 1 && report.overflow == 0 && report.pair_overflow == 0);
}

#[test]
fn bouncing_sphere_without_damping_gains_no_energy() {
    let (m, r) = (1.0f32, 0.1f32);
    let h0 = 0.3f32;
    let model = sphere_on_plane(m, r, r + h0, material(1.0e5, 0.0, 0.0, 0.0));
    let energy = |s: &State| {
        let q = s.joint_q.to_vec();
        let qd = s.joint_qd.to_vec();
        let v2 = qd[0] * qd[0] + qd[1] * qd[1] + qd[2] * qd[2];
        // Only counted out of contact: no spring energy to add.
        (m * G * q[2] + 0.5 * m * v2, q[2] > r)
    };
    let e0 = m * G * (r + h0);
    let (mut worst, mut least, mut bounces, mut was_free) = (e0, e0, 0, true);
    rollout(&model, 1e-4, 20000, |_, s| {
        let (e, free) = energy(s);
        if free {
            worst = worst.max(e);
            least = least.min(e);
        }
        if free && !was_free {
            bounces += 1;
        }
        was_free = free;
    });
    let gain = (worst - e0) / e0;
    let loss = (e0 - least) / e0;
    println!(
        "bouncing sphere (kd 0, dt 0.1 ms, 2 s): {bounces} bounces, energy out of contact within +{gain:.2e} / −{loss:.2e} of m g h"
    );
    assert!(bounces >= 3, "{bounces}");
    assert!(gain < 5e-3, "gain {gain}");
}

#[test]
fn box_on_an_incline_within_the_friction_cone_stays() {
    // θ = 0.1 rad, μ = 0.5 > tan θ = 0.10.
    let theta = 0.1f32;
    let tilt = Quat::from_rotation_y(theta);
    let (m, h) = (1.0f32, 0.1f32);
    let mat = material(1.0e5, 1.0e3, 2.0e3, 0.5);
    let mut b = builder(G);
    plane(&mut b, tilt, mat);
    let i = m * (2.0 * h) * (2.0 * h) / 6.0;
    // Resting on the incline, 0.5 mm above it.
    let p = tilt * Vec3::new(0.0, 0.0, h + 5e-4);
    free_body(
        &mut b,
        m,
        Vec3::splat(i),
        Geometry::Box {
            half_extents: Vec3::splat(h),
        },
        mat,
        p,
        tilt,
    );
    let model = b.finalize(Device::Cpu).unwrap();
    let dt = 1e-4;
    let down_slope = tilt * Vec3::X; // gravity pulls along −X of the incline... or +X
    // (speed along the slope, along the normal) from 0.3 s to 0.8 s.
    let drift = |anchor: bool| {
        let mut samples = Vec::new();
        rollout_with(&model, dt, 8000, anchor, |k, s| {
            if k == 3000 || k == 8000 {
                let q = s.joint_q.to_vec();
                samples.push(Vec3::new(q[0], q[1], q[2]));
            }
            if k % 1000 == 0 {
                assert!(s.joint_q.to_vec().iter().all(|x| x.is_finite()));
            }
        });
        let d = samples[1] - samples[0];
        (
            d.dot(down_slope).abs() / (5000.0 * dt),
            d.dot(tilt * Vec3::Z) / (5000.0 * dt),
        )
    };
    let (speed, normal) = drift(true);
    let (viscous, _) = drift(false);
    // Viscous friction creeps at about m g sin θ / (4 kf_series).
    let creep = m * G * theta.sin() / (4.0 * 1.0e3);
    println!(
        "box on a {theta} rad incline, μ 0.5: anchored friction slides at {:.1e} mm/s (normal drift {normal:.1e} m/s); viscous friction creeps at {:.3} mm/s (predicted {:.3} mm/s)",
        speed * 1e3,
        viscous * 1e3,
        creep * 1e3,
    );
    assert!(speed < 1e-6, "{speed} m/s");
    assert!((viscous - creep).abs() < 0.05 * creep, "{viscous} m/s");
}

/// A solver keeps the anchors of its last step, but a rollout that starts
/// elsewhere (new states, or the last output reset in place) does not find
/// them: it repeats a fresh solver's rollout bit for bit.
#[test]
fn a_reused_solver_starts_a_reset_rollout_afresh() {
    // A sphere pressed into the plane, pushed and spun: it sticks after a
    // few steps, its contact anchored.
    let model = sphere_on_plane(1.0, 0.1, 0.1 - 5e-4, material(1.0e5, 1.0e3, 1.0e3, 0.8));
    let control = Control::new(&model).unwrap();
    let qd0 = [0.05f32, 0.0, 0.0, 0.0, 0.0, 0.3];
    let fresh = || {
        let mut s = State::new(&model).unwrap();
        s.joint_qd.copy_from_slice(&qd0).unwrap();
        s
    };
    let run = |solver: &mut FeatherstoneSolver, a: &mut State, b: &mut State| {
        for _ in 0..100 {
            solver.step(&model, a, b, &control, 1e-3).unwrap();
            std::mem::swap(a, b);
        }
        let mut out = a.joint_q.to_vec();
        out.extend(a.joint_qd.to_vec());
        out
    };
    let mut solver = FeatherstoneSolver::new(&model).unwrap();
    let (mut a, mut b) = (fresh(), fresh());
    let first = run(&mut solver, &mut a, &mut b);
    let (mut c, mut d) = (fresh(), fresh());
    let again = run(&mut solver, &mut c, &mut d);
    c.joint_q.copy_from(&model.joint_q).unwrap();
    c.joint_qd.copy_from_slice(&qd0).unwrap();
    let reset = run(&mut solver, &mut c, &mut d);
    let mut viscous = FeatherstoneSolver::new(&model).unwrap();
    viscous.anchor_friction = false;
    let (mut e, mut f) = (fresh(), fresh());
    let unanchored = run(&mut viscous, &mut e, &mut f);
    println!("reused solver: first {first:?}, viscous {unanchored:?}");
    assert_eq!(first, again, "new states");
    assert_eq!(first, reset, "reset in place");
    // (Anchors act here.)
    assert_ne!(first, unanchored);
}

#[test]
fn box_on_a_steep_incline_slides() {
    // The counterpart: μ = 0.1 < tan 0.3, the box accelerates at about
    // g (sin θ − μ cos θ).
    let theta = 0.3f32;
    let tilt = Quat::from_rotation_y(theta);
    let (m, h) = (1.0f32, 0.1f32);
    let mat = material(1.0e5, 1.0e3, 2.0e3, 0.1);
    let mut b = builder(G);
    plane(&mut b, tilt, mat);
    let p = tilt * Vec3::new(0.0, 0.0, h);
    free_body(
        &mut b,
        m,
        Vec3::splat(m * 0.04 / 6.0),
        Geometry::Box {
            half_extents: Vec3::splat(h),
        },
        mat,
        p,
        tilt,
    );
    let model = b.finalize(Device::Cpu).unwrap();
    let (end, _) = rollout(&model, 1e-4, 5000, |_, _| {});
    let qd = end.joint_qd.to_vec();
    let v = Vec3::new(qd[0], qd[1], qd[2]).length();
    let expected = G * (theta.sin() - 0.1 * theta.cos()) * 0.5;
    println!("box on a 0.3 rad incline, μ 0.1: {v:.3} m/s after 0.5 s (Coulomb: {expected:.3})");
    assert!((v - expected).abs() < 0.05 * expected, "{v} vs {expected}");
}

/// Two overlapping capsules on a hinge, no gravity, at rest (contact forces
/// between them would set them moving): `(contacts found, fastest coordinate
/// velocity after 50 steps)`, with the builder's parent filter on or off.
fn parent_and_child(filter: bool) -> (usize, f32) {
    let mut b = builder(0.0);
    b.gravity = Vec3::ZERO;
    b.filter_parent_contacts = filter;
    let mat = material(1.0e5, 1.0e3, 1.0e3, 0.5);
    let capsule = Geometry::Capsule {
        radius: 0.05,
        half_height: 0.2,
    };
    let a = body(&mut b, 1.0, Vec3::ZERO, Vec3::new(0.02, 0.02, 0.005));
    let c = body(&mut b, 1.0, Vec3::ZERO, Vec3::new(0.02, 0.02, 0.005));
    b.add_body_shape_with(a as i32, Transform::IDENTITY, capsule.clone(), mat);
    b.add_body_shape_with(c as i32, Transform::IDENTITY, capsule, mat);
    b.add_joint(JointDesc::free(a).with_q(&[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]))
        .unwrap();
    b.add_joint(
        JointDesc::revolute(a as i32, c, Vec3::Y)
            .with_frames(
                Transform::from_translation(Vec3::new(0.0, 0.0, 0.1)),
                Transform::IDENTITY,
            )
            .with_q(&[1.0]),
    )
    .unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    let (end, solver) = rollout(&model, 1e-3, 50, |_, _| {});
    let report = solver.contact_report().unwrap();
    let fastest = end
        .joint_qd
        .to_vec()
        .iter()
        .fold(0.0f32, |m, x| m.max(x.abs()));
    (report.found, fastest)
}

#[test]
fn a_link_does_not_collide_with_its_parent() {
    // By default the broad phase never pairs a link with its parent link, so
    // their contacts take no room in the buffer.
    let (found, fastest) = parent_and_child(true);
    println!("overlapping parent and child: {found} contacts found, fastest {fastest:.1e}");
    assert_eq!(found, 0, "the parent filter let contacts through");
    assert!(fastest < 1e-6, "{fastest}");
    // Without the filter the contacts are found, and the link contacts'
    // force kernel still skips them.
    let (found, fastest) = parent_and_child(false);
    println!("without the filter: {found} contacts found, fastest {fastest:.1e}");
    assert!(found > 0, "the capsules do overlap");
    assert!(fastest < 1e-6, "{fastest}");
}

/// `loss[0] += Σ_i w_i x_i`.
#[weft::kernel]
fn weighted_sum(x: &Array<f32>, w: &Array<f32>, loss: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut loss[0], w[i] * x[i]);
}

/// The tape gradient of a weighted sum of a sphere's final coordinates and
/// velocities after `steps` steps of 1 ms from `z` (centre height) by its
/// initial velocities `qd0`, against central differences; also the final
/// state.
fn sphere_gradcheck(
    mat: Material,
    z: f32,
    qd0: &[f32],
    steps: usize,
) -> (weft::GradCheck, Vec<f32>, State) {
    let (m, r) = (1.0f32, 0.1f32);
    let model = sphere_on_plane(m, r, z, mat);
    let dt = 1e-3;
    let mut qd0 = Array::from_slice(Device::Cpu, qd0);
    let q0 = model.joint_q.to_vec();
    let mut last = None;
    let report = gradcheck(&mut [&mut qd0], Some(1e-3), |x, loss| {
        let err = |e: weft_sim::SimError| weft::Error::Shape(e.to_string());
        let mut solver = FeatherstoneSolver::new(&model).map_err(err)?;
        let mut states: Vec<State> = (0..=steps)
            .map(|_| State::new(&model).unwrap().requires_grad())
            .collect();
        states[0].joint_q = Array::from_slice(Device::Cpu, &q0);
        states[0].joint_qd = x[0].share();
        let control = Control::new(&model)?;
        for k in 0..steps {
            let (done, next) = states.split_at_mut(k + 1);
            solver
                .step(&model, &done[k], &mut next[0], &control, dt)
                .map_err(err)?;
        }
        let end = states.pop().unwrap();
        let wq = Array::from_vec(Device::Cpu, vec![1.0, -0.7, 2.0, 0.3, 0.2, -0.4, 0.1]);
        let wd = Array::from_vec(Device::Cpu, vec![0.5, 0.4, -0.3, 0.02, 0.03, -0.01]);
        loss.fill(0.0);
        weighted_sum::launch(7, &end.joint_q, &wq, loss)?;
        weighted_sum::launch(6, &end.joint_qd, &wd, loss)?;
        last = Some(end);
        Ok(())
    })
    .unwrap();
    (report, qd0.grad_to_vec().unwrap(), last.unwrap())
}

#[test]
fn contact_rollout_gradient_matches_finite_differences() {
    // A sphere pressed 1 mm into the plane, sliding and spinning: in contact
    // for the whole rollout, so the loss is smooth in the initial velocities
    // (no damper: its approach-only switch would put a kink in it).
    let (r, g, _) = sphere_gradcheck(
        material(2.0e4, 0.0, 100.0, 1.0),
        0.1 - 1e-3,
        &[0.1, -0.05, 0.02, 0.3, -0.2, 0.5],
        40,
    );
    println!("sphere in contact, 40 steps of 1 ms, gradient by q̇₀: {r}");
    assert!(r.max_rel < 1e-2, "{r}");
    // The contact acts: the vertical velocity's effect on the final height
    // is not the free flight's h·steps.
    assert!(g.iter().any(|x| *x != 0.0), "{g:?}");
}

#[test]
fn anchored_friction_gradient_matches_finite_differences() {
    // A sphere resting on the plane, pushed sideways too gently to slide
    // (the tangential spring's peak, |v_t| √(ke m_eff) ≈ 1.6 N, stays under
    // μ m g): friction holds its contact point by the anchored spring alone
    // (no friction damper), which rocks it about where it began to stick
    // while it rolls on. The slip each step carries into the next is the
    // whole friction force, so its gradient must cross the steps on the
    // tape (cut there, the error here is 1.2e-2; with it 4.7e-4).
    let (r, _, end) = sphere_gradcheck(
        material(2.0e4, 0.0, 0.0, 1.0),
        0.1 - 9.81 / 1.0e4,
        &[0.04, -0.02, 0.0, 0.1, 0.1, -0.2],
        60,
    );
    // The contact point's velocity (the sphere's centre is its origin).
    let slip = |q: &[f32], qd: &[f32]| {
        let w = Quat::from_xyzw(q[3], q[4], q[5], q[6]) * Vec3::new(qd[3], qd[4], qd[5]);
        (Vec3::new(qd[0], qd[1], 0.0) + w.cross(Vec3::new(0.0, 0.0, -0.1))).length()
    };
    let start = slip(
        &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        &[0.04, -0.02, 0.0, 0.1, 0.1, -0.2],
    );
    let now = slip(&end.joint_q.to_vec(), &end.joint_qd.to_vec());
    println!(
        "sphere held by friction, 60 steps of 1 ms, gradient by q̇₀: {r}; contact point slipping at {start:.3} m/s, then {now:.1e} m/s"
    );
    assert!(r.max_rel < 2e-3, "{r}");
    assert!(now < 0.5 * start, "{now} m/s");
}

#[test]
fn articulated_body_dynamics_gives_the_same_contact_rollout() {
    // A two-link chain (capsules) swinging onto the plane: the contact
    // wrenches reach ABA's bias as they reach the composite-rigid-body path.
    let mat = material(2.0e4, 50.0, 200.0, 0.8);
    let mut b = builder(G);
    plane(&mut b, Quat::IDENTITY, mat);
    let capsule = Geometry::Capsule {
        radius: 0.05,
        half_height: 0.2,
    };
    let down = Transform::from_translation(Vec3::new(0.0, 0.0, -0.25));
    let inertia = Vec3::new(0.02, 0.02, 0.005);
    let l1 = body(&mut b, 1.0, Vec3::new(0.0, 0.0, -0.25), inertia);
    let l2 = body(&mut b, 0.8, Vec3::new(0.0, 0.0, -0.25), inertia);
    for l in [l1, l2] {
        b.add_body_shape_with(l as i32, down, capsule.clone(), mat);
    }
    b.add_joint(
        JointDesc::revolute(-1, l1, Vec3::Y)
            .with_frames(
                Transform::from_translation(Vec3::new(0.0, 0.0, 0.45)),
                Transform::IDENTITY,
            )
            .with_q(&[1.2]),
    )
    .unwrap();
    b.add_joint(
        JointDesc::revolute(l1 as i32, l2, Vec3::Y)
            .with_frames(
                Transform::from_translation(Vec3::new(0.0, 0.0, -0.5)),
                Transform::IDENTITY,
            )
            .with_q(&[0.8]),
    )
    .unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    // Implicit contacts (the default) add each body's contact damping to its
    // inertia: CRBA's composite inertias, ABA's articulated ones, off the
    // tape (one thread per articulation) and on it (one launch per joint or
    // level).
    let run = |dynamics, contacts, taped: bool| {
        let mut solver = FeatherstoneSolver::with_dynamics(&model, dynamics).unwrap();
        solver.enable_contacts = contacts;
        let control = Control::new(&model).unwrap();
        let mut a = State::new(&model).unwrap();
        let mut tape = weft::Tape::new();
        for _ in 0..400 {
            let mut b = State::new(&model).unwrap();
            if taped {
                tape.record(|| solver.step(&model, &a, &mut b, &control, 1e-3))
                    .unwrap();
            } else {
                solver.step(&model, &a, &mut b, &control, 1e-3).unwrap();
            }
            a = b;
        }
        let mut out = a.joint_q.to_vec();
        out.extend(a.joint_qd.to_vec());
        out
    };
    use weft_articulation::ForwardDynamics::{ArticulatedBody, CompositeRigidBody};
    let crba = run(CompositeRigidBody, true, false);
    let aba = run(ArticulatedBody, true, false);
    let free = run(CompositeRigidBody, false, false);
    let (crba_taped, aba_taped) = (
        run(CompositeRigidBody, true, true),
        run(ArticulatedBody, true, true),
    );
    let diff = |a: &[f32], b: &[f32]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs() / x.abs().max(1.0))
            .fold(0.0f32, f32::max)
    };
    let (worst, contact_effect) = (diff(&crba, &aba), diff(&crba, &free));
    let taped = diff(&crba, &crba_taped).max(diff(&crba, &aba_taped));
    println!(
        "chain onto the plane, 400 steps: ABA vs CRBA {worst:.2e}; taped vs not {taped:.2e}; with vs without contacts {contact_effect:.2e}; final {crba:?}"
    );
    assert!(contact_effect > 0.1, "the floor acts: {contact_effect}");
    assert!(worst < 1e-3, "{worst}");
    assert!(taped < 1e-3, "{taped}");
}
