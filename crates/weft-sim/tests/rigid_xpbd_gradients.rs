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

fn sliding() -> Material {
    Material {
        mu: 0.3,
        mu_static: 0.3,
        ..Material::default()
    }
}

/// A box sliding on the ground at 2 m/s into a resting box 10 cm away.
fn box_into_box() -> Model {
    let mut b = ModelBuilder::new();
    ground(&mut b, sliding());
    for (x, vx) in [(0.0, 2.0), (0.3, 0.0)] {
        let mut d = BodyDesc::new(Transform::from_translation(Vec3::new(x, 0.0, 0.1)));
        d.velocity = SpatialVector::new(Vec3::new(vx, 0.05, 0.0), Vec3::ZERO);
        let s = b.add_body(d) as i32;
        let half_extents = Vec3::splat(0.1);
        b.add_body_shape_with(
            s,
            Transform::IDENTITY,
            Geometry::Box { half_extents },
            sliding(),
        );
    }
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

/// Nine boxes dropped in a 3 × 3 heap, touching each other: their manifolds
/// need several colours.
fn heap() -> Model {
    let mut b = ModelBuilder::new();
    ground(&mut b, sliding());
    for i in 0..9 {
        let (x, y, z) = ((i % 3) as f32, ((i / 3) % 3) as f32, (i / 3) as f32);
        let p = Vec3::new(0.19 * x + 0.02 * y, 0.19 * y, 0.1 + 0.21 * z);
        let mut d = BodyDesc::new(Transform::new(p, Quat::from_rotation_z(0.1 * i as f32)));
        d.velocity = SpatialVector::new(Vec3::new(0.2, -0.1, 0.0), Vec3::new(0.0, 0.0, 0.5));
        let s = b.add_body(d) as i32;
        let half_extents = Vec3::splat(0.1);
        b.add_body_shape_with(
            s,
            Transform::IDENTITY,
            Geometry::Box { half_extents },
            sliding(),
        );
    }
    b.finalize(Device::Cpu).unwrap()
}

/// The states of `steps` steps from `v0`, with a fresh solver (no friction
/// carried in from an earlier rollout).
fn rollout(model: &Model, v0: &Array<SpatialVector>, steps: usize) -> Result<Vec<State>, SimError> {
    let mut solver = XpbdRigid::new(model, Default::default())?;
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
    steps: usize,
    w: &Array<Vec3>,
    loss: &mut Array<f32>,
) -> Result<(), weft::Error> {
    let states = rollout(model, v0, steps).map_err(|e| weft::Error::Shape(e.to_string()))?;
    loss.fill(0.0);
    pose_loss::launch(model.body_count(), &states[steps].body_q, w, loss)
}

#[test]
fn a_taped_step_equals_a_plain_one_bit_for_bit() {
    for (name, model, steps) in [
        ("box into box", box_into_box(), 20),
        ("bouncing sphere", bouncing_sphere(), 20),
        ("heap", heap(), 30),
    ] {
        let v0 = model.body_qd.share();
        let plain = rollout(&model, &v0, steps).unwrap();
        let mut tape = Tape::new();
        let taped = tape.record(|| rollout(&model, &v0, steps)).unwrap();
        assert!(tape.len() > 0, "{name}: nothing was recorded");
        let (a, b) = (plain[steps].body_q.to_vec(), taped[steps].body_q.to_vec());
        let (va, vb) = (plain[steps].body_qd.to_vec(), taped[steps].body_qd.to_vec());
        for i in 0..a.len() {
            assert_eq!(a[i], b[i], "{name}: pose of body {i}");
            assert_eq!(va[i], vb[i], "{name}: velocity of body {i}");
        }
        // The heap's contacts must have needed more than one group.
        if name == "heap" {
            let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
            let mut s = (State::new(&model).unwrap(), State::new(&model).unwrap());
            for _ in 0..steps {
                solver.simulate(&model, &mut s.0, &mut s.1, DT).unwrap();
                std::mem::swap(&mut s.0, &mut s.1);
            }
            let colours = solver
                .color_counts()
                .unwrap()
                .iter()
                .filter(|c| **c > 0)
                .count();
            assert!(colours >= 3, "the heap used {colours} colours");
        }
    }
}

#[test]
fn box_into_box_gradients_match_finite_differences() {
    let model = box_into_box();
    let w = Array::from_vec(
        Device::Cpu,
        vec![Vec3::new(1.0, 0.2, 0.0), Vec3::new(2.0, -1.0, 0.5)],
    );
    let mut v0 = Array::from_vec(Device::Cpu, model.body_qd.to_vec());
    let rep = gradcheck(&mut [&mut v0], Some(1e-3), |v, l| {
        loss_of(&model, v[0], 30, &w, l)
    })
    .unwrap();
    println!("XPBD box into box, initial velocities: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
    // The friction coefficient of each shape (plane, boxes).
    let v0 = model.body_qd.share();
    let mut mu = Array::from_vec(Device::Cpu, model.rigid_shapes.mu.to_vec());
    let rep = gradcheck(&mut [&mut mu], Some(1e-3), |m, l| {
        let mut mm = model.share();
        mm.rigid_shapes.mu = m[0].share();
        loss_of(&mm, &v0, 30, &w, l)
    })
    .unwrap();
    println!("XPBD box into box, kinetic friction: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
    let mut inv_mass = Array::from_vec(Device::Cpu, model.body_inv_mass.to_vec());
    let rep = gradcheck(&mut [&mut inv_mass], Some(1e-3), |m, l| {
        let mut mm = model.share();
        mm.body_inv_mass = m[0].share();
        loss_of(&mm, &v0, 30, &w, l)
    })
    .unwrap();
    println!("XPBD box into box, inverse masses: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
}

#[test]
fn sphere_bounce_gradients_match_finite_differences() {
    let model = bouncing_sphere();
    let w = Array::from_vec(Device::Cpu, vec![Vec3::new(1.0, -0.5, 2.0)]);
    let mut v0 = Array::from_vec(Device::Cpu, model.body_qd.to_vec());
    let rep = gradcheck(&mut [&mut v0], Some(1e-3), |v, l| {
        loss_of(&model, v[0], 30, &w, l)
    })
    .unwrap();
    println!("XPBD bouncing sphere, initial velocities: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
    let v0 = model.body_qd.share();
    let mut e = Array::from_vec(Device::Cpu, model.rigid_shapes.restitution.to_vec());
    let rep = gradcheck(&mut [&mut e], Some(1e-3), |x, l| {
        let mut mm = model.share();
        mm.rigid_shapes.restitution = x[0].share();
        loss_of(&mm, &v0, 30, &w, l)
    })
    .unwrap();
    println!("XPBD bouncing sphere, restitution: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
}
