//! Axis-aligned bounds of what a scene holds (for framing the camera and fitting shadows).

use glam::Vec3;

/// An axis-aligned box.
///
/// ```
/// use weft_viewer::Bounds;
/// use glam::Vec3;
/// let b = Bounds::from_points(&[Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)]).unwrap();
/// assert_eq!(b.center(), Vec3::new(1.0, 0.0, 0.0));
/// assert_eq!(b.radius(), 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Lowest corner.
    pub min: Vec3,
    /// Highest corner.
    pub max: Vec3,
}

impl Bounds {
    /// The box around one point.
    pub fn point(p: Vec3) -> Self {
        Bounds { min: p, max: p }
    }

    /// The box around a sphere.
    pub fn sphere(center: Vec3, radius: f32) -> Self {
        Bounds {
            min: center - Vec3::splat(radius),
            max: center + Vec3::splat(radius),
        }
    }

    /// The box around the finite points (`None` if there are none).
    pub fn from_points(points: &[Vec3]) -> Option<Self> {
        let mut min = Vec3::splat(f32::INFINITY);
        let mut max = Vec3::splat(f32::NEG_INFINITY);
        for p in points {
            if p.is_finite() {
                min = min.min(*p);
                max = max.max(*p);
            }
        }
        (min.x <= max.x).then_some(Bounds { min, max })
    }

    /// The box around both.
    pub fn union(self, other: Bounds) -> Bounds {
        Bounds {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// This box grown by `margin` on every side.
    pub fn expand(self, margin: f32) -> Bounds {
        Bounds {
            min: self.min - Vec3::splat(margin),
            max: self.max + Vec3::splat(margin),
        }
    }

    /// The centre.
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Radius of the sphere through the corners.
    pub fn radius(&self) -> f32 {
        (self.max - self.min).length() * 0.5
    }
}

/// `Option` union, for folding.
pub(crate) fn union(a: Option<Bounds>, b: Option<Bounds>) -> Option<Bounds> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.union(b)),
        (a, None) => a,
        (None, b) => b,
    }
}
