//! Gradients through rigid contacts (semi-implicit Euler, penalty contacts)
//! against central finite differences: initial velocities, inverse masses and
//! contact materials, for a sphere bouncing and a box sliding into a box.

use weft::prelude::*;
use weft_collide::{Geometry, Material, ShapeDesc};
use weft_sim::{BodyDesc, Model, ModelBuilder, SemiImplicit, SimError, State};

/// `loss[0] = Σ_b w_b · p_b` over the final body positions.
#[weft::kernel]
fn pose_loss(q: &Array<Transform>, w: &Array<Vec3>, loss: &mut Array<f32>) {
    let b = tid();
    atomic_add(&mut loss[0], dot(w[b], q[b].p));
}

struct Rollout {
    states: Vec<State>,
    solver: SemiImplicit,
    w: Array<Vec3>,
}

impl Rollout {
    fn new(model: &Model, steps: usize, w: Vec<Vec3>) -> Rollout {
        Rollout {
            states: (0..=steps).map(|_| State::new(model).unwrap()).collect(),
            solver: SemiImplicit::new(),
            w: Array::from_vec(model.device(), w),
        }
    }

    fn loss(
        &mut self,
        model: &Model,
        v0: &Array<SpatialVector>,
        loss: &mut Array<f32>,
    ) -> Result<(), weft::Error> {
        let steps = self.states.len() - 1;
        self.states[0].body_qd = v0.share();
        let control = weft_sim::Control::empty(model.device());
        for k in 0..steps {
            let (done, next) = self.states.split_at_mut(k + 1);
            self.solver
                .simulate(model, &mut done[k], &mut next[0], &control, 1e-3)
                .map_err(|e: SimError| weft::Error::Shape(e.to_string()))?;
        }
        loss.fill(0.0);
        pose_loss::launch(
            model.body_count(),
            &self.states[steps].body_q,
            &self.w,
            loss,
        )
    }
}

/// A soft material without damping: the penalty force is then continuous at
/// touch-down (with damping `kd`, the force jumps by `kd · v` when the gap
/// closes, and finite differences across that jump disagree with the tape by
/// 30–40 %: `kd = 50` gave 4.6e-2 vs 1.1e-1).
fn soft() -> Material {
    Material {
        mu: 0.4,
        mu_static: 0.4,
        ke: 2.0e4,
        kd: 0.0,
        kf: 200.0,
        ..Material::default()
    }
}

/// A sphere thrown at the ground: it bounces off the penalty spring while
/// friction slows it.
fn bouncing_sphere() -> Model {
    let mut b = ModelBuilder::new();
    b.ground = None;
    let mut plane = ShapeDesc::new(
        -1,
        Transform::IDENTITY,
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
    );
    plane.material = soft();
    b.add_rigid_shape(plane);
    let mut d = BodyDesc::new(Transform::from_translation(Vec3::new(0.0, 0.0, 0.12)));
    d.velocity = SpatialVector::new(Vec3::new(1.0, 0.3, -1.5), Vec3::new(0.0, 2.0, 0.0));
    let s = b.add_body(d) as i32;
    b.add_body_shape_with(
        s,
        Transform::IDENTITY,
        Geometry::Sphere { radius: 0.1 },
        soft(),
    );
    b.finalize(Device::Cpu).unwrap()
}

/// A box sliding on the ground into a resting box.
fn box_into_box() -> Model {
    let mut b = ModelBuilder::new();
    b.ground = None;
    let mut plane = ShapeDesc::new(
        -1,
        Transform::IDENTITY,
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
    );
    plane.material = soft();
    b.add_rigid_shape(plane);
    for (x, vx) in [(0.0, 2.0), (0.3, 0.0)] {
        let mut d = BodyDesc::new(Transform::from_translation(Vec3::new(x, 0.0, 0.099)));
        d.velocity = SpatialVector::new(Vec3::new(vx, 0.05, 0.0), Vec3::ZERO);
        let s = b.add_body(d) as i32;
        b.add_body_shape_with(
            s,
            Transform::IDENTITY,
            Geometry::Box {
                half_extents: Vec3::splat(0.1),
            },
            soft(),
        );
    }
    b.finalize(Device::Cpu).unwrap()
}

fn check_velocities(model: &Model, steps: usize, w: Vec<Vec3>, what: &str) -> weft::GradCheck {
    let mut r = Rollout::new(model, steps, w);
    let mut v0 = Array::from_vec(Device::Cpu, model.body_qd.to_vec());
    let rep = gradcheck(&mut [&mut v0], Some(1e-3), |v, loss| {
        r.loss(model, v[0], loss)
    })
    .unwrap();
    println!("{what}, initial velocities: {rep}");
    rep
}

#[test]
fn sphere_bounce_gradients_match_finite_differences() {
    let model = bouncing_sphere();
    // The contact lasts ~40 of the 150 steps.
    let rep = check_velocities(
        &model,
        150,
        vec![Vec3::new(1.0, -0.5, 2.0)],
        "bouncing sphere",
    );
    assert!(rep.max_rel < 2e-2, "{rep}");
    // Inverse mass and the contact stiffness of the plane.
    let mut r = Rollout::new(&model, 150, vec![Vec3::new(1.0, -0.5, 2.0)]);
    let v0 = model.body_qd.share();
    let mut inv_mass = Array::from_vec(Device::Cpu, model.body_inv_mass.to_vec());
    // Over ±1e-3 (0.4 % of the inverse mass) the differences ride the
    // curvature of the loss's friction kinks (one-sided differences at ±0.4 %:
    // 0.202 and 0.229, at ±0.03 %: 0.1998 and 0.1894, tape 0.1964), so this
    // check takes a step of 1e-4 (0.04 %).
    let rep = gradcheck(&mut [&mut inv_mass], Some(1e-4), |m, loss| {
        let mut mm = model.share();
        mm.body_inv_mass = m[0].share();
        r.loss(&mm, &v0, loss)
    })
    .unwrap();
    println!("bouncing sphere, inverse mass: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
    let mut ke = Array::from_vec(Device::Cpu, model.rigid_shapes.ke.to_vec());
    let rep = gradcheck(&mut [&mut ke], Some(1e-3), |k, loss| {
        let mut mm = model.share();
        mm.rigid_shapes.ke = k[0].share();
        r.loss(&mm, &v0, loss)
    })
    .unwrap();
    println!("bouncing sphere, contact stiffness: {rep}");
    assert!(rep.max_rel < 2e-2, "{rep}");
}

#[test]
fn box_into_box_gradients_match_finite_differences() {
    let model = box_into_box();
    let rep = check_velocities(
        &model,
        150,
        vec![Vec3::new(1.0, 0.2, 0.0), Vec3::new(2.0, -1.0, 0.5)],
        "box into box",
    );
    assert!(rep.max_rel < 5e-2, "{rep}");
}
