//! Cylinders and convex hulls in the narrow phase, against geometry worked
//! out by hand, the box code (a box's hull must behave like the box), brute
//! force distances and the separating-axis depth of polytopes.

use std::sync::Arc;

use weft::prelude::*;
use weft_collide::{CollisionOptions, CollisionPipeline, Contact, Geometry, ShapeDesc, ShapeSet};
use weft_geom::ConvexHull;

/// A contact with its world points and gap.
#[derive(Debug, Clone, Copy)]
struct Hit {
    c: Contact,
    pa: Vec3,
    pb: Vec3,
    gap: f32,
}

fn plane() -> ShapeDesc {
    ShapeDesc::new(
        -1,
        Transform::IDENTITY,
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
    )
}

fn on(body: i32, g: &Geometry) -> ShapeDesc {
    ShapeDesc::new(body, Transform::IDENTITY, g.clone())
}

fn margin(m: f32) -> CollisionOptions {
    CollisionOptions {
        margin: m,
        ..Default::default()
    }
}

fn contacts(shapes: &[ShapeDesc], poses: &[Transform], opts: CollisionOptions) -> Vec<Hit> {
    let set = ShapeSet::new(Device::Cpu, shapes, poses.len()).unwrap();
    let mut p = CollisionPipeline::new(&set, poses.len(), opts).unwrap();
    let q = Array::from_slice(Device::Cpu, poses);
    p.collide(&set, &q).unwrap();
    assert_eq!(p.report().unwrap().overflow, 0);
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
        .map(|c| {
            let pa = pose(c.shape_a).transform_point(c.point_a);
            let pb = pose(c.shape_b).transform_point(c.point_b);
            let gap = c.normal.dot(pb - pa) - c.radius_a - c.radius_b;
            Hit { c, pa, pb, gap }
        })
        .collect()
}

fn at(p: Vec3) -> Transform {
    Transform::from_translation(p)
}

fn box_corners(h: Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|k| {
            Vec3::new(
                if k & 1 != 0 { -h.x } else { h.x },
                if k & 2 != 0 { -h.y } else { h.y },
                if k & 4 != 0 { -h.z } else { h.z },
            )
        })
        .collect()
}

fn hull(points: &[Vec3]) -> Geometry {
    Geometry::Convex {
        hull: Arc::new(ConvexHull::new(points).unwrap()),
        scale: Vec3::ONE,
    }
}

/// A small deterministic generator (tests must not flake).
struct Rng(u64);

impl Rng {
    fn f(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.f()
    }
    fn vec(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
    }
    fn quat(&mut self) -> Quat {
        let v = Vec4::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        );
        Quat::from_vec4(v.normalize())
    }
}

/// Each of `want` is matched by one of `got` with the same world points
/// (a's and b's, up to swapping the pair) and gap.
fn same_contacts(got: &[Hit], want: &[Hit], tol: f32) {
    assert_eq!(got.len(), want.len(), "got {got:?}\nwant {want:?}");
    for w in want {
        let found = got.iter().any(|g| {
            let (ga, gb) = if g.c.shape_a == w.c.shape_a {
                (g.pa, g.pb)
            } else {
                (g.pb, g.pa)
            };
            (ga - w.pa).length() < tol && (gb - w.pb).length() < tol && (g.gap - w.gap).abs() < tol
        });
        assert!(found, "{w:?} not in {got:?}");
    }
}

#[test]
fn a_box_hull_on_a_plane_touches_like_the_box() {
    let h = Vec3::new(0.5, 0.3, 0.2);
    let bx = Geometry::Box { half_extents: h };
    let hx = hull(&box_corners(h));
    let mut rng = Rng(1);
    for pose in [
        at(Vec3::new(1.0, 2.0, 0.19)),
        Transform::new(
            Vec3::new(0.0, 0.0, 0.45),
            Quat::from_rotation_x(0.3) * Quat::from_rotation_y(0.4),
        ),
        Transform::new(Vec3::new(0.1, 0.2, 0.3), rng.quat()),
    ] {
        let want = contacts(&[plane(), on(0, &bx)], &[pose], margin(0.05));
        let got = contacts(&[plane(), on(0, &hx)], &[pose], margin(0.05));
        assert!(!want.is_empty());
        same_contacts(&got, &want, 1e-5);
    }
}

#[test]
fn a_box_hull_on_a_box_touches_like_the_box() {
    let h = Vec3::splat(0.5);
    let bx = Geometry::Box { half_extents: h };
    let hx = hull(&box_corners(h));
    let k = 2f32.sqrt() * 0.5;
    let cases = [
        // Stacked, offset: the 4 corners of the overlap.
        (at(Vec3::ZERO), at(Vec3::new(0.1, 0.0, 0.998))),
        // Turned 45° on top: an octagon of 8 points.
        (
            at(Vec3::ZERO),
            Transform::new(
                Vec3::new(0.0, 0.0, 0.999),
                Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
            ),
        ),
        // Crossed ridges: one edge-edge point.
        (
            Transform::new(
                Vec3::ZERO,
                Quat::from_rotation_x(std::f32::consts::FRAC_PI_4),
            ),
            Transform::new(
                Vec3::new(0.0, 0.0, 2.0 * k - 0.003),
                Quat::from_rotation_y(std::f32::consts::FRAC_PI_4),
            ),
        ),
        // Apart by 5 mm: 4 points within the margin.
        (at(Vec3::ZERO), at(Vec3::new(0.3, 0.2, 1.005))),
    ];
    for (pa, pb) in cases {
        let want = contacts(&[on(0, &bx), on(1, &bx)], &[pa, pb], margin(0.01));
        assert!(!want.is_empty());
        // The hull as the upper and as the lower shape.
        let got = contacts(&[on(0, &bx), on(1, &hx)], &[pa, pb], margin(0.01));
        same_contacts(&got, &want, 2e-4);
        let got = contacts(&[on(0, &hx), on(1, &bx)], &[pa, pb], margin(0.01));
        same_contacts(&got, &want, 2e-4);
        let got = contacts(&[on(0, &hx), on(1, &hx)], &[pa, pb], margin(0.01));
        same_contacts(&got, &want, 2e-4);
    }
}

#[test]
fn a_standing_cylinder_touches_a_plane_at_four_rim_points() {
    let (r, hh) = (0.3, 0.5);
    let cyl = Geometry::Cylinder {
        radius: r,
        half_height: hh,
    };
    let pose = Transform::new(Vec3::new(1.0, -2.0, hh - 0.004), Quat::from_rotation_z(0.7));
    let cs = contacts(&[plane(), on(0, &cyl)], &[pose], margin(0.01));
    assert_eq!(cs.len(), 4, "{cs:?}");
    for h in &cs {
        assert!((h.gap + 0.004).abs() < 1e-5, "gap {}", h.gap);
        assert!((h.c.normal - Vec3::Z).length() < 1e-6);
        // On the bottom rim, in the cylinder's frame.
        let local = pose.inverse().transform_point(h.pb);
        assert!((local.truncate().length() - r).abs() < 1e-5, "{local}");
        assert!((local.z + hh).abs() < 1e-5, "{local}");
    }
}

#[test]
fn a_tilted_cylinder_touches_a_plane_at_its_lowest_rim_point() {
    let (r, hh, tilt) = (0.3f32, 0.5f32, 0.4f32);
    let cyl = Geometry::Cylinder {
        radius: r,
        half_height: hh,
    };
    // Tilted about Y: the bottom rim's lowest point is at local (r, 0, -hh),
    // at height -(r sin t + hh cos t) from the centre.
    let low = r * tilt.sin() + hh * tilt.cos();
    let pose = Transform::new(
        Vec3::new(0.0, 0.0, low - 0.003),
        Quat::from_rotation_y(tilt),
    );
    let cs = contacts(&[plane(), on(0, &cyl)], &[pose], margin(0.01));
    assert_eq!(cs.len(), 1, "{cs:?}");
    assert!((cs[0].gap + 0.003).abs() < 1e-5, "gap {}", cs[0].gap);
    let want = pose.transform_point(Vec3::new(r, 0.0, -hh));
    assert!((cs[0].pb - want).length() < 1e-5, "{} vs {want}", cs[0].pb);
}

#[test]
fn a_cylinder_on_its_side_touches_a_plane_along_its_lowest_line() {
    let (r, hh) = (0.3f32, 0.5f32);
    let cyl = Geometry::Cylinder {
        radius: r,
        half_height: hh,
    };
    let pose = Transform::new(
        Vec3::new(0.0, 0.0, r - 0.002),
        Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
    );
    let cs = contacts(&[plane(), on(0, &cyl)], &[pose], margin(0.01));
    assert_eq!(cs.len(), 2, "{cs:?}");
    let mut ys: Vec<f32> = cs.iter().map(|h| h.pb.y).collect();
    ys.sort_by(f32::total_cmp);
    assert!(
        (ys[0] + hh).abs() < 1e-5 && (ys[1] - hh).abs() < 1e-5,
        "{ys:?}"
    );
    for h in &cs {
        assert!((h.gap + 0.002).abs() < 1e-5);
        assert!(h.pb.x.abs() < 1e-5);
    }
}

#[test]
fn a_cylinder_standing_on_a_box_or_a_cylinder_has_a_rim_manifold() {
    let (r, hh) = (0.2f32, 0.4f32);
    let cyl = Geometry::Cylinder {
        radius: r,
        half_height: hh,
    };
    let bx = Geometry::Box {
        half_extents: Vec3::new(1.0, 1.0, 0.5),
    };
    let pose = Transform::new(
        Vec3::new(0.1, 0.2, 0.5 + hh - 0.002),
        Quat::from_rotation_z(0.3),
    );
    for (lower, lower_pose) in [
        (&bx, at(Vec3::ZERO)),
        (&cyl, at(Vec3::new(0.1, 0.2, 0.5 - hh))),
    ] {
        let cs = contacts(
            &[on(0, lower), on(1, &cyl)],
            &[lower_pose, pose],
            margin(0.01),
        );
        assert!(cs.len() >= 3, "{cs:?}");
        let mut centre = Vec3::ZERO;
        for h in &cs {
            assert!((h.gap + 0.002).abs() < 1e-4, "gap {}", h.gap);
            let up = if h.c.shape_a == 0 { Vec3::Z } else { -Vec3::Z };
            assert!((h.c.normal - up).length() < 1e-4, "{:?}", h.c.normal);
            let upper = if h.c.shape_a == 1 { h.pa } else { h.pb };
            // On the rim, or (clipped to the lower cylinder's 8-point rim)
            // just inside it.
            let local = pose.inverse().transform_point(upper);
            let radial = local.truncate().length();
            let inner = r * (std::f32::consts::PI / 8.0).cos();
            assert!(radial < r + 1e-4 && radial > inner - 1e-4, "{local}");
            assert!((local.z + hh).abs() < 1e-4, "{local}");
            centre += upper;
        }
        // Spread around the rim: the points' mean is near the axis.
        centre /= cs.len() as f32;
        assert!(
            (centre.truncate() - pose.p.truncate()).length() < 0.3 * r,
            "{centre}"
        );
    }
}

// ---- brute force references (f64) ----

fn d3(v: Vec3) -> glam::DVec3 {
    v.as_dvec3()
}

/// Distance from `p` to triangle `a, b, c` (Ericson 5.1.5).
fn point_triangle(p: glam::DVec3, a: glam::DVec3, b: glam::DVec3, c: glam::DVec3) -> f64 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return ap.length();
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return bp.length();
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (p - (a + ab * (d1 / (d1 - d3)))).length();
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return cp.length();
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (p - (a + ac * (d2 / (d2 - d6)))).length();
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (p - (b + (c - b) * w)).length();
    }
    let s = 1.0 / (va + vb + vc);
    (p - (a + ab * (vb * s) + ac * (vc * s))).length()
}

/// Distance between segments `p0..p1` and `q0..q1`, by a fine search (the
/// distance is convex in both parameters).
fn segment_segment(p0: glam::DVec3, p1: glam::DVec3, q0: glam::DVec3, q1: glam::DVec3) -> f64 {
    let dist = |s: f64| {
        let p = p0 + (p1 - p0) * s;
        let (d, l) = (q1 - q0, (q1 - q0).length_squared());
        let t = if l > 0.0 {
            ((p - q0).dot(d) / l).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (p - (q0 + d * t)).length()
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..100 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if dist(m1) < dist(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    dist(0.5 * (lo + hi))
}

/// A hull placed at `x`: world vertices, triangles, edges, face normals.
struct Placed {
    v: Vec<glam::DVec3>,
    tris: Vec<[u32; 3]>,
    edges: Vec<[u32; 2]>,
    normals: Vec<glam::DVec3>,
}

fn place(h: &ConvexHull, x: Transform) -> Placed {
    Placed {
        v: h.vertices()
            .iter()
            .map(|p| d3(x.transform_point(*p)))
            .collect(),
        tris: h.triangles().to_vec(),
        edges: h.edges(),
        normals: h.faces().iter().map(|f| d3(x.q * f.normal)).collect(),
    }
}

/// Distance between two disjoint polytopes: vertex–face and edge–edge pairs.
fn polytope_distance(a: &Placed, b: &Placed) -> f64 {
    let mut best = f64::INFINITY;
    for (p, q) in [(a, b), (b, a)] {
        for &v in &p.v {
            for t in &q.tris {
                let [i, j, k] = t.map(|i| q.v[i as usize]);
                best = best.min(point_triangle(v, i, j, k));
            }
        }
    }
    for e in &a.edges {
        for f in &b.edges {
            best = best.min(segment_segment(
                a.v[e[0] as usize],
                a.v[e[1] as usize],
                b.v[f[0] as usize],
                b.v[f[1] as usize],
            ));
        }
    }
    best
}

/// Penetration depth of two polytopes by the separating-axis test over
/// their face normals and edge–edge cross products (negative: apart).
fn sat_depth(a: &Placed, b: &Placed) -> f64 {
    let mut axes: Vec<glam::DVec3> = a.normals.iter().chain(&b.normals).copied().collect();
    for e in &a.edges {
        for f in &b.edges {
            let c = (a.v[e[1] as usize] - a.v[e[0] as usize])
                .cross(b.v[f[1] as usize] - b.v[f[0] as usize]);
            if c.length() > 1e-9 {
                axes.push(c.normalize());
            }
        }
    }
    let span = |p: &Placed, l: glam::DVec3| {
        p.v.iter()
            .map(|v| v.dot(l))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), d| {
                (lo.min(d), hi.max(d))
            })
    };
    axes.iter()
        .map(|&l| {
            let ((a0, a1), (b0, b1)) = (span(a, l), span(b, l));
            (a1 - b0).min(b1 - a0)
        })
        .fold(f64::INFINITY, f64::min)
}

fn random_hull(rng: &mut Rng, size: f32) -> ConvexHull {
    let n = 6 + (rng.f() * 14.0) as usize;
    let pts: Vec<Vec3> = (0..n).map(|_| rng.vec(size)).collect();
    ConvexHull::new(&pts).unwrap()
}

fn deepest(cs: &[Hit]) -> f32 {
    cs.iter().map(|h| h.gap).fold(f32::INFINITY, f32::min)
}

#[test]
fn gjk_gaps_of_separated_hulls_match_brute_force() {
    let mut rng = Rng(7);
    let mut tested = 0;
    while tested < 40 {
        let (ha, hb) = (random_hull(&mut rng, 0.5), random_hull(&mut rng, 0.4));
        let xa = Transform::new(rng.vec(0.2), rng.quat());
        let xb = Transform::new(xa.p + rng.vec(1.0), rng.quat());
        let (pa, pb) = (place(&ha, xa), place(&hb, xb));
        if sat_depth(&pa, &pb) > -1e-3 {
            continue; // touching or overlapping
        }
        let want = polytope_distance(&pa, &pb) as f32;
        let ga = Geometry::Convex {
            hull: Arc::new(ha),
            scale: Vec3::ONE,
        };
        let gb = Geometry::Convex {
            hull: Arc::new(hb),
            scale: Vec3::ONE,
        };
        let cs = contacts(&[on(0, &ga), on(1, &gb)], &[xa, xb], margin(3.0));
        assert!(!cs.is_empty());
        assert!(
            (deepest(&cs) - want).abs() < 1e-4,
            "gap {} want {want}",
            deepest(&cs)
        );
        tested += 1;
    }
}

#[test]
fn epa_depths_of_overlapping_hulls_match_the_separating_axis_test() {
    let mut rng = Rng(11);
    let mut tested = 0;
    while tested < 40 {
        let (ha, hb) = (random_hull(&mut rng, 0.5), random_hull(&mut rng, 0.4));
        let xa = Transform::new(rng.vec(0.2), rng.quat());
        let xb = Transform::new(xa.p + rng.vec(0.6), rng.quat());
        let (pa, pb) = (place(&ha, xa), place(&hb, xb));
        let want = sat_depth(&pa, &pb) as f32;
        if want < 1e-3 {
            continue; // apart or barely touching
        }
        let ga = Geometry::Convex {
            hull: Arc::new(ha),
            scale: Vec3::ONE,
        };
        let gb = Geometry::Convex {
            hull: Arc::new(hb),
            scale: Vec3::ONE,
        };
        let cs = contacts(&[on(0, &ga), on(1, &gb)], &[xa, xb], margin(0.0));
        assert!(!cs.is_empty());
        assert!(
            (deepest(&cs) + want).abs() < 5e-4,
            "gap {} want {}",
            deepest(&cs),
            -want
        );
        tested += 1;
    }
}

#[test]
fn spheres_and_capsules_keep_their_cores_against_hulls_and_cylinders() {
    let (r, hh) = (0.3f32, 0.5f32);
    let cyl = Geometry::Cylinder {
        radius: r,
        half_height: hh,
    };
    let cube = hull(&box_corners(Vec3::splat(0.5)));
    let mut rng = Rng(5);
    for _ in 0..40 {
        let rs = rng.range(0.05, 0.3);
        let sp = Geometry::Sphere { radius: rs };
        let xc = Transform::new(rng.vec(0.3), rng.quat());
        let centre = rng.vec(1.0);
        // Exact distances from the sphere's centre: to the cylinder (in its
        // frame, radial and axial excess) and to the cube (a box).
        let l = xc.inverse().transform_point(centre);
        let q = Vec2::new(l.truncate().length() - r, l.z.abs() - hh);
        let to_cyl = q.max(Vec2::ZERO).length() + q.x.max(q.y).min(0.0);
        let b = l.abs() - Vec3::splat(0.5);
        let to_cube = b.max(Vec3::ZERO).length() + b.max_element().min(0.0);
        for (g, want) in [(&cyl, to_cyl - rs), (&cube, to_cube - rs)] {
            let cs = contacts(&[on(0, g), on(1, &sp)], &[xc, at(centre)], margin(2.0));
            assert_eq!(cs.len(), 1, "{cs:?}");
            let h = cs[0];
            // EPA stops within rounding of a curved surface: 1 mm on 1 m.
            assert!(
                (h.gap - want).abs() < 1e-3,
                "gap {} want {want} {h:?}",
                h.gap
            );
            // The sphere's point is its centre, with its radius.
            let (p, rad) = if h.c.shape_a == 1 {
                (h.pa, h.c.radius_a)
            } else {
                (h.pb, h.c.radius_b)
            };
            assert!((p - centre).length() < 1e-5 && rad == rs);
        }
    }
    // A capsule lying on the cube's top face: two points, at its ends.
    let cap = Geometry::Capsule {
        radius: 0.1,
        half_height: 0.3,
    };
    let lying = Transform::new(
        Vec3::new(0.05, 0.1, 0.5 + 0.1 - 0.004),
        Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
    );
    let cs = contacts(
        &[on(0, &cap), on(1, &cube)],
        &[lying, at(Vec3::ZERO)],
        margin(0.01),
    );
    assert_eq!(cs.len(), 2, "{cs:?}");
    for h in &cs {
        assert!((h.gap + 0.004).abs() < 1e-5, "gap {}", h.gap);
        assert!((h.pa.x - 0.05).abs() > 0.29, "{}", h.pa);
    }
}

#[test]
fn random_poses_give_finite_contacts_with_unit_normals() {
    let mut rng = Rng(3);
    let shapes = [
        Geometry::Sphere { radius: 0.3 },
        Geometry::Box {
            half_extents: Vec3::new(0.4, 0.2, 0.3),
        },
        Geometry::Capsule {
            radius: 0.15,
            half_height: 0.3,
        },
        Geometry::Cylinder {
            radius: 0.25,
            half_height: 0.35,
        },
        Geometry::Convex {
            hull: Arc::new(random_hull(&mut rng, 0.4)),
            scale: Vec3::new(1.0, 0.5, 1.5),
        },
    ];
    let mut found = 0;
    for a in &shapes {
        for b in &shapes[3..] {
            for _ in 0..30 {
                let xa = Transform::new(rng.vec(0.1), rng.quat());
                let xb = Transform::new(rng.vec(0.6), rng.quat());
                let cs = contacts(&[on(0, a), on(1, b)], &[xa, xb], margin(0.05));
                let on_plane = contacts(&[plane(), on(0, b)], &[xb], margin(0.05));
                for h in cs.iter().chain(&on_plane) {
                    assert!(
                        h.pa.is_finite() && h.pb.is_finite() && h.gap.is_finite(),
                        "{h:?}"
                    );
                    assert!((h.c.normal.length() - 1.0).abs() < 1e-4, "{h:?}");
                    assert!(h.gap < 0.05 + 1e-5);
                }
                found += cs.len();
            }
        }
    }
    assert!(found > 100, "{found}");
}

#[test]
fn bad_cylinders_and_hull_scales_are_errors_naming_the_shape() {
    let err = |g: Geometry| {
        ShapeSet::new(Device::Cpu, &[plane(), on(0, &g)], 1)
            .unwrap_err()
            .to_string()
    };
    let cube = Arc::new(ConvexHull::new(&box_corners(Vec3::ONE)).unwrap());
    for scale in [
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(f32::NAN, 1.0, 1.0),
        Vec3::splat(-1.0),
    ] {
        let e = err(Geometry::Convex {
            hull: cube.clone(),
            scale,
        });
        assert!(e.contains("shape 1") && e.contains("scale"), "{e}");
    }
    for (radius, half_height) in [(0.0, 1.0), (1.0, f32::NAN), (f32::INFINITY, 1.0)] {
        let e = err(Geometry::Cylinder {
            radius,
            half_height,
        });
        assert!(e.contains("shape 1") && e.contains("cylinder"), "{e}");
    }
}

#[test]
fn shapes_sharing_a_hull_share_one_copy_on_the_device() {
    let cube = Arc::new(ConvexHull::new(&box_corners(Vec3::ONE)).unwrap());
    let g = |hull: &Arc<ConvexHull>, s| Geometry::Convex {
        hull: hull.clone(),
        scale: Vec3::splat(s),
    };
    let other = Arc::new(ConvexHull::new(&box_corners(Vec3::splat(2.0))).unwrap());
    let shapes = [
        on(0, &g(&cube, 1.0)),
        on(1, &Geometry::Sphere { radius: 1.0 }),
        on(2, &g(&cube, 2.0)),
        on(3, &g(&other, 1.0)),
    ];
    let set = ShapeSet::new(Device::Cpu, &shapes, 4).unwrap();
    assert_eq!(set.source.to_vec(), vec![0, -1, 0, 1]);
    assert_eq!(
        set.hull_vertices.to_vec(),
        vec![IVec2::new(0, 8), IVec2::new(8, 8)]
    );
    assert_eq!(
        set.hull_faces.to_vec(),
        vec![IVec2::new(0, 6), IVec2::new(6, 6)]
    );
    assert_eq!(set.hull_points.len(), 16);
    assert_eq!(set.face_indices.len(), 48);
    // Every face plane holds its corners.
    let (planes, ranges) = (set.face_planes.to_vec(), set.face_ranges.to_vec());
    let (idx, pts) = (set.face_indices.to_vec(), set.hull_points.to_vec());
    for (p, r) in planes.iter().zip(&ranges) {
        for k in r.x..r.x + r.y {
            let v = pts[idx[k as usize] as usize];
            assert!((p.truncate().dot(v) - p.w).abs() < 1e-5);
        }
    }
}

#[test]
fn mass_properties_of_every_kind() {
    let d = 500.0;
    let h = Vec3::new(0.5, 0.2, 0.3);
    let s = Vec3::new(2.0, 1.0, 0.5);
    // A scaled hull of a box's corners is the box of scaled half extents.
    let scaled = Geometry::Convex {
        hull: Arc::new(ConvexHull::new(&box_corners(h)).unwrap()),
        scale: s,
    }
    .mass_properties(d);
    let want = Geometry::Box {
        half_extents: h * s,
    }
    .mass_properties(d);
    assert!((scaled.mass - want.mass).abs() < 1e-3 * want.mass);
    assert!(scaled.com.length() < 1e-5);
    assert!((scaled.inertia - want.inertia).abs_diff_eq(glam::Mat3::ZERO, 1e-4 * want.mass));
    // By hand: m = ρ π r² 2h, I_zz = m r² / 2.
    let cyl = Geometry::Cylinder {
        radius: 0.2,
        half_height: 0.5,
    }
    .mass_properties(d);
    let m = d * std::f32::consts::PI * 0.04;
    assert!((cyl.mass - m).abs() < 1e-3 && (cyl.inertia.z_axis.z - m * 0.02).abs() < 1e-4);
    let p = plane().geometry.mass_properties(d);
    assert_eq!((p.mass, p.com), (0.0, Vec3::ZERO));
}

#[test]
fn a_static_hull_with_an_offset_is_found_by_the_broad_phase() {
    // The hull lies 3 m from its shape's origin; its box must still cover it.
    let pts: Vec<Vec3> = box_corners(Vec3::splat(0.5))
        .into_iter()
        .map(|p| p + Vec3::new(3.0, 0.0, 0.0))
        .collect();
    let mut wall = on(-1, &hull(&pts));
    wall.body = -1;
    let ball = on(0, &Geometry::Sphere { radius: 0.25 });
    let cs = contacts(
        &[wall.clone(), ball.clone()],
        &[at(Vec3::new(3.0, 0.0, 0.74))],
        margin(0.01),
    );
    assert_eq!(cs.len(), 1, "{cs:?}");
    assert!((cs[0].gap + 0.01).abs() < 1e-5);
    // And as a moving shape.
    let cs = contacts(
        &[plane(), on(0, &hull(&pts))],
        &[at(Vec3::new(0.0, 0.0, 0.5))],
        margin(0.01),
    );
    assert_eq!(cs.len(), 4, "{cs:?}");
}

#[test]
fn gjk_gaps_of_separated_cylinders_match_a_finely_sampled_hull() {
    let (r, hh) = (0.3f32, 0.4f32);
    let cyl = Geometry::Cylinder {
        radius: r,
        half_height: hh,
    };
    // 2 × 128 rim points: within r (1 - cos(π/128)) = 0.1 mm of the cylinder.
    let rim: Vec<Vec3> = (0..256)
        .map(|k| {
            let t = std::f32::consts::TAU * (k % 128) as f32 / 128.0;
            Vec3::new(r * t.cos(), r * t.sin(), if k < 128 { -hh } else { hh })
        })
        .collect();
    let sampled = ConvexHull::new(&rim).unwrap();
    let mut rng = Rng(13);
    let mut tested = 0;
    while tested < 10 {
        let other = random_hull(&mut rng, 0.4);
        let xa = Transform::new(rng.vec(0.2), rng.quat());
        let xb = Transform::new(xa.p + rng.vec(1.2), rng.quat());
        let (pa, pb) = (place(&sampled, xa), place(&other, xb));
        if sat_depth(&pa, &pb) > -1e-2 {
            continue;
        }
        let want = polytope_distance(&pa, &pb) as f32;
        let g = Geometry::Convex {
            hull: Arc::new(other),
            scale: Vec3::ONE,
        };
        let cs = contacts(&[on(0, &cyl), on(1, &g)], &[xa, xb], margin(3.0));
        assert!(!cs.is_empty());
        assert!(
            (deepest(&cs) - want).abs() < 3e-4,
            "gap {} want {want}",
            deepest(&cs)
        );
        tested += 1;
    }
}

#[test]
fn parallel_lying_cylinders_and_capsules_touch_at_both_ends_of_the_overlap() {
    let cyl = Geometry::Cylinder {
        radius: 0.2,
        half_height: 0.5,
    };
    let cap = Geometry::Capsule {
        radius: 0.1,
        half_height: 0.3,
    };
    let lying = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    for (upper, height) in [(&cyl, 0.4), (&cap, 0.3)] {
        let cs = contacts(
            &[on(0, &cyl), on(1, upper)],
            &[
                Transform::new(Vec3::ZERO, lying),
                Transform::new(Vec3::new(0.2, 0.0, height - 0.003), lying),
            ],
            margin(0.01),
        );
        assert_eq!(cs.len(), 2, "{cs:?}");
        for h in &cs {
            assert!((h.gap + 0.003).abs() < 1e-4, "gap {}", h.gap);
        }
    }
}
