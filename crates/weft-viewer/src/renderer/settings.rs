//! What the renderer draws besides the logged entities, and how.

use glam::Vec3;

/// Look of a rendered frame: ground, shadows, light.
///
/// ```
/// use weft_viewer::RenderSettings;
/// let s = RenderSettings { shadows: false, ..Default::default() };
/// assert_eq!(s.ground, Some(0.0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RenderSettings {
    /// Height of the ground plane with its grid (`None`: no ground).
    pub ground: Option<f32>,
    /// Spacing of the major grid lines in metres (`None`: a power of ten fitted to the scene).
    pub grid_spacing: Option<f32>,
    /// Whether the light casts shadows.
    pub shadows: bool,
    /// Direction towards the light (normalised when used).
    pub light_dir: Vec3,
    /// Multiplies every particle radius (the panel's point-size slider).
    pub point_scale: f32,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            ground: Some(0.0),
            grid_spacing: None,
            shadows: true,
            light_dir: Vec3::new(-0.35, -0.55, 0.76),
            point_scale: 1.0,
        }
    }
}
