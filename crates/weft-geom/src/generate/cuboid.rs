//! Axis-aligned box.

use glam::{DVec3, Vec3};

use crate::mesh::Mesh;

/// A box centred at the origin with the given half extents: 8 points, 12 triangles,
/// closed, facing outward.
///
/// ```
/// use glam::Vec3;
/// let b = weft_geom::generate::cuboid(Vec3::new(1.0, 2.0, 3.0));
/// assert_eq!(b.num_faces(), 12);
/// assert!((b.signed_volume() - 48.0).abs() < 1e-9);
/// ```
pub fn cuboid(half_extents: Vec3) -> Mesh {
    let h = half_extents.as_dvec3();
    let points = (0..8)
        .map(|i| {
            let s = |bit: u32| if i & (1 << bit) != 0 { 1.0 } else { -1.0 };
            DVec3::new(s(0), s(1), s(2)) * h
        })
        .collect();
    // Corner i has x = bit 0, y = bit 1, z = bit 2.
    let quads: [[u32; 4]; 6] = [
        [0, 2, 3, 1], // -z
        [4, 5, 7, 6], // +z
        [0, 1, 5, 4], // -y
        [2, 6, 7, 3], // +y
        [0, 4, 6, 2], // -x
        [1, 3, 7, 5], // +x
    ];
    let tris = quads
        .iter()
        .flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]])
        .collect();
    super::mesh(points, tris)
}
