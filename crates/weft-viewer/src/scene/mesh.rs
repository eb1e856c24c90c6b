//! Triangle meshes (cloth, loaded meshes) with smooth normals.

use glam::Vec3;
use weft_types::Transform;

use super::bounds::Bounds;
use super::coloring::{Coloring, Colors};
use crate::{Color, Colormap, Error};

/// A triangle mesh to log with [`Scene::log_mesh`](crate::Scene::log_mesh).
///
/// Normals are computed per vertex (area-weighted, so shading is smooth) unless
/// given. Both faces are lit, so an open surface such as cloth reads from either
/// side. An optional rigid transform and scale place it in the world.
///
/// ```
/// use weft_viewer::{Color, Mesh, Scene};
/// use glam::Vec3;
/// let quad = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
/// let mut scene = Scene::new();
/// scene.log_mesh("cloth", Mesh::from_triangles(&quad, &[[0, 1, 2], [0, 2, 3]]).color(Color::CORAL))?;
/// assert_eq!(scene.mesh("cloth").unwrap().normals()[0], Vec3::Z);
/// # Ok::<(), weft_viewer::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Mesh<'a> {
    positions: &'a [Vec3],
    indices: &'a [u32],
    normals: Option<&'a [Vec3]>,
    coloring: Coloring<'a>,
    range: Option<(f32, f32)>,
    transform: Transform,
    scale: Vec3,
}

impl<'a> Mesh<'a> {
    /// A mesh from vertex positions and a flat index list (three per triangle,
    /// counter-clockwise seen from the front).
    pub fn new(positions: &'a [Vec3], indices: &'a [u32]) -> Self {
        Mesh {
            positions,
            indices,
            normals: None,
            coloring: Coloring::Uniform(Color::ORANGE),
            range: None,
            transform: Transform::IDENTITY,
            scale: Vec3::ONE,
        }
    }

    /// A mesh from vertex positions and triangles.
    pub fn from_triangles(positions: &'a [Vec3], triangles: &'a [[u32; 3]]) -> Self {
        Self::new(positions, bytemuck::cast_slice(triangles))
    }

    /// Vertex normals to use instead of computed ones (one per vertex).
    pub fn normals(mut self, normals: &'a [Vec3]) -> Self {
        self.normals = Some(normals);
        self
    }

    /// One colour for the whole mesh.
    pub fn color(mut self, color: Color) -> Self {
        self.coloring = Coloring::Uniform(color);
        self
    }

    /// A colour per vertex.
    pub fn colors(mut self, colors: &'a [Color]) -> Self {
        self.coloring = Coloring::PerItem(colors);
        self
    }

    /// A scalar per vertex through a colour map.
    pub fn scalars(mut self, values: &'a [f32], map: Colormap) -> Self {
        self.coloring = Coloring::Scalars {
            values,
            map,
            range: None,
        };
        self
    }

    /// The scalar values at the two ends of the colour map (for [`scalars`](Self::scalars)).
    pub fn range(mut self, lo: f32, hi: f32) -> Self {
        self.range = Some((lo, hi));
        self
    }

    /// Places the mesh: vertices are scaled, then rotated and translated by `transform`.
    pub fn transform(mut self, transform: Transform) -> Self {
        self.transform = transform;
        self
    }

    /// Scales the vertices (per axis) before the transform.
    pub fn scale(mut self, scale: Vec3) -> Self {
        self.scale = scale;
        self
    }
}

/// A logged mesh, as the scene keeps it.
#[derive(Clone, Debug)]
pub struct TriMesh {
    pub(crate) positions: Vec<Vec3>,
    pub(crate) normals: Vec<Vec3>,
    pub(crate) indices: Vec<u32>,
    pub(crate) colors: Colors,
    pub(crate) transform: Transform,
    pub(crate) scale: Vec3,
    pub(crate) bounds: Option<Bounds>,
}

impl TriMesh {
    pub(crate) fn empty() -> Self {
        TriMesh {
            positions: Vec::new(),
            normals: Vec::new(),
            indices: Vec::new(),
            colors: Colors::default(),
            transform: Transform::IDENTITY,
            scale: Vec3::ONE,
            bounds: None,
        }
    }

    /// Vertex positions (before the transform).
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Unit vertex normals (given or computed).
    pub fn normals(&self) -> &[Vec3] {
        &self.normals
    }

    /// Flat triangle index list.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// Colour of vertex `i`, after the colour map.
    pub fn color_of(&self, i: usize) -> Color {
        self.colors.color_of(i)
    }

    /// The world transform and the scale applied before it.
    pub fn placement(&self) -> (Transform, Vec3) {
        (self.transform, self.scale)
    }

    pub(crate) fn assign(&mut self, name: &str, src: &Mesh<'_>) -> Result<(), Error> {
        let n = src.positions.len();
        if !src.indices.len().is_multiple_of(3) {
            return Err(Error::data(
                name,
                format!(
                    "{} indices is not a whole number of triangles (3 per triangle)",
                    src.indices.len()
                ),
            ));
        }
        if let Some(k) = src.indices.iter().position(|&i| i as usize >= n) {
            return Err(Error::data(
                name,
                format!(
                    "index {} (entry {k}) is out of range for {n} vertices",
                    src.indices[k]
                ),
            ));
        }
        if let Some(normals) = src.normals
            && normals.len() != n
        {
            return Err(Error::data(
                name,
                format!(
                    "{n} vertices but {} normals; give one normal per vertex",
                    normals.len()
                ),
            ));
        }
        if !(src.scale.is_finite() && src.transform.p.is_finite() && src.transform.q.is_finite()) {
            return Err(Error::data(name, "transform or scale is not finite"));
        }
        let mut coloring = src.coloring;
        if let (Coloring::Scalars { range, .. }, Some(r)) = (&mut coloring, src.range) {
            *range = Some(r);
        }
        let mut colors = std::mem::take(&mut self.colors);
        colors.assign(&coloring, n, name, "vertices")?;
        self.colors = colors;
        self.positions.clear();
        self.positions.extend_from_slice(src.positions);
        self.indices.clear();
        self.indices.extend_from_slice(src.indices);
        match src.normals {
            Some(normals) => {
                self.normals.clear();
                self.normals
                    .extend(normals.iter().map(|n| n.normalize_or(Vec3::Z)));
            }
            None => smooth_normals(&self.positions, &self.indices, &mut self.normals),
        }
        self.transform = src.transform;
        self.scale = src.scale;
        self.bounds = Bounds::from_points(&self.positions).map(|b| {
            let corners = (0..8).map(|k| {
                let c = Vec3::new(
                    if k & 1 == 0 { b.min.x } else { b.max.x },
                    if k & 2 == 0 { b.min.y } else { b.max.y },
                    if k & 4 == 0 { b.min.z } else { b.max.z },
                );
                src.transform.transform_point(c * src.scale)
            });
            let corners: Vec<Vec3> = corners.collect();
            Bounds::from_points(&corners).unwrap_or(b)
        });
        Ok(())
    }
}

/// Area-weighted vertex normals: the sum of the (unnormalised) face normals around
/// each vertex, normalised; `+Z` for a vertex on no triangle of non-zero area.
pub fn smooth_normals(positions: &[Vec3], indices: &[u32], out: &mut Vec<Vec3>) {
    out.clear();
    out.resize(positions.len(), Vec3::ZERO);
    for t in indices.chunks_exact(3) {
        let (a, b, c) = (t[0] as usize, t[1] as usize, t[2] as usize);
        let n = (positions[b] - positions[a]).cross(positions[c] - positions[a]);
        out[a] += n;
        out[b] += n;
        out[c] += n;
    }
    for n in out.iter_mut() {
        *n = n.normalize_or(Vec3::Z);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normals_of_a_tent_are_smooth() {
        // Two triangles folded along the y axis: on the fold the face normals (0,0,1)
        // and (1,0,1) (unnormalised: area weights) average to (1,0,2).
        let p = [
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::ZERO,
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 0.0, -1.0),
        ];
        let mut n = Vec::new();
        smooth_normals(&p, &[0, 1, 2, 1, 3, 2], &mut n);
        assert!((n[1] - Vec3::new(1.0, 0.0, 2.0).normalize()).length() < 1e-6);
        assert!((n[0] - Vec3::Z).length() < 1e-6);
        assert!(n.iter().all(|v| (v.length() - 1.0).abs() < 1e-5));
    }
}
