//! Generalized winding number (Jacobson et al. 2013) with the fast hierarchical
//! evaluation of Barill et al. 2018, "Fast Winding Numbers for Soups and Clouds".
//!
//! The winding number of `q` is `Σ Ω_f(q) / 4π` over faces, `Ω_f` the signed solid
//! angle of face `f` seen from `q` (Van Oosterom–Strackee formula). It is 1 inside and
//! 0 outside a closed, outward-facing (counter-clockwise) mesh, for any `q` not on the
//! surface, and degrades gracefully (fractional values) for open meshes and soups.
//!
//! Fast evaluation: every BVH node stores a [`WindingNode`] — the area-weighted centre
//! `c̃` of its faces, the radius `r` of a ball around `c̃` holding all their corners,
//! their vector area `N = Σ Nᵢ` and first moment `M = Σ Nᵢ (cᵢ - c̃)ᵀ`. For an inner
//! node with `|c̃ - q| > β r` the node's solid angle is replaced by its far-field
//! expansion around `c̃` — with `x = c̃ - q`, `ρ = |x|`:
//!
//! ```text
//! Ω ≈ N·x / ρ³ + tr(M) / ρ³ − 3 xᵀ M x / ρ⁵
//! ```
//!
//! (the dipole term and its first correction, Barill et al.'s "order 1"); otherwise
//! its children are opened. Leaves are always summed exactly. Measured against exact
//! summation on the test meshes (icosphere, torus, torus knot, terrain; points in
//! `[-2, 2]³`), the default `β = 2` has a mean absolute error of about 1e-3 and a worst
//! of about 3e-2; `β = 4` a worst below 1e-2 (see `tests/winding.rs`). Either is far
//! from the 0.5 threshold used for inside/outside, so the classification of points
//! of a closed mesh is robust: points near the surface see exact solid angles of the
//! faces near them, where the sum is sensitive, and only distant clusters are
//! approximated. `β = ∞` gives the exact sum.
//!
//! Degenerate faces have zero solid angle and zero vector area: they change nothing.

use glam::{Mat3, Vec3};
use rayon::prelude::*;

use crate::bvh::{Bvh, BvhNode, Stack};
use crate::mesh::Mesh;
use crate::mesh_bvh::MeshBvh;

/// Default accuracy parameter β of the fast winding number (see the module docs).
pub const DEFAULT_BETA: f32 = 2.0;

/// Far-field data of one BVH node, 80 bytes (five 16-byte rows), in the same order as
/// the BVH's nodes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WindingNode {
    /// Area-weighted centre `c̃` of the node's faces (mean of face centroids if the
    /// area is 0).
    pub center: Vec3,
    /// Radius around `center` that holds every corner of the node's faces.
    pub radius: f32,
    /// Vector area `N = Σ Nᵢ`, `Nᵢ = ½ (p1 - p0) × (p2 - p0)`.
    pub area_normal: Vec3,
    /// Total area of the node's faces.
    pub area: f32,
    /// First moment `M = Σ Nᵢ (cᵢ - c̃)ᵀ` (`cᵢ` face centroids), column-major.
    pub moment: Mat3,
    /// Padding to a multiple of 16 bytes.
    pub _pad: [f32; 3],
}

/// Signed solid angle of triangle `a b c` seen from `q` (positive when `q` is behind
/// the counter-clockwise front face), in `(-2π, 2π]`. Zero when `q` is a corner.
///
/// ```
/// use glam::{Mat3, Vec3};
/// use weft_geom::query::solid_angle;
///
/// // A quarter of the view from just under a big triangle's corner … roughly 2π.
/// let w = solid_angle(Vec3::new(0.0, 0.0, -1e-3), Vec3::new(-1e3, -1e3, 0.0),
///                     Vec3::new(1e3, -1e3, 0.0), Vec3::new(0.0, 1e3, 0.0));
/// assert!((w - std::f32::consts::TAU).abs() < 1e-2);
/// ```
#[inline]
pub fn solid_angle(q: Vec3, a: Vec3, b: Vec3, c: Vec3) -> f32 {
    let (a, b, c) = (a - q, b - q, c - q);
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let num = a.dot(b.cross(c));
    let den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
    2.0 * num.atan2(den)
}

/// `n dᵀ`.
fn outer(n: Vec3, d: Vec3) -> Mat3 {
    Mat3::from_cols(n * d.x, n * d.y, n * d.z)
}

/// Area vector and centroid of face `f`, and its corners.
#[inline(always)]
fn face(mesh: &Mesh, f: u32) -> (Vec3, Vec3, [Vec3; 3]) {
    let [a, b, c] = mesh.triangle(f as usize);
    (0.5 * (b - a).cross(c - a), (a + b + c) / 3.0, [a, b, c])
}

/// Winding data of a leaf's faces (two passes; the second hits the cache).
fn leaf_node(mesh: &Mesh, faces: &[u32]) -> WindingNode {
    let (mut area, mut area_normal, mut weighted, mut mean) =
        (0.0, Vec3::ZERO, Vec3::ZERO, Vec3::ZERO);
    for &f in faces {
        let (n, centroid, _) = face(mesh, f);
        let fa = n.length();
        area += fa;
        area_normal += n;
        weighted += centroid * fa;
        mean += centroid;
    }
    let center = if area > 0.0 {
        weighted / area
    } else {
        mean / faces.len().max(1) as f32
    };
    let mut moment = Mat3::ZERO;
    let mut radius_sq = 0.0f32;
    for &f in faces {
        let (n, centroid, corners) = face(mesh, f);
        moment += outer(n, centroid - center);
        for p in corners {
            radius_sq = radius_sq.max((p - center).length_squared());
        }
    }
    WindingNode {
        center,
        radius: radius_sq.sqrt(),
        area_normal,
        area,
        moment,
        _pad: [0.0; 3],
    }
}

/// Combines two children (moments shifted to the new centre).
fn inner_node(l: &WindingNode, r: &WindingNode) -> WindingNode {
    let area = l.area + r.area;
    let center = if area > 0.0 {
        (l.center * l.area + r.center * r.area) / area
    } else {
        (l.center + r.center) * 0.5
    };
    let radius =
        ((l.center - center).length() + l.radius).max((r.center - center).length() + r.radius);
    let moment = l.moment
        + outer(l.area_normal, l.center - center)
        + r.moment
        + outer(r.area_normal, r.center - center);
    WindingNode {
        center,
        radius,
        area_normal: l.area_normal + r.area_normal,
        area,
        moment,
        _pad: [0.0; 3],
    }
}

/// Far-field solid angle of a node seen from `q` at `x = c̃ - q`, `|x| = r`:
/// `N·x / r³ + tr(M) / r³ - 3 xᵀ M x / r⁵` (dipole plus its first correction).
#[inline]
fn far_field(w: &WindingNode, x: Vec3, r: f32) -> f32 {
    let r3 = r * r * r;
    let trace = w.moment.x_axis.x + w.moment.y_axis.y + w.moment.z_axis.z;
    (w.area_normal.dot(x) + trace) / r3 - 3.0 * x.dot(w.moment * x) / (r3 * r * r)
}

/// Winding data for every node of `bvh`, a BVH over the faces of `mesh`, in the
/// order of its nodes (what [`MeshBvh::winding_nodes`] holds; for trees kept
/// elsewhere, such as a device copy).
///
/// ```
/// use weft_geom::{Bvh, generate, query::winding_nodes};
///
/// let sphere = generate::icosphere(1.0, 2);
/// let bvh = Bvh::from_mesh(&sphere);
/// let w = winding_nodes(&sphere, &bvh);
/// assert_eq!(w.len(), bvh.nodes().len());
/// assert!(w[0].area_normal.length() < 1e-4); // a closed surface
/// ```
///
/// # Panics
/// If `bvh` indexes faces `mesh` does not have.
pub fn winding_nodes(mesh: &Mesh, bvh: &Bvh) -> Vec<WindingNode> {
    let mut out = vec![bytemuck::Zeroable::zeroed(); bvh.nodes().len()];
    refit_nodes(mesh, bvh, &mut out);
    out
}

/// Recomputes winding data bottom-up (same recursion as the BVH refit).
fn refit_nodes(mesh: &Mesh, bvh: &Bvh, out: &mut [WindingNode]) {
    if bvh.is_empty() {
        out[0] = leaf_node(mesh, &[]);
        return;
    }
    refit_subtree(mesh, bvh.nodes(), bvh.prim_indices(), out, 0);
}

fn refit_subtree(
    mesh: &Mesh,
    nodes: &[BvhNode],
    prims: &[u32],
    out: &mut [WindingNode],
    base: usize,
) -> WindingNode {
    let node = nodes[base];
    let w = if node.is_leaf() {
        leaf_node(mesh, &prims[node.prim_range()])
    } else {
        let right = node.children().1 as usize;
        let parallel = out.len() > 4096;
        let (lo, ro) = out[1..].split_at_mut(right - base - 1);
        let mut left = || refit_subtree(mesh, nodes, prims, lo, base + 1);
        let mut right_w = || refit_subtree(mesh, nodes, prims, ro, right);
        let (l, r) = if parallel {
            rayon::join(left, right_w)
        } else {
            (left(), right_w())
        };
        inner_node(&l, &r)
    };
    out[0] = w;
    w
}

impl MeshBvh {
    /// Generalized winding number at `p` with the default accuracy
    /// ([`DEFAULT_BETA`]): ≈ 1 inside, ≈ 0 outside a closed mesh.
    pub fn winding_number(&self, p: Vec3) -> f32 {
        self.winding_number_with(p, DEFAULT_BETA)
    }

    /// Generalized winding number with accuracy `beta` (larger is more exact and
    /// slower; `f32::INFINITY` sums every face exactly). 0 for a non-finite `p`.
    pub fn winding_number_with(&self, p: Vec3, beta: f32) -> f32 {
        if !p.is_finite() || self.bvh().is_empty() {
            return 0.0;
        }
        let data = self.winding_nodes();
        let (mesh, bvh) = (self.mesh(), self.bvh());
        let mut sum = 0.0f32;
        let mut stack = Stack::with_root();
        while let Some(i) = stack.pop() {
            let (node, w) = (&bvh.nodes()[i as usize], &data[i as usize]);
            let d = w.center - p;
            let dist = d.length();
            if !node.is_leaf() && dist > beta * w.radius {
                sum += far_field(w, d, dist);
            } else if node.is_leaf() {
                for &f in &bvh.prim_indices()[node.prim_range()] {
                    let [a, b, c] = mesh.triangle(f as usize);
                    sum += solid_angle(p, a, b, c);
                }
            } else {
                let (l, r) = node.children();
                stack.push(r);
                stack.push(l);
            }
        }
        sum / (4.0 * std::f32::consts::PI)
    }
}

/// Exact winding number by summing over all faces (O(faces); the reference).
pub fn winding_number_exact(mesh: &Mesh, p: Vec3) -> f32 {
    let sum: f64 = (0..mesh.num_faces())
        .into_par_iter()
        .with_min_len(1024)
        .map(|f| {
            let [a, b, c] = mesh.triangle(f);
            solid_angle(p, a, b, c) as f64
        })
        .sum();
    (sum / (4.0 * std::f64::consts::PI)) as f32
}
