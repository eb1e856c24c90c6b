//! The pile's terrain: a bumpy bowl sampled on a square grid, as a static
//! triangle mesh, with its exact (piecewise-linear) height for checks.

use weft::prelude::*;
use weft_geom::{GeomError, Mesh};

/// A height grid over `[-size/2, size/2]²` with `cells × cells` quads, each
/// split into two triangles along its `(0, 0)–(1, 1)` diagonal.
#[derive(Clone, Debug, PartialEq)]
pub struct Terrain {
    /// Side length (m).
    pub size: f32,
    /// Quads per side.
    pub cells: usize,
    /// `(cells + 1)²` heights, row by row (x fastest).
    heights: Vec<f32>,
}

impl Terrain {
    /// A bowl `depth · (r / (size/2))²` with rolling bumps of `bumps` metres
    /// (a few crossed sines of wavelengths 1.3–2.6 m), so that what falls on
    /// it tumbles into the middle and rests on slopes of every direction.
    pub fn bowl(size: f32, cells: usize, depth: f32, bumps: f32) -> Terrain {
        let n = cells + 1;
        let h = size / cells as f32;
        let r = 0.5 * size;
        let mut heights = Vec::with_capacity(n * n);
        for j in 0..n {
            for i in 0..n {
                let (x, y) = (i as f32 * h - r, j as f32 * h - r);
                let bowl = depth * (x * x + y * y) / (r * r);
                let wave = (2.4 * x + 0.3).sin() * (2.9 * y - 0.7).cos()
                    + 0.6 * (4.1 * x - 3.3 * y).sin()
                    + 0.4 * (4.8 * y + 1.9 * x).cos();
                heights.push(bowl + bumps * wave / 2.0);
            }
        }
        Terrain {
            size,
            cells,
            heights,
        }
    }

    fn vertex(&self, i: usize, j: usize) -> Vec3 {
        let h = self.size / self.cells as f32;
        let z = self.heights[j * (self.cells + 1) + i];
        Vec3::new(
            i as f32 * h - 0.5 * self.size,
            j as f32 * h - 0.5 * self.size,
            z,
        )
    }

    /// The vertices and triangles (counter-clockwise seen from above: the
    /// faces point up, the side shapes collide with).
    pub fn triangles(&self) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let n = self.cells + 1;
        let points = (0..n)
            .flat_map(|j| (0..n).map(move |i| (i, j)))
            .map(|(i, j)| self.vertex(i, j))
            .collect();
        let mut tris = Vec::with_capacity(2 * self.cells * self.cells);
        for j in 0..self.cells {
            for i in 0..self.cells {
                let v = |di: usize, dj: usize| ((j + dj) * n + i + di) as u32;
                tris.push([v(0, 0), v(1, 0), v(1, 1)]);
                tris.push([v(0, 0), v(1, 1), v(0, 1)]);
            }
        }
        (points, tris)
    }

    /// The triangle mesh (for a static `Geometry::Mesh`).
    pub fn mesh(&self) -> Result<Mesh, GeomError> {
        let (points, tris) = self.triangles();
        Mesh::new(points, tris)
    }

    /// The surface's height at `(x, y)` (on the triangles, not the smooth
    /// function), or `None` outside the grid.
    pub fn height_at(&self, x: f32, y: f32) -> Option<f32> {
        let h = self.size / self.cells as f32;
        let (gx, gy) = ((x + 0.5 * self.size) / h, (y + 0.5 * self.size) / h);
        let last = self.cells as f32;
        if !(gx >= 0.0 && gy >= 0.0 && gx <= last && gy <= last) {
            return None;
        }
        let (i, j) = (
            (gx as usize).min(self.cells - 1),
            (gy as usize).min(self.cells - 1),
        );
        let (u, v) = (gx - i as f32, gy - j as f32);
        let z = |di, dj| self.vertex(i + di, j + dj).z;
        Some(if u >= v {
            z(0, 0) + u * (z(1, 0) - z(0, 0)) + v * (z(1, 1) - z(1, 0))
        } else {
            z(0, 0) + v * (z(0, 1) - z(0, 0)) + u * (z(1, 1) - z(0, 1))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn height_at_interpolates_the_triangles() {
        let t = Terrain::bowl(4.0, 8, 0.5, 0.1);
        let (points, tris) = t.triangles();
        for tri in &tris {
            let [a, b, c] = tri.map(|k| points[k as usize]);
            assert!((b - a).cross(c - a).z > 0.0, "faces point up");
            let p = (a + b + c) / 3.0;
            let z = t.height_at(p.x, p.y).unwrap();
            assert!((z - p.z).abs() < 1e-5, "{z} vs {}", p.z);
        }
        assert_eq!(t.height_at(2.1, 0.0), None);
    }
}
