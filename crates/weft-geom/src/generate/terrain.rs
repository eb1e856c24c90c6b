//! Height-field terrain from fractal noise.

use crate::mesh::Mesh;

use super::noise::fbm;

/// Rolling terrain over `size × size` centred at the origin with `resolution²` quads:
/// heights `amplitude · fbm(x / feature, y / feature)` with 5 octaves and
/// `feature = size / 4`. Deterministic for a given `seed`; faces point up (+z).
///
/// ```
/// let t = weft_geom::generate::terrain(10.0, 64, 1.0, 7);
/// assert_eq!(t.num_faces(), 2 * 64 * 64);
/// assert_eq!(t, weft_geom::generate::terrain(10.0, 64, 1.0, 7));
/// ```
///
/// # Panics
///
/// When `resolution` is 0.
pub fn terrain(size: f32, resolution: usize, amplitude: f32, seed: u32) -> Mesh {
    let feature = size as f64 / 4.0;
    let amp = amplitude as f64;
    super::plane::heightfield(size, size, resolution, resolution, |x, y| {
        amp * fbm(x / feature, y / feature, 5, seed)
    })
}
