//! Convex hulls of point clouds (quickhull), with coplanar triangles merged into the
//! polygon faces a narrow phase clips against.

mod polygons;
mod quickhull;

use glam::{DVec3, Vec3};

use crate::error::{GeomError, Result};
use crate::mesh::Mesh;

/// One planar face of a [`ConvexHull`]: a convex polygon.
#[derive(Clone, Debug, PartialEq)]
pub struct HullFace {
    /// Indices into [`ConvexHull::vertices`], counter-clockwise seen from outside.
    pub vertices: Vec<u32>,
    /// Unit outward normal.
    pub normal: Vec3,
    /// The plane is `normal · x = offset`; the hull lies on the side where
    /// `normal · x <= offset`.
    pub offset: f32,
}

/// The convex hull of a point cloud: its corner points, its triangles and its faces.
///
/// Built by quickhull in `f64`, then triangles whose corners lie within a tolerance
/// `eps` ([`ConvexHull::tolerance`], relative to the points' size) of one plane and
/// that form a convex polygon become one [`HullFace`]; corners inside such a polygon
/// or within `eps` of its edges are dropped. So a
/// box's hull has 8 vertices, 12 triangles and 6 quadrilateral faces however many
/// points lie on or inside it.
///
/// Invariants: every vertex is a corner of at least three faces; the triangles are
/// the faces' fan triangulations, counter-clockwise from outside, and form a closed
/// 2-manifold (V − E + F = 2); every input point lies inside every face's plane to
/// within the tolerance.
///
/// ```
/// use glam::Vec3;
/// use weft_geom::ConvexHull;
///
/// let mut points: Vec<Vec3> = (0..8)
///     .map(|i| Vec3::new((i & 1) as f32, (i >> 1 & 1) as f32, (i >> 2) as f32))
///     .collect();
/// points.push(Vec3::splat(0.5)); // inside: not a hull vertex
/// let hull = ConvexHull::new(&points)?;
/// assert_eq!((hull.vertices().len(), hull.faces().len()), (8, 6));
/// assert!(hull.faces().iter().all(|f| f.vertices.len() == 4));
/// assert_eq!(hull.support(Vec3::new(1.0, 1.0, -1.0)), Vec3::new(1.0, 1.0, 0.0));
/// # Ok::<(), weft_geom::GeomError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    faces: Vec<HullFace>,
    tolerance: f32,
}

impl ConvexHull {
    /// The hull of `points`.
    ///
    /// Errors: no points ([`GeomError::NoPoints`]), fewer than 4
    /// ([`GeomError::TooFewPoints`]), a NaN or infinite coordinate
    /// ([`GeomError::NonFinite`], naming the point's index), or points that span no
    /// volume — all coincident, collinear or coplanar within the tolerance
    /// ([`GeomError::DegenerateHull`]).
    pub fn new(points: &[Vec3]) -> Result<Self> {
        const WHAT: &str = "convex hull";
        if points.is_empty() {
            return Err(GeomError::NoPoints {
                what: WHAT,
                needed: 4,
            });
        }
        if let Some((i, p)) = points.iter().enumerate().find(|(_, p)| !p.is_finite()) {
            return Err(GeomError::NonFinite {
                what: "convex hull point",
                vertex: i,
                value: p.to_array(),
            });
        }
        if points.len() < 4 {
            return Err(GeomError::TooFewPoints {
                what: WHAT,
                count: points.len(),
                needed: 4,
            });
        }
        if points.len() > u32::MAX as usize {
            return Err(GeomError::TooLarge {
                what: "convex hull input",
                count: points.len(),
                max: u32::MAX as usize,
            });
        }
        let pts: Vec<DVec3> = points.iter().map(|p| p.as_dvec3()).collect();
        let (build_eps, eps) = tolerances(&pts);
        let triangles = quickhull::triangles(&pts, build_eps, eps)?;
        let polygons = polygons::merge_coplanar(&pts, &triangles, eps);
        Ok(Self::from_polygons(&pts, polygons, eps))
    }

    /// Reindexes the polygons' corners and triangulates them.
    fn from_polygons(pts: &[DVec3], polygons: Vec<polygons::Polygon>, eps: f64) -> Self {
        let mut remap = vec![u32::MAX; pts.len()];
        let mut vertices = Vec::new();
        let mut faces = Vec::with_capacity(polygons.len());
        let mut triangles = Vec::new();
        for poly in polygons {
            let local: Vec<u32> = poly
                .vertices
                .iter()
                .map(|&v| {
                    if remap[v as usize] == u32::MAX {
                        remap[v as usize] = vertices.len() as u32;
                        vertices.push(pts[v as usize].as_vec3());
                    }
                    remap[v as usize]
                })
                .collect();
            let offset = poly
                .vertices
                .iter()
                .map(|&v| poly.normal.dot(pts[v as usize]))
                .fold(f64::NEG_INFINITY, f64::max);
            for k in 1..local.len() - 1 {
                triangles.push([local[0], local[k], local[k + 1]]);
            }
            faces.push(HullFace {
                vertices: local,
                normal: poly.normal.as_vec3(),
                offset: offset as f32,
            });
        }
        Self {
            vertices,
            triangles,
            faces,
            tolerance: eps as f32,
        }
    }

    /// The hull's corner points (no input point that is not a corner).
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Triangles over [`vertices`](Self::vertices), counter-clockwise seen from
    /// outside: each face's polygon fanned from its first vertex.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The planar faces, coplanar triangles merged into convex polygons.
    pub fn faces(&self) -> &[HullFace] {
        &self.faces
    }

    /// The distance within which points counted as on a plane when the hull was
    /// built: `1e-6` of the points' bounding-box diagonal plus `4 f32::EPSILON` of
    /// their largest absolute coordinate (the rounding of `f32` input).
    pub fn tolerance(&self) -> f32 {
        self.tolerance
    }

    /// The edges between faces, each once as `[a, b]` with `a < b`, sorted.
    pub fn edges(&self) -> Vec<[u32; 2]> {
        let mut edges: Vec<[u32; 2]> = self
            .faces
            .iter()
            .flat_map(|f| {
                let n = f.vertices.len();
                (0..n).map(move |k| {
                    let (a, b) = (f.vertices[k], f.vertices[(k + 1) % n]);
                    [a.min(b), a.max(b)]
                })
            })
            .collect();
        edges.sort_unstable();
        edges.dedup();
        edges
    }

    /// The vertex furthest along `dir` (the first such vertex on ties; any vertex
    /// for a zero `dir`).
    pub fn support(&self, dir: Vec3) -> Vec3 {
        let mut best = (f32::NEG_INFINITY, self.vertices[0]);
        for &v in &self.vertices {
            let d = v.dot(dir);
            if d > best.0 {
                best = (d, v);
            }
        }
        best.1
    }

    /// The hull as a closed, outward-facing triangle mesh.
    pub fn to_mesh(&self) -> Mesh {
        Mesh::new(self.vertices.clone(), self.triangles.clone())
            .expect("a hull is a valid mesh: finite vertices, indices in range")
    }
}

/// The on-plane tolerances for `points`: for building the triangulated hull (near
/// `f64` rounding, so thin hulls keep their rim points) and for merging faces and
/// refusing flat input (see [`ConvexHull::tolerance`]).
fn tolerances(points: &[DVec3]) -> (f64, f64) {
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    for &p in points {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let max_abs = lo.abs().max(hi.abs()).max_element();
    let diag = (hi - lo).length();
    (
        1e-12 * (diag + max_abs),
        1e-6 * diag + 4.0 * f32::EPSILON as f64 * max_abs,
    )
}
