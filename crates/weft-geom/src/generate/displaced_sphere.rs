//! Icosphere displaced along its normals by 3-D noise: the benchmark mesh of issue 5.

use crate::mesh::Mesh;

use super::icosphere::unit_icosphere;
use super::noise3::fbm3;

/// A bumpy closed surface: the icosphere with `subdivisions` levels (`20 · 4^subdivisions`
/// triangles) whose unit-sphere point `u` is moved to
/// `radius · (1 + amplitude · fbm3(2u, 5 octaves, seed)) · u`. The displacement is
/// radial and continuous, so the mesh stays a watertight, outward-facing 2-manifold as
/// long as `amplitude < 1`; it is deterministic for a given `seed`.
///
/// ```
/// let s = weft_geom::generate::displaced_sphere(1.0, 3, 0.3, 1);
/// assert_eq!(s.num_faces(), 1280);
/// assert!(s.signed_volume() > 0.0);
/// assert_eq!(s, weft_geom::generate::displaced_sphere(1.0, 3, 0.3, 1));
/// ```
///
/// # Panics
///
/// When `subdivisions > 12`.
pub fn displaced_sphere(radius: f32, subdivisions: u32, amplitude: f32, seed: u32) -> Mesh {
    let (points, tris) = unit_icosphere(subdivisions);
    let (r, amp) = (radius as f64, amplitude as f64);
    let points = points
        .into_iter()
        .map(|u| u * (r * (1.0 + amp * fbm3(u * 2.0, 5, seed))))
        .collect();
    super::mesh(points, tris)
}

/// The query-benchmark mesh of issue 5: `displaced_sphere(1.0, subdivisions, 0.3, 1)`.
/// `subdivisions = 7` gives 327,680 triangles, `8` gives 1,310,720 (163,842 and
/// 655,362 points).
///
/// ```
/// assert_eq!(weft_geom::generate::bench_sphere(2).num_faces(), 320);
/// ```
pub fn bench_sphere(subdivisions: u32) -> Mesh {
    displaced_sphere(1.0, subdivisions, 0.3, 1)
}
