//! The triangle mesh: host data with validated topology.

use glam::Vec3;

use crate::aabb::Aabb;
use crate::error::{GeomError, Result};

/// A triangle mesh on the host: points, optional per-point velocities, and triangles
/// as triples of point indices.
///
/// Invariants (checked by every constructor): at least one triangle (except
/// [`Mesh::empty`]), every index
/// `< points.len()`, all positions and velocities finite, `velocities` (when present)
/// has one entry per point, and fewer than 2³¹ triangles and points.
///
/// Front faces are counter-clockwise: the geometric normal of face `f` is
/// `(p1 - p0) × (p2 - p0)` with `[i0, i1, i2] = indices[f]`, and closed meshes are
/// expected to have normals pointing out (this is what "inside" means for
/// [`MeshBvh::closest_point_signed`](crate::MeshBvh::closest_point_signed)).
///
/// Degenerate triangles (repeated indices or zero area) are allowed; queries handle
/// them (a ray never hits one, closest-point queries project onto its edges, and it
/// adds nothing to the winding number).
///
/// ```
/// use glam::Vec3;
/// use weft_geom::Mesh;
///
/// let mesh = Mesh::new(
///     vec![Vec3::ZERO, Vec3::X, Vec3::Y],
///     vec![[0, 1, 2]],
/// )?;
/// assert_eq!(mesh.num_faces(), 1);
/// assert_eq!(mesh.face_normal(0), Vec3::Z);
/// # Ok::<(), weft_geom::GeomError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    points: Vec<Vec3>,
    velocities: Option<Vec<Vec3>>,
    indices: Vec<[u32; 3]>,
}

/// Largest number of points or faces (indices keep one spare bit for the BVH leaf flag).
pub const MAX_ELEMENTS: usize = (1 << 31) - 1;

impl Mesh {
    /// A mesh from points and triangles, validated (see the type's invariants).
    pub fn new(points: Vec<Vec3>, indices: Vec<[u32; 3]>) -> Result<Self> {
        let mesh = Self {
            points,
            velocities: None,
            indices,
        };
        mesh.validate()?;
        Ok(mesh)
    }

    /// The mesh with no points and no triangles. [`Mesh::new`] refuses empty input
    /// (usually a mistake); this is the deliberate empty mesh, on which every query
    /// answers "nothing".
    pub fn empty() -> Self {
        Self {
            points: Vec::new(),
            velocities: None,
            indices: Vec::new(),
        }
    }

    /// A mesh from a flat index list (`3 * faces` entries).
    pub fn from_flat_indices(points: Vec<Vec3>, indices: &[u32]) -> Result<Self> {
        if !indices.len().is_multiple_of(3) {
            return Err(GeomError::InvalidParameter {
                name: "indices",
                message: format!(
                    "a flat triangle index list needs a multiple of 3 entries, got {}",
                    indices.len()
                ),
            });
        }
        let tris = indices
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect();
        Self::new(points, tris)
    }

    /// Attaches per-point velocities (one per point, finite).
    pub fn with_velocities(mut self, velocities: Vec<Vec3>) -> Result<Self> {
        check_len("velocities", velocities.len(), self.points.len())?;
        check_finite("velocity", &velocities)?;
        self.velocities = Some(velocities);
        Ok(self)
    }

    /// Checks the invariants.
    fn validate(&self) -> Result<()> {
        if self.indices.is_empty() {
            return Err(GeomError::EmptyMesh { path: None });
        }
        for (what, count) in [("points", self.points.len()), ("faces", self.indices.len())] {
            if count > MAX_ELEMENTS {
                return Err(GeomError::TooLarge {
                    what,
                    count,
                    max: MAX_ELEMENTS,
                });
            }
        }
        let n = self.points.len();
        for (face, tri) in self.indices.iter().enumerate() {
            for (corner, &index) in tri.iter().enumerate() {
                if index as usize >= n {
                    return Err(GeomError::IndexOutOfRange {
                        face,
                        corner,
                        index,
                        num_points: n,
                    });
                }
            }
        }
        check_finite("vertex", &self.points)?;
        if let Some(v) = &self.velocities {
            check_len("velocities", v.len(), n)?;
            check_finite("velocity", v)?;
        }
        Ok(())
    }

    /// The points.
    pub fn points(&self) -> &[Vec3] {
        &self.points
    }

    /// The points, writable in place (the count cannot change). Keep them finite;
    /// refit any BVH built over this mesh afterwards.
    pub fn points_mut(&mut self) -> &mut [Vec3] {
        &mut self.points
    }

    /// The per-point velocities, if any.
    pub fn velocities(&self) -> Option<&[Vec3]> {
        self.velocities.as_deref()
    }

    /// The per-point velocities, writable in place, if any.
    pub fn velocities_mut(&mut self) -> Option<&mut [Vec3]> {
        self.velocities.as_deref_mut()
    }

    /// The triangles.
    pub fn indices(&self) -> &[[u32; 3]] {
        &self.indices
    }

    /// Number of points.
    pub fn num_points(&self) -> usize {
        self.points.len()
    }

    /// Number of triangles.
    pub fn num_faces(&self) -> usize {
        self.indices.len()
    }

    /// The three corners of face `f`.
    #[inline]
    pub fn triangle(&self, f: usize) -> [Vec3; 3] {
        let [a, b, c] = self.indices[f];
        [
            self.points[a as usize],
            self.points[b as usize],
            self.points[c as usize],
        ]
    }

    /// The point `u·p0 + v·p1 + (1 − u − v)·p2` of face `f` (the barycentric convention
    /// of every query result).
    ///
    /// ```
    /// use glam::Vec3;
    /// let m = weft_geom::Mesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![[0, 1, 2]])?;
    /// assert_eq!(m.eval_position(0, 0.25, 0.5), Vec3::new(0.5, 0.25, 0.0));
    /// # Ok::<(), weft_geom::GeomError>(())
    /// ```
    #[inline]
    pub fn eval_position(&self, f: usize, u: f32, v: f32) -> Vec3 {
        let [a, b, c] = self.triangle(f);
        a * u + b * v + c * (1.0 - u - v)
    }

    /// The velocity at barycentric `(u, v)` of face `f`, interpolated like
    /// [`Mesh::eval_position`]; `None` without velocities.
    pub fn eval_velocity(&self, f: usize, u: f32, v: f32) -> Option<Vec3> {
        let vel = self.velocities.as_ref()?;
        let [a, b, c] = self.indices[f].map(|i| vel[i as usize]);
        Some(a * u + b * v + c * (1.0 - u - v))
    }

    /// Bounds of face `f`.
    #[inline]
    pub fn face_aabb(&self, f: usize) -> Aabb {
        let [a, b, c] = self.triangle(f);
        Aabb::from_triangle(a, b, c)
    }

    /// Unit geometric normal of face `f` (zero for a degenerate triangle).
    pub fn face_normal(&self, f: usize) -> Vec3 {
        let [a, b, c] = self.triangle(f);
        (b - a).cross(c - a).normalize_or_zero()
    }

    /// Area of face `f`.
    pub fn face_area(&self, f: usize) -> f32 {
        let [a, b, c] = self.triangle(f);
        0.5 * (b - a).cross(c - a).length()
    }

    /// Indices of faces with zero area (repeated corners or collinear points).
    pub fn degenerate_faces(&self) -> Vec<u32> {
        (0..self.num_faces())
            .filter(|&f| self.face_area(f) == 0.0)
            .map(|f| f as u32)
            .collect()
    }

    /// Bounds of all points referenced or not.
    pub fn aabb(&self) -> Aabb {
        Aabb::from_points(self.points.iter().copied())
    }

    /// Total surface area.
    pub fn area(&self) -> f32 {
        (0..self.num_faces()).map(|f| self.face_area(f)).sum()
    }

    /// Enclosed volume by the divergence theorem (meaningful for closed, outward-facing
    /// meshes; negative when the faces point in).
    pub fn signed_volume(&self) -> f64 {
        (0..self.num_faces())
            .map(|f| {
                let [a, b, c] = self.triangle(f).map(|p| p.as_dvec3());
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    /// Splits the mesh into its parts (for writing or converting).
    pub fn into_parts(self) -> (Vec<Vec3>, Option<Vec<Vec3>>, Vec<[u32; 3]>) {
        (self.points, self.velocities, self.indices)
    }
}

fn check_len(what: &'static str, got: usize, expected: usize) -> Result<()> {
    if got != expected {
        return Err(GeomError::LengthMismatch {
            what,
            got,
            expected,
        });
    }
    Ok(())
}

/// Errors with the first non-finite entry of `values`.
fn check_finite(what: &'static str, values: &[Vec3]) -> Result<()> {
    match values.iter().position(|p| !p.is_finite()) {
        Some(vertex) => Err(GeomError::NonFinite {
            what,
            vertex,
            value: values[vertex].to_array(),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri() -> Vec<Vec3> {
        vec![Vec3::ZERO, Vec3::X, Vec3::Y]
    }

    #[test]
    fn rejects_empty() {
        let e = Mesh::new(tri(), vec![]).unwrap_err();
        assert!(matches!(e, GeomError::EmptyMesh { .. }), "{e}");
        assert!(e.to_string().contains("no triangles"));
    }

    #[test]
    fn rejects_out_of_range_index_naming_the_face() {
        let e = Mesh::new(tri(), vec![[0, 1, 2], [0, 3, 1]]).unwrap_err();
        assert!(
            matches!(
                e,
                GeomError::IndexOutOfRange {
                    face: 1,
                    corner: 1,
                    index: 3,
                    num_points: 3
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "face 1 (corner 1) refers to point 3, but the mesh has 3 points"
        );
    }

    #[test]
    fn rejects_nan_and_inf_naming_the_vertex() {
        let mut p = tri();
        p[2].y = f32::NAN;
        let e = Mesh::new(p, vec![[0, 1, 2]]).unwrap_err();
        assert!(matches!(e, GeomError::NonFinite { vertex: 2, .. }), "{e}");
        assert!(e.to_string().starts_with("vertex 2 is not finite"));
        let mut p = tri();
        p[1].z = f32::INFINITY;
        let e = Mesh::new(p, vec![[0, 1, 2]]).unwrap_err();
        assert!(matches!(e, GeomError::NonFinite { vertex: 1, .. }), "{e}");
    }

    #[test]
    fn velocities_are_checked() {
        let m = Mesh::new(tri(), vec![[0, 1, 2]]).unwrap();
        let e = m.clone().with_velocities(vec![Vec3::ZERO; 2]).unwrap_err();
        assert!(matches!(
            e,
            GeomError::LengthMismatch {
                got: 2,
                expected: 3,
                ..
            }
        ));
        let e = m
            .clone()
            .with_velocities(vec![Vec3::ZERO, Vec3::NAN, Vec3::ZERO])
            .unwrap_err();
        assert!(e.to_string().starts_with("velocity 1 is not finite"), "{e}");
        assert_eq!(m.eval_velocity(0, 0.2, 0.3), None);
        let m = m.with_velocities(vec![Vec3::ONE; 3]).unwrap();
        assert_eq!(m.velocities().unwrap()[2], Vec3::ONE);
        assert_eq!(m.eval_velocity(0, 0.2, 0.3), Some(Vec3::ONE));
    }

    #[test]
    fn degenerate_triangles_are_allowed() {
        let m = Mesh::new(tri(), vec![[0, 1, 2], [0, 0, 1], [0, 1, 1]]).unwrap();
        assert_eq!(m.degenerate_faces(), vec![1, 2]);
        assert_eq!(m.face_normal(1), Vec3::ZERO);
    }

    #[test]
    fn flat_indices_need_multiple_of_three() {
        assert!(Mesh::from_flat_indices(tri(), &[0, 1]).is_err());
        assert_eq!(
            Mesh::from_flat_indices(tri(), &[0, 1, 2])
                .unwrap()
                .indices(),
            &[[0, 1, 2]]
        );
    }
}
