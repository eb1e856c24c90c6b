//! Rigid bodies on triangle meshes and height fields behave as on the analytic
//! plane they tessellate: boxes and spheres dropped on a mesh floor or a flat
//! height field come to rest at their analytic height, a box sliding across a
//! tessellated floor stops where it stops on the plane without hopping on the
//! triangles' edges, and on a height-field slope a sphere rolls and a box
//! slides as on the inclined plane.

use std::sync::Arc;

use weft::prelude::*;
use weft_collide::{Geometry, Material, ShapeDesc};
use weft_geom::{HeightField, generate};
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

fn material(mu: f32) -> Material {
    Material {
        mu,
        mu_static: mu,
        restitution: 0.0,
        ..Material::default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Floor {
    Plane,
    Mesh,
    Field,
}

/// A static floor of `kind` through the origin, tilted by `angle` about the
/// y axis (falling toward +x): the plane itself, a 4 m × 4 m mesh of 16 × 16
/// split quads tilted with it, or a height field of 17 × 17 samples whose
/// heights make the slope.
fn floor(kind: Floor, angle: f32, mu: f32) -> ShapeDesc {
    let tilt = Transform::new(Vec3::ZERO, Quat::from_rotation_y(angle));
    let mut s = match kind {
        Floor::Plane => ShapeDesc::new(
            -1,
            tilt,
            Geometry::Plane {
                half_extents: Vec2::ZERO,
            },
        ),
        Floor::Mesh => ShapeDesc::new(
            -1,
            tilt,
            Geometry::Mesh {
                mesh: Arc::new(generate::plane(4.0, 4.0, 16, 16)),
                scale: Vec3::ONE,
            },
        ),
        Floor::Field => {
            let n = 17;
            let sp = 0.25;
            let heights = (0..n)
                .flat_map(|_| (0..n).map(move |i| -angle.tan() * (i as f32 - 8.0) * sp))
                .collect();
            let field = HeightField::new(n, n, Vec2::splat(sp), heights).unwrap();
            ShapeDesc::new(
                -1,
                Transform::IDENTITY,
                Geometry::HeightField {
                    field: Arc::new(field),
                },
            )
        }
    };
    s.material = material(mu);
    s
}

/// One body of `geometry` at `start` moving at `v` on `ground`, simulated
/// for `t` seconds at 120 Hz (`(t, settle)`); returns the final pose and the
/// largest upward speed along the floor's normal `up` after the first
/// `settle` seconds.
fn simulate(
    ground: ShapeDesc,
    geometry: Geometry,
    start: Transform,
    v: Vec3,
    mu: f32,
    (t, settle): (f32, f32),
    up: Vec3,
) -> (Transform, f32) {
    let mut b = ModelBuilder::new();
    b.ground = None;
    b.add_rigid_shape(ground);
    let mut desc = BodyDesc::new(start);
    desc.velocity = SpatialVector::new(v, Vec3::ZERO);
    let body = b.add_body(desc) as i32;
    b.add_body_shape_with(body, Transform::IDENTITY, geometry, material(mu));
    let model = b.finalize(Device::Cpu).unwrap();
    let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
    let dt = 1.0 / 120.0;
    let steps = (t / dt).round() as usize;
    let mut k = 0;
    let mut hop = 0.0f32;
    let s = run(&model, &mut solver, steps, dt, |s| {
        k += 1;
        if k as f32 * dt > settle {
            hop = hop.max(s.body_qd.to_vec()[0].top.dot(up));
        }
    });
    (s.body_q.to_vec()[0], hop)
}

#[test]
fn box_and_sphere_dropped_on_a_mesh_floor_or_height_field_rest_at_their_height() {
    let half = Vec3::new(0.1, 0.07, 0.05);
    for kind in [Floor::Plane, Floor::Mesh, Floor::Field] {
        for (name, g, h) in [
            ("box", Geometry::Box { half_extents: half }, half.z),
            ("sphere", Geometry::Sphere { radius: 0.1 }, 0.1),
        ] {
            // Dropped from 20 cm, turned so its corners land anywhere on the
            // triangles.
            let start =
                Transform::new(Vec3::new(0.13, -0.21, h + 0.2), Quat::from_rotation_z(0.37));
            let (x, hop) = simulate(
                floor(kind, 0.0, 0.5),
                g,
                start,
                Vec3::ZERO,
                0.5,
                (2.0, 1.0),
                Vec3::Z,
            );
            let err = x.p.z - h;
            let tilt = (x.q * Vec3::Z).angle_between(Vec3::Z);
            let slide = (x.p.truncate() - start.p.truncate()).length();
            println!(
                "{name} on {kind:?}: rests at {:.5} m (analytic {h}), error {:.3} mm, tilt {:.2e} rad, slid {:.3} mm, upward speed after 1 s {:.2e} m/s",
                x.p.z,
                err * 1e3,
                tilt,
                slide * 1e3,
                hop
            );
            assert!(err.abs() < 1e-3, "{name} on {kind:?} rests {err} m off");
            assert!(
                tilt < 1e-3 && slide < 1e-3,
                "{name} on {kind:?} moved: {x:?}"
            );
            assert!(hop < 1e-2, "{name} on {kind:?} hops at {hop} m/s");
        }
    }
}

#[test]
fn box_sliding_across_a_tessellated_floor_stops_where_it_stops_on_the_plane() {
    // 2 m/s across the triangles' edges and diagonals, μ = 0.3: it stops after
    // v² / (2 μ g) = 0.680 m.
    let (mu, v) = (0.3, Vec3::new(1.6, 1.2, 0.0));
    let half = Vec3::new(0.1, 0.07, 0.05);
    let start = Transform::new(Vec3::new(-0.6, -0.5, half.z), Quat::from_rotation_z(0.2));
    let want = v.length_squared() / (2.0 * mu * 9.81);
    let mut on_plane = 0.0;
    for kind in [Floor::Plane, Floor::Mesh, Floor::Field] {
        let (x, hop) = simulate(
            floor(kind, 0.0, mu),
            Geometry::Box { half_extents: half },
            start,
            v,
            mu,
            (1.5, 0.05),
            Vec3::Z,
        );
        let d = (x.p - start.p).truncate().length();
        if kind == Floor::Plane {
            on_plane = d;
        }
        println!(
            "box sliding on {kind:?}: stopped after {d:.4} m (Coulomb {want:.4} m, plane {on_plane:.4} m), height {:.5} m, largest upward speed {hop:.2e} m/s",
            x.p.z
        );
        assert!(
            (d - on_plane).abs() < 2e-3,
            "{kind:?}: {d} vs plane {on_plane}"
        );
        assert!((d - want).abs() < 0.02 * want);
        assert!((x.p.z - half.z).abs() < 1e-3);
        assert!(hop < 0.02, "{kind:?}: the box hopped at {hop} m/s");
    }
}

#[test]
fn on_a_height_field_slope_a_sphere_rolls_and_a_box_slides_as_on_the_plane() {
    let g = 9.81;
    let t = 1.0;
    // A sphere rolling without slipping down 20°: 5/7 g sin θ.
    let angle = 20f32.to_radians();
    let normal = Quat::from_rotation_y(angle) * Vec3::Z;
    let down = Quat::from_rotation_y(angle) * Vec3::X;
    let want = 0.5 * (5.0 / 7.0) * g * angle.sin() * t * t;
    let mut on_plane = 0.0;
    for kind in [Floor::Plane, Floor::Mesh, Floor::Field] {
        let r = 0.1;
        let start = Transform::new(normal * r - down * 0.5, Quat::IDENTITY);
        let (x, _) = simulate(
            floor(kind, angle, 0.8),
            Geometry::Sphere { radius: r },
            start,
            Vec3::ZERO,
            0.8,
            (t, 0.0),
            normal,
        );
        let d = (x.p - start.p).dot(down);
        let off = (x.p - start.p).dot(normal);
        if kind == Floor::Plane {
            on_plane = d;
        }
        println!(
            "sphere on a {kind:?} slope of 20°: rolled {d:.4} m in {t} s (rolling {want:.4} m, plane {on_plane:.4} m), off the surface {:.3} mm",
            off * 1e3
        );
        assert!((d - on_plane).abs() < 1e-3, "{kind:?}: rolled {d}");
        assert!((d - want).abs() < 0.01 * want, "{kind:?}: rolled {d}");
        assert!(off.abs() < 1e-3);
    }
    // A box sliding down 30° with μ = 0.3: g (sin θ − μ cos θ).
    let angle = 30f32.to_radians();
    let mu = 0.3;
    let tilt = Quat::from_rotation_y(angle);
    let (normal, down) = (tilt * Vec3::Z, tilt * Vec3::X);
    let want = 0.5 * g * (angle.sin() - mu * angle.cos()) * t * t;
    let mut on_plane = 0.0;
    for kind in [Floor::Plane, Floor::Mesh, Floor::Field] {
        let h = 0.05;
        let start = Transform::new(normal * h - down * 0.8, tilt * Quat::from_rotation_z(0.3));
        let (x, _) = simulate(
            floor(kind, angle, mu),
            Geometry::Box {
                half_extents: Vec3::splat(h),
            },
            start,
            Vec3::ZERO,
            mu,
            (t, 0.0),
            normal,
        );
        let d = (x.p - start.p).dot(down);
        let off = (x.p - start.p).dot(normal);
        if kind == Floor::Plane {
            on_plane = d;
        }
        println!(
            "box on a {kind:?} slope of 30°, μ {mu}: slid {d:.4} m in {t} s (Coulomb {want:.4} m, plane {on_plane:.4} m), off the surface {:.3} mm",
            off * 1e3
        );
        // Within 0.5 % of the plane's distance (measured: 0.36 % on the mesh,
        // whose manifold holds the contacts of several triangles, so its
        // friction patch sits slightly elsewhere).
        assert!((d - on_plane).abs() < 5e-3 * on_plane, "{kind:?}: slid {d}");
        assert!((d - want).abs() < 0.03 * want, "{kind:?}: slid {d}");
        assert!(off.abs() < 1e-3);
    }
}

#[test]
fn a_dynamic_body_made_only_of_a_surface_is_refused() {
    for g in [
        Geometry::HeightField {
            field: Arc::new(HeightField::new(3, 3, Vec2::ONE, vec![0.0; 9]).unwrap()),
        },
        Geometry::Mesh {
            mesh: Arc::new(generate::plane(1.0, 1.0, 2, 2)),
            scale: Vec3::ONE,
        },
    ] {
        let mut b = ModelBuilder::new();
        let body = b.add_body(BodyDesc::new(Transform::IDENTITY)) as i32;
        b.add_body_shape(body, Transform::IDENTITY, g);
        let e = match b.finalize(Device::Cpu) {
            Ok(_) => panic!("a dynamic body of a surface was accepted"),
            Err(e) => e.to_string(),
        };
        println!("{e}");
        assert!(e.contains("body 0"), "{e}");
        assert!(e.contains("no mass") && e.contains("static"), "{e}");
    }
    // A closed mesh is a solid: its body gets the mass of its volume.
    let mut b = ModelBuilder::new();
    let body = b.add_body(BodyDesc::new(Transform::from_translation(Vec3::Z))) as i32;
    b.add_body_shape(
        body,
        Transform::IDENTITY,
        Geometry::Mesh {
            mesh: Arc::new(generate::cuboid(Vec3::splat(0.05))),
            scale: Vec3::ONE,
        },
    );
    let model = b.finalize(Device::Cpu).unwrap();
    let m = model.body_mass.to_vec()[0];
    println!("a 10 cm cube mesh of water: {m} kg");
    assert!((m - 1.0).abs() < 1e-4);
}
