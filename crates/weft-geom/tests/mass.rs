//! Mass properties against textbook values, tessellated solids, grid integration and
//! point-mass sums.

mod common;

use common::{Rng, RngExt};
use glam::{DMat3, DVec3, EulerRot, Mat3, Quat, Vec3};
use std::f64::consts::PI;
use weft_geom::{ConvexHull, GeomError, MassProperties, Mesh, generate};

/// Largest entry of `a - b` relative to the largest entry of `b`.
fn rel_diff(a: Mat3, b: Mat3) -> f32 {
    let scale = b.to_cols_array().iter().fold(0.0f32, |m, x| m.max(x.abs()));
    (a - b)
        .to_cols_array()
        .iter()
        .fold(0.0f32, |m, x| m.max(x.abs()))
        / scale
}

fn assert_close(a: &MassProperties, b: &MassProperties, tol: f32, size: f32) {
    assert!(
        ((a.mass - b.mass) / b.mass).abs() < tol,
        "mass {} vs {}",
        a.mass,
        b.mass
    );
    assert!(
        (a.com - b.com).length() < tol * size,
        "com {} vs {}",
        a.com,
        b.com
    );
    assert!(
        rel_diff(a.inertia, b.inertia) < tol,
        "inertia {:?} vs {:?}",
        a.inertia,
        b.inertia
    );
}

/// Mass properties of `density(p)` integrated by the midpoint rule on an `n³` grid
/// over the box `lo..hi` (an independent reference).
fn integrate(lo: Vec3, hi: Vec3, n: usize, density: impl Fn(DVec3) -> f64) -> MassProperties {
    let (lo, hi) = (lo.as_dvec3(), hi.as_dvec3());
    let cell = (hi - lo) / n as f64;
    let dv = cell.x * cell.y * cell.z;
    let (mut m, mut first, mut second) = (0.0, DVec3::ZERO, DMat3::ZERO);
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let p = lo + cell * DVec3::new(i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5);
                let rho = density(p);
                if rho != 0.0 {
                    m += rho * dv;
                    first += p * rho * dv;
                    second += DMat3::from_cols(p * p.x, p * p.y, p * p.z) * (rho * dv);
                }
            }
        }
    }
    let com = first / m;
    let c = second - DMat3::from_cols(com * com.x, com * com.y, com * com.z) * m;
    let inertia = DMat3::from_diagonal(DVec3::splat(c.x_axis.x + c.y_axis.y + c.z_axis.z)) - c;
    MassProperties {
        mass: m as f32,
        com: com.as_vec3(),
        inertia: inertia.as_mat3(),
    }
}

#[test]
fn primitives_match_textbook_values() {
    // Ball, ρ = 3, r = 2: m = 32π, I = 2/5 m r².
    let s = MassProperties::sphere(3.0, 2.0);
    let m = (32.0 * PI) as f32;
    assert!((s.mass - m).abs() < 1e-4);
    assert!(rel_diff(s.inertia, Mat3::from_diagonal(Vec3::splat(0.4 * m * 4.0))) < 1e-6);
    // Box 2 × 4 × 6, ρ = 0.5: m = 24, I_xx = m (4² + 6²) / 12.
    let b = MassProperties::cuboid(0.5, Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(b.mass, 24.0);
    let expected = Vec3::new(16.0 + 36.0, 4.0 + 36.0, 4.0 + 16.0) * 2.0;
    assert!(rel_diff(b.inertia, Mat3::from_diagonal(expected)) < 1e-6);
    // Cylinder r = 1, length 4, ρ = 1: m = 4π, I_zz = m/2, I_xx = m (3 + 16) / 12.
    let c = MassProperties::cylinder(1.0, 1.0, 2.0);
    let m = (4.0 * PI) as f32;
    assert!((c.mass - m).abs() < 1e-5);
    let expected = Vec3::new(m * 19.0 / 12.0, m * 19.0 / 12.0, m / 2.0);
    assert!(rel_diff(c.inertia, Mat3::from_diagonal(expected)) < 1e-6);
    for p in [s, b, c] {
        assert_eq!(p.com, Vec3::ZERO);
        p.validate().unwrap();
    }
}

#[test]
fn capsule_and_cylinder_match_grid_integration() {
    let (r, h) = (0.4f64, 0.7f64);
    let capsule = MassProperties::capsule(2.0, r as f32, h as f32);
    let reference = integrate(
        Vec3::new(-0.4, -0.4, -1.1),
        Vec3::new(0.4, 0.4, 1.1),
        160,
        |p| {
            let axis = DVec3::new(0.0, 0.0, p.z.clamp(-h, h));
            if (p - axis).length() <= r { 2.0 } else { 0.0 }
        },
    );
    assert_close(&capsule, &reference, 5e-3, 1.0);
    let cylinder = MassProperties::cylinder(2.0, r as f32, h as f32);
    let reference = integrate(
        Vec3::new(-0.4, -0.4, -0.7),
        Vec3::new(0.4, 0.4, 0.7),
        160,
        |p| {
            if p.x * p.x + p.y * p.y <= r * r {
                2.0
            } else {
                0.0
            }
        },
    );
    assert_close(&cylinder, &reference, 5e-3, 1.0);
    // A capsule is its cylinder plus a ball split in two halves moved apart: it is
    // heavier and harder to spin about X than either.
    let ball = MassProperties::sphere(2.0, r as f32);
    assert!((capsule.mass - cylinder.mass - ball.mass).abs() < 1e-5);
    assert!(capsule.inertia.x_axis.x > cylinder.inertia.x_axis.x + ball.inertia.x_axis.x);
}

#[test]
fn tessellated_box_gives_the_cuboid_exactly_wherever_it_is() {
    let h = Vec3::new(0.3, 1.2, 0.5);
    let q = Quat::from_euler(EulerRot::XYZ, 0.4, -0.9, 1.3);
    let t = Vec3::new(5.0, -3.0, 2.0);
    let mut mesh = generate::cuboid(h);
    for p in mesh.points_mut() {
        *p = q * *p + t;
    }
    let from_mesh = MassProperties::mesh(7.0, &mesh).unwrap();
    let expected = MassProperties::cuboid(7.0, h).transformed(q, t);
    assert_close(&from_mesh, &expected, 2e-5, 1.0);
    // The hull of the box's corners and interior points gives the same.
    let mut points = mesh.points().to_vec();
    let mut rng = Rng::new(9);
    points.extend((0..100).map(|_| q * (rng.vec3(-1.0, 1.0) * h) + t));
    let hull = ConvexHull::new(&points).unwrap();
    assert_close(&MassProperties::convex(7.0, &hull), &expected, 2e-5, 1.0);
}

#[test]
fn icosphere_approaches_the_ball() {
    let ball = MassProperties::sphere(3.0, 1.5);
    let mut previous = f32::INFINITY;
    for (subdivisions, tol) in [(2, 0.08), (4, 6e-3)] {
        let mesh = MassProperties::mesh(3.0, &generate::icosphere(1.5, subdivisions)).unwrap();
        assert_close(&mesh, &ball, tol, 1.5);
        let err = (mesh.mass - ball.mass).abs();
        assert!(err < previous / 4.0);
        previous = err;
    }
}

#[test]
fn sum_of_placed_shapes_matches_grid_integration() {
    // A box of density 2 and, beside it, a tilted cylinder of density 5.
    let hb = Vec3::new(0.5, 0.3, 0.2);
    let q = Quat::from_rotation_y(0.6) * Quat::from_rotation_x(0.3);
    let t = Vec3::new(0.9, 0.2, 0.1);
    let (r, hc) = (0.25f32, 0.3f32);
    let sum =
        MassProperties::cuboid(2.0, hb) + MassProperties::cylinder(5.0, r, hc).transformed(q, t);
    sum.validate().unwrap();
    let inv = q.inverse().as_dquat();
    let reference = integrate(
        Vec3::new(-0.5, -0.5, -0.5),
        Vec3::new(1.5, 0.8, 0.8),
        200,
        |p| {
            let b = p.abs();
            if b.x <= 0.5 && b.y <= 0.3 && b.z <= 0.2 {
                return 2.0;
            }
            let l = inv * (p - t.as_dvec3());
            if l.z.abs() <= hc as f64 && l.x * l.x + l.y * l.y <= (r * r) as f64 {
                5.0
            } else {
                0.0
            }
        },
    );
    assert_close(&sum, &reference, 5e-3, 1.0);
}

#[test]
fn parallel_axis_and_sums_match_point_masses() {
    let mut rng = Rng::new(11);
    let masses: Vec<(f32, Vec3)> = (0..20)
        .map(|_| (rng.range(0.1, 2.0), rng.vec3(-1.0, 2.0)))
        .collect();
    // Brute force: inertia of point masses about `o` is Σ m (|r|² 1 − r rᵀ), r = x − o.
    let about = |o: DVec3| {
        masses.iter().fold(DMat3::ZERO, |acc, &(m, x)| {
            let r = x.as_dvec3() - o;
            acc + (DMat3::from_diagonal(DVec3::splat(r.length_squared()))
                - DMat3::from_cols(r * r.x, r * r.y, r * r.z))
                * m as f64
        })
    };
    let sum: MassProperties = masses
        .iter()
        .map(|&(mass, com)| MassProperties {
            mass,
            com,
            inertia: Mat3::ZERO,
        })
        .sum();
    let total: f32 = masses.iter().map(|m| m.0).sum();
    let com = masses.iter().map(|&(m, x)| x * m).sum::<Vec3>() / total;
    assert!((sum.mass - total).abs() < 1e-5);
    assert!((sum.com - com).length() < 1e-5);
    assert!(rel_diff(sum.inertia, about(com.as_dvec3()).as_mat3()) < 1e-5);
    let o = Vec3::new(3.0, -1.0, 0.5);
    assert!(rel_diff(sum.inertia_about(o), about(o.as_dvec3()).as_mat3()) < 1e-5);
}

#[test]
fn principal_axes_reconstruct_the_tensor() {
    let q = Quat::from_euler(EulerRot::ZYX, 0.7, 0.2, -1.4);
    let body = MassProperties::cuboid(1.0, Vec3::new(0.1, 0.5, 0.3)).transformed(q, Vec3::ONE);
    let (moments, axes) = body.principal();
    let box_moments = MassProperties::cuboid(1.0, Vec3::new(0.1, 0.5, 0.3))
        .inertia
        .diagonal();
    let mut sorted = box_moments.to_array();
    sorted.sort_by(f32::total_cmp);
    assert!((moments - Vec3::from_array(sorted)).abs().max_element() < 1e-6);
    let r = Mat3::from_quat(axes);
    let back = r * Mat3::from_diagonal(moments) * r.transpose();
    assert!(rel_diff(back, body.inertia) < 1e-5);
    // The largest moment is about the box's shortest side, its x axis, rotated by q.
    assert!((r.z_axis.dot(q * Vec3::X).abs() - 1.0).abs() < 1e-5);
}

#[test]
fn bad_properties_and_meshes_are_refused_with_reasons() {
    let what = |p: MassProperties| match p.validate() {
        Err(GeomError::InvalidMassProperties { what, message }) => {
            format!("{what}: {message}")
        }
        other => panic!("expected InvalidMassProperties, got {other:?}"),
    };
    assert!(what(MassProperties::sphere(0.0, 1.0)).starts_with("mass"));
    assert!(what(MassProperties::cuboid(-1.0, Vec3::ONE)).starts_with("mass"));
    assert!(what(MassProperties::sphere(1.0, f32::NAN)).starts_with("mass"));
    let ok = MassProperties::sphere(1.0, 1.0);
    let mut p = ok;
    p.com.x = f32::INFINITY;
    assert!(what(p).starts_with("centre of mass"));
    p = ok;
    p.inertia.x_axis.y = 0.3;
    assert!(what(p).contains("not symmetric"));
    p = ok;
    p.inertia = Mat3::from_diagonal(Vec3::new(1.0, 1.0, -0.5));
    assert!(what(p).contains("not positive definite"));
    p.inertia = Mat3::from_diagonal(Vec3::new(1.0, 1.0, 3.0));
    assert!(what(p).contains("triangle inequality"));
    p.inertia = Mat3::from_cols(Vec3::new(1.0, 2.0, 0.0), Vec3::new(2.0, 1.0, 0.0), Vec3::Z);
    assert!(what(p).contains("not positive definite"));
    // A flat plate is the limit: its moments satisfy the inequality with equality.
    MassProperties::cuboid(1.0, Vec3::new(1.0, 2.0, 1e-3))
        .validate()
        .unwrap();

    let cube = generate::cuboid(Vec3::ONE);
    let (points, _, tris) = cube.clone().into_parts();
    let flipped = tris.iter().map(|&[a, b, c]| [a, c, b]).collect();
    let inside_out = Mesh::new(points.clone(), flipped).unwrap();
    for mesh in [inside_out, generate::plane(1.0, 1.0, 2, 2)] {
        let err = MassProperties::mesh(1.0, &mesh).unwrap_err();
        assert!(matches!(err, GeomError::InvalidVolume { .. }), "{err}");
        assert!(err.to_string().contains("inside out"));
    }
}
