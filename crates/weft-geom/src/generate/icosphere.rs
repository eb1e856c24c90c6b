//! Subdivided icosahedron.

use std::collections::HashMap;

use glam::DVec3;

use crate::mesh::Mesh;

/// A sphere of `radius` around the origin: an icosahedron whose triangles are split
/// into 4 `subdivisions` times, vertices pushed onto the sphere. It has
/// `20 · 4^subdivisions` triangles and `10 · 4^subdivisions + 2` points.
///
/// ```
/// let s = weft_geom::generate::icosphere(1.0, 2);
/// assert_eq!((s.num_faces(), s.num_points()), (320, 162));
/// ```
///
/// # Panics
///
/// When `subdivisions > 12` (over 300M triangles).
pub fn icosphere(radius: f32, subdivisions: u32) -> Mesh {
    let (points, tris) = unit_icosphere(subdivisions);
    let r = radius as f64;
    super::mesh(points.into_iter().map(|p| p * r).collect(), tris)
}

/// Points (on the unit sphere) and triangles of the subdivided icosahedron.
///
/// # Panics
///
/// When `subdivisions > 12`.
pub(super) fn unit_icosphere(subdivisions: u32) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    assert!(subdivisions <= 12, "icosphere: at most 12 subdivisions");
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let mut points: Vec<DVec3> = [
        (-1.0, t, 0.0),
        (1.0, t, 0.0),
        (-1.0, -t, 0.0),
        (1.0, -t, 0.0),
        (0.0, -1.0, t),
        (0.0, 1.0, t),
        (0.0, -1.0, -t),
        (0.0, 1.0, -t),
        (t, 0.0, -1.0),
        (t, 0.0, 1.0),
        (-t, 0.0, -1.0),
        (-t, 0.0, 1.0),
    ]
    .iter()
    .map(|&(x, y, z)| DVec3::new(x, y, z).normalize())
    .collect();
    let mut tris: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..subdivisions {
        let mut mid: HashMap<(u32, u32), u32> = HashMap::with_capacity(tris.len() * 3 / 2);
        let mut midpoint = |a: u32, b: u32, points: &mut Vec<DVec3>| {
            *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                points.push((points[a as usize] + points[b as usize]).normalize());
                points.len() as u32 - 1
            })
        };
        let mut next = Vec::with_capacity(tris.len() * 4);
        for [a, b, c] in tris {
            let ab = midpoint(a, b, &mut points);
            let bc = midpoint(b, c, &mut points);
            let ca = midpoint(c, a, &mut points);
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        tris = next;
    }
    (points, tris)
}
