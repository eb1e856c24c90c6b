//! Triangle meshes and height fields in the narrow phase, against what the
//! analytic shapes give: a flat mesh floor or flat height field gives exactly
//! the plane's contacts (points, normals, gaps) for every primitive kind and
//! a hull, however the floor is tessellated and wherever the shape sits on
//! its triangles; a sphere into a box mesh or a tessellated sphere gets the
//! analytic depth and normal; a sloped height field gives the slope's normal;
//! bad meshes are refused by name.

use std::sync::Arc;

use weft::prelude::*;
use weft_collide::{CollisionOptions, CollisionPipeline, Contact, Geometry, ShapeDesc, ShapeSet};
use weft_geom::{ConvexHull, HeightField, Mesh, generate};

/// A contact in world space: point on a, point on b, normal, gap.
#[derive(Debug, Clone, Copy)]
struct World {
    pa: Vec3,
    pb: Vec3,
    n: Vec3,
    gap: f32,
}

/// The contacts of `shapes` with bodies at `poses`, in world space.
fn contacts(shapes: &[ShapeDesc], poses: &[Transform]) -> Vec<World> {
    let set = ShapeSet::new(Device::Cpu, shapes, poses.len()).unwrap();
    let mut p = CollisionPipeline::new(&set, poses.len(), CollisionOptions::default()).unwrap();
    let q = Array::from_slice(Device::Cpu, poses);
    p.collide(&set, &q).unwrap();
    let r = p.report().unwrap();
    assert_eq!(r.overflow, 0);
    assert_eq!(r.pair_overflow, 0);
    let pose = |s: i32| {
        let b = shapes[s as usize].body;
        if b >= 0 {
            poses[b as usize]
        } else {
            Transform::IDENTITY
        }
    };
    p.contacts
        .to_host()
        .unwrap()
        .into_iter()
        .map(|c: Contact| {
            let pa = pose(c.shape_a).transform_point(c.point_a);
            let pb = pose(c.shape_b).transform_point(c.point_b);
            let gap = c.normal.dot(pb - pa) - c.radius_a - c.radius_b;
            World {
                pa,
                pb,
                n: c.normal,
                gap,
            }
        })
        .collect()
}

/// The largest difference between two contact sets (matched greedily, each
/// contact of `a` with the nearest unused one of `b`), or infinity when
/// their counts differ.
fn difference(a: &[World], b: &[World]) -> f32 {
    if a.len() != b.len() {
        return f32::INFINITY;
    }
    let mut used = vec![false; b.len()];
    let mut worst = 0.0f32;
    for x in a {
        let err = |y: &World| {
            (x.pa - y.pa)
                .length()
                .max((x.pb - y.pb).length())
                .max((x.n - y.n).length())
                .max((x.gap - y.gap).abs())
        };
        let (j, e) = b
            .iter()
            .enumerate()
            .filter(|(j, _)| !used[*j])
            .map(|(j, y)| (j, err(y)))
            .min_by(|p, q| p.1.total_cmp(&q.1))
            .unwrap();
        used[j] = true;
        worst = worst.max(e);
    }
    worst
}

fn plane_at(x: Transform) -> ShapeDesc {
    ShapeDesc::new(
        -1,
        x,
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
    )
}

/// A flat 4 m × 4 m floor of 8 × 8 split quads (0.5 m cells) at `x`.
fn mesh_floor_at(x: Transform) -> ShapeDesc {
    ShapeDesc::new(
        -1,
        x,
        Geometry::Mesh {
            mesh: Arc::new(generate::plane(4.0, 4.0, 8, 8)),
            scale: Vec3::ONE,
        },
    )
}

/// The same floor as a flat height field.
fn field_floor_at(x: Transform) -> ShapeDesc {
    let field = HeightField::new(9, 9, Vec2::splat(0.5), vec![0.0; 81]).unwrap();
    ShapeDesc::new(
        -1,
        x,
        Geometry::HeightField {
            field: Arc::new(field),
        },
    )
}

fn hull() -> Geometry {
    // An irregular hull: a box with two corners cut and a roof point.
    let pts = vec![
        Vec3::new(-0.3, -0.2, -0.15),
        Vec3::new(0.3, -0.2, -0.15),
        Vec3::new(0.3, 0.2, -0.15),
        Vec3::new(-0.3, 0.2, -0.15),
        Vec3::new(-0.25, -0.2, 0.1),
        Vec3::new(0.3, -0.15, 0.12),
        Vec3::new(0.2, 0.2, 0.1),
        Vec3::new(-0.3, 0.2, 0.1),
        Vec3::new(0.0, 0.0, 0.25),
    ];
    Geometry::Convex {
        hull: Arc::new(ConvexHull::new(&pts).unwrap()),
        scale: Vec3::new(1.0, 1.2, 0.9),
    }
}

/// Each primitive kind (and a hull) with poses near a floor at z = 0 in its
/// own frame: resting and slightly sunk, tilted, on vertices, edges and
/// diagonals of the floor's triangles, and just above (within the margin).
fn cases() -> Vec<(&'static str, Geometry, Transform)> {
    let sphere = Geometry::Sphere { radius: 0.3 };
    let capsule = Geometry::Capsule {
        radius: 0.2,
        half_height: 0.4,
    };
    let boxg = Geometry::Box {
        half_extents: Vec3::new(0.5, 0.5, 0.2),
    };
    let cyl = Geometry::Cylinder {
        radius: 0.3,
        half_height: 0.25,
    };
    let flat = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let turned = |x: f32, y: f32, z: f32, q: Quat| Transform::new(Vec3::new(x, y, z), q);
    let lying = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    vec![
        ("sphere on a vertex", sphere.clone(), flat(0.0, 0.0, 0.295)),
        ("sphere in a cell", sphere.clone(), flat(0.13, 0.31, 0.297)),
        (
            "sphere on a diagonal",
            sphere.clone(),
            flat(0.2, 0.2, 0.305),
        ),
        (
            "capsule lying",
            capsule.clone(),
            turned(0.1, 0.27, 0.195, lying),
        ),
        (
            "capsule across a diagonal",
            capsule.clone(),
            turned(
                0.0,
                0.0,
                0.198,
                Quat::from_rotation_z(0.7) * Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
            ),
        ),
        (
            "capsule tilted",
            capsule.clone(),
            turned(-0.3, 0.4, 0.5, Quat::from_rotation_x(0.6)),
        ),
        ("box on vertices", boxg.clone(), flat(0.0, 0.0, 0.195)),
        ("box on edges", boxg.clone(), flat(0.25, -0.5, 0.198)),
        (
            "box turned",
            boxg.clone(),
            turned(0.1, 0.2, 0.196, Quat::from_rotation_z(0.4)),
        ),
        (
            "box on an edge",
            boxg.clone(),
            turned(0.3, 0.1, 0.336, Quat::from_rotation_x(0.3)),
        ),
        ("box just above", boxg.clone(), flat(-0.4, 0.3, 0.206)),
        ("cylinder standing", cyl.clone(), flat(0.0, 0.5, 0.247)),
        (
            "cylinder lying",
            cyl.clone(),
            turned(0.2, 0.1, 0.296, lying),
        ),
        (
            "cylinder tilted",
            cyl.clone(),
            turned(-0.2, 0.1, 0.36, Quat::from_rotation_y(0.5)),
        ),
        ("hull resting", hull(), flat(0.1, -0.1, 0.133)),
        (
            "hull tilted",
            hull(),
            turned(0.5, 0.5, 0.2, Quat::from_rotation_x(0.4)),
        ),
    ]
}

/// Compares each case on `floor(x)` with the plane at `x`.
fn compare_with_plane(floor: fn(Transform) -> ShapeDesc, x: Transform, what: &str) {
    let mut worst = 0.0f32;
    let mut total = 0;
    for (name, g, local) in cases() {
        let pose = x * local;
        let body = ShapeDesc::new(0, Transform::IDENTITY, g);
        let want = contacts(&[plane_at(x), body.clone()], &[pose]);
        let got = contacts(&[floor(x), body], &[pose]);
        let d = difference(&want, &got);
        println!(
            "{what}, {name}: {} plane contacts, {} on the floor, worst difference {d:.2e}",
            want.len(),
            got.len()
        );
        assert!(!want.is_empty(), "{name}: the case should touch");
        assert!(d < 1e-5, "{what}, {name}: plane {want:#?}\nfloor {got:#?}");
        worst = worst.max(d);
        total += want.len();
    }
    println!("{what}: {total} contacts, worst difference {worst:.2e}");
}

#[test]
fn flat_mesh_floor_gives_the_planes_contacts() {
    compare_with_plane(mesh_floor_at, Transform::IDENTITY, "mesh floor");
}

#[test]
fn flat_mesh_floor_placed_and_tilted_gives_the_planes_contacts() {
    let x = Transform::new(
        Vec3::new(0.3, -0.2, 1.5),
        Quat::from_rotation_x(0.3) * Quat::from_rotation_z(0.2),
    );
    compare_with_plane(mesh_floor_at, x, "tilted mesh floor");
}

#[test]
fn flat_height_field_gives_the_planes_contacts() {
    compare_with_plane(field_floor_at, Transform::IDENTITY, "height field");
    let x = Transform::new(Vec3::new(-0.1, 0.2, 0.7), Quat::from_rotation_y(-0.25));
    compare_with_plane(field_floor_at, x, "tilted height field");
}

#[test]
fn box_sliding_across_a_tessellated_floor_is_never_pushed_up() {
    // The box crosses every kind of triangle edge and vertex of the floor;
    // at each position its contacts are the plane's: four corners, normal +Z.
    let boxg = Geometry::Box {
        half_extents: Vec3::new(0.3, 0.2, 0.1),
    };
    let mut worst = 0.0f32;
    for k in 0..60 {
        let x = -1.2 + 0.041 * k as f32;
        let pose = Transform::new(
            Vec3::new(x, 0.5 * x + 0.011 * (k % 5) as f32, 0.098),
            Quat::from_rotation_z(0.05 * (k % 7) as f32),
        );
        let body = ShapeDesc::new(0, Transform::IDENTITY, boxg.clone());
        for floor in [mesh_floor_at, field_floor_at] {
            let got = contacts(&[floor(Transform::IDENTITY), body.clone()], &[pose]);
            let want = contacts(&[plane_at(Transform::IDENTITY), body.clone()], &[pose]);
            assert_eq!(got.len(), 4, "at x = {x}: {got:#?}");
            for c in &got {
                assert!((c.n - Vec3::Z).length() < 1e-6, "at x = {x}: {c:?}");
            }
            worst = worst.max(difference(&want, &got));
        }
    }
    println!("sliding box: worst difference from the plane {worst:.2e}");
    assert!(worst < 1e-5);
}

/// The one deepest contact and the number of contacts between a static mesh
/// and a sphere of radius `r` at `c`.
fn sphere_into(mesh: Mesh, r: f32, c: Vec3) -> (World, usize) {
    let shapes = [
        ShapeDesc::new(
            -1,
            Transform::IDENTITY,
            Geometry::Mesh {
                mesh: Arc::new(mesh),
                scale: Vec3::ONE,
            },
        ),
        ShapeDesc::new(0, Transform::IDENTITY, Geometry::Sphere { radius: r }),
    ];
    let cs = contacts(&shapes, &[Transform::from_translation(c)]);
    assert!(!cs.is_empty(), "no contact at {c}");
    let deepest = *cs.iter().min_by(|a, b| a.gap.total_cmp(&b.gap)).unwrap();
    (deepest, cs.len())
}

#[test]
fn sphere_into_a_box_mesh_gets_the_analytic_depth_on_faces_edges_and_corners() {
    let cube = || generate::cuboid(Vec3::splat(0.5));
    let r = 0.2;
    let cases = [
        ("face", Vec3::new(0.3, 0.1, 0.69), Vec3::Z, -0.01),
        (
            "edge",
            Vec3::new(0.6, 0.0, 0.6),
            Vec3::new(1.0, 0.0, 1.0).normalize(),
            0.02f32.sqrt() - r,
        ),
        (
            "corner",
            Vec3::splat(0.6),
            Vec3::ONE.normalize(),
            0.03f32.sqrt() - r,
        ),
        ("side face", Vec3::new(-0.68, 0.2, -0.1), -Vec3::X, -0.02),
    ];
    for (name, c, n, gap) in cases {
        let (d, count) = sphere_into(cube(), r, c);
        let err = (d.gap - gap).abs().max((d.n - n).length());
        println!(
            "sphere on a cube's {name}: gap {:.6} (analytic {gap:.6}), normal {}, {count} contact(s), error {err:.1e}",
            d.gap, d.n
        );
        assert!(err < 1e-5, "{name}: {d:?}");
        assert_eq!(count, 1, "{name}: one contact");
    }
}

#[test]
fn sphere_into_a_tessellated_sphere_gets_the_analytic_depth() {
    let ball = generate::icosphere(1.0, 2);
    let r = 0.2;
    // Toward a vertex (on the unit sphere) and toward a face's centre (at the
    // face plane's distance).
    let v = ball.points()[7].normalize();
    let [a, b, c] = ball.triangle(11);
    let fnrm = (b - a).cross(c - a).normalize();
    let fd = fnrm.dot(a);
    for (name, dir, dist) in [("vertex", v, 1.0f32), ("face", fnrm, fd)] {
        for depth in [0.001f32, 0.01, 0.05] {
            let centre = dir * (dist + r - depth);
            let (d, count) = sphere_into(ball.clone(), r, centre);
            let err = (d.gap + depth).abs().max((d.n - dir).length());
            println!(
                "sphere into a tessellated sphere at a {name}, depth {depth}: gap {:.6}, {count} contact(s), error {err:.1e}",
                d.gap
            );
            assert!(err < 1e-5, "{name} {depth}: {d:?}");
            // No other contact is deeper than the margin allows.
            assert!(count >= 1);
        }
    }
}

#[test]
fn sloped_height_field_gives_the_slope_normal() {
    // z = 0.3 x: normal (-0.3, 0, 1) / |…|.
    let slope = 0.3f32;
    let (nx, ny, sp) = (11usize, 7usize, Vec2::new(0.4, 0.5));
    let heights: Vec<f32> = (0..ny)
        .flat_map(|_| (0..nx).map(move |i| slope * (i as f32 - 5.0) * sp.x))
        .collect();
    let field = Arc::new(HeightField::new(nx, ny, sp, heights).unwrap());
    let n = Vec3::new(-slope, 0.0, 1.0).normalize();
    let x_field = Transform::new(Vec3::new(1.0, 2.0, -0.5), Quat::from_rotation_z(0.3));
    let ground = ShapeDesc::new(-1, x_field, Geometry::HeightField { field });
    let mut worst = 0.0f32;
    for (i, (g, half)) in [
        (Geometry::Sphere { radius: 0.25 }, 0.25),
        (
            Geometry::Box {
                half_extents: Vec3::new(0.3, 0.2, 0.1),
            },
            0.1,
        ),
    ]
    .into_iter()
    .enumerate()
    {
        // Resting on the slope, sunk by 2 mm, at a point off the grid lines.
        let p = Vec3::new(0.13, -0.21 + 0.3 * i as f32, slope * 0.13);
        let rot = Quat::from_rotation_arc(Vec3::Z, n);
        let local = Transform::new(p + n * (half - 0.002), rot);
        let pose = x_field * local;
        let body = ShapeDesc::new(0, Transform::IDENTITY, g);
        let cs = contacts(&[ground.clone(), body.clone()], &[pose]);
        let want_n = x_field.q * n;
        assert!(!cs.is_empty());
        for c in &cs {
            let err = (c.n - want_n).length().max((c.gap + 0.002).abs());
            worst = worst.max(err);
            assert!(err < 1e-5, "{c:?}, normal {want_n}");
        }
        // As on the plane of the slope.
        let plane = plane_at(x_field * Transform::new(Vec3::ZERO, rot));
        let want = contacts(&[plane, body], &[pose]);
        let d = difference(&want, &cs);
        println!(
            "on a 0.3 slope: {} contacts (plane {}), worst normal/gap error {worst:.1e}, difference from the plane {d:.1e}",
            cs.len(),
            want.len()
        );
        assert!(d < 1e-5);
    }
}

#[test]
fn box_overhanging_a_box_mesh_ledge_rests_on_its_edge() {
    // A box half over the edge of a static box mesh: two corners on the top
    // face and the two points where the ledge's edge crosses the box's bottom
    // face, all with the top face's normal.
    let table = ShapeDesc::new(
        -1,
        Transform::IDENTITY,
        Geometry::Mesh {
            mesh: Arc::new(generate::cuboid(Vec3::new(1.0, 1.0, 0.5))),
            scale: Vec3::ONE,
        },
    );
    let boxg = Geometry::Box {
        half_extents: Vec3::new(0.2, 0.1, 0.1),
    };
    let pose = Transform::from_translation(Vec3::new(1.05, 0.0, 0.598));
    let cs = contacts(
        &[table, ShapeDesc::new(0, Transform::IDENTITY, boxg)],
        &[pose],
    );
    println!("{cs:#?}");
    assert_eq!(cs.len(), 4);
    for c in &cs {
        assert!((c.n - Vec3::Z).length() < 1e-6);
        assert!((c.gap + 0.002).abs() < 1e-5);
    }
    let at_edge = cs.iter().filter(|c| (c.pa.x - 1.0).abs() < 1e-5).count();
    assert_eq!(at_edge, 2, "two contacts on the ledge's edge");
}

#[test]
fn scaled_and_moving_meshes_collide_too() {
    // A unit cube mesh scaled to a 2 × 1 × 0.5 slab on a body, resting on a
    // sphere below it: the contact is at the slab's bottom face.
    let slab = Geometry::Mesh {
        mesh: Arc::new(generate::cuboid(Vec3::splat(0.5))),
        scale: Vec3::new(2.0, 1.0, 0.5),
    };
    let shapes = [
        ShapeDesc::new(-1, Transform::IDENTITY, Geometry::Sphere { radius: 0.5 }),
        ShapeDesc::new(0, Transform::IDENTITY, slab),
    ];
    let pose = Transform::from_translation(Vec3::new(0.4, 0.0, 0.5 + 0.25 - 0.003));
    let cs = contacts(&shapes, &[pose]);
    assert_eq!(cs.len(), 1);
    let c = cs[0];
    println!("sphere under a scaled slab: {c:?}");
    // Normal from the mesh (a) to the sphere (b): down.
    assert!((c.n + Vec3::Z).length() < 1e-6);
    assert!((c.gap + 0.003).abs() < 1e-5);
    // A dynamic closed mesh on a plane touches it with its lowest vertices.
    let shapes = [
        plane_at(Transform::IDENTITY),
        ShapeDesc::new(
            0,
            Transform::IDENTITY,
            Geometry::Mesh {
                mesh: Arc::new(generate::cuboid(Vec3::splat(0.5))),
                scale: Vec3::ONE,
            },
        ),
    ];
    let cs = contacts(
        &shapes,
        &[Transform::from_translation(Vec3::new(0.0, 0.0, 0.499))],
    );
    assert_eq!(cs.len(), 4);
    assert!(cs.iter().all(|c| (c.gap + 0.001).abs() < 1e-6));
}

fn shape_error(g: Geometry) -> String {
    let shapes = [
        plane_at(Transform::IDENTITY),
        ShapeDesc::new(-1, Transform::IDENTITY, g),
    ];
    match ShapeSet::new(Device::Cpu, &shapes, 0) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_meshes_are_refused_by_name() {
    let e = shape_error(Geometry::Mesh {
        mesh: Arc::new(Mesh::empty()),
        scale: Vec3::ONE,
    });
    println!("{e}");
    assert!(e.contains("shape 1") && e.contains("no triangles"), "{e}");
    let mut bad = generate::cuboid(Vec3::ONE);
    bad.points_mut()[3].y = f32::NAN;
    let e = shape_error(Geometry::Mesh {
        mesh: Arc::new(bad),
        scale: Vec3::ONE,
    });
    println!("{e}");
    assert!(e.contains("shape 1") && e.contains("vertex 3"), "{e}");
    for s in [
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(1.0, -2.0, 1.0),
        Vec3::splat(f32::NAN),
    ] {
        let e = shape_error(Geometry::Mesh {
            mesh: Arc::new(generate::cuboid(Vec3::ONE)),
            scale: s,
        });
        println!("{e}");
        assert!(e.contains("shape 1") && e.contains("mesh scale"), "{e}");
    }
}

#[test]
fn open_meshes_and_height_fields_have_no_mass() {
    let open = Geometry::Mesh {
        mesh: Arc::new(generate::plane(1.0, 1.0, 2, 2)),
        scale: Vec3::ONE,
    };
    let e = open.solid_mass_properties(1000.0).unwrap_err();
    println!("{e}");
    assert!(e.contains("open"));
    let field = Geometry::HeightField {
        field: Arc::new(HeightField::new(2, 2, Vec2::ONE, vec![0.0; 4]).unwrap()),
    };
    assert!(field.solid_mass_properties(1000.0).is_err());
    assert_eq!(open.mass_properties(1000.0).mass, 0.0);
    // A closed, scaled mesh has the box's mass and inertia.
    let cube = Geometry::Mesh {
        mesh: Arc::new(generate::cuboid(Vec3::splat(0.5))),
        scale: Vec3::new(2.0, 1.0, 0.5),
    };
    let m = cube.solid_mass_properties(1000.0).unwrap();
    let want = Geometry::Box {
        half_extents: Vec3::new(1.0, 0.5, 0.25),
    }
    .mass_properties(1000.0);
    println!("scaled cube mesh: {m:?}\nbox: {want:?}");
    assert!((m.mass - want.mass).abs() < 1e-3);
    assert!((m.inertia - want.inertia).abs_diff_eq(glam::Mat3::ZERO, 1e-3));
    assert!(m.com.length() < 1e-6);
}

#[test]
fn the_narrow_phase_compiles_to_ptx() {
    use weft_collide::narrow::{narrow_classify, narrow_convex, narrow_primitives, narrow_terrain};
    for (name, ptx) in [
        ("narrow_classify", narrow_classify::PTX),
        ("narrow_primitives", narrow_primitives::PTX),
        ("narrow_convex", narrow_convex::PTX),
        ("narrow_terrain", narrow_terrain::PTX),
    ] {
        let ptx = ptx.unwrap_or_else(|e| panic!("{name} has no PTX: {e}"));
        assert!(ptx.contains(&format!(".visible .entry {name}(")));
        println!("{name} PTX: {} kB", ptx.len() / 1024);
    }
}

#[test]
fn mesh_contacts_past_the_capacity_are_counted() {
    // Three boxes on a mesh floor make 12 contacts; room for 5.
    let mut shapes = vec![mesh_floor_at(Transform::IDENTITY)];
    let mut poses = Vec::new();
    for k in 0..3 {
        shapes.push(ShapeDesc::new(
            k,
            Transform::IDENTITY,
            Geometry::Box {
                half_extents: Vec3::splat(0.1),
            },
        ));
        poses.push(Transform::from_translation(Vec3::new(
            0.5 * k as f32,
            0.1,
            0.099,
        )));
    }
    let set = ShapeSet::new(Device::Cpu, &shapes, 3).unwrap();
    let opts = CollisionOptions {
        contact_capacity: Some(5),
        ..Default::default()
    };
    let mut p = CollisionPipeline::new(&set, 3, opts).unwrap();
    p.collide(&set, &Array::from_slice(Device::Cpu, &poses))
        .unwrap();
    let r = p.report().unwrap();
    println!("{r:?}");
    assert_eq!((r.found, r.stored, r.overflow), (12, 5, 7));
    assert!(r.check().is_err());
}

/// A roof (`h` > 0: a ridge along y at x = 0) or a valley (`h` < 0): two
/// slopes falling by `h` over 1 m on each side.
fn roof(h: f32) -> Mesh {
    let p = |x: f32, y: f32| Vec3::new(x, y, -h * x.abs());
    Mesh::new(
        vec![
            p(-1.0, -1.0),
            p(0.0, -1.0),
            p(1.0, -1.0),
            p(-1.0, 1.0),
            p(0.0, 1.0),
            p(1.0, 1.0),
        ],
        vec![[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4]],
    )
    .unwrap()
}

#[test]
fn ridges_give_one_edge_contact_and_valleys_one_per_face() {
    let r = 0.1;
    // On the ridge: one contact straight up from the ridge line.
    let (d, count) = sphere_into(roof(0.2), r, Vec3::new(0.0, 0.3, r - 0.005));
    println!("sphere on a ridge: {d:?}, {count} contact(s)");
    assert_eq!(count, 1);
    assert!((d.n - Vec3::Z).length() < 1e-6 && (d.gap + 0.005).abs() < 1e-6);
    // In a valley: one contact per slope, each along its face normal.
    let h = 0.2f32;
    let n_left = Vec3::new(h, 0.0, 1.0).normalize();
    let centre = Vec3::new(0.0, 0.3, r / n_left.z - 0.005);
    let shapes = [
        ShapeDesc::new(
            -1,
            Transform::IDENTITY,
            Geometry::Mesh {
                mesh: Arc::new(roof(-h)),
                scale: Vec3::ONE,
            },
        ),
        ShapeDesc::new(0, Transform::IDENTITY, Geometry::Sphere { radius: r }),
    ];
    let cs = contacts(&shapes, &[Transform::from_translation(centre)]);
    println!("sphere in a valley: {cs:#?}");
    assert_eq!(cs.len(), 2);
    let want_gap = centre.z * n_left.z - r;
    for c in &cs {
        assert!((c.n.x.abs() - n_left.x).abs() < 1e-6 && (c.n.z - n_left.z).abs() < 1e-6);
        assert!((c.gap - want_gap).abs() < 1e-5, "{c:?} want {want_gap}");
    }
}
