//! Speculative contacts of moving shapes (`CollisionPipeline::collide_moving`):
//! a pair is a candidate when its swept boxes overlap, and gets contacts when
//! the two can close the gap during the step *relative to each other* — shapes
//! falling side by side at one speed are neither (a falling lattice of 262,144
//! shapes once overflowed 11 M candidate pairs with boxes grown by each shape's
//! own speed in every direction).

use weft::prelude::*;
use weft_collide::{CollisionOptions, CollisionPipeline, Geometry, ShapeDesc, ShapeSet};

const DT: f32 = 1.0 / 60.0;

fn sphere(body: i32) -> ShapeDesc {
    ShapeDesc::new(body, Transform::IDENTITY, Geometry::Sphere { radius: 0.1 })
}

/// The report and the gaps of the contacts of spheres at `p` moving at `v`,
/// with room for `pairs` candidate pairs.
fn collide(p: &[Vec3], v: &[Vec3], pairs: usize) -> (weft_collide::ContactReport, Vec<f32>) {
    let shapes: Vec<ShapeDesc> = (0..p.len() as i32).map(sphere).collect();
    let set = ShapeSet::new(Device::Cpu, &shapes, p.len()).unwrap();
    let opts = CollisionOptions {
        pair_capacity: Some(pairs),
        ..Default::default()
    };
    let mut pipe = CollisionPipeline::new(&set, p.len(), opts).unwrap();
    let q: Vec<Transform> = p.iter().map(|&p| Transform::from_translation(p)).collect();
    let qd: Vec<SpatialVector> = v
        .iter()
        .map(|&v| SpatialVector::new(v, Vec3::ZERO))
        .collect();
    let (q, qd) = (
        Array::from_slice(Device::Cpu, &q),
        Array::from_slice(Device::Cpu, &qd),
    );
    pipe.collide_moving(&set, &q, &qd, DT).unwrap();
    let report = pipe.report().unwrap();
    let c = &pipe.contacts;
    let (pa, pb, n) = (c.point_a.to_vec(), c.point_b.to_vec(), c.normal.to_vec());
    let (sa, sb) = (c.shape_a.to_vec(), c.shape_b.to_vec());
    let gaps = (0..report.stored)
        .map(|i| {
            // Sphere centres are the body origins; the contact points are the
            // centres in the body frames, each surface 0.1 away along n.
            let (a, b) = (p[sa[i] as usize] + pa[i], p[sb[i] as usize] + pb[i]);
            n[i].dot(b - a) - 0.2
        })
        .collect();
    (report, gaps)
}

#[test]
fn shapes_falling_side_by_side_at_one_speed_make_no_contacts() {
    // A 3×3×3 lattice 0.35 m apart falling at 20 m/s: each moves 0.33 m this
    // step (counted up to the largest radius, 0.1 m), further than the 0.15 m
    // gaps, but none closes on another. Boxes grown by that in every direction
    // made every neighbour, diagonals too, a candidate with a contact.
    let mut p = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                p.push(Vec3::new(i as f32, j as f32, k as f32) * 0.35);
            }
        }
    }
    let v = vec![Vec3::new(0.0, 0.0, -20.0); p.len()];
    // Only the 18 vertical neighbours (9 columns × 2) can be candidates: the
    // swept boxes reach down into the box below.
    let (report, gaps) = collide(&p, &v, 18);
    assert_eq!(report.pair_overflow, 0, "{report:?}");
    assert_eq!(
        report.found, 0,
        "speculative contacts of a rigid fall: {gaps:?}"
    );
}

#[test]
fn shapes_closing_in_get_a_speculative_contact_with_the_true_gap() {
    // Head-on at 10 m/s each: each moves 0.17 m this step (counted up to the
    // largest radius, 0.1 m), the gap is 0.15 m.
    let p = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.35, 0.0, 0.0)];
    let v = [Vec3::new(10.0, 0.0, 0.0), Vec3::new(-10.0, 0.0, 0.0)];
    let (report, gaps) = collide(&p, &v, 16);
    assert_eq!(report.found, 1, "{report:?}");
    assert!((gaps[0] - 0.15).abs() < 1e-5, "gap {}", gaps[0]);
    // Moving apart at the same speeds: no contact.
    let (report, _) = collide(&p, &[v[1], v[0]], 16);
    assert_eq!(report.found, 0, "{report:?}");
    // One chasing the other at the same speed: no contact either.
    let (report, _) = collide(&p, &[v[0], v[0]], 16);
    assert_eq!(report.found, 0, "{report:?}");
}

#[test]
fn a_shape_falling_onto_a_static_one_gets_its_contact() {
    let shapes = [
        ShapeDesc::new(
            -1,
            Transform::IDENTITY,
            Geometry::Plane {
                half_extents: Vec2::ZERO,
            },
        ),
        sphere(0),
    ];
    let set = ShapeSet::new(Device::Cpu, &shapes, 1).unwrap();
    let mut pipe = CollisionPipeline::new(&set, 1, Default::default()).unwrap();
    let q = Array::from_slice(
        Device::Cpu,
        &[Transform::from_translation(Vec3::new(0.0, 0.0, 0.15))],
    );
    let fall = |speed: f32| {
        Array::from_slice(
            Device::Cpu,
            &[SpatialVector::new(Vec3::new(0.0, 0.0, -speed), Vec3::ZERO)],
        )
    };
    // 5 cm above the plane: 20 m/s reaches it within the step (its reach
    // counted up to the largest radius, 0.1 m), 2 m/s (3.3 cm) not.
    pipe.collide_moving(&set, &q, &fall(20.0), DT).unwrap();
    assert_eq!(pipe.report().unwrap().found, 1);
    pipe.collide_moving(&set, &q, &fall(2.0), DT).unwrap();
    assert_eq!(pipe.report().unwrap().found, 0);
}
