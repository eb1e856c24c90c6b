//! How items are coloured: one colour, a colour each, or a scalar each through a colour map.

use crate::colormap::normalize;
use crate::{Color, Colormap};

/// The colour of logged items (points, mesh vertices, line segments).
#[derive(Clone, Copy, Debug)]
pub enum Coloring<'a> {
    /// Every item the same colour.
    Uniform(Color),
    /// One colour per item.
    PerItem(&'a [Color]),
    /// One scalar per item, shown through a colour map over `range`
    /// (`None`: the values' own minimum and maximum).
    Scalars {
        /// The values.
        values: &'a [f32],
        /// The map.
        map: Colormap,
        /// The values at the two ends of the map.
        range: Option<(f32, f32)>,
    },
}

/// An owned copy of a [`Coloring`], kept by the scene between frames.
#[derive(Clone, Debug)]
pub(crate) enum Colors {
    Uniform(Color),
    PerItem(Vec<Color>),
    Scalars {
        values: Vec<f32>,
        map: Colormap,
        range: (f32, f32),
    },
}

impl Default for Colors {
    fn default() -> Self {
        Colors::Uniform(Color::WHITE)
    }
}

impl Colors {
    /// Copies `src` (checked against `count` items) into `self`, reusing its allocation.
    pub(crate) fn assign(
        &mut self,
        src: &Coloring<'_>,
        count: usize,
        entity: &str,
        items: &str,
    ) -> Result<(), crate::Error> {
        match *src {
            Coloring::Uniform(c) => *self = Colors::Uniform(c),
            Coloring::PerItem(colors) => {
                if colors.len() != count {
                    return Err(crate::Error::data(
                        entity,
                        format!(
                            "{count} {items} but {} colours; give one colour per item",
                            colors.len()
                        ),
                    ));
                }
                let mut v = match std::mem::take(self) {
                    Colors::PerItem(v) => v,
                    _ => Vec::new(),
                };
                v.clear();
                v.extend_from_slice(colors);
                *self = Colors::PerItem(v);
            }
            Coloring::Scalars { values, map, range } => {
                if values.len() != count {
                    return Err(crate::Error::data(
                        entity,
                        format!(
                            "{count} {items} but {} scalars; give one scalar per item",
                            values.len()
                        ),
                    ));
                }
                let range = match range {
                    Some((lo, hi)) => {
                        if !(lo.is_finite() && hi.is_finite()) {
                            return Err(crate::Error::data(
                                entity,
                                format!("colour-map range ({lo}, {hi}) is not finite"),
                            ));
                        }
                        (lo, hi)
                    }
                    None => min_max(values),
                };
                let mut v = match std::mem::take(self) {
                    Colors::Scalars { values, .. } => values,
                    _ => Vec::new(),
                };
                v.clear();
                v.extend_from_slice(values);
                *self = Colors::Scalars {
                    values: v,
                    map,
                    range,
                };
            }
        }
        Ok(())
    }

    /// The resolved colour of item `i`.
    pub(crate) fn color_of(&self, i: usize) -> Color {
        match self {
            Colors::Uniform(c) => *c,
            Colors::PerItem(v) => v[i],
            Colors::Scalars { values, map, range } => map.map(normalize(values[i], *range)),
        }
    }
}

/// Minimum and maximum of the finite values (`(0, 1)` when there are none).
pub(crate) fn min_max(values: &[f32]) -> (f32, f32) {
    let (lo, hi) = values
        .iter()
        .filter(|v| v.is_finite())
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi { (0.0, 1.0) } else { (lo, hi) }
}
