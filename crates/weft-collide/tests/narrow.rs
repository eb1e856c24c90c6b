//! The narrow phase against geometry worked out by hand: resting manifolds,
//! gaps, normals, and the overflow count.

use weft::prelude::*;
use weft_collide::{CollisionOptions, CollisionPipeline, Contact, Geometry, ShapeDesc, ShapeSet};

fn plane() -> ShapeDesc {
    ShapeDesc::new(
        -1,
        Transform::IDENTITY,
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
    )
}

fn on(body: i32, g: Geometry) -> ShapeDesc {
    ShapeDesc::new(body, Transform::IDENTITY, g)
}

/// Contacts of `shapes` with bodies at `poses`, and the gap of each (world).
fn contacts(
    shapes: &[ShapeDesc],
    poses: &[Transform],
    opts: CollisionOptions,
) -> Vec<(Contact, f32)> {
    let set = ShapeSet::new(Device::Cpu, shapes, poses.len()).unwrap();
    let mut p = CollisionPipeline::new(&set, poses.len(), opts).unwrap();
    let q = Array::from_slice(Device::Cpu, poses);
    p.collide(&set, &q).unwrap();
    let r = p.report().unwrap();
    assert_eq!(r.overflow, 0);
    let body = |s: i32| shapes[s as usize].body;
    let pose = |s: i32| {
        if body(s) >= 0 {
            poses[body(s) as usize]
        } else {
            Transform::IDENTITY
        }
    };
    p.contacts
        .to_host()
        .unwrap()
        .into_iter()
        .map(|c| {
            let pa = pose(c.shape_a).transform_point(c.point_a);
            let pb = pose(c.shape_b).transform_point(c.point_b);
            let gap = c.normal.dot(pb - pa) - c.radius_a - c.radius_b;
            (c, gap)
        })
        .collect()
}

fn at(p: Vec3) -> Transform {
    Transform::from_translation(p)
}

fn rot(p: Vec3, axis: Vec3, angle: f32) -> Transform {
    Transform::new(p, Quat::from_axis_angle(axis.normalize(), angle))
}

#[test]
fn box_resting_on_plane_has_four_corner_contacts() {
    let b = Geometry::Box {
        half_extents: Vec3::new(0.5, 0.3, 0.2),
    };
    let cs = contacts(
        &[plane(), on(0, b.clone())],
        &[at(Vec3::new(1.0, 2.0, 0.19))],
        Default::default(),
    );
    assert_eq!(cs.len(), 4);
    for (c, gap) in &cs {
        assert!((gap + 0.01).abs() < 1e-5, "gap {gap}");
        assert!((c.normal - Vec3::Z).length() < 1e-6);
    }
}

#[test]
fn tilted_box_touches_plane_with_its_lowest_corner_only() {
    let b = Geometry::Box {
        half_extents: Vec3::splat(0.5),
    };
    let q = Quat::from_rotation_x(0.3) * Quat::from_rotation_y(0.4);
    let lowest = (0..8)
        .map(|k| {
            let c = Vec3::new(
                if k & 1 != 0 { -0.5 } else { 0.5 },
                if k & 2 != 0 { -0.5 } else { 0.5 },
                if k & 4 != 0 { -0.5 } else { 0.5 },
            );
            (q * c).z
        })
        .fold(f32::INFINITY, f32::min);
    let cs = contacts(
        &[plane(), on(0, b.clone())],
        &[Transform::new(Vec3::new(0.0, 0.0, -lowest + 0.002), q)],
        Default::default(),
    );
    assert_eq!(cs.len(), 1);
    assert!((cs[0].1 - 0.002).abs() < 1e-5, "gap {}", cs[0].1);
}

#[test]
fn spheres_report_centre_distance_minus_radii() {
    let s = |r| Geometry::Sphere { radius: r };
    let cs = contacts(
        &[on(0, s(0.5)), on(1, s(0.25))],
        &[at(Vec3::ZERO), at(Vec3::new(0.3, 0.4, 0.0))],
        Default::default(),
    );
    assert_eq!(cs.len(), 1);
    let (c, gap) = cs[0];
    assert!((gap - (0.5 - 0.75)).abs() < 1e-6);
    let n = if c.shape_a == 0 {
        Vec3::new(0.6, 0.8, 0.0)
    } else {
        -Vec3::new(0.6, 0.8, 0.0)
    };
    assert!((c.normal - n).length() < 1e-6);
    // Too far: nothing.
    let far = contacts(
        &[on(0, s(0.5)), on(1, s(0.25))],
        &[at(Vec3::ZERO), at(Vec3::new(0.8, 0.0, 0.0))],
        Default::default(),
    );
    assert!(far.is_empty());
}

#[test]
fn sphere_against_box_face_edge_and_inside() {
    let bx = Geometry::Box {
        half_extents: Vec3::new(1.0, 0.5, 0.25),
    };
    let sp = Geometry::Sphere { radius: 0.1 };
    // Above the top face, over a corner region, and with the centre inside.
    for (centre, want) in [
        (Vec3::new(0.3, 0.2, 0.3), 0.3 - 0.25 - 0.1),
        (
            Vec3::new(1.05, 0.55, 0.0),
            (0.05f32 * 0.05 * 2.0).sqrt() - 0.1,
        ),
        (Vec3::new(0.9, 0.0, 0.0), -(0.1 + 0.1)),
    ] {
        let cs = contacts(
            &[on(0, bx.clone()), on(1, sp.clone())],
            &[at(Vec3::ZERO), at(centre)],
            Default::default(),
        );
        assert_eq!(cs.len(), 1, "{centre}");
        assert!(
            (cs[0].1 - want).abs() < 1e-5,
            "{centre}: gap {} want {want}",
            cs[0].1
        );
    }
}

#[test]
fn stacked_boxes_give_a_four_point_manifold() {
    let b = Geometry::Box {
        half_extents: Vec3::splat(0.05),
    };
    let cs = contacts(
        &[on(0, b.clone()), on(1, b.clone())],
        &[
            at(Vec3::new(0.0, 0.0, 0.05)),
            at(Vec3::new(0.01, 0.0, 0.149)),
        ],
        Default::default(),
    );
    assert_eq!(cs.len(), 4, "{cs:?}");
    for (c, gap) in &cs {
        assert!((gap + 0.001).abs() < 1e-5, "gap {gap}");
        let up = if c.shape_a == 0 { Vec3::Z } else { -Vec3::Z };
        assert!((c.normal - up).length() < 1e-5);
    }
}

#[test]
fn a_box_turned_45_degrees_on_another_gives_eight_points() {
    let b = Geometry::Box {
        half_extents: Vec3::splat(0.5),
    };
    let cs = contacts(
        &[on(0, b.clone()), on(1, b.clone())],
        &[
            at(Vec3::ZERO),
            rot(
                Vec3::new(0.0, 0.0, 0.999),
                Vec3::Z,
                std::f32::consts::FRAC_PI_4,
            ),
        ],
        Default::default(),
    );
    assert_eq!(cs.len(), 8, "{cs:?}");
    for (_, gap) in &cs {
        assert!((gap + 0.001).abs() < 1e-5, "gap {gap}");
    }
}

#[test]
fn crossed_edges_give_one_edge_contact() {
    // Two unit cubes, each rotated 45° about a horizontal axis (x for the lower,
    // y for the upper) so their ridge edges cross.
    let b = Geometry::Box {
        half_extents: Vec3::splat(0.5),
    };
    let h = 0.5 * 2f32.sqrt();
    let cs = contacts(
        &[on(0, b.clone()), on(1, b.clone())],
        &[
            rot(Vec3::ZERO, Vec3::X, std::f32::consts::FRAC_PI_4),
            rot(
                Vec3::new(0.0, 0.0, 2.0 * h - 0.003),
                Vec3::Y,
                std::f32::consts::FRAC_PI_4,
            ),
        ],
        Default::default(),
    );
    assert_eq!(cs.len(), 1, "{cs:?}");
    assert!((cs[0].1 + 0.003).abs() < 1e-4, "gap {}", cs[0].1);
}

#[test]
fn parallel_capsules_touch_at_both_ends_of_the_overlap() {
    let c = Geometry::Capsule {
        radius: 0.1,
        half_height: 0.5,
    };
    let lying = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    let cs = contacts(
        &[on(0, c.clone()), on(1, c.clone())],
        &[
            Transform::new(Vec3::ZERO, lying),
            Transform::new(Vec3::new(0.3, 0.0, 0.195), lying),
        ],
        Default::default(),
    );
    assert_eq!(cs.len(), 2, "{cs:?}");
    for (_, gap) in &cs {
        assert!((gap + 0.005).abs() < 1e-5);
    }
}

#[test]
fn capsule_on_plane_and_across_a_box_edge() {
    let c = Geometry::Capsule {
        radius: 0.1,
        half_height: 0.5,
    };
    let lying = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    let cs = contacts(
        &[plane(), on(0, c.clone())],
        &[Transform::new(Vec3::new(0.0, 0.0, 0.095), lying)],
        Default::default(),
    );
    assert_eq!(cs.len(), 2);
    // Across the top edge of a box: the middle of the capsule is deepest.
    let bx = Geometry::Box {
        half_extents: Vec3::splat(0.5),
    };
    let across = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let cs = contacts(
        &[on(0, bx.clone()), on(1, c.clone())],
        &[
            at(Vec3::ZERO),
            Transform::new(Vec3::new(0.0, 0.0, 0.59), across),
        ],
        Default::default(),
    );
    let deepest = cs.iter().map(|c| c.1).fold(f32::INFINITY, f32::min);
    assert!((deepest + 0.01).abs() < 1e-4, "{cs:?}");
}

#[test]
fn overflow_is_counted_not_hidden() {
    let b = Geometry::Box {
        half_extents: Vec3::splat(0.5),
    };
    let set = ShapeSet::new(Device::Cpu, &[plane(), on(0, b.clone())], 1).unwrap();
    let opts = CollisionOptions {
        contact_capacity: Some(3),
        ..Default::default()
    };
    let mut p = CollisionPipeline::new(&set, 1, opts).unwrap();
    let q = Array::from_slice(Device::Cpu, &[at(Vec3::new(0.0, 0.0, 0.5))]);
    p.collide(&set, &q).unwrap();
    let r = p.report().unwrap();
    assert_eq!((r.found, r.stored, r.overflow), (4, 3, 1));
    let err = r.check().unwrap_err().to_string();
    assert!(err.contains("contact_capacity"), "{err}");
}

#[test]
fn filters_and_worlds_keep_pairs_apart() {
    let s = Geometry::Sphere { radius: 0.5 };
    let mut a = on(0, s.clone());
    let mut b = on(1, s.clone());
    let poses = [at(Vec3::ZERO), at(Vec3::new(0.5, 0.0, 0.0))];
    assert_eq!(
        contacts(&[a.clone(), b.clone()], &poses, Default::default()).len(),
        1
    );
    b.world = 1;
    assert!(contacts(&[a.clone(), b.clone()], &poses, Default::default()).is_empty());
    b.world = 0;
    a.filter.mask = 2;
    assert!(contacts(&[a.clone(), b.clone()], &poses, Default::default()).is_empty());
    // Two shapes of one body never collide.
    assert!(
        contacts(
            &[on(0, s.clone()), on(0, s.clone())],
            &poses[..1],
            Default::default()
        )
        .is_empty()
    );
    // A shape skips its `skip_body`'s shapes (a link and its parent), either
    // way round, and only those.
    a.filter.mask = u32::MAX;
    b.skip_body = 0;
    assert!(contacts(&[a.clone(), b.clone()], &poses, Default::default()).is_empty());
    assert!(contacts(&[b.clone(), a.clone()], &poses, Default::default()).is_empty());
    let c = on(2, s.clone());
    let three = [
        at(Vec3::ZERO),
        at(Vec3::new(0.5, 0.0, 0.0)),
        at(Vec3::new(0.25, 0.4, 0.0)),
    ];
    let found = contacts(&[a.clone(), b.clone(), c], &three, Default::default());
    let pairs: Vec<(i32, i32)> = found.iter().map(|(c, _)| (c.shape_a, c.shape_b)).collect();
    assert_eq!(found.len(), 2, "{pairs:?}");
    assert!(pairs.iter().all(|&(x, y)| x == 2 || y == 2), "{pairs:?}");
}

#[test]
fn bad_shapes_are_errors_naming_the_shape() {
    let err = |shapes: &[ShapeDesc]| {
        ShapeSet::new(Device::Cpu, shapes, 1)
            .unwrap_err()
            .to_string()
    };
    assert!(err(&[plane(), on(3, Geometry::Sphere { radius: 1.0 })]).contains("shape 1"));
    assert!(err(&[on(0, Geometry::Sphere { radius: -1.0 })]).contains("radius"));
    assert!(
        err(&[on(
            0,
            Geometry::Box {
                half_extents: Vec3::new(1.0, f32::NAN, 1.0)
            }
        )])
        .contains("half extents")
    );
    assert!(
        err(&[on(
            0,
            Geometry::Plane {
                half_extents: Vec2::ZERO
            }
        )])
        .contains("static")
    );
    let mut s = on(0, Geometry::Sphere { radius: 1.0 });
    s.transform.q = Quat::from_xyzw(0.0, 0.0, 0.0, 2.0);
    assert!(err(&[s]).contains("unit quaternion"));
    let mut s = on(0, Geometry::Sphere { radius: 1.0 });
    s.skip_body = 5;
    assert!(err(&[s]).contains("skips body 5"));
}
