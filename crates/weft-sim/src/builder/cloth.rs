//! Cloth: rectangular grids and cloth from triangle meshes, with their bending
//! edges.

use std::collections::HashMap;
use std::ops::Range;

use glam::{Quat, Vec3};

use super::{ModelBuilder, TriMaterial};

/// A rectangular cloth of `(dim_x + 1) × (dim_y + 1)` particles in its local XY
/// plane, placed by `pos` and `rot`.
#[derive(Debug, Clone, Copy)]
pub struct ClothGrid {
    /// Position of the corner particle (0, 0).
    pub pos: Vec3,
    /// Orientation of the cloth's plane (identity: the XY plane).
    pub rot: Quat,
    /// Initial velocity of every particle.
    pub vel: Vec3,
    /// Cells along X.
    pub dim_x: usize,
    /// Cells along Y.
    pub dim_y: usize,
    /// Cell size along X.
    pub cell_x: f32,
    /// Cell size along Y.
    pub cell_y: f32,
    /// Mass of each particle.
    pub mass: f32,
    /// Contact radius of each particle.
    pub radius: f32,
    /// Fix the particles of the edge at x = 0 (mass 0).
    pub fix_left: bool,
    /// Fix the edge at x = dim_x.
    pub fix_right: bool,
    /// Fix the edge at y = 0.
    pub fix_bottom: bool,
    /// Fix the edge at y = dim_y.
    pub fix_top: bool,
    /// Membrane material of the triangles.
    pub material: TriMaterial,
    /// Bending stiffness (0: no bending edges).
    pub edge_ke: f32,
    /// Bending damping.
    pub edge_kd: f32,
    /// Also add springs along every triangle edge with this stiffness (0: none).
    pub spring_ke: f32,
    /// Their damping.
    pub spring_kd: f32,
}

impl Default for ClothGrid {
    fn default() -> Self {
        ClothGrid {
            pos: Vec3::ZERO,
            rot: Quat::IDENTITY,
            vel: Vec3::ZERO,
            dim_x: 16,
            dim_y: 16,
            cell_x: 0.1,
            cell_y: 0.1,
            mass: 0.1,
            radius: 0.02,
            fix_left: false,
            fix_right: false,
            fix_bottom: false,
            fix_top: false,
            material: TriMaterial::default(),
            edge_ke: 1.0,
            edge_kd: 0.0,
            spring_ke: 0.0,
            spring_kd: 0.0,
        }
    }
}

/// Cloth made from a triangle mesh: one particle per vertex with mass from the
/// area density, one membrane triangle per face, a bending edge per interior edge.
#[derive(Debug, Clone)]
pub struct ClothMesh<'a> {
    /// The mesh (vertices in its own frame).
    pub mesh: &'a weft_geom::Mesh,
    /// Where to place it.
    pub pos: Vec3,
    /// How to orient it.
    pub rot: Quat,
    /// Per-axis scale, applied first.
    pub scale: Vec3,
    /// Initial velocity.
    pub vel: Vec3,
    /// Mass per unit area (kg/m²).
    pub density: f32,
    /// Contact radius of each particle.
    pub radius: f32,
    /// Membrane material.
    pub material: TriMaterial,
    /// Bending stiffness (0: no bending edges).
    pub edge_ke: f32,
    /// Bending damping.
    pub edge_kd: f32,
    /// Also add springs along every edge with this stiffness (0: none).
    pub spring_ke: f32,
    /// Their damping.
    pub spring_kd: f32,
}

impl ModelBuilder {
    /// Adds a cloth grid; returns the range of its particles (row-major: particle
    /// `(x, y)` is `first + y * (dim_x + 1) + x`).
    pub fn add_cloth_grid(&mut self, c: &ClothGrid) -> Range<usize> {
        let first = self.particle_count();
        let (nx, ny) = (c.dim_x + 1, c.dim_y + 1);
        for y in 0..ny {
            for x in 0..nx {
                let local = Vec3::new(x as f32 * c.cell_x, y as f32 * c.cell_y, 0.0);
                let fixed = (c.fix_left && x == 0)
                    || (c.fix_right && x == c.dim_x)
                    || (c.fix_bottom && y == 0)
                    || (c.fix_top && y == c.dim_y);
                let mass = if fixed { 0.0 } else { c.mass };
                self.add_particle(c.pos + c.rot * local, c.vel, mass, c.radius);
            }
        }
        let id = |x: usize, y: usize| first + y * nx + x;
        let first_tri = self.triangles.len();
        let mut tris = Vec::with_capacity(2 * c.dim_x * c.dim_y);
        for y in 0..c.dim_y {
            for x in 0..c.dim_x {
                // Alternate the diagonal so the cloth has no preferred shear.
                let (a, b, cc, d) = (id(x, y), id(x + 1, y), id(x + 1, y + 1), id(x, y + 1));
                if (x + y) % 2 == 0 {
                    tris.push([a, b, cc]);
                    tris.push([a, cc, d]);
                } else {
                    tris.push([a, b, d]);
                    tris.push([b, cc, d]);
                }
            }
        }
        self.add_cloth_parts(
            &tris,
            first_tri,
            c.material,
            c.edge_ke,
            c.edge_kd,
            c.spring_ke,
            c.spring_kd,
        );
        first..self.particle_count()
    }

    /// Adds cloth from a mesh; returns the range of its particles (one per vertex,
    /// in the mesh's order).
    pub fn add_cloth_mesh(&mut self, c: &ClothMesh<'_>) -> Range<usize> {
        let first = self.particle_count();
        let points: Vec<Vec3> = c
            .mesh
            .points()
            .iter()
            .map(|&p| c.pos + c.rot * (p * c.scale))
            .collect();
        let mut mass = vec![0.0f32; points.len()];
        for f in c.mesh.indices() {
            let [a, b, d] = f.map(|i| points[i as usize]);
            let area = 0.5 * (b - a).cross(d - a).length();
            for &i in f {
                mass[i as usize] += c.density * area / 3.0;
            }
        }
        for (p, m) in points.iter().zip(&mass) {
            self.add_particle(*p, c.vel, *m, c.radius);
        }
        let first_tri = self.triangles.len();
        let tris: Vec<[usize; 3]> = c
            .mesh
            .indices()
            .iter()
            .map(|f| f.map(|i| first + i as usize))
            .collect();
        self.add_cloth_parts(
            &tris,
            first_tri,
            c.material,
            c.edge_ke,
            c.edge_kd,
            c.spring_ke,
            c.spring_kd,
        );
        first..self.particle_count()
    }

    #[allow(clippy::too_many_arguments)]
    fn add_cloth_parts(
        &mut self,
        tris: &[[usize; 3]],
        first_tri: usize,
        material: TriMaterial,
        edge_ke: f32,
        edge_kd: f32,
        spring_ke: f32,
        spring_kd: f32,
    ) {
        for &[i, j, k] in tris {
            self.add_triangle(i, j, k, material);
        }
        if edge_ke > 0.0 || edge_kd > 0.0 {
            self.add_bending_edges(first_tri, edge_ke, edge_kd);
        }
        if spring_ke > 0.0 || spring_kd > 0.0 {
            let mut seen = std::collections::HashSet::new();
            for t in tris {
                for e in 0..3 {
                    let (a, b) = (t[e], t[(e + 1) % 3]);
                    if seen.insert((a.min(b), a.max(b))) {
                        self.add_spring(a, b, spring_ke, spring_kd);
                    }
                }
            }
        }
    }
}

/// The interior edges of a triangle set as `(o0, o1, v0, v1)`: `v0 → v1` as the
/// edge runs in the first triangle, `o0` and `o1` the opposite corners. Edges
/// shared by more than two triangles (non-manifold) get none.
pub(crate) fn interior_edges(tris: &[[usize; 3]]) -> Vec<[usize; 4]> {
    // Edge (sorted ends) → its uses as (from, to, opposite corner).
    type Uses = Vec<(usize, usize, usize)>;
    let mut map: HashMap<(usize, usize), Uses> = HashMap::new();
    for t in tris {
        for e in 0..3 {
            let (a, b, o) = (t[e], t[(e + 1) % 3], t[(e + 2) % 3]);
            map.entry((a.min(b), a.max(b))).or_default().push((a, b, o));
        }
    }
    let mut out: Vec<[usize; 4]> = map
        .into_values()
        .filter(|v| v.len() == 2)
        .map(|v| [v[0].2, v[1].2, v[0].0, v[0].1])
        .collect();
    out.sort_unstable();
    out
}
