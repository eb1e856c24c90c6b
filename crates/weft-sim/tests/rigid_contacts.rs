//! Rigid contacts against analytic physics: rebound height, friction on an
//! incline (sticking and sliding), rolling without slipping, resting stacks.

use weft::prelude::*;
use weft_collide::{Geometry, Material, ShapeDesc};
use weft_sim::{BodyDesc, Model, ModelBuilder, State, XpbdRigid};

/// Runs `steps` steps of `dt`, calling `each` with the state after every step.
fn run(
    model: &Model,
    solver: &mut XpbdRigid,
    steps: usize,
    dt: f32,
    mut each: impl FnMut(&State),
) -> State {
    let (mut s0, mut s1) = (State::new(model).unwrap(), State::new(model).unwrap());
    for _ in 0..steps {
        solver.simulate(model, &mut s0, &mut s1, dt).unwrap();
        std::mem::swap(&mut s0, &mut s1);
        each(&s0);
    }
    s0
}

fn material(mu: f32, restitution: f32) -> Material {
    Material {
        mu,
        mu_static: mu,
        restitution,
        ..Material::default()
    }
}

#[test]
fn ball_dropped_from_one_metre_rebounds_to_e_squared() {
    let e = 0.8;
    let r = 0.05;
    let mut b = ModelBuilder::new();
    b.ground = None;
    let mut plane = ShapeDesc::new(
        -1,
        Transform::IDENTITY,
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
    );
    plane.material = material(0.5, e);
    b.add_rigid_shape(plane);
    let ball = b.add_body(BodyDesc::new(Transform::from_translation(Vec3::new(
        0.0,
        0.0,
        1.0 + r,
    )))) as i32;
    b.add_body_shape_with(
        ball,
        Transform::IDENTITY,
        Geometry::Sphere { radius: r },
        material(0.5, e),
    );
    let model = b.finalize(Device::Cpu).unwrap();
    let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
    // Until well after the first bounce: the highest point after the contact.
    let mut bounced = false;
    let mut apex = 0.0f32;
    run(&model, &mut solver, 150, 1.0 / 120.0, |s| {
        let p = s.body_q.to_vec()[0].p.z - r;
        let vz = s.body_qd.to_vec()[0].top.z;
        if vz > 0.0 {
            bounced = true;
        }
        if bounced {
            apex = apex.max(p);
        }
    });
    println!("rebound apex {apex:.4} m, expected {:.4}", e * e);
    assert!((apex - e * e).abs() < 0.02 * e * e, "apex {apex}");
}

/// A body of `geometry` on a plane tilted by `angle` about the y axis (the
/// slope falls toward +x), settled on it, with friction `mu`; returns the
/// distance travelled down the slope after `t` seconds.
fn on_incline(geometry: Geometry, half_height: f32, angle: f32, mu: f32, t: f32) -> (f32, f32) {
    let mut b = ModelBuilder::new();
    b.ground = None;
    let tilt = Quat::from_rotation_y(angle);
    let mut plane = ShapeDesc::new(
        -1,
        Transform::new(Vec3::ZERO, tilt),
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
    );
    plane.material = material(mu, 0.0);
    b.add_rigid_shape(plane);
    let normal = tilt * Vec3::Z;
    let start = normal * half_height;
    let body = b.add_body(BodyDesc::new(Transform::new(start, tilt))) as i32;
    b.add_body_shape_with(body, Transform::IDENTITY, geometry, material(mu, 0.0));
    let model = b.finalize(Device::Cpu).unwrap();
    let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
    let dt = 1.0 / 120.0;
    let steps = (t / dt).round() as usize;
    let down = tilt * Vec3::X;
    let s = run(&model, &mut solver, steps, dt, |_| {});
    let x = s.body_q.to_vec()[0].p;
    ((x - start).dot(down), (x - start).dot(normal))
}

#[test]
fn box_on_incline_sticks_below_the_friction_angle() {
    let angle = 20f32.to_radians();
    let mu = 0.5; // tan 20° = 0.36 < 0.5
    let (d, lift) = on_incline(
        Geometry::Box {
            half_extents: Vec3::splat(0.05),
        },
        0.05,
        angle,
        mu,
        5.0,
    );
    println!(
        "box drift over 5 s: {:.3} mm (normal offset {:.3} mm)",
        d * 1e3,
        lift * 1e3
    );
    assert!(d.abs() < 1e-3, "drifted {d} m");
}

#[test]
fn box_on_incline_slides_with_the_coulomb_acceleration() {
    let angle = 30f32.to_radians();
    let mu = 0.3;
    let g = 9.81;
    let t = 1.0;
    let want = 0.5 * g * (angle.sin() - mu * angle.cos()) * t * t;
    let (d, _) = on_incline(
        Geometry::Box {
            half_extents: Vec3::splat(0.05),
        },
        0.05,
        angle,
        mu,
        t,
    );
    println!("box slid {d:.4} m in {t} s, Coulomb {want:.4} m");
    assert!((d - want).abs() < 0.02 * want, "slid {d}, want {want}");
}

#[test]
fn sphere_rolls_down_an_incline_at_five_sevenths_g_sin_theta() {
    let angle = 20f32.to_radians();
    let g = 9.81;
    let t = 1.0;
    let want = 0.5 * (5.0 / 7.0) * g * angle.sin() * t * t;
    let (d, _) = on_incline(Geometry::Sphere { radius: 0.1 }, 0.1, angle, 0.8, t);
    println!("sphere rolled {d:.4} m in {t} s, rolling {want:.4} m");
    assert!((d - want).abs() < 0.01 * want, "rolled {d}, want {want}");
}

#[test]
fn tower_of_ten_boxes_stands() {
    // One thread for every colour (what a CPU does for a scene this small),
    // then a launch per colour (what a GPU and large scenes do).
    for serial_per_color in [512, 0] {
        tower(serial_per_color);
    }
}

fn tower(serial_per_color: usize) {
    let h = 0.05; // 10 cm boxes of water: 1 kg
    let mut b = ModelBuilder::new();
    for k in 0..10 {
        let body = b.add_body(BodyDesc::new(Transform::from_translation(Vec3::new(
            0.0,
            0.0,
            h + 2.0 * h * k as f32,
        )))) as i32;
        b.add_body_shape(
            body,
            Transform::IDENTITY,
            Geometry::Box {
                half_extents: Vec3::splat(h),
            },
        );
    }
    let model = b.finalize(Device::Cpu).unwrap();
    let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
    solver.serial_per_color = serial_per_color;
    let mut settled = None;
    let mut step = 0;
    let s = run(&model, &mut solver, 600, 1.0 / 60.0, |s| {
        step += 1;
        if step == 60 {
            settled = Some(s.body_q.to_vec()[9].p);
        }
    });
    let q = s.body_q.to_vec();
    let top = q[9].p;
    let settled = settled.unwrap();
    // Penetration of each resting contact: the gap between neighbours' faces.
    let mut deepest = h - q[0].p.z;
    for k in 1..10 {
        deepest = deepest.max(2.0 * h - (q[k].p.z - q[k - 1].p.z));
    }
    let sink = Vec3::new(0.0, 0.0, h + 18.0 * h) - top;
    println!(
        "serial below {serial_per_color} per colour: top box sank {:.3} mm while settling (1 s), then moved {:.4} mm in 9 s; deepest contact {:.3} mm",
        sink.length() * 1e3 - (top - settled).length() * 1e3,
        (top - settled).length() * 1e3,
        deepest * 1e3
    );
    assert!(
        (top - settled).length() < 1e-3,
        "top box drifted from {settled} to {top}"
    );
    assert!(
        top.x.abs() < 1e-3 && top.y.abs() < 1e-3,
        "top box slid sideways to {top}"
    );
    assert!(deepest < 1e-3, "a contact rests {deepest} m deep");
}

#[test]
fn kinematic_platform_carries_a_box_by_friction() {
    // A kinematic slab moving at 0.5 m/s along x; a box resting on it is
    // dragged up to the slab's speed by kinetic friction (slipping v²/(2 μ g)
    // = 15.9 mm behind), then carried (static friction); the slab is not slowed.
    let mut b = ModelBuilder::new();
    b.ground = None;
    let mut slab = BodyDesc::new(Transform::from_translation(Vec3::new(0.0, 0.0, 0.0)));
    slab.kind = weft_sim::BodyKind::Kinematic;
    slab.velocity = SpatialVector::new(Vec3::new(0.5, 0.0, 0.0), Vec3::ZERO);
    let s = b.add_body(slab) as i32;
    b.add_body_shape_with(
        s,
        Transform::IDENTITY,
        Geometry::Box {
            half_extents: Vec3::new(2.0, 2.0, 0.05),
        },
        material(0.8, 0.0),
    );
    let bx = b.add_body(BodyDesc::new(Transform::from_translation(Vec3::new(
        0.0, 0.0, 0.15,
    )))) as i32;
    b.add_body_shape_with(
        bx,
        Transform::IDENTITY,
        Geometry::Box {
            half_extents: Vec3::splat(0.1),
        },
        material(0.8, 0.0),
    );
    let model = b.finalize(Device::Cpu).unwrap();
    let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
    let s = run(&model, &mut solver, 120, 1.0 / 60.0, |_| {});
    let q = s.body_q.to_vec();
    let v = s.body_qd.to_vec();
    println!(
        "after 2 s: slab x {:.4}, box x {:.4}, box vx {:.4}",
        q[0].p.x, q[1].p.x, v[1].top.x
    );
    assert!(
        (q[0].p.x - 1.0).abs() < 1e-4,
        "the kinematic slab must keep its velocity: {}",
        q[0].p.x
    );
    let lag = q[0].p.x - q[1].p.x;
    let want = 0.25 / (2.0 * 0.8 * 9.81);
    assert!(
        (lag - want).abs() < 2e-3,
        "the box lags {lag} m behind, Coulomb says {want}"
    );
    assert!((v[1].top.x - 0.5).abs() < 0.01, "box speed {}", v[1].top.x);
}
