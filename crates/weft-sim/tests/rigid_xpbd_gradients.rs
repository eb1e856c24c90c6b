//! Gradients through `XpbdRigid` (hard contacts, friction, restitution)
//! against central finite differences, and a taped step against a plain one:
//! a box sliding into a box, a sphere bouncing, and a small heap whose
//! manifolds need several colours.

use weft::prelude::*;
use weft_collide::{Geometry, Material, ShapeDesc};
use weft_sim::{BodyDesc, Model, ModelBuilder, SimError, State, XpbdRigid};

const DT: f32 = 1.0 / 60.0;

/// `loss[0] = Σ_b w_b · p_b` over the final body positions.
#[weft::kernel]
fn pose_loss(q: &Array<Transform>, w: &Array<Vec3>, loss: &mut Array<f32>) {
    let b = tid();
    atomic_add(&mut loss[0], dot(w[b], q[b].p));
}

/// `out[b]` is `base[b]` with its linear x, y from `vxy[b]` (so a check can
/// leave out a resting body's vertical velocity, at which its loss has a
/// kink: up it flies, down it hits the ground).
#[weft::kernel]
fn planar_velocity(vxy: &Array<Vec2>, base: &Array<SpatialVector>, out: &mut Array<SpatialVector>) {
    let b = tid();
    let v = base[b];
    out[b] = SpatialVector::new(Vec3::new(vxy[b].x, vxy[b].y, v.top.z), v.bottom);
}

fn ground(b: &mut ModelBuilder, material: Material) {
    b.ground = None;
    let mut plane = ShapeDesc::new(
        -1,
        Transform::IDENTITY,
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
    );
    plane.material = material;
    b.add_rigid_shape(plane);
}

/// Friction `mu` (static and kinetic).
fn friction(mu: f32) -> Material {
    Material {
        mu,
        mu_static: mu,
        ..Material::default()
    }
}

fn sliding() -> Material {
    friction(0.3)
}

/// Adds a 20 cm box of friction 0.3 at pose `x` with velocity `v`.
fn add_box(b: &mut ModelBuilder, x: Transform, v: SpatialVector) {
    add_box_with(b, x, v, 0.3);
}

/// Adds a 20 cm box of friction `mu` at pose `x` with velocity `v`.
fn add_box_with(b: &mut ModelBuilder, x: Transform, v: SpatialVector, mu: f32) {
    let mut d = BodyDesc::new(x);
    d.velocity = v;
    let s = b.add_body(d) as i32;
    let half_extents = Vec3::splat(0.1);
    b.add_body_shape_with(
        s,
        Transform::IDENTITY,
        Geometry::Box { half_extents },
        friction(mu),
    );
}

/// A box sliding on the ground at 2 m/s into a resting box 10 cm away. The
/// moving box has friction 0.2 and the resting one 0.4 (0.25 and 0.35 against
/// the ground's 0.3), so after the impact the first pushes the second and they
/// slide on together. With equal friction they would decelerate alike, and
/// whether they part or stay in touch would flip with the sign of any change
/// of one box's friction: the loss has a kink there (one-sided differences of
/// −0.414 and −0.33 for the moving box's friction), where the tape can only
/// give one side.
fn box_into_box() -> Model {
    let mut b = ModelBuilder::new();
    ground(&mut b, sliding());
    for (x, vx, mu) in [(0.0, 2.0, 0.2), (0.3, 0.0, 0.4)] {
        let v = SpatialVector::new(Vec3::new(vx, 0.05, 0.0), Vec3::ZERO);
        add_box_with(
            &mut b,
            Transform::from_translation(Vec3::new(x, 0.0, 0.1)),
            v,
            mu,
        );
    }
    b.finalize(Device::Cpu).unwrap()
}

/// A box sliding on the ground at 2 m/s (it stops after 41 steps).
fn sliding_box() -> Model {
    let mut b = ModelBuilder::new();
    ground(&mut b, sliding());
    let v = SpatialVector::new(Vec3::new(2.0, 0.3, 0.0), Vec3::ZERO);
    add_box(
        &mut b,
        Transform::from_translation(Vec3::new(0.0, 0.0, 0.1)),
        v,
    );
    b.finalize(Device::Cpu).unwrap()
}

/// A ball (restitution 0.5) thrown at the ground, spinning.
fn bouncing_sphere() -> Model {
    let bouncy = Material {
        restitution: 0.5,
        ..sliding()
    };
    let mut b = ModelBuilder::new();
    ground(&mut b, bouncy);
    let mut d = BodyDesc::new(Transform::from_translation(Vec3::new(0.0, 0.0, 0.3)));
    d.velocity = SpatialVector::new(Vec3::new(1.0, 0.3, -2.0), Vec3::new(0.0, 2.0, 0.0));
    let s = b.add_body(d) as i32;
    b.add_body_shape_with(
        s,
        Transform::IDENTITY,
        Geometry::Sphere { radius: 0.1 },
        bouncy,
    );
    b.finalize(Device::Cpu).unwrap()
}

/// Two boxes stacked, the upper one (turned 3°) pushed sideways at 0.2 m/s:
/// it slides on the lower one for a few steps and then sticks, and the
/// static friction it sticks with is carried from step to step.
fn nudged_stack() -> Model {
    let mut b = ModelBuilder::new();
    ground(&mut b, sliding());
    add_box(
        &mut b,
        Transform::from_translation(Vec3::new(0.0, 0.0, 0.1)),
        SpatialVector::ZERO,
    );
    let x = Transform::new(Vec3::new(0.0, 0.0, 0.3), Quat::from_rotation_z(0.05));
    let v = SpatialVector::new(Vec3::new(0.2, 0.06, 0.0), Vec3::ZERO);
    add_box(&mut b, x, v);
    b.finalize(Device::Cpu).unwrap()
}

/// Six boxes in a pyramid of three rows, nudged: the middle box of the
/// bottom row touches the ground, two neighbours and two boxes above, so its
/// manifolds need at least five colours.
fn heap() -> Model {
    let mut b = ModelBuilder::new();
    ground(&mut b, sliding());
    for (row, count) in [(0, 3), (1, 2), (2, 1)] {
        for i in 0..count {
            let x = 0.2 * i as f32 + 0.1 * row as f32;
            let p = Vec3::new(x, 0.0, 0.1 + 0.2 * row as f32);
            let x = Transform::new(p, Quat::from_rotation_z(0.02 * (i + row) as f32));
            let v = SpatialVector::new(Vec3::new(0.1, -0.05, 0.0), Vec3::new(0.0, 0.0, 0.2));
            add_box(&mut b, x, v);
        }
    }
    b.finalize(Device::Cpu).unwrap()
}

/// The states of `steps` steps from `v0`, with a fresh solver (no friction
/// carried in from an earlier rollout).
fn rollout(
    model: &Model,
    v0: &Array<SpatialVector>,
    steps: usize,
    substeps: usize,
) -> Result<Vec<State>, SimError> {
    let mut solver = XpbdRigid::new(model, Default::default())?;
    solver.substeps = substeps;
    let mut states: Vec<State> = (0..=steps)
        .map(|_| State::new(model))
        .collect::<Result<_, _>>()?;
    states[0].body_qd = v0.share();
    for k in 0..steps {
        let (done, next) = states.split_at_mut(k + 1);
        solver.simulate(model, &mut done[k], &mut next[0], DT)?;
    }
    Ok(states)
}

fn loss_of(
    model: &Model,
    v0: &Array<SpatialVector>,
    (steps, substeps): (usize, usize),
    w: &Array<Vec3>,
    loss: &mut Array<f32>,
) -> Result<(), weft::Error> {
    let states =
        rollout(model, v0, steps, substeps).map_err(|e| weft::Error::Shape(e.to_string()))?;
    loss.fill(0.0);
    pose_loss::launch(model.body_count(), &states[steps].body_q, w, loss)
}

#[test]
fn a_taped_step_equals_a_plain_one_bit_for_bit() {
    for (name, model, steps) in [
        ("box into box", box_into_box(), 20),
        ("sliding box", sliding_box(), 20),
        ("bouncing sphere", bouncing_sphere(), 20),
        ("heap", heap(), 30),
    ] {
        let v0 = model.body_qd.share();
        let plain = rollout(&model, &v0, steps, 16).unwrap();
        let mut tape = Tape::new();
        let taped = tape.record(|| rollout(&model, &v0, steps, 16)).unwrap();
        assert!(!tape.is_empty(), "{name}: nothing was recorded");
        let (a, b) = (plain[steps].body_q.to_vec(), taped[steps].body_q.to_vec());
        let (va, vb) = (plain[steps].body_qd.to_vec(), taped[steps].body_qd.to_vec());
        for i in 0..a.len() {
            assert_eq!(a[i], b[i], "{name}: pose of body {i}");
            assert_eq!(va[i], vb[i], "{name}: velocity of body {i}");
        }
        // The heap's contacts must have needed several groups.
        if name == "heap" {
            let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
            let mut s = (State::new(&model).unwrap(), State::new(&model).unwrap());
            let mut most = 0;
            for _ in 0..steps {
                solver.simulate(&model, &mut s.0, &mut s.1, DT).unwrap();
                std::mem::swap(&mut s.0, &mut s.1);
                let counts = solver.color_counts().unwrap();
                most = most.max(counts.iter().filter(|c| **c > 0).count());
            }
            assert!(most >= 5, "the heap used at most {most} colours");
        }
    }
}

// Where finite differences can check the tape. XPBD's loss is exact only
// piecewise: contacts activate, λ reach 0, friction switches between static
// and kinetic, and a resting box's contact is re-solved every substep, so
// the loss of a rollout on the ground wiggles at the scale of the solver's
// tolerance (~1e-5 m here: with 16 substeps, central differences of a
// sliding box's loss over ±1e-3 m/s scatter by 15 %, over ±0.1 m/s they
// agree with the tape to 0.1 %, and the tape agrees with Coulomb's law,
// d p/d v0 = T − μ g T²/2 · (I − v̂v̂ᵀ)/|v|, to 4 digits). A face-on impact
// between aligned boxes also changes which corners touch first with the
// smallest turn. The checks below take steps where the loss is smooth, and
// say so.

/// A box sliding into a box (4 substeps: its loss is smooth at the ±1e-2
/// scale of the differences; with 16 it wiggles there).
#[test]
fn box_into_box_gradients_match_finite_differences() {
    let model = box_into_box();
    let run = (20, 4);
    let w = Array::from_vec(
        Device::Cpu,
        vec![Vec3::new(1.0, 0.2, 0.0), Vec3::new(2.0, 0.2, 0.0)],
    );
    let mut v0 = Array::from_vec(Device::Cpu, model.body_qd.to_vec());
    let rep = gradcheck(&mut [&mut v0], Some(1e-2), |v, l| {
        loss_of(&model, v[0], run, &w, l)
    })
    .unwrap();
    println!("XPBD box into box, initial velocities: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
    let v0 = model.body_qd.share();
    let mut inv_mass = Array::from_vec(Device::Cpu, model.body_inv_mass.to_vec());
    let rep = gradcheck(&mut [&mut inv_mass], Some(1e-2), |m, l| {
        let mut mm = model.share();
        mm.body_inv_mass = m[0].share();
        loss_of(&mm, &v0, run, &w, l)
    })
    .unwrap();
    println!("XPBD box into box, inverse masses: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
}

/// The friction coefficients of the plane and both boxes (each enters two of
/// the three contacts' friction).
#[test]
fn box_into_box_friction_gradient_matches_finite_differences() {
    let model = box_into_box();
    let run = (20, 4);
    let w = Array::from_vec(
        Device::Cpu,
        vec![Vec3::new(1.0, 0.2, 0.0), Vec3::new(2.0, 0.2, 0.0)],
    );
    let v0 = model.body_qd.share();
    // The friction coefficient of each shape (plane, boxes).
    let mut mu = Array::from_vec(Device::Cpu, model.rigid_shapes.mu.to_vec());
    let rep = gradcheck(&mut [&mut mu], Some(1e-2), |m, l| {
        let mut mm = model.share();
        mm.rigid_shapes.mu = m[0].share();
        loss_of(&mm, &v0, run, &w, l)
    })
    .unwrap();
    println!("XPBD box into box, kinetic friction: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
}

/// The nudged stack at 1 substep: the slip a sticking pair is left with at a
/// step's end is carried into the next step's friction on the tape too.
/// Without that path the tape gave 0.105 for the upper box's d loss / d vx
/// where differences give 0.0267; with it 0.0292 (the rest, 2.5e-3, is not
/// explained yet: contacts are constants of each step, one suspect).
#[test]
fn sticking_friction_carried_across_steps_is_differentiated() {
    let model = nudged_stack();
    let w = Array::from_vec(
        Device::Cpu,
        vec![Vec3::new(1.0, 0.5, 0.3), Vec3::new(2.0, 0.5, 0.3)],
    );
    let base = model.body_qd.share();
    let mut vxy = Array::from_vec(
        Device::Cpu,
        base.to_vec()
            .iter()
            .map(|v| Vec2::new(v.top.x, v.top.y))
            .collect(),
    );
    let rep = gradcheck(&mut [&mut vxy], Some(3e-3), |v, l| {
        let mut v0 = Array::zeros(Device::Cpu, [2]);
        planar_velocity::launch(2, v[0], &base, &mut v0)?;
        loss_of(&model, &v0, (20, 1), &w, l)
    })
    .unwrap();
    println!("XPBD nudged stack (carried static friction), planar velocities: {rep}");
    assert!(rep.max_abs < 5e-3, "{rep}");
}

/// A box sliding on the ground with the default 16 substeps, against
/// differences over ±0.1 (see above), and against Coulomb's law.
#[test]
fn sliding_box_gradients_match_finite_differences_and_coulomb() {
    let model = sliding_box();
    let (steps, t) = (30, 30.0 * DT);
    let w = Array::from_vec(Device::Cpu, vec![Vec3::new(1.0, 0.5, 0.0)]);
    let v = model.body_qd.to_vec()[0].top;
    let base = model.body_qd.share();
    let mut vxy = Array::from_vec(Device::Cpu, vec![Vec2::new(v.x, v.y)]);
    let rep = gradcheck(&mut [&mut vxy], Some(1e-1), |v, l| {
        let mut v0 = Array::zeros(Device::Cpu, [1]);
        planar_velocity::launch(1, v[0], &base, &mut v0)?;
        loss_of(&model, &v0, (steps, 16), &w, l)
    })
    .unwrap();
    println!("XPBD sliding box, initial velocities: {rep}");
    assert!(rep.max_rel < 1e-2, "{rep}");
    // Coulomb: p(T) = p0 + v T − μ g T²/2 · v̂ while it slides.
    let g = vxy.grad_to_vec().unwrap()[0];
    let (mu, grav) = (0.3, 9.81);
    let speed = (v.x * v.x + v.y * v.y).sqrt();
    let (ux, uy) = (v.x / speed, v.y / speed);
    let k = mu * grav * t * t / 2.0 / speed;
    let (wx, wy) = (1.0, 0.5);
    let want_x = wx * (t - k * (1.0 - ux * ux)) + wy * k * ux * uy;
    let want_y = wy * (t - k * (1.0 - uy * uy)) + wx * k * ux * uy;
    println!(
        "XPBD sliding box, dL/dv: tape ({:.5}, {:.5}), Coulomb ({want_x:.5}, {want_y:.5})",
        g.x, g.y
    );
    assert!((g.x - want_x).abs() < 2e-3 && (g.y - want_y).abs() < 2e-3);
    let v0 = model.body_qd.share();
    let mut mu = Array::from_vec(Device::Cpu, model.rigid_shapes.mu.to_vec());
    let rep = gradcheck(&mut [&mut mu], Some(1e-1), |m, l| {
        let mut mm = model.share();
        mm.rigid_shapes.mu = m[0].share();
        loss_of(&mm, &v0, (steps, 16), &w, l)
    })
    .unwrap();
    println!("XPBD sliding box, kinetic friction: {rep}");
    assert!(rep.max_rel < 1e-2, "{rep}");
}

/// A spinning ball thrown at the ground, checked in flight after its one
/// bounce (later bounces make the loss jump with the step they land in).
#[test]
fn sphere_bounce_gradients_match_finite_differences() {
    let model = bouncing_sphere();
    let run = (18, 16);
    let w = Array::from_vec(Device::Cpu, vec![Vec3::new(1.0, -0.5, 2.0)]);
    let mut v0 = Array::from_vec(Device::Cpu, model.body_qd.to_vec());
    let rep = gradcheck(&mut [&mut v0], Some(5e-3), |v, l| {
        loss_of(&model, v[0], run, &w, l)
    })
    .unwrap();
    println!("XPBD bouncing sphere, initial velocities: {rep}");
    assert!(rep.max_rel < 2e-3, "{rep}");
    let v0 = model.body_qd.share();
    let mut e = Array::from_vec(Device::Cpu, model.rigid_shapes.restitution.to_vec());
    let rep = gradcheck(&mut [&mut e], Some(5e-3), |x, l| {
        let mut mm = model.share();
        mm.rigid_shapes.restitution = x[0].share();
        loss_of(&mm, &v0, run, &w, l)
    })
    .unwrap();
    println!("XPBD bouncing sphere, restitution: {rep}");
    assert!(rep.max_rel < 2e-3, "{rep}");
}
