//! The complete mesh queries: a search for the face, then the differentiable
//! evaluation on it, in one call.
//!
//! Each returns a structure with named fields ([`MeshQueryRay`],
//! [`MeshQueryPoint`]), whose float fields carry gradient. Gradients reach the
//! query (ray origin and direction, the point) through [`ray_triangle`] and
//! [`closest_point_triangle`]; the mesh is a constant here
//! (its corners pass through `stop_gradient`). For gradients with respect to the
//! mesh points, read the corners in the kernel and call those funcs there.

#[allow(unused_imports)] // named by the generated code
use super::closest::{closest_point_triangle, mesh_query_point_face};
use super::prelude::*;
#[allow(unused_imports)] // named by the generated code
use super::ray::mesh_query_ray_face;
#[allow(unused_imports)] // named by the generated code
use super::watertight::{ray_triangle_sheared, watertight_ray};
#[allow(unused_imports)] // named by the generated code
use super::winding::mesh_winding_number;
#[allow(unused_imports)] // named by the generated code
use super::{BvhNode, DeviceMesh, WindingNode};

/// Corners of face `f`, as constants of the adjoint.
#[func(crate = ::weft_runtime)]
fn face_corners_const(mesh: &DeviceMesh, f: i32) -> (Vec3, Vec3, Vec3) {
    let a = stop_gradient(mesh.points[mesh.faces[3 * f] as i32]);
    let b = stop_gradient(mesh.points[mesh.faces[3 * f + 1] as i32]);
    let c = stop_gradient(mesh.points[mesh.faces[3 * f + 2] as i32]);
    (a, b, c)
}

/// What [`mesh_query_ray`] found: named fields, so `u` and `v` cannot be swapped
/// (Warp's `MeshQueryRay`, with `hit` for its `result`).
///
/// The hit point is `u a + v b + (1 - u - v) c` on face `face` with corners
/// `(a, b, c)` (the barycentrics of `weft_geom`'s queries and
/// [`mesh_eval_position`]). No hit: `hit` false, `face` -1, every float 0.
#[structure(crate = ::weft_runtime)]
pub struct MeshQueryRay {
    /// Whether the ray hit the mesh within `max_t`.
    pub hit: bool,
    /// Distance along the ray in units of `|d|` (the hit is `o + t d`).
    pub t: f32,
    /// Barycentric weight of the face's first corner.
    pub u: f32,
    /// Barycentric weight of the face's second corner.
    pub v: f32,
    /// The face hit (the smallest index among faces hit at the same `t`), -1 for
    /// none.
    pub face: i32,
    /// The face's unit normal (counter-clockwise front).
    pub normal: Vec3,
    /// 1 when the ray meets the front of the face, -1 the back.
    pub sign: f32,
}

/// What [`mesh_query_point`] and [`mesh_query_point_no_sign`] found: named
/// fields, so `u` and `v` cannot be swapped (Warp's `MeshQueryPoint`, with
/// `found` for its `result`, plus the closest point itself).
///
/// `point = u a + v b + (1 - u - v) c` on face `face` with corners `(a, b, c)`.
/// Nothing within `max_dist`: `found` false, `face` -1, everything else 0.
#[structure(crate = ::weft_runtime)]
pub struct MeshQueryPoint {
    /// Whether a point of the mesh lies within `max_dist`.
    pub found: bool,
    /// The closest point on the mesh.
    pub point: Vec3,
    /// The face it lies on (the smallest index among equally close faces), -1 for
    /// none.
    pub face: i32,
    /// Barycentric weight of the face's first corner.
    pub u: f32,
    /// Barycentric weight of the face's second corner.
    pub v: f32,
    /// -1 inside, 1 outside ([`mesh_query_point`]); 0 when nothing was found, and
    /// always 0 from [`mesh_query_point_no_sign`], which does not tell.
    pub sign: f32,
}

/// The first hit of the ray `o + t d`, `0 <= t <= max_t`, on `mesh`, as a
/// [`MeshQueryRay`] (`hit.t`, `hit.u`, `hit.v`, `hit.face`, `hit.normal`,
/// `hit.sign`). The face is [`mesh_query_ray_face`]'s (the smallest index among
/// faces hit at the same `t`). Differentiable: `t`, `u` and `v` with respect to
/// `o` and `d`.
///
/// ```
/// use weft::prelude::*;
/// use weft::geom::{DeviceMesh, mesh_query_ray};
///
/// #[kernel(crate = ::weft_runtime)]
/// fn depth(mesh: &DeviceMesh, origins: &Array<Vec3>, dir: Vec3, t: &mut Array<f32>, s: &mut Array<f32>) {
///     let i = tid();
///     let q = mesh_query_ray(mesh, origins[i], dir, 1.0e6);
///     t[i] = if q.hit { q.t } else { -1.0 };
///     s[i] = q.sign;
/// }
///
/// let mesh = DeviceMesh::new(Device::Cpu, &weft_geom::generate::icosphere(1.0, 2)).unwrap();
/// let o = Array::from_slice(Device::Cpu, &[Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO]);
/// let (mut t, mut s) = (Array::zeros(Device::Cpu, [2]), Array::zeros(Device::Cpu, [2]));
/// depth::launch(2, &mesh, &o, Vec3::NEG_Z, &mut t, &mut s).unwrap();
/// let (t, s) = (t.to_vec(), s.to_vec());
/// assert!((t[0] - 4.0).abs() < 0.02 && s[0] == 1.0); // the outside, from outside
/// assert!((t[1] - 1.0).abs() < 0.02 && s[1] == -1.0); // the inside, from the centre
/// ```
#[func(crate = ::weft_runtime)]
pub fn mesh_query_ray(mesh: &DeviceMesh, o: Vec3, d: Vec3, max_t: f32) -> MeshQueryRay {
    let f = mesh_query_ray_face(mesh, o, d, max_t);
    let mut out = MeshQueryRay {
        hit: false,
        t: 0.0,
        u: 0.0,
        v: 0.0,
        face: -1,
        normal: Vec3::ZERO,
        sign: 0.0,
    };
    if f >= 0 {
        let (a, b, c) = face_corners_const(mesh, f);
        // The test of the search, so it hits the face the search found.
        let (kx, ky, kz, s) = watertight_ray(d);
        let (hit, t, wa, wb, _wc, front) = ray_triangle_sheared(o, kx, ky, kz, s, a, b, c);
        if hit {
            let mut sign = -1.0;
            if front {
                sign = 1.0;
            }
            out = MeshQueryRay {
                hit: true,
                t,
                u: wa,
                v: wb,
                face: f,
                normal: normalize(cross(b - a, c - a)),
                sign,
            };
        }
    }
    out
}

/// The point of `mesh` closest to `p` within `max_dist` (inclusive;
/// `f32::INFINITY` for no limit), as a [`MeshQueryPoint`] (`q.point`, `q.face`,
/// `q.u`, `q.v`) whose `sign` is 0. The face is [`mesh_query_point_face`]'s (the
/// smallest index among equally close faces). Cheaper than [`mesh_query_point`],
/// which also tells inside from outside. Differentiable: `point`, `u` and `v`
/// with respect to `p`.
#[func(crate = ::weft_runtime)]
pub fn mesh_query_point_no_sign(mesh: &DeviceMesh, p: Vec3, max_dist: f32) -> MeshQueryPoint {
    let f = mesh_query_point_face(mesh, p, max_dist);
    let mut out = MeshQueryPoint {
        found: false,
        point: Vec3::ZERO,
        face: -1,
        u: 0.0,
        v: 0.0,
        sign: 0.0,
    };
    if f >= 0 {
        let (a, b, c) = face_corners_const(mesh, f);
        let (q, w) = closest_point_triangle(p, a, b, c);
        out = MeshQueryPoint {
            found: true,
            point: q,
            face: f,
            u: w.x,
            v: w.y,
            sign: 0.0,
        };
    }
    out
}

/// [`mesh_query_point_no_sign`] and whether `p` is inside: its `sign` is -1
/// inside and 1 outside (0 when nothing was found). Inside means a generalized
/// winding number above 1/2 ([`mesh_winding_number`] with `beta` = 2): robust for
/// closed meshes — it does not depend on which face, edge or vertex is closest,
/// and a point on the surface may go either way — and a sensible answer for
/// meshes with small holes. The winding number costs more than the search; on a
/// mesh whose [`DeviceMesh::winding`] is empty (built on the device) it sums every
/// face.
///
/// ```
/// use weft::prelude::*;
/// use weft::geom::{DeviceMesh, mesh_query_point};
///
/// #[kernel(crate = ::weft_runtime)]
/// fn sdf(mesh: &DeviceMesh, p: &Array<Vec3>, d: &mut Array<f32>) {
///     let i = tid();
///     let q = mesh_query_point(mesh, p[i], 10.0);
///     d[i] = if q.found { q.sign * length(q.point - p[i]) } else { 10.0 };
/// }
///
/// let mesh = DeviceMesh::new(Device::Cpu, &weft_geom::generate::icosphere(1.0, 3)).unwrap();
/// let p = Array::from_slice(Device::Cpu, &[Vec3::ZERO, Vec3::new(0.0, 0.0, 3.0)]);
/// let mut d = Array::zeros(Device::Cpu, [2]);
/// sdf::launch(2, &mesh, &p, &mut d).unwrap();
/// let d = d.to_vec();
/// assert!((d[0] + 1.0).abs() < 0.02 && (d[1] - 2.0).abs() < 0.02);
/// ```
#[func(crate = ::weft_runtime)]
pub fn mesh_query_point(mesh: &DeviceMesh, p: Vec3, max_dist: f32) -> MeshQueryPoint {
    let mut out = mesh_query_point_no_sign(mesh, p, max_dist);
    if out.found {
        out.sign = 1.0;
        if mesh_winding_number(mesh, stop_gradient(p), 2.0) > 0.5 {
            out.sign = -1.0;
        }
    }
    out
}

/// The point at barycentrics `(u, v)` of face `face`: `u a + v b + (1 - u - v) c`
/// for its corners `(a, b, c)` (as `weft_geom::Mesh::eval_position`; the `u`, `v`
/// of [`mesh_query_ray`] and [`mesh_query_point`]). Differentiable in `u` and `v`;
/// the mesh is a constant. The face must exist (an index out of range is the
/// launch's error).
#[func(crate = ::weft_runtime)]
pub fn mesh_eval_position(mesh: &DeviceMesh, face: i32, u: f32, v: f32) -> Vec3 {
    let (a, b, c) = face_corners_const(mesh, face);
    a * u + b * v + c * (1.0 - u - v)
}

/// The velocity at barycentrics `(u, v)` of face `face`, interpolated from
/// [`DeviceMesh::velocities`] as [`mesh_eval_position`] interpolates points;
/// zero for a mesh without velocities (a static mesh). Differentiable in `u`
/// and `v`.
#[func(crate = ::weft_runtime)]
pub fn mesh_eval_velocity(mesh: &DeviceMesh, face: i32, u: f32, v: f32) -> Vec3 {
    let mut out = Vec3::ZERO;
    if mesh.velocities.len() > 0 {
        let a = stop_gradient(mesh.velocities[mesh.faces[3 * face] as i32]);
        let b = stop_gradient(mesh.velocities[mesh.faces[3 * face + 1] as i32]);
        let c = stop_gradient(mesh.velocities[mesh.faces[3 * face + 2] as i32]);
        out = a * u + b * v + c * (1.0 - u - v);
    }
    out
}
