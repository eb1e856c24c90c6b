//! Bad rigid-body input gives an `Err` that names the item.

use weft::prelude::*;
use weft_collide::Geometry;
use weft_geom::{ConvexHull, MassProperties};
use weft_sim::{BodyDesc, BodyKind, BodyMass, ModelBuilder, State, XpbdRigid};

fn err(b: &ModelBuilder) -> String {
    match b.finalize(Device::Cpu) {
        Ok(_) => panic!("finalize accepted bad input"),
        Err(e) => e.to_string(),
    }
}

fn one_box() -> (ModelBuilder, BodyDesc) {
    (
        ModelBuilder::new(),
        BodyDesc::new(Transform::from_translation(Vec3::Z)),
    )
}

#[test]
fn nan_pose_is_refused() {
    let (mut b, mut d) = one_box();
    d.pose.p.x = f32::NAN;
    let i = b.add_body(d) as i32;
    b.add_body_shape(i, Transform::IDENTITY, Geometry::Sphere { radius: 0.1 });
    let e = err(&b);
    assert!(e.starts_with("body 0:") && e.contains("pose"), "{e}");
}

#[test]
fn zero_and_negative_mass_are_refused() {
    for m in [0.0, -1.0] {
        let (mut b, mut d) = one_box();
        d.mass = BodyMass::Given(MassProperties {
            mass: m,
            com: Vec3::ZERO,
            inertia: Mat3::IDENTITY,
        });
        b.add_body(d);
        let e = err(&b);
        assert!(e.starts_with("body 0:") && e.contains("mass"), "{e}");
    }
    let (mut b, mut d) = one_box();
    d.mass = BodyMass::Density(-5.0);
    let i = b.add_body(d) as i32;
    b.add_body_shape(i, Transform::IDENTITY, Geometry::Sphere { radius: 0.1 });
    assert!(err(&b).contains("density"));
}

#[test]
fn non_positive_definite_inertia_is_refused() {
    for inertia in [
        Mat3::from_diagonal(Vec3::new(1.0, -1.0, 1.0)),
        Mat3::from_diagonal(Vec3::new(1.0, 1.0, 5.0)), // breaks the triangle inequality
    ] {
        let (mut b, mut d) = one_box();
        d.mass = BodyMass::Given(MassProperties {
            mass: 1.0,
            com: Vec3::ZERO,
            inertia,
        });
        b.add_body(d);
        let e = err(&b);
        assert!(e.starts_with("body 0:") && e.contains("inertia"), "{e}");
    }
}

#[test]
fn a_dynamic_body_without_shapes_or_mass_is_refused_but_kinematic_is_fine() {
    let (mut b, d) = one_box();
    b.add_body(d);
    assert!(err(&b).contains("no shapes"));
    let (mut b, mut d) = one_box();
    d.kind = BodyKind::Kinematic;
    b.add_body(d);
    assert!(b.finalize(Device::Cpu).is_ok());
}

#[test]
fn shape_on_a_missing_body_is_refused() {
    let (mut b, d) = one_box();
    let i = b.add_body(d) as i32;
    b.add_body_shape(i, Transform::IDENTITY, Geometry::Sphere { radius: 0.1 });
    b.add_body_shape(7, Transform::IDENTITY, Geometry::Sphere { radius: 0.1 });
    let e = err(&b);
    assert!(
        e.starts_with("rigid shape 1:") && e.contains("body 7"),
        "{e}"
    );
}

#[test]
fn empty_or_flat_convex_hulls_are_refused() {
    assert!(ConvexHull::new(&[]).is_err());
    let flat: Vec<Vec3> = (0..10)
        .map(|i| Vec3::new(i as f32, (i * i) as f32, 0.0))
        .collect();
    let e = ConvexHull::new(&flat).unwrap_err().to_string();
    assert!(e.contains("coplanar"), "{e}");
}

#[test]
fn mass_from_shapes_uses_the_parallel_axis_theorem() {
    // Two unit-density spheres of radius 0.1 at x = ±1: the body's inertia
    // about y is 2 (2/5 m r² + m · 1²).
    let mut b = ModelBuilder::new();
    let mut d = BodyDesc::new(Transform::IDENTITY);
    d.mass = BodyMass::Density(1.0);
    let i = b.add_body(d) as i32;
    for x in [-1.0, 1.0] {
        b.add_body_shape(
            i,
            Transform::from_translation(Vec3::new(x, 0.0, 0.0)),
            Geometry::Sphere { radius: 0.1 },
        );
    }
    let m = b.finalize(Device::Cpu).unwrap();
    let mass = 4.0 / 3.0 * std::f32::consts::PI * 0.001;
    let iy = m.body_inertia.to_vec()[0].y_axis.y;
    let want = 2.0 * (0.4 * mass * 0.01 + mass);
    assert!((m.body_mass.to_vec()[0] - 2.0 * mass).abs() < 1e-6);
    assert!((iy - want).abs() < 1e-5 * want, "{iy} vs {want}");
    assert!(m.body_com.to_vec()[0].length() < 1e-7);
}

/// Bad solver settings and time steps are errors naming the setting, not a
/// silent NaN or a hang.
#[test]
fn bad_xpbd_settings_are_refused() {
    let (mut b, desc) = one_box();
    let body = b.add_body(desc) as i32;
    b.add_body_shape(
        body,
        Transform::IDENTITY,
        Geometry::Box {
            half_extents: Vec3::splat(0.1),
        },
    );
    let model = b.finalize(Device::Cpu).unwrap();
    let (mut s0, mut s1) = (State::new(&model).unwrap(), State::new(&model).unwrap());
    let mut run = |setup: &dyn Fn(&mut XpbdRigid), dt: f32| {
        let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
        setup(&mut solver);
        solver
            .simulate(&model, &mut s0, &mut s1, dt)
            .unwrap_err()
            .to_string()
    };
    let e = run(&|_| {}, f32::NAN);
    assert!(e.contains("dt"), "{e}");
    let e = run(&|s| s.substeps = 0, 0.01);
    assert!(e.contains("substeps"), "{e}");
    for bad in [0.0, -1.0, f32::NAN] {
        let e = run(&|s| s.max_depenetration_speed = bad, 0.01);
        assert!(e.contains("max_depenetration_speed"), "{e}");
    }
}
