//! The mesh queries' results by field name (issue 28, point 4): `mesh_query_ray`
//! returns a `MeshQueryRay` and `mesh_query_point` / `mesh_query_point_no_sign` a
//! `MeshQueryPoint`, whose fields hold the known answers on a mesh of two flat
//! triangles — barycentrics chosen with `u != v`, so a swap shows — and whose
//! float fields carry gradients back to the query (analytic values and central
//! differences). On the CPU and, when present, a GPU.

use weft::geom::{DeviceMesh, mesh_query_point, mesh_query_point_no_sign, mesh_query_ray};
use weft::prelude::*;
use weft_geom::Mesh;
use weft_testkit::devices::devices;

/// Two triangles in the plane z = 0, front (counter-clockwise) facing +z: face 0
/// with corners (0,0,0), (1,0,0), (0,1,0), and face 1 the same moved by 5 along x.
/// A point `(x, y, 0)` of face 0 is `u a + v b + (1 - u - v) c` with `u = 1 - x -
/// y`, `v = x`.
fn two_triangles() -> Mesh {
    let points = vec![
        Vec3::ZERO,
        Vec3::X,
        Vec3::Y,
        Vec3::new(5.0, 0.0, 0.0),
        Vec3::new(6.0, 0.0, 0.0),
        Vec3::new(5.0, 1.0, 0.0),
    ];
    Mesh::new(points, vec![[0, 1, 2], [3, 4, 5]]).unwrap()
}

/// Every field of the three queries' results, by name.
#[weft::kernel]
fn fields(
    mesh: &DeviceMesh,
    o: &Array<Vec3>,
    d: &Array<Vec3>,
    ray_tuv: &mut Array<Vec3>,
    ray_normal: &mut Array<Vec3>,
    ray_sign: &mut Array<f32>,
    point: &mut Array<Vec3>,
    point_uv: &mut Array<Vec2>,
    point_sign: &mut Array<f32>,
    // Per query: [ray hit, ray face, point found, point face, unsigned found,
    // unsigned face]; the flags as 0 or 1.
    ids: &mut Array<i32, 2>,
) {
    let i = tid();
    let hit = mesh_query_ray(mesh, o[i], d[i], 10.0);
    ray_tuv[i] = Vec3::new(hit.t, hit.u, hit.v);
    ray_normal[i] = hit.normal;
    ray_sign[i] = hit.sign;
    let q = mesh_query_point(mesh, o[i], 1.0);
    point[i] = q.point;
    point_uv[i] = Vec2::new(q.u, q.v);
    point_sign[i] = q.sign;
    let un = mesh_query_point_no_sign(mesh, o[i], 1.0);
    ids[i][0] = 0;
    if hit.hit {
        ids[i][0] = 1;
    }
    ids[i][1] = hit.face;
    ids[i][2] = 0;
    if q.found {
        ids[i][2] = 1;
    }
    ids[i][3] = q.face;
    ids[i][4] = 0;
    if un.found && un.sign == 0.0 && un.u == q.u && un.v == q.v {
        ids[i][4] = 1;
    }
    ids[i][5] = un.face;
}

#[test]
fn fields_hold_the_known_answers_and_misses_carry_face_minus_one() {
    let o = [
        // Down onto face 0 at (0.2, 0.1): u = 0.7, v = 0.2, the front.
        Vec3::new(0.2, 0.1, 0.8),
        // Up into face 1 at (5.1, 0.6), from below (the back): u = 0.3, v = 0.1.
        Vec3::new(5.1, 0.6, -0.5),
        // Misses everything, and nothing lies within 1.
        Vec3::new(3.0, 3.0, 1.0),
    ];
    let d = [Vec3::NEG_Z, Vec3::Z, Vec3::NEG_Z];
    for dev in devices() {
        let mesh = DeviceMesh::new(dev, &two_triangles()).unwrap();
        let (oa, da) = (Array::from_slice(dev, &o), Array::from_slice(dev, &d));
        let (mut tuv, mut normal) = (Array::zeros(dev, [3]), Array::zeros(dev, [3]));
        let (mut point, mut uv) = (Array::zeros(dev, [3]), Array::zeros(dev, [3]));
        let (mut sign, mut psign) = (Array::zeros(dev, [3]), Array::zeros(dev, [3]));
        let mut ids = Array::zeros(dev, [3, 6]);
        fields::launch(
            3,
            &mesh,
            &oa,
            &da,
            &mut tuv,
            &mut normal,
            &mut sign,
            &mut point,
            &mut uv,
            &mut psign,
            &mut ids,
        )
        .unwrap();
        let (tuv, normal, sign) = (tuv.to_vec(), normal.to_vec(), sign.to_vec());
        let (point, uv, psign, ids) = (point.to_vec(), uv.to_vec(), psign.to_vec(), ids.to_vec());
        let close = |a: Vec3, b: Vec3| (a - b).abs().max_element() < 1e-5;
        // Rays: t, u, v; face; normal; side.
        assert!(
            close(tuv[0], Vec3::new(0.8, 0.7, 0.2)),
            "{dev}: {:?}",
            tuv[0]
        );
        assert!(
            close(tuv[1], Vec3::new(0.5, 0.3, 0.1)),
            "{dev}: {:?}",
            tuv[1]
        );
        assert_eq!(tuv[2], Vec3::ZERO, "{dev}");
        assert_eq!(&ids[0..2], &[1, 0], "{dev}");
        assert_eq!(&ids[6..8], &[1, 1], "{dev}");
        assert_eq!(&ids[12..14], &[0, -1], "{dev}: a miss carries face -1");
        assert_eq!(normal, vec![Vec3::Z, Vec3::Z, Vec3::ZERO], "{dev}");
        assert_eq!(sign, vec![1.0, -1.0, 0.0], "{dev}");
        // Points: the foot of the perpendicular, u, v, outside (an open mesh).
        assert!(close(point[0], Vec3::new(0.2, 0.1, 0.0)), "{dev}");
        assert!(close(point[1], Vec3::new(5.1, 0.6, 0.0)), "{dev}");
        assert_eq!(point[2], Vec3::ZERO, "{dev}");
        let close2 = |a: Vec2, b: Vec2| (a - b).abs().max_element() < 1e-5;
        assert!(close2(uv[0], Vec2::new(0.7, 0.2)), "{dev}: {:?}", uv[0]);
        assert!(close2(uv[1], Vec2::new(0.3, 0.1)), "{dev}: {:?}", uv[1]);
        assert_eq!(uv[2], Vec2::ZERO, "{dev}");
        assert_eq!(psign, vec![1.0, 1.0, 0.0], "{dev}");
        assert_eq!(&ids[2..6], &[1, 0, 1, 0], "{dev}");
        assert_eq!(&ids[8..12], &[1, 1, 1, 1], "{dev}");
        assert_eq!(
            &ids[14..18],
            &[0, -1, 0, -1],
            "{dev}: nothing found, face -1"
        );
    }
}

/// `Σ w · (hit.t, hit.u, hit.v)` over the rays that hit, plus
/// `Σ wp · (q.u, q.v, q.point.z)` over the points found.
#[weft::kernel]
fn field_loss(
    mesh: &DeviceMesh,
    o: &Array<Vec3>,
    d: &Array<Vec3>,
    w: Vec3,
    wp: Vec3,
    loss: &mut Array<f32>,
) {
    let i = tid();
    let hit = mesh_query_ray(mesh, o[i], d[i], 10.0);
    if hit.hit {
        atomic_add(&mut loss[0], w.x * hit.t + w.y * hit.u + w.z * hit.v);
    }
    let q = mesh_query_point(mesh, o[i], 3.0);
    if q.found {
        atomic_add(&mut loss[0], wp.x * q.u + wp.y * q.v + wp.z * q.point.z);
    }
}

/// The gradients of `w · (t, u, v)` (rays) and `wp · (u, v, point.z)` (points)
/// with respect to the ray origins and directions, through the tape.
fn field_grads(dev: Device, o: &[Vec3], d: &[Vec3], w: Vec3, wp: Vec3) -> (Vec<Vec3>, Vec<Vec3>) {
    let mesh = DeviceMesh::new(dev, &two_triangles()).unwrap();
    let oa = Array::from_slice(dev, o).requires_grad();
    let da = Array::from_slice(dev, d).requires_grad();
    let mut loss = Array::zeros(dev, [1]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| field_loss::launch(o.len(), &mesh, &oa, &da, w, wp, &mut loss))
        .unwrap();
    tape.backward(&mut loss).unwrap();
    (oa.grad_to_vec().unwrap(), da.grad_to_vec().unwrap())
}

#[test]
fn gradients_reach_the_query_through_the_named_fields() {
    // Straight down onto face 0 at (x, y) from height h: t = h, u = 1 - x - y,
    // v = x, so d t / d o = (0, 0, 1), d u / d o = (-1, -1, 0), d v / d o = (1, 0, 0);
    // the closest point is (x, y, 0) with the same u, v.
    let o = [Vec3::new(0.2, 0.1, 2.0)];
    let d = [Vec3::NEG_Z];
    let cases = [
        (Vec3::X, Vec3::ZERO, Vec3::Z),
        (Vec3::Y, Vec3::ZERO, Vec3::new(-1.0, -1.0, 0.0)),
        (Vec3::Z, Vec3::ZERO, Vec3::X),
        (Vec3::ZERO, Vec3::X, Vec3::new(-1.0, -1.0, 0.0)),
        (Vec3::ZERO, Vec3::Y, Vec3::X),
        // The closest point stays in the plane: no gradient along z.
        (Vec3::ZERO, Vec3::Z, Vec3::ZERO),
    ];
    for dev in devices() {
        for (w, wp, want) in cases {
            let (go, _) = field_grads(dev, &o, &d, w, wp);
            assert!(
                (go[0] - want).abs().max_element() < 1e-5,
                "{dev}: w {w} wp {wp}: d/do {} (want {want})",
                go[0]
            );
        }
    }
}

#[test]
fn gradients_of_hit_t_and_hit_u_match_finite_differences() {
    // Slanted rays, onto both faces and from both sides: t, u, v depend on the
    // origin and the direction; points off both faces' planes.
    let o0 = [
        Vec3::new(0.3, 0.2, 1.5),
        Vec3::new(5.2, 0.3, -0.8),
        Vec3::new(-0.2, 0.1, 0.7),
    ];
    let d0 = [
        Vec3::new(-0.1, 0.05, -1.0),
        Vec3::new(0.05, 0.1, 1.0),
        Vec3::new(0.3, 0.1, -0.6),
    ];
    for dev in devices() {
        let mesh = DeviceMesh::new(dev, &two_triangles()).unwrap();
        for (w, wp) in [
            (Vec3::X, Vec3::ZERO),
            (Vec3::Y, Vec3::ZERO),
            (Vec3::new(0.5, -1.0, 2.0), Vec3::new(1.0, -2.0, 0.5)),
        ] {
            let mut o = Array::from_slice(dev, &o0);
            let mut d = Array::from_slice(dev, &d0);
            let report = gradcheck(&mut [&mut o, &mut d], None, |x, loss| {
                loss.fill(0.0);
                field_loss::launch(3, &mesh, x[0], x[1], w, wp, loss)
            })
            .unwrap();
            println!("{dev}: w {w} wp {wp}: {report}");
            assert!(report.max_rel < 1e-2, "{dev}: w {w} wp {wp}: {report}");
            // Every ray's origin moves what it measures.
            let (go, gd) = field_grads(dev, &o0, &d0, w, wp);
            assert!(go.iter().all(|g| g.length() > 0.0), "{dev}: {go:?}");
            assert!(gd.iter().all(|g| g.is_finite()), "{dev}: {gd:?}");
        }
    }
}

#[test]
fn query_field_kernels_have_ptx() {
    weft_testkit::devices::check_all_ptx(&weft_testkit::ptx_of!(fields, field_loss), &[]);
}
