//! Ring torus around the z axis.

use glam::DVec3;

use crate::mesh::Mesh;

/// A torus around the z axis: tube centre circle of radius `major`, tube radius
/// `minor`, `rings` segments around z and `sides` around the tube
/// (`2 · rings · sides` triangles, closed).
///
/// ```
/// let t = weft_geom::generate::torus(1.0, 0.25, 32, 16);
/// assert_eq!(t.num_faces(), 1024);
/// ```
///
/// # Panics
///
/// When `rings` or `sides` is below 3.
pub fn torus(major: f32, minor: f32, rings: usize, sides: usize) -> Mesh {
    assert!(
        rings >= 3 && sides >= 3,
        "torus: rings and sides must be ≥ 3"
    );
    let (big, small) = (major as f64, minor as f64);
    let tau = std::f64::consts::TAU;
    let mut points = Vec::with_capacity(rings * sides);
    for i in 0..rings {
        let u = tau * i as f64 / rings as f64;
        for j in 0..sides {
            let v = tau * j as f64 / sides as f64;
            let w = big + small * v.cos();
            points.push(DVec3::new(w * u.cos(), w * u.sin(), small * v.sin()));
        }
    }
    // Rows run around the tube (v), columns around z (u): this order faces outward.
    let index = |r: usize, c: usize| ((c % rings) * sides + r % sides) as u32;
    let tris = super::grid_triangles(sides, rings, index);
    super::mesh(points, tris)
}
