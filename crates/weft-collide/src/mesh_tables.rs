//! The triangle meshes and height fields of a scene's shapes as flat tables
//! (host side of the `ShapeSet` mesh and field arrays).
//!
//! A `#[weft::structure]` holds a fixed set of arrays, so the meshes' BVHs
//! cannot each be a [`DeviceBvh`](weft::geom::DeviceBvh). Instead every
//! distinct mesh (one per `Arc`) gets its own BVH over its triangles in its
//! own frame, unscaled, and the BVHs are concatenated into one node array
//! whose child, parent and leaf indices are rebased to the concatenation, so
//! that a kernel walks mesh `m`'s tree from its root `mesh_info[m].x` with
//! no further offsets. The triangles are stored in leaf order (a leaf's
//! triangles are one contiguous run, as in `DeviceMesh::tris`). Why one BVH
//! per mesh and not one over every static triangle in world space: a mesh may
//! sit on a body (moving, or kinematic), and shapes sharing a mesh share its
//! tables; a shape's query box goes into the mesh's frame instead.
//!
//! Per triangle the tables keep what the narrow phase needs to avoid
//! "internal edge" contacts (a box sliding over a flat tessellated floor must
//! not catch on the edges between its triangles): across each edge, the far
//! corner of the neighbouring triangle (its normal follows, also under a
//! non-uniform scale), and flags ([`flags`]) saying which edges and corners
//! are *real* — a convex edge (the surface bends away) or a border, or a
//! corner on one — and which triangle *owns* each shared edge and corner, so
//! that a point on a shared feature makes one contact, not one per triangle.
//!
//! Height fields need no BVH: the cells under a box are found by dividing by
//! the spacing, and a cell's triangles and their neighbours are read straight
//! from the grid of heights (see [`narrow::heightfield`](crate::narrow::heightfield)).

use std::collections::HashMap;
use std::sync::Arc;

use weft::geom::BvhNode;
use weft::prelude::*;
use weft_geom::{HeightField, Mesh};

use crate::{Geometry, ShapeDesc};

/// Bits of a triangle's flags (`ShapeSet::tri_flags`); edge `k` runs from
/// corner `k` to corner `k + 1 (mod 3)`.
pub mod flags {
    /// Bit `k`: the triangle owns edge `k` (a border, or the neighbour has a
    /// higher index).
    pub const EDGE_OWNED: i32 = 0;
    /// Bit `3 + k`: edge `k` is real (convex or a border): contacts may have
    /// their normal in its cone.
    pub const EDGE_REAL: i32 = 3;
    /// Bit `6 + k`: edge `k` has a neighbouring triangle.
    pub const EDGE_SHARED: i32 = 6;
    /// Bit `9 + k`: the triangle owns corner `k` (the lowest triangle index
    /// around it).
    pub const VERTEX_OWNED: i32 = 9;
    /// Bit `12 + k`: corner `k` is real (on a real edge).
    pub const VERTEX_REAL: i32 = 12;
}

/// How far (as a sine) a neighbour must bend away for the edge to be convex;
/// flatter edges, and concave ones, are internal.
const CONVEX_SINE: f64 = 1.0e-4;

/// Host tables, field for field the mesh and height-field arrays of `ShapeSet`.
pub(crate) struct MeshTables {
    /// Per shape: its mesh's or field's index (-1 for other kinds).
    pub source: Vec<i32>,
    pub mesh_info: Vec<IVec4>,
    pub tri_nodes: Vec<BvhNode>,
    pub tri_parents: Vec<u32>,
    pub tri_points: Vec<Vec3>,
    pub tri_opposite: Vec<Vec3>,
    pub tri_flags: Vec<i32>,
    pub field_info: Vec<IVec4>,
    pub field_heights: Vec<f32>,
    pub field_range: Vec<Vec2>,
}

impl MeshTables {
    /// Tables for the meshes and height fields of `shapes`, deduplicated by
    /// `Arc` pointer. The shapes are validated already.
    pub fn new(shapes: &[ShapeDesc]) -> MeshTables {
        let mut t = MeshTables {
            source: Vec::with_capacity(shapes.len()),
            mesh_info: Vec::new(),
            tri_nodes: Vec::new(),
            tri_parents: Vec::new(),
            tri_points: Vec::new(),
            tri_opposite: Vec::new(),
            tri_flags: Vec::new(),
            field_info: Vec::new(),
            field_heights: Vec::new(),
            field_range: Vec::new(),
        };
        let mut meshes: HashMap<*const Mesh, i32> = HashMap::new();
        let mut fields: HashMap<*const HeightField, i32> = HashMap::new();
        for s in shapes {
            let index = match &s.geometry {
                Geometry::Mesh { mesh, .. } => *meshes
                    .entry(Arc::as_ptr(mesh))
                    .or_insert_with(|| t.push_mesh(mesh)),
                Geometry::HeightField { field } => *fields
                    .entry(Arc::as_ptr(field))
                    .or_insert_with(|| t.push_field(field)),
                _ => -1,
            };
            t.source.push(index);
        }
        t
    }

    /// Appends one mesh (its BVH, triangles in leaf order, neighbours and
    /// flags); returns its index.
    fn push_mesh(&mut self, mesh: &Mesh) -> i32 {
        let bvh = weft_geom::Bvh::from_mesh(mesh);
        let node_base = self.tri_nodes.len() as u32;
        let tri_base = (self.tri_points.len() / 3) as u32;
        let leaf = weft_geom::bvh::layout::LEAF_BIT;
        for n in bvh.nodes() {
            let mut d = BvhNode::from(n);
            if n.right_or_count & leaf != 0 {
                d.left_or_first += tri_base;
            } else {
                d.left_or_first += node_base;
                d.right_or_count += node_base;
            }
            self.tri_nodes.push(d);
        }
        self.tri_parents.extend(bvh.parents().iter().map(|&p| {
            if p == weft_geom::bvh::layout::NO_PARENT {
                p
            } else {
                p + node_base
            }
        }));
        let adjacency = Adjacency::new(mesh);
        for &f in bvh.prim_indices() {
            let f = f as usize;
            let tri = mesh.indices()[f];
            for (&v, &o) in tri.iter().zip(&adjacency.opposite[f]) {
                self.tri_points.push(mesh.points()[v as usize]);
                self.tri_opposite.push(o);
            }
            self.tri_flags.push(adjacency.flags[f]);
        }
        self.mesh_info.push(IVec4::new(
            node_base as i32,
            bvh.nodes().len() as i32,
            tri_base as i32,
            mesh.num_faces() as i32,
        ));
        self.mesh_info.len() as i32 - 1
    }

    /// Appends one height field; returns its index.
    fn push_field(&mut self, field: &HeightField) -> i32 {
        let (nx, ny) = field.dims();
        self.field_info.push(IVec4::new(
            self.field_heights.len() as i32,
            nx as i32,
            ny as i32,
            0,
        ));
        self.field_heights.extend_from_slice(field.heights());
        let b = field.aabb();
        self.field_range.push(Vec2::new(b.lower.z, b.upper.z));
        self.field_info.len() as i32 - 1
    }
}

/// A mesh's triangle neighbourhoods: per triangle and edge the far corner of
/// the triangle across it (the triangle's own far corner at a border), and
/// the [`flags`].
struct Adjacency {
    opposite: Vec<[Vec3; 3]>,
    flags: Vec<i32>,
}

impl Adjacency {
    fn new(mesh: &Mesh) -> Adjacency {
        let idx = mesh.indices();
        let p = |i: u32| mesh.points()[i as usize].as_dvec3();
        let twins = edge_twins(mesh);
        let n_faces = idx.len();
        let mut opposite = vec![[Vec3::ZERO; 3]; n_faces];
        let mut flags = vec![0i32; n_faces];
        let mut vertex_real = vec![false; mesh.num_points()];
        let mut vertex_owner = vec![usize::MAX; mesh.num_points()];
        for (f, tri) in idx.iter().enumerate() {
            let normal = (p(tri[1]) - p(tri[0])).cross(p(tri[2]) - p(tri[0]));
            let normal = normal.normalize_or_zero();
            for k in 0..3 {
                let a = tri[k];
                vertex_owner[a as usize] = vertex_owner[a as usize].min(f);
                let twin = twins[f][k];
                let mut real = true;
                let mut owned = true;
                opposite[f][k] = mesh.points()[tri[(k + 2) % 3] as usize];
                if twin >= 0 {
                    let g = twin as usize;
                    let far = idx[g]
                        .iter()
                        .copied()
                        .find(|&v| v != a && v != tri[(k + 1) % 3])
                        .unwrap_or(idx[g][0]);
                    opposite[f][k] = mesh.points()[far as usize];
                    let d = p(far) - p(a);
                    real = normal == glam::DVec3::ZERO || normal.dot(d) < -CONVEX_SINE * d.length();
                    owned = f < g;
                    flags[f] |= 1 << (flags::EDGE_SHARED + k as i32);
                }
                if owned {
                    flags[f] |= 1 << (flags::EDGE_OWNED + k as i32);
                }
                if real {
                    flags[f] |= 1 << (flags::EDGE_REAL + k as i32);
                    vertex_real[a as usize] = true;
                    vertex_real[tri[(k + 1) % 3] as usize] = true;
                }
            }
        }
        for (f, tri) in idx.iter().enumerate() {
            for (k, &v) in tri.iter().enumerate() {
                if vertex_owner[v as usize] == f {
                    flags[f] |= 1 << (flags::VERTEX_OWNED + k as i32);
                }
                if vertex_real[v as usize] {
                    flags[f] |= 1 << (flags::VERTEX_REAL + k as i32);
                }
            }
        }
        Adjacency { opposite, flags }
    }
}

/// Per triangle and edge `k` (corner `k` to `k + 1`), the triangle that has
/// the reverse edge, or -1: at a border, and where the edge is not shared by
/// exactly two consistently oriented triangles (a non-manifold edge counts as
/// a border).
fn edge_twins(mesh: &Mesh) -> Vec<[i32; 3]> {
    let idx = mesh.indices();
    let mut directed: HashMap<(u32, u32), (usize, u32)> = HashMap::new();
    for (f, tri) in idx.iter().enumerate() {
        for k in 0..3 {
            let e = (tri[k], tri[(k + 1) % 3]);
            directed.entry(e).or_insert((f, 0)).1 += 1;
        }
    }
    idx.iter()
        .enumerate()
        .map(|(f, tri)| {
            let mut t = [-1; 3];
            for (k, slot) in t.iter_mut().enumerate() {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                let own = directed.get(&(a, b)).map_or(0, |e| e.1);
                if let Some(&(g, count)) = directed.get(&(b, a))
                    && count == 1
                    && own == 1
                    && g != f
                {
                    *slot = g as i32;
                }
            }
            t
        })
        .collect()
}

/// The first edge of `mesh` without exactly one reverse edge in another
/// triangle, as `(triangle, edge)`, or `None` for a closed mesh.
pub(crate) fn open_edge(mesh: &Mesh) -> Option<(usize, usize)> {
    edge_twins(mesh)
        .iter()
        .enumerate()
        .find_map(|(f, t)| t.iter().position(|&g| g < 0).map(|k| (f, k)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cube_is_closed_with_convex_edges_and_a_grid_is_open_and_flat_inside() {
        let cube = weft_geom::generate::cuboid(Vec3::splat(0.5));
        assert_eq!(open_edge(&cube), None);
        let adj = Adjacency::new(&cube);
        // Every face diagonal is flat (internal), every cube edge convex.
        let real: usize = adj
            .flags
            .iter()
            .map(|f| ((f >> flags::EDGE_REAL) & 7).count_ones() as usize)
            .sum();
        assert_eq!(real, 2 * 12, "each cube edge is real from both sides");
        let grid = weft_geom::generate::plane(2.0, 2.0, 4, 4);
        assert!(open_edge(&grid).is_some());
        let adj = Adjacency::new(&grid);
        let real: usize = adj
            .flags
            .iter()
            .map(|f| ((f >> flags::EDGE_REAL) & 7).count_ones() as usize)
            .sum();
        assert_eq!(real, 16, "only the 16 border edges are real");
        // Each vertex and each shared edge has exactly one owner.
        let owned_v: u32 = adj
            .flags
            .iter()
            .map(|f| ((f >> flags::VERTEX_OWNED) & 7).count_ones())
            .sum();
        assert_eq!(owned_v as usize, grid.num_points());
        let owned_e: u32 = adj.flags.iter().map(|f| (f & 7).count_ones()).sum();
        // Edges of a 4 × 4 grid of split quads: 2·4·5 sides + 16 diagonals.
        assert_eq!(owned_e, 56);
    }
}
