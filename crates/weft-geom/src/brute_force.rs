//! Brute-force O(n) versions of every query: the ground truth the BVH and hash-grid
//! answers are tested against, with the same primitive tests and tie-breaking (smaller
//! index wins), so answers agree exactly.

use glam::Vec3;

use crate::aabb::Aabb;
use crate::mesh::Mesh;
use crate::query::closest::face_closest;
use crate::query::ray::{WatertightRay, intersect_face, ray_hit};
use crate::query::{PointQuery, RayHit};

pub use crate::query::winding::winding_number_exact;

/// Closest ray hit over all faces (see [`MeshBvh::ray`](crate::MeshBvh::ray)).
pub fn ray(mesh: &Mesh, origin: Vec3, dir: Vec3, max_t: f32) -> Option<RayHit> {
    let ray = WatertightRay::new(origin, dir)?;
    if max_t.is_nan() || max_t < 0.0 {
        return None;
    }
    let mut best: Option<(u32, crate::query::TriangleHit)> = None;
    for f in 0..mesh.num_faces() as u32 {
        if let Some(h) = intersect_face(mesh, &ray, f, max_t)
            && best.is_none_or(|(_, b)| h.t < b.t)
        {
            best = Some((f, h));
        }
    }
    best.map(|(f, h)| ray_hit(f, mesh.triangle(f as usize), h))
}

/// Closest point over all faces (see
/// [`MeshBvh::closest_point`](crate::MeshBvh::closest_point)).
pub fn closest_point(mesh: &Mesh, p: Vec3, max_dist: f32) -> Option<PointQuery> {
    if !p.is_finite() || max_dist.is_nan() || max_dist < 0.0 {
        return None;
    }
    let mut best: Option<(u32, f32, Vec3, [f32; 3])> = None;
    let max_d2 = max_dist * max_dist;
    for f in 0..mesh.num_faces() as u32 {
        let (d2, q, w) = face_closest(mesh, f, p);
        if d2 <= max_d2 && best.is_none_or(|b| d2 < b.1) {
            best = Some((f, d2, q, w));
        }
    }
    best.map(|(face, d2, point, w)| PointQuery {
        point,
        face,
        u: w[0],
        v: w[1],
        distance: d2.sqrt(),
    })
}

/// Faces whose bounds overlap `lower ..= upper`, in increasing order.
pub fn aabb_query(mesh: &Mesh, lower: Vec3, upper: Vec3) -> Vec<u32> {
    let q = Aabb::new(lower, upper);
    (0..mesh.num_faces())
        .filter(|&f| mesh.face_aabb(f).overlaps(&q))
        .map(|f| f as u32)
        .collect()
}

/// Indices of `points` within `radius` of `p` (`|q - p|² ≤ radius²`), in increasing
/// order.
pub fn neighbors(points: &[Vec3], p: Vec3, radius: f32) -> Vec<u32> {
    let r2 = radius * radius;
    (0..points.len())
        .filter(|&i| (points[i] - p).length_squared() <= r2)
        .map(|i| i as u32)
        .collect()
}
