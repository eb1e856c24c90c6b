//! Generalized winding numbers of a [`DeviceMesh`] in kernels: the inside/outside
//! test of the signed point query.
//!
//! The same evaluation as the host's `weft_geom::MeshBvh::winding_number` (Barill
//! et al. 2018, "Fast Winding Numbers for Soups and Clouds"; see
//! `weft_geom::query::winding`): the sum of the faces' signed solid angles over
//! 4π, with a node's faces replaced by their far-field expansion when the point is
//! farther than `beta` times the node's radius from its centre. It is 1 inside and 0
//! outside a closed, outward-facing mesh, and fractional for open meshes and soups.

use super::prelude::*;
#[allow(unused_imports)] // named by the generated code
use super::{BvhNode, DeviceMesh, WindingNode};

#[allow(unused_imports)] // named by the generated code
use super::{aabb::climb_out, ray::tri_corner};

/// Signed solid angle of triangle `(a, b, c)` seen from `q` (positive when `q` is
/// behind the counter-clockwise front face), in `(-2π, 2π]` (Van Oosterom and
/// Strackee); 0 when `q` is a corner.
#[func(crate = ::weft_runtime)]
pub fn solid_angle(q: Vec3, a: Vec3, b: Vec3, c: Vec3) -> f32 {
    let a = a - q;
    let b = b - q;
    let c = c - q;
    let la = length(a);
    let lb = length(b);
    let lc = length(c);
    let num = dot(a, cross(b, c));
    let den = la * lb * lc + dot(a, b) * lc + dot(a, c) * lb + dot(b, c) * la;
    2.0 * atan2(num, den)
}

/// The far-field solid angle of a node seen from `x = center - q` at `r = |x|`:
/// the dipole term and its first correction.
#[func(crate = ::weft_runtime)]
fn winding_far_field(w: WindingNode, x: Vec3, r: f32) -> f32 {
    let r3 = r * r * r;
    let m = w.moment;
    (dot(w.area_normal, x) + trace(m)) / r3 - 3.0 * dot(x, m * x) / (r3 * r * r)
}

/// The generalized winding number of `mesh` at `p`: ≈ 1 inside and ≈ 0 outside
/// a closed mesh. `beta` trades accuracy for speed as on the host (2 is the
/// default of the signed queries, with errors around 1e-3; `f32::INFINITY` sums
/// every face exactly); without [`DeviceMesh::winding`] data every face is summed.
/// A stackless walk over the BVH (parent links), so any depth works. 0 for a
/// point that is not finite or an empty mesh. Not differentiable: its gradient is
/// zero.
///
/// ```
/// use weft::prelude::*;
/// use weft::geom::{DeviceMesh, mesh_winding_number};
///
/// #[kernel(crate = ::weft_runtime)]
/// fn winding(mesh: &DeviceMesh, p: &Array<Vec3>, w: &mut Array<f32>) {
///     let i = tid();
///     w[i] = mesh_winding_number(mesh, p[i], 2.0);
/// }
///
/// let mesh = DeviceMesh::new(Device::Cpu, &weft_geom::generate::icosphere(1.0, 2)).unwrap();
/// let p = Array::from_slice(Device::Cpu, &[Vec3::ZERO, Vec3::new(0.0, 2.0, 0.0)]);
/// let mut w = Array::zeros(Device::Cpu, [2]);
/// winding::launch(2, &mesh, &p, &mut w).unwrap();
/// let w = w.to_vec();
/// assert!((w[0] - 1.0).abs() < 0.02 && w[1].abs() < 0.02);
/// ```
#[func(crate = ::weft_runtime)]
pub fn mesh_winding_number(mesh: &DeviceMesh, p: Vec3, beta: f32) -> f32 {
    let leaf_bit = 1u32 << 31;
    let fast = mesh.winding.len() == mesh.nodes.len();
    let mut sum = 0.0;
    let mut go = abs(p.x) < f32::INFINITY
        && abs(p.y) < f32::INFINITY
        && abs(p.z) < f32::INFINITY
        && mesh.nodes.len() > 0;
    let mut node = 0;
    let mut down = true;
    while go {
        if down {
            let n = mesh.nodes[node];
            let rc = n.right_or_count;
            if (rc & leaf_bit) != 0 {
                let mut k = n.left_or_first as i32;
                let end = k + (rc & !leaf_bit) as i32;
                while k < end {
                    let a = tri_corner(mesh.tris[3 * k]);
                    let b = tri_corner(mesh.tris[3 * k + 1]);
                    let c = tri_corner(mesh.tris[3 * k + 2]);
                    sum += solid_angle(p, a, b, c);
                    k += 1;
                }
                down = false;
            } else {
                let mut far = false;
                if fast {
                    let w = mesh.winding[node];
                    let x = w.center - p;
                    let r = length(x);
                    if r > beta * w.radius {
                        sum += winding_far_field(w, x, r);
                        far = true;
                    }
                }
                if far {
                    down = false;
                } else {
                    node += 1;
                }
            }
        } else if node == 0 {
            go = false;
        } else {
            let (next, into) = climb_out(mesh.nodes, mesh.parents, node);
            node = next;
            down = into == 1;
        }
    }
    // The mesh is a constant of the query, and the winding number's gradient
    // in `p` is zero almost everywhere.
    stop_gradient(sum / (4.0 * 3.141_592_7))
}
