//! The mesh-query workload of the benchmarks (`benches/cuda.rs` on a GPU,
//! `benches/mesh_kernels.rs` on the CPU): the 327,680-triangle sphere
//! (`icosphere(1.0, 7)`), random rays and points around it, and the kernels that
//! query it.

use weft::geom::{
    DeviceBvh, DeviceMesh, bvh_query_aabb, bvh_query_aabb_next, closest_point_triangle,
    mesh_query_point, mesh_query_point_face, mesh_query_ray_face, ray_triangle,
};
use weft::prelude::*;

/// 10 % of the sphere's size (its bounding-box diagonal, 2√3): the bounded
/// closest-point queries' `max_dist`.
pub const TENTH: f32 = 0.2 * 1.732_050_8;

/// Where the camera of [`camera_rays`] stands.
pub const EYE: Vec3 = Vec3::new(0.3, 0.2, 3.0);

/// The benchmark's sphere and `m` random rays: origins uniform in `[-2, 2]³`
/// (also the closest-point queries' points), directions toward a point in
/// `[-0.7, 0.7]³` (not normalized).
pub struct Workload {
    /// The sphere, radius 1, 327,680 triangles.
    pub sphere: weft_geom::Mesh,
    /// Ray origins and query points.
    pub origins: Vec<Vec3>,
    /// Ray directions.
    pub dirs: Vec<Vec3>,
}

impl Workload {
    /// The sphere and `m` rays (seed 3, as every benchmark run).
    pub fn new(m: usize) -> Workload {
        let sphere = weft_geom::generate::icosphere(1.0, 7);
        let r = crate::random_f32s(6 * m, 3, -1.0, 1.0);
        let origins: Vec<Vec3> = (0..m)
            .map(|i| Vec3::new(r[6 * i], r[6 * i + 1], r[6 * i + 2]) * 2.0)
            .collect();
        let dirs = (0..m)
            .map(|i| Vec3::new(r[6 * i + 3], r[6 * i + 4], r[6 * i + 5]) * 0.7 - origins[i])
            .collect();
        Workload {
            sphere,
            origins,
            dirs,
        }
    }
}

/// `t[i]`: the hit distance of ray `i` (`o[i]`, `d[i]`) on `mesh`, or -1.
#[weft::kernel]
pub fn cast_rays(mesh: &DeviceMesh, o: &Array<Vec3>, d: &Array<Vec3>, t: &mut Array<f32>) {
    let i = tid();
    let f = mesh_query_ray_face(mesh, o[i], d[i], 1.0e6);
    let mut s = -1.0;
    if f >= 0 {
        let a = mesh.points[mesh.faces[3 * f] as i32];
        let b = mesh.points[mesh.faces[3 * f + 1] as i32];
        let c = mesh.points[mesh.faces[3 * f + 2] as i32];
        let (_hit, th, _u, _v) = ray_triangle(o[i], d[i], a, b, c);
        s = th;
    }
    t[i] = s;
}

/// A `width`² pinhole image from `eye` toward the origin: the hit distance per
/// pixel, or -1 (a 2-D launch, `[width, width]`).
#[weft::kernel]
pub fn camera_rays(mesh: &DeviceMesh, eye: Vec3, width: i32, t: &mut Array<f32>) {
    let (y, x) = tid();
    let u = (x as f32 + 0.5) / width as f32 * 2.0 - 1.0;
    let v = (y as f32 + 0.5) / width as f32 * 2.0 - 1.0;
    let dir = normalize(Vec3::new(u * 0.6, v * 0.6, 0.0) - eye * 0.5);
    let f = mesh_query_ray_face(mesh, eye, dir, 1.0e6);
    let mut s = -1.0;
    if f >= 0 {
        let a = mesh.points[mesh.faces[3 * f] as i32];
        let b = mesh.points[mesh.faces[3 * f + 1] as i32];
        let c = mesh.points[mesh.faces[3 * f + 2] as i32];
        let (_hit, th, _u, _v) = ray_triangle(eye, dir, a, b, c);
        s = th;
    }
    t[y * width + x] = s;
}

/// `q[i]`: the closest point to `p[i]` on `mesh` within `max_dist`, or `p[i]`
/// (one query per thread).
#[weft::kernel]
pub fn closest_points(mesh: &DeviceMesh, p: &Array<Vec3>, max_dist: f32, q: &mut Array<Vec3>) {
    let i = tid();
    let f = mesh_query_point_face(mesh, p[i], max_dist);
    let mut c = p[i];
    if f >= 0 {
        let a = mesh.points[mesh.faces[3 * f] as i32];
        let b = mesh.points[mesh.faces[3 * f + 1] as i32];
        let cc = mesh.points[mesh.faces[3 * f + 2] as i32];
        let (point, _w) = closest_point_triangle(p[i], a, b, cc);
        c = point;
    }
    q[i] = c;
}

/// `d[i]`: the signed distance from `p[i]` to `mesh` (negative inside, by winding
/// number) through [`mesh_query_point`], or `max_dist` beyond it.
#[weft::kernel]
pub fn signed_distances(mesh: &DeviceMesh, p: &Array<Vec3>, max_dist: f32, d: &mut Array<f32>) {
    let i = tid();
    let q = mesh_query_point(mesh, p[i], max_dist);
    let mut s = max_dist;
    if q.found {
        s = q.sign * length(q.point - p[i]);
    }
    d[i] = s;
}

/// `n[i]`: how many items of `bvh` overlap the cube of half-width `h` around
/// `p[i]`.
#[weft::kernel]
pub fn bvh_box_counts(bvh: &DeviceBvh, p: &Array<Vec3>, h: f32, n: &mut Array<i32>) {
    let i = tid();
    let lo = p[i] - Vec3::splat(h);
    let hi = p[i] + Vec3::splat(h);
    let mut k = 0;
    let mut q = bvh_query_aabb(bvh, lo, hi);
    while q.item >= 0 {
        k += 1;
        q = bvh_query_aabb_next(bvh, q, lo, hi);
    }
    n[i] = k;
}

/// The benchmark's generic BVH items: a box of half-width `h` around each of
/// `points`.
pub fn item_boxes(points: &[Vec3], h: f32) -> (Vec<Vec3>, Vec<Vec3>) {
    (
        points.iter().map(|p| *p - Vec3::splat(h)).collect(),
        points.iter().map(|p| *p + Vec3::splat(h)).collect(),
    )
}
