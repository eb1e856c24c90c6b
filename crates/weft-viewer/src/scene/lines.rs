//! Line segments: springs, joints, debug vectors.

use glam::Vec3;

use super::bounds::Bounds;
use super::coloring::{Coloring, Colors};
use crate::{Color, Colormap, Error};

#[derive(Clone, Copy, Debug)]
enum Source<'a> {
    Segments(&'a [[Vec3; 2]]),
    Strip(&'a [Vec3]),
    Indexed {
        points: &'a [Vec3],
        pairs: &'a [[u32; 2]],
    },
    Vectors {
        origins: &'a [Vec3],
        vectors: &'a [Vec3],
        scale: f32,
    },
}

/// Line segments to log with [`Scene::log_lines`](crate::Scene::log_lines), drawn a
/// fixed number of pixels wide, unlit.
///
/// ```
/// use weft_viewer::{Color, Lines, Scene};
/// use glam::Vec3;
/// let x = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0)];
/// let springs = [[0, 1], [1, 2]];
/// let mut scene = Scene::new();
/// scene.log_lines("springs", Lines::indexed(&x, &springs).color(Color::BLACK).width(2.0))?;
/// scene.log_lines("velocity", Lines::vectors(&x, &[Vec3::Z; 3], 0.1))?;
/// assert_eq!(scene.lines("springs").unwrap().segments().len(), 2);
/// # Ok::<(), weft_viewer::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Lines<'a> {
    source: Source<'a>,
    coloring: Coloring<'a>,
    range: Option<(f32, f32)>,
    width: f32,
}

impl<'a> Lines<'a> {
    fn new(source: Source<'a>) -> Self {
        Lines {
            source,
            coloring: Coloring::Uniform(Color::rgb(40, 40, 48)),
            range: None,
            width: 1.5,
        }
    }

    /// Independent segments `[start, end]`.
    pub fn segments(segments: &'a [[Vec3; 2]]) -> Self {
        Self::new(Source::Segments(segments))
    }

    /// A polyline through `points` (`points.len() - 1` segments).
    pub fn strip(points: &'a [Vec3]) -> Self {
        Self::new(Source::Strip(points))
    }

    /// Segments between `points[a]` and `points[b]` for each `[a, b]` in `pairs` (springs, edges).
    pub fn indexed(points: &'a [Vec3], pairs: &'a [[u32; 2]]) -> Self {
        Self::new(Source::Indexed { points, pairs })
    }

    /// Arrows without heads: from each origin along `vectors[i] * scale` (forces, velocities).
    pub fn vectors(origins: &'a [Vec3], vectors: &'a [Vec3], scale: f32) -> Self {
        Self::new(Source::Vectors {
            origins,
            vectors,
            scale,
        })
    }

    /// One colour for every segment.
    pub fn color(mut self, color: Color) -> Self {
        self.coloring = Coloring::Uniform(color);
        self
    }

    /// A colour per segment.
    pub fn colors(mut self, colors: &'a [Color]) -> Self {
        self.coloring = Coloring::PerItem(colors);
        self
    }

    /// A scalar per segment through a colour map.
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

    /// Width in (physical) pixels.
    pub fn width(mut self, pixels: f32) -> Self {
        self.width = pixels;
        self
    }
}

/// Logged segments, as the scene keeps them.
#[derive(Clone, Debug)]
pub struct LineSet {
    pub(crate) segments: Vec<[Vec3; 2]>,
    pub(crate) colors: Colors,
    pub(crate) width: f32,
    pub(crate) bounds: Option<Bounds>,
}

impl LineSet {
    pub(crate) fn empty() -> Self {
        LineSet {
            segments: Vec::new(),
            colors: Colors::default(),
            width: 1.0,
            bounds: None,
        }
    }

    /// The segments.
    pub fn segments(&self) -> &[[Vec3; 2]] {
        &self.segments
    }

    /// Colour of segment `i`.
    pub fn color_of(&self, i: usize) -> Color {
        self.colors.color_of(i)
    }

    /// Width in pixels.
    pub fn width(&self) -> f32 {
        self.width
    }

    pub(crate) fn assign(&mut self, name: &str, src: &Lines<'_>) -> Result<(), Error> {
        if !(src.width.is_finite() && src.width > 0.0) {
            return Err(Error::data(
                name,
                format!("width {} must be positive and finite", src.width),
            ));
        }
        self.segments.clear();
        match src.source {
            Source::Segments(s) => self.segments.extend_from_slice(s),
            Source::Strip(p) => self.segments.extend(p.windows(2).map(|w| [w[0], w[1]])),
            Source::Indexed { points, pairs } => {
                let n = points.len();
                if let Some(k) = pairs
                    .iter()
                    .position(|p| p[0] as usize >= n || p[1] as usize >= n)
                {
                    return Err(Error::data(
                        name,
                        format!("pair {k} = {:?} is out of range for {n} points", pairs[k]),
                    ));
                }
                self.segments.extend(
                    pairs
                        .iter()
                        .map(|p| [points[p[0] as usize], points[p[1] as usize]]),
                );
            }
            Source::Vectors {
                origins,
                vectors,
                scale,
            } => {
                if origins.len() != vectors.len() {
                    return Err(Error::data(
                        name,
                        format!(
                            "{} origins but {} vectors; give one vector per origin",
                            origins.len(),
                            vectors.len()
                        ),
                    ));
                }
                self.segments.extend(
                    origins
                        .iter()
                        .zip(vectors)
                        .map(|(o, v)| [*o, *o + *v * scale]),
                );
            }
        }
        let mut coloring = src.coloring;
        if let (Coloring::Scalars { range, .. }, Some(r)) = (&mut coloring, src.range) {
            *range = Some(r);
        }
        let mut colors = std::mem::take(&mut self.colors);
        colors.assign(&coloring, self.segments.len(), name, "segments")?;
        self.colors = colors;
        self.width = src.width;
        self.bounds = Bounds::from_points(bytemuck::cast_slice(&self.segments));
        Ok(())
    }
}
