//! Colours: 8-bit sRGB with alpha, as images and colour pickers use them.

use bytemuck::{Pod, Zeroable};

/// An 8-bit sRGB colour with straight alpha, `[r, g, b, a]`.
///
/// Four bytes, `Pod`: a `&[Color]` is uploaded as it is.
///
/// ```
/// use weft_viewer::Color;
/// let c = Color::hex(0xE4572E);
/// assert_eq!(c, Color::rgb(0xE4, 0x57, 0x2E));
/// assert_eq!(Color::from_rgb_f32(1.0, 0.0, 0.0), Color::RED);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct Color(pub [u8; 4]);

impl Color {
    /// Opaque white.
    pub const WHITE: Self = Self::rgb(255, 255, 255);
    /// Opaque black.
    pub const BLACK: Self = Self::rgb(0, 0, 0);
    /// Middle grey.
    pub const GREY: Self = Self::rgb(128, 128, 128);
    /// Pure red.
    pub const RED: Self = Self::rgb(255, 0, 0);
    /// Pure green.
    pub const GREEN: Self = Self::rgb(0, 255, 0);
    /// Pure blue.
    pub const BLUE: Self = Self::rgb(0, 0, 255);
    /// Weft's orange, the default for shapes and meshes.
    pub const ORANGE: Self = Self::rgb(0xE8, 0x8A, 0x3C);
    /// Weft's blue, the default for particles.
    pub const SKY: Self = Self::rgb(0x3A, 0x8E, 0xD8);
    /// A soft red.
    pub const CORAL: Self = Self::rgb(0xE4, 0x57, 0x2E);
    /// A soft green.
    pub const TEAL: Self = Self::rgb(0x2A, 0xA1, 0x98);
    /// A soft yellow.
    pub const GOLD: Self = Self::rgb(0xF2, 0xC1, 0x4E);

    /// An opaque colour from sRGB bytes.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Self([r, g, b, 255])
    }

    /// A colour from sRGB bytes and alpha (alpha is kept for the caller; the
    /// renderer draws every surface opaque).
    pub const fn rgba(r: u8, g: u8, b: u8, a: u8) -> Self {
        Self([r, g, b, a])
    }

    /// An opaque colour from `0xRRGGBB`.
    pub const fn hex(rgb: u32) -> Self {
        Self::rgb((rgb >> 16) as u8, (rgb >> 8) as u8, rgb as u8)
    }

    /// An opaque colour from sRGB components in `0..=1` (clamped).
    pub fn from_rgb_f32(r: f32, g: f32, b: f32) -> Self {
        let q = |x: f32| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
        Self::rgb(q(r), q(g), q(b))
    }

    /// The sRGB components in `0..=1`.
    pub fn to_rgb_f32(self) -> [f32; 3] {
        let [r, g, b, _] = self.0;
        [r as f32 / 255.0, g as f32 / 255.0, b as f32 / 255.0]
    }

    /// The components converted to linear light (what shaders compute with), alpha as is.
    pub fn to_linear(self) -> [f32; 4] {
        let [r, g, b] = self.to_rgb_f32();
        [
            srgb_to_linear(r),
            srgb_to_linear(g),
            srgb_to_linear(b),
            self.0[3] as f32 / 255.0,
        ]
    }

    /// This colour mixed with `other`: `t = 0` is `self`, `t = 1` is `other` (in sRGB).
    pub fn lerp(self, other: Color, t: f32) -> Color {
        let t = t.clamp(0.0, 1.0);
        let mut out = [0u8; 4];
        for (i, o) in out.iter_mut().enumerate() {
            *o = (self.0[i] as f32 + (other.0[i] as f32 - self.0[i] as f32) * t).round() as u8;
        }
        Color(out)
    }
}

impl Default for Color {
    fn default() -> Self {
        Color::WHITE
    }
}

impl From<[u8; 3]> for Color {
    fn from([r, g, b]: [u8; 3]) -> Self {
        Color::rgb(r, g, b)
    }
}

impl From<[u8; 4]> for Color {
    fn from(c: [u8; 4]) -> Self {
        Color(c)
    }
}

/// The sRGB transfer function, inverted: display value to linear light.
pub(crate) fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_agree() {
        assert_eq!(Color::hex(0x102030), Color::rgb(0x10, 0x20, 0x30));
        assert_eq!(Color::from_rgb_f32(0.0, 0.5, 2.0), Color::rgb(0, 128, 255));
        assert_eq!(Color::from([1, 2, 3]), Color::rgb(1, 2, 3));
        assert_eq!(std::mem::size_of::<Color>(), 4);
    }

    #[test]
    fn linear_conversion_endpoints() {
        let l = Color::WHITE.to_linear();
        assert!((l[0] - 1.0).abs() < 1e-6 && l[3] == 1.0);
        assert_eq!(Color::BLACK.to_linear()[1], 0.0);
        // sRGB 0.5 is about 0.214 linear
        assert!((srgb_to_linear(0.5) - 0.214).abs() < 1e-3);
    }

    #[test]
    fn lerp_midpoint() {
        assert_eq!(
            Color::BLACK.lerp(Color::WHITE, 0.5),
            Color::rgb(128, 128, 128)
        );
    }
}
