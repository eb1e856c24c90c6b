//! Flat rectangular grid.

use glam::DVec3;

use crate::mesh::Mesh;

/// A flat grid in the z = 0 plane, centred at the origin, `size_x × size_y`, with
/// `nx × ny` quads (`2 · nx · ny` triangles), facing +z. An open surface.
///
/// ```
/// let p = weft_geom::generate::plane(2.0, 1.0, 4, 2);
/// assert_eq!((p.num_points(), p.num_faces()), (15, 16));
/// ```
///
/// # Panics
///
/// When `nx` or `ny` is 0.
pub fn plane(size_x: f32, size_y: f32, nx: usize, ny: usize) -> Mesh {
    heightfield(size_x, size_y, nx, ny, |_, _| 0.0)
}

/// A grid over `size_x × size_y` centred at the origin with height `z(x, y)`.
pub(super) fn heightfield(
    size_x: f32,
    size_y: f32,
    nx: usize,
    ny: usize,
    z: impl Fn(f64, f64) -> f64,
) -> Mesh {
    assert!(nx >= 1 && ny >= 1, "grid: need at least one quad per axis");
    let (sx, sy) = (size_x as f64, size_y as f64);
    let mut points = Vec::with_capacity((nx + 1) * (ny + 1));
    for r in 0..=ny {
        let y = sy * (r as f64 / ny as f64 - 0.5);
        for c in 0..=nx {
            let x = sx * (c as f64 / nx as f64 - 0.5);
            points.push(DVec3::new(x, y, z(x, y)));
        }
    }
    let tris = super::grid_triangles(ny, nx, |r, c| (r * (nx + 1) + c) as u32);
    super::mesh(points, tris)
}
