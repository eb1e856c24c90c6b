//! Tube around a (p, q) torus knot.

use glam::DVec3;

use crate::mesh::Mesh;

/// A closed tube of radius `tube` around the `(p, q)` torus knot
/// `((R + r cos qφ) cos pφ, (R + r cos qφ) sin pφ, r sin qφ)` with `R = radius`,
/// `r = radius / 2`; `segments` rings along the knot, `sides` around the tube
/// (`2 · segments · sides` triangles). The tube frame is the curve's Frenet frame, so
/// the surface closes without a seam. For `(2, 3)` keep `tube < 0.2 · radius` to
/// avoid self-intersection.
///
/// ```
/// let k = weft_geom::generate::torus_knot(2, 3, 1.0, 0.15, 128, 16);
/// assert_eq!(k.num_faces(), 4096);
/// assert!(k.signed_volume() > 0.0);
/// ```
///
/// # Panics
///
/// When `segments` or `sides` is below 3, or `p` or `q` is 0.
pub fn torus_knot(p: u32, q: u32, radius: f32, tube: f32, segments: usize, sides: usize) -> Mesh {
    assert!(
        segments >= 3 && sides >= 3,
        "torus_knot: segments and sides must be ≥ 3"
    );
    assert!(p > 0 && q > 0, "torus_knot: p and q must be > 0");
    let (big, small, tube) = (radius as f64, radius as f64 * 0.5, tube as f64);
    let (p, q) = (p as f64, q as f64);
    let curve = |phi: f64| {
        let w = big + small * (q * phi).cos();
        DVec3::new(
            w * (p * phi).cos(),
            w * (p * phi).sin(),
            small * (q * phi).sin(),
        )
    };
    let tau = std::f64::consts::TAU;
    let h = 1e-4;
    let mut points = Vec::with_capacity(segments * sides);
    for i in 0..segments {
        let phi = tau * i as f64 / segments as f64;
        let (c0, cm, cp) = (curve(phi), curve(phi - h), curve(phi + h));
        let tangent = (cp - cm).normalize();
        let accel = cp - 2.0 * c0 + cm;
        let normal = (accel - tangent * accel.dot(tangent)).normalize();
        let binormal = tangent.cross(normal);
        for j in 0..sides {
            let theta = tau * j as f64 / sides as f64;
            points.push(c0 + (normal * theta.cos() + binormal * theta.sin()) * tube);
        }
    }
    // Rows run along the knot, columns around the tube: this order faces outward.
    let index = |r: usize, c: usize| ((r % segments) * sides + c % sides) as u32;
    let tris = super::grid_triangles(segments, sides, index);
    super::mesh(points, tris)
}

/// The benchmark mesh: a `(2, 3)` torus knot tube with 1024 × 512 quads —
/// 1,048,576 triangles, 524,288 points — generated in memory (about 0.3 s).
pub fn high_poly() -> Mesh {
    torus_knot(2, 3, 1.0, 0.15, 1024, 512)
}
