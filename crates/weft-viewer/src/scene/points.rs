//! Particles: one shaded sphere per position.

use glam::Vec3;

use super::bounds::Bounds;
use super::coloring::{Coloring, Colors};
use crate::{Color, Colormap, Error};

/// Particles to log with [`Scene::log_points`](crate::Scene::log_points): one sphere per
/// position, with one radius or a radius each, and one colour, a colour each, or a
/// scalar each through a colour map.
///
/// ```
/// use weft_viewer::{Colormap, Points, Scene};
/// use glam::Vec3;
/// let x = [Vec3::ZERO, Vec3::X, Vec3::Y];
/// let speed = [0.0, 1.0, 2.0];
/// let mut scene = Scene::new();
/// scene.log_points("particles", Points::new(&x).radius(0.05).scalars(&speed, Colormap::Viridis))?;
/// assert_eq!(scene.points("particles").unwrap().len(), 3);
/// # Ok::<(), weft_viewer::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Points<'a> {
    positions: &'a [Vec3],
    radius: f32,
    radii: Option<&'a [f32]>,
    coloring: Coloring<'a>,
    range: Option<(f32, f32)>,
}

impl<'a> Points<'a> {
    /// Spheres at `positions`, radius 1 cm, Weft blue.
    pub fn new(positions: &'a [Vec3]) -> Self {
        Points {
            positions,
            radius: 0.01,
            radii: None,
            coloring: Coloring::Uniform(Color::SKY),
            range: None,
        }
    }

    /// One radius for every sphere (metres).
    pub fn radius(mut self, radius: f32) -> Self {
        self.radius = radius;
        self.radii = None;
        self
    }

    /// A radius per sphere (metres).
    pub fn radii(mut self, radii: &'a [f32]) -> Self {
        self.radii = Some(radii);
        self
    }

    /// One colour for every sphere.
    pub fn color(mut self, color: Color) -> Self {
        self.coloring = Coloring::Uniform(color);
        self
    }

    /// A colour per sphere.
    pub fn colors(mut self, colors: &'a [Color]) -> Self {
        self.coloring = Coloring::PerItem(colors);
        self
    }

    /// A scalar per sphere, coloured through `map` (over the values' range unless
    /// [`range`](Self::range) fixes it). The mapping runs on the GPU.
    pub fn scalars(mut self, values: &'a [f32], map: Colormap) -> Self {
        self.coloring = Coloring::Scalars {
            values,
            map,
            range: None,
        };
        self
    }

    /// The scalar values at the two ends of the colour map (for [`scalars`](Self::scalars)).
    pub fn range(mut self, lo: f32, hi: f32) -> Self {
        self.range = Some((lo, hi));
        self
    }
}

/// Radii of a [`PointCloud`].
#[derive(Clone, Debug)]
pub(crate) enum Radii {
    Uniform(f32),
    PerPoint(Vec<f32>),
}

/// Logged particles, as the scene keeps them.
#[derive(Clone, Debug)]
pub struct PointCloud {
    pub(crate) positions: Vec<Vec3>,
    pub(crate) radii: Radii,
    pub(crate) colors: Colors,
    pub(crate) bounds: Option<Bounds>,
}

impl PointCloud {
    pub(crate) fn empty() -> Self {
        PointCloud {
            positions: Vec::new(),
            radii: Radii::Uniform(0.01),
            colors: Colors::default(),
            bounds: None,
        }
    }

    /// The positions.
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Radius of particle `i`.
    pub fn radius_of(&self, i: usize) -> f32 {
        match &self.radii {
            Radii::Uniform(r) => *r,
            Radii::PerPoint(r) => r[i],
        }
    }

    /// Colour of particle `i`, after the colour map.
    pub fn color_of(&self, i: usize) -> Color {
        self.colors.color_of(i)
    }

    /// Copies `src` in, reusing allocations; checks lengths and sizes.
    pub(crate) fn assign(&mut self, name: &str, src: &Points<'_>) -> Result<(), Error> {
        let n = src.positions.len();
        if n > u32::MAX as usize / 8 {
            return Err(Error::data(
                name,
                format!("{n} points is more than the viewer can index"),
            ));
        }
        let mut coloring = src.coloring;
        if let (Coloring::Scalars { range, .. }, Some(r)) = (&mut coloring, src.range) {
            *range = Some(r);
        }
        let mut colors = std::mem::take(&mut self.colors);
        colors.assign(&coloring, n, name, "points")?;
        let max_radius = match src.radii {
            None => {
                if !(src.radius.is_finite() && src.radius > 0.0) {
                    return Err(Error::data(
                        name,
                        format!("radius {} must be positive and finite", src.radius),
                    ));
                }
                self.radii = Radii::Uniform(src.radius);
                src.radius
            }
            Some(radii) => {
                if radii.len() != n {
                    return Err(Error::data(
                        name,
                        format!(
                            "{n} points but {} radii; give one radius per point",
                            radii.len()
                        ),
                    ));
                }
                if let Some(i) = radii.iter().position(|r| !(r.is_finite() && *r >= 0.0)) {
                    return Err(Error::data(
                        name,
                        format!("radius {} of point {i} must be finite and >= 0", radii[i]),
                    ));
                }
                let mut v = match std::mem::replace(&mut self.radii, Radii::Uniform(0.0)) {
                    Radii::PerPoint(v) => v,
                    Radii::Uniform(_) => Vec::new(),
                };
                v.clear();
                v.extend_from_slice(radii);
                let max = v.iter().copied().fold(0.0, f32::max);
                self.radii = Radii::PerPoint(v);
                max
            }
        };
        self.colors = colors;
        self.positions.clear();
        self.positions.extend_from_slice(src.positions);
        self.bounds = Bounds::from_points(&self.positions).map(|b| b.expand(max_radius));
        Ok(())
    }
}
