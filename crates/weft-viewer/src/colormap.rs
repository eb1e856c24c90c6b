//! Colour maps: a scalar per item (speed, pressure, stress…) shown as a colour.

use crate::Color;

/// A colour map from `0..=1` to colours, for [`Points::scalars`](crate::Points::scalars)
/// and [`Mesh::scalars`](crate::Mesh::scalars).
///
/// The sequential maps are matplotlib's perceptually uniform ones (CC0,
/// van der Walt and Smith), the diverging one is Moreland's cool-warm; each is
/// sampled at nine stops and interpolated smoothly.
///
/// ```
/// use weft_viewer::{Color, Colormap};
/// assert_eq!(Colormap::Viridis.map(0.0), Color::hex(0x440154));
/// assert_eq!(Colormap::Viridis.map(1.0), Color::hex(0xFDE725));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Colormap {
    /// Dark blue → green → yellow: the default for magnitudes.
    #[default]
    Viridis,
    /// Black → purple → orange → pale yellow: high contrast on a light background.
    Magma,
    /// Blue → grey → red: for signed values centred on zero.
    Coolwarm,
}

impl Colormap {
    /// Every map, in the order of their row in the GPU lookup texture.
    pub const ALL: [Colormap; 3] = [Colormap::Viridis, Colormap::Magma, Colormap::Coolwarm];

    /// The map's name, as shown in the panel.
    pub fn name(self) -> &'static str {
        match self {
            Colormap::Viridis => "viridis",
            Colormap::Magma => "magma",
            Colormap::Coolwarm => "coolwarm",
        }
    }

    /// Row of this map in the lookup texture.
    pub(crate) fn index(self) -> u32 {
        Self::ALL.iter().position(|&m| m == self).unwrap_or(0) as u32
    }

    fn stops(self) -> &'static [u32; 9] {
        match self {
            Colormap::Viridis => &[
                0x440154, 0x472C7A, 0x3B518B, 0x2C718E, 0x21908D, 0x27AD81, 0x5CC863, 0xAADC32,
                0xFDE725,
            ],
            Colormap::Magma => &[
                0x000004, 0x1C1044, 0x4F127B, 0x812581, 0xB5367A, 0xE55064, 0xFB8761, 0xFEC287,
                0xFCFDBF,
            ],
            Colormap::Coolwarm => &[
                0x3B4CC0, 0x6282EA, 0x8DB0FE, 0xB8D0F9, 0xDDDDDD, 0xF5C4AD, 0xF49A7B, 0xDE604D,
                0xB40426,
            ],
        }
    }

    /// The colour at `t` (clamped to `0..=1`; NaN maps to 0).
    pub fn map(self, t: f32) -> Color {
        let [r, g, b] = self.map_f32(t);
        Color::from_rgb_f32(r, g, b)
    }

    /// The colour at `t` as sRGB components in `0..=1`.
    pub fn map_f32(self, t: f32) -> [f32; 3] {
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        let stops = self.stops();
        let n = stops.len() - 1;
        let x = t * n as f32;
        let i = (x.floor() as usize).min(n - 1);
        let f = x - i as f32;
        let at = |k: isize| -> [f32; 3] {
            let c = stops[k.clamp(0, n as isize) as usize];
            [(c >> 16) as u8, (c >> 8) as u8, c as u8].map(|v| v as f32 / 255.0)
        };
        let i = i as isize;
        let (p0, p1, p2, p3) = (at(i - 1), at(i), at(i + 1), at(i + 2));
        // Centripetal-free uniform Catmull-Rom: passes through every stop, C1 between them.
        let mut out = [0.0; 3];
        for c in 0..3 {
            let (a, b, cc, d) = (p0[c], p1[c], p2[c], p3[c]);
            let v = b + 0.5
                * f
                * (cc - a + f * (2.0 * a - 5.0 * b + 4.0 * cc - d + f * (3.0 * (b - cc) + d - a)));
            out[c] = v.clamp(0.0, 1.0);
        }
        out
    }

    /// Maps `value` from `range` onto this map (a degenerate range maps to its middle).
    pub fn map_value(self, value: f32, range: (f32, f32)) -> Color {
        self.map(normalize(value, range))
    }
}

/// `value` scaled so that `range.0 → 0` and `range.1 → 1`; the middle for an empty range.
pub(crate) fn normalize(value: f32, (lo, hi): (f32, f32)) -> f32 {
    let span = hi - lo;
    if span.abs() <= f32::EPSILON * lo.abs().max(hi.abs()).max(1e-30) || !span.is_finite() {
        0.5
    } else {
        (value - lo) / span
    }
}

/// The lookup texture: `LUT_WIDTH` sRGBA8 texels per map, one row per map.
pub(crate) const LUT_WIDTH: u32 = 256;

/// Texels of the lookup texture, row-major, one row per [`Colormap::ALL`] entry.
pub(crate) fn lut_texels() -> Vec<u8> {
    let mut texels = Vec::with_capacity(Colormap::ALL.len() * LUT_WIDTH as usize * 4);
    for map in Colormap::ALL {
        for i in 0..LUT_WIDTH {
            let c = map.map(i as f32 / (LUT_WIDTH - 1) as f32);
            texels.extend_from_slice(&c.0);
        }
    }
    texels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_pass_through_their_stops() {
        for map in Colormap::ALL {
            for (k, &hex) in map.stops().iter().enumerate() {
                assert_eq!(map.map(k as f32 / 8.0), Color::hex(hex), "{map:?} stop {k}");
            }
        }
    }

    #[test]
    fn viridis_brightens_monotonically() {
        let lum = |c: Color| {
            let [r, g, b] = c.to_rgb_f32();
            0.2126 * r + 0.7152 * g + 0.0722 * b
        };
        let mut last = -1.0;
        for i in 0..=100 {
            let l = lum(Colormap::Viridis.map(i as f32 / 100.0));
            assert!(l > last - 1e-3, "luminance drops at {i}");
            last = l;
        }
    }

    #[test]
    fn out_of_range_and_nan_clamp() {
        assert_eq!(Colormap::Magma.map(-3.0), Colormap::Magma.map(0.0));
        assert_eq!(Colormap::Magma.map(7.0), Colormap::Magma.map(1.0));
        assert_eq!(Colormap::Magma.map(f32::NAN), Colormap::Magma.map(0.0));
        assert_eq!(
            Colormap::Coolwarm.map_value(5.0, (5.0, 5.0)),
            Colormap::Coolwarm.map(0.5)
        );
    }

    #[test]
    fn lut_has_one_row_per_map() {
        assert_eq!(lut_texels().len(), 3 * 256 * 4);
    }
}
