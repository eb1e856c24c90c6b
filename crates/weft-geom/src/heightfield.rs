//! Height fields: terrain as a grid of heights over x/y, two triangles per cell.

use glam::{Vec2, Vec3};

use crate::aabb::Aabb;
use crate::error::{GeomError, Result};
use crate::mesh::Mesh;

/// A grid of `nx × ny` heights over the x/y plane, centred at the origin.
///
/// Sample `(i, j)` (`i < nx` along x, `j < ny` along y) is `heights[j * nx + i]` at
/// `x = (i − (nx − 1)/2) · spacing.x`, `y = (j − (ny − 1)/2) · spacing.y`. Each cell
/// `(i, j)` between samples `i, i+1` and `j, j+1` is split along its diagonal from
/// `(i, j)` to `(i+1, j+1)` into two triangles (see
/// [`cell_triangles`](Self::cell_triangles)); [`height_at`](Self::height_at),
/// [`normal_at`](Self::normal_at) and [`to_mesh`](Self::to_mesh) all use that surface.
///
/// ```
/// use glam::Vec2;
/// use weft_geom::HeightField;
///
/// // 3 × 2 samples, 1 m apart: x in [-1, 1], y in [-0.5, 0.5]; a ramp along x.
/// let hf = HeightField::new(3, 2, Vec2::ONE, vec![0.0, 1.0, 2.0, 0.0, 1.0, 2.0])?;
/// assert_eq!(hf.height_at(0.5, 0.0), Some(1.5));
/// assert_eq!(hf.height_at(1.5, 0.0), None);
/// # Ok::<(), weft_geom::GeomError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct HeightField {
    nx: usize,
    ny: usize,
    spacing: Vec2,
    heights: Vec<f32>,
}

impl HeightField {
    /// A height field of `nx × ny` samples (row-major along x, see the type).
    ///
    /// Errors: `nx` or `ny` below 2, or too large for 32-bit mesh indices
    /// ([`GeomError::InvalidParameter`], [`GeomError::TooLarge`]); a spacing that is
    /// not positive and finite; `heights.len() != nx · ny`
    /// ([`GeomError::LengthMismatch`]); a NaN or infinite height (named by its `i, j`).
    pub fn new(nx: usize, ny: usize, spacing: Vec2, heights: Vec<f32>) -> Result<Self> {
        for (name, n) in [("nx", nx), ("ny", ny)] {
            if n < 2 {
                return Err(GeomError::InvalidParameter {
                    name,
                    message: format!("a height field needs at least 2 samples per axis, got {n}"),
                });
            }
        }
        let count = nx.saturating_mul(ny);
        if count > u32::MAX as usize {
            return Err(GeomError::TooLarge {
                what: "height field",
                count,
                max: u32::MAX as usize,
            });
        }
        if !(spacing.is_finite() && spacing.min_element() > 0.0) {
            return Err(GeomError::InvalidParameter {
                name: "spacing",
                message: format!("must be positive and finite along x and y, got {spacing}"),
            });
        }
        if heights.len() != count {
            return Err(GeomError::LengthMismatch {
                what: "heights (nx · ny samples)",
                got: heights.len(),
                expected: count,
            });
        }
        if let Some(k) = heights.iter().position(|h| !h.is_finite()) {
            return Err(GeomError::InvalidParameter {
                name: "heights",
                message: format!(
                    "sample {k} (i = {}, j = {}) is not finite: {}",
                    k % nx,
                    k / nx,
                    heights[k]
                ),
            });
        }
        Ok(Self {
            nx,
            ny,
            spacing,
            heights,
        })
    }

    /// Samples along x and along y.
    pub fn dims(&self) -> (usize, usize) {
        (self.nx, self.ny)
    }

    /// Distance between samples along x and y.
    pub fn spacing(&self) -> Vec2 {
        self.spacing
    }

    /// The heights, `heights[j * nx + i]`.
    pub fn heights(&self) -> &[f32] {
        &self.heights
    }

    /// The sample point `(i, j)` in the field's frame.
    ///
    /// # Panics
    ///
    /// When `i >= nx` or `j >= ny`.
    pub fn point(&self, i: usize, j: usize) -> Vec3 {
        assert!(i < self.nx && j < self.ny, "sample ({i}, {j}) out of range");
        let c = self.corner();
        Vec3::new(
            c.x + i as f32 * self.spacing.x,
            c.y + j as f32 * self.spacing.y,
            self.heights[j * self.nx + i],
        )
    }

    /// The x/y of sample `(0, 0)`.
    fn corner(&self) -> Vec2 {
        -0.5 * Vec2::new((self.nx - 1) as f32, (self.ny - 1) as f32) * self.spacing
    }

    /// The two triangles of cell `(i, j)` (`i < nx − 1`, `j < ny − 1`),
    /// counter-clockwise seen from above: `[p00, p10, p11]` and `[p00, p11, p01]`
    /// where `pab` is sample `(i + a, j + b)`.
    ///
    /// # Panics
    ///
    /// When the cell is out of range.
    pub fn cell_triangles(&self, i: usize, j: usize) -> [[Vec3; 3]; 2] {
        let p = |a, b| self.point(i + a, j + b);
        let (p00, p10, p11, p01) = (p(0, 0), p(1, 0), p(1, 1), p(0, 1));
        [[p00, p10, p11], [p00, p11, p01]]
    }

    /// The cell and the triangle (0 or 1) above `(x, y)`, with the position inside
    /// the cell in cell units, or `None` outside the grid.
    fn locate(&self, x: f32, y: f32) -> Option<(usize, usize, usize, f32, f32)> {
        let c = self.corner();
        let u = (x - c.x) / self.spacing.x;
        let v = (y - c.y) / self.spacing.y;
        let (umax, vmax) = ((self.nx - 1) as f32, (self.ny - 1) as f32);
        if !(u >= 0.0 && v >= 0.0 && u <= umax && v <= vmax) {
            return None;
        }
        let i = (u.floor() as usize).min(self.nx - 2);
        let j = (v.floor() as usize).min(self.ny - 2);
        let (fu, fv) = (u - i as f32, v - j as f32);
        Some((i, j, usize::from(fv > fu), fu, fv))
    }

    /// The surface's height above `(x, y)`, or `None` outside the grid (its edges
    /// included).
    pub fn height_at(&self, x: f32, y: f32) -> Option<f32> {
        let (i, j, tri, fu, fv) = self.locate(x, y)?;
        let h = |a: usize, b: usize| self.heights[(j + b) * self.nx + i + a];
        Some(if tri == 0 {
            // [p00, p10, p11]: fu ≥ fv.
            h(0, 0) + fu * (h(1, 0) - h(0, 0)) + fv * (h(1, 1) - h(1, 0))
        } else {
            // [p00, p11, p01]: fv > fu.
            h(0, 0) + fv * (h(0, 1) - h(0, 0)) + fu * (h(1, 1) - h(0, 1))
        })
    }

    /// The unit upward normal of the triangle above `(x, y)`, or `None` outside the
    /// grid.
    pub fn normal_at(&self, x: f32, y: f32) -> Option<Vec3> {
        let (i, j, tri, _, _) = self.locate(x, y)?;
        let [a, b, c] = self.cell_triangles(i, j)[tri];
        Some((b - a).cross(c - a).normalize())
    }

    /// The bounding box of the surface.
    pub fn aabb(&self) -> Aabb {
        let (first, last) = (self.point(0, 0), self.point(self.nx - 1, self.ny - 1));
        let (lo, hi) = self
            .heights
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
                (lo.min(h), hi.max(h))
            });
        Aabb {
            lower: Vec3::new(first.x, first.y, lo),
            upper: Vec3::new(last.x, last.y, hi),
        }
    }

    /// The surface as an open triangle mesh facing up: point `j * nx + i` is sample
    /// `(i, j)`, and cell `(i, j)` gives faces `2 (j (nx − 1) + i)` and the next, as
    /// in [`cell_triangles`](Self::cell_triangles).
    pub fn to_mesh(&self) -> Mesh {
        let points = (0..self.ny)
            .flat_map(|j| (0..self.nx).map(move |i| (i, j)))
            .map(|(i, j)| self.point(i, j))
            .collect();
        let index = |i: usize, j: usize| (j * self.nx + i) as u32;
        let mut tris = Vec::with_capacity(2 * (self.nx - 1) * (self.ny - 1));
        for j in 0..self.ny - 1 {
            for i in 0..self.nx - 1 {
                let (p00, p10, p11, p01) = (
                    index(i, j),
                    index(i + 1, j),
                    index(i + 1, j + 1),
                    index(i, j + 1),
                );
                tris.push([p00, p10, p11]);
                tris.push([p00, p11, p01]);
            }
        }
        Mesh::new(points, tris).expect("a height field's mesh is valid: finite, in range")
    }
}
