//! Rigid shapes: spheres, boxes, capsules and cylinders with a transform each.

use glam::Vec3;
use weft_types::Transform;

use super::bounds::Bounds;
use crate::{Color, Error};

/// A shape's geometry in its own frame (centred on the origin).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Geometry {
    /// A sphere.
    Sphere {
        /// Radius (metres).
        radius: f32,
    },
    /// A box.
    Box {
        /// Half the side lengths along the local x, y, z axes.
        half_extents: Vec3,
    },
    /// A capsule along the local z axis: a cylinder of `2 * half_height` capped by
    /// two hemispheres.
    Capsule {
        /// Radius of the cylinder and the caps.
        radius: f32,
        /// Half the length of the cylinder (the distance from the centre to a cap's centre).
        half_height: f32,
    },
    /// A solid cylinder along the local z axis, centred on the origin (flat caps at
    /// `z = ±half_height`), as `weft_collide::Geometry::Cylinder`.
    Cylinder {
        /// Radius of the cylinder (metres).
        radius: f32,
        /// Half its length along z.
        half_height: f32,
    },
}

impl Geometry {
    /// Radius of a sphere around the geometry, centred on its origin.
    pub fn bounding_radius(&self) -> f32 {
        match *self {
            Geometry::Sphere { radius } => radius,
            Geometry::Box { half_extents } => half_extents.length(),
            Geometry::Capsule {
                radius,
                half_height,
            } => radius + half_height,
            Geometry::Cylinder {
                radius,
                half_height,
            } => (radius * radius + half_height * half_height).sqrt(),
        }
    }

    fn check(&self) -> Result<(), String> {
        let ok = |x: f32| x.is_finite() && x >= 0.0;
        match *self {
            Geometry::Sphere { radius } if ok(radius) => Ok(()),
            Geometry::Box { half_extents }
                if ok(half_extents.x) && ok(half_extents.y) && ok(half_extents.z) =>
            {
                Ok(())
            }
            Geometry::Capsule {
                radius,
                half_height,
            }
            | Geometry::Cylinder {
                radius,
                half_height,
            } if ok(radius) && ok(half_height) => Ok(()),
            g => Err(format!("{g:?} has a negative or non-finite size")),
        }
    }
}

/// A rigid shape for [`Scene::log_shapes`](crate::Scene::log_shapes): geometry, world
/// transform and colour.
///
/// ```
/// use weft_viewer::{Color, Scene, Shape, Transform};
/// use glam::{Quat, Vec3};
/// let body = Transform::new(Vec3::new(0.0, 0.0, 1.0), Quat::from_rotation_x(0.3));
/// let shapes = [
///     Shape::sphere(0.5).at(body).color(Color::CORAL),
///     Shape::cuboid(Vec3::new(0.5, 0.2, 0.1)),
///     Shape::capsule(0.1, 0.4).at(Transform::from_translation(Vec3::X)),
///     Shape::cylinder(0.1, 0.05).at(Transform::from_translation(Vec3::Y)),
/// ];
/// let mut scene = Scene::new();
/// scene.log_shapes("bodies", &shapes)?;
/// # Ok::<(), weft_viewer::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// What it is.
    pub geometry: Geometry,
    /// Where it is.
    pub transform: Transform,
    /// Its colour.
    pub color: Color,
}

impl Shape {
    /// A sphere at the origin.
    pub fn sphere(radius: f32) -> Self {
        Self::new(Geometry::Sphere { radius })
    }

    /// A box at the origin, from half its side lengths.
    pub fn cuboid(half_extents: Vec3) -> Self {
        Self::new(Geometry::Box { half_extents })
    }

    /// A capsule along z at the origin.
    pub fn capsule(radius: f32, half_height: f32) -> Self {
        Self::new(Geometry::Capsule {
            radius,
            half_height,
        })
    }

    /// A cylinder along z at the origin, from its radius and half its length.
    pub fn cylinder(radius: f32, half_height: f32) -> Self {
        Self::new(Geometry::Cylinder {
            radius,
            half_height,
        })
    }

    /// A shape of this geometry at the origin, Weft orange.
    pub fn new(geometry: Geometry) -> Self {
        Shape {
            geometry,
            transform: Transform::IDENTITY,
            color: Color::ORANGE,
        }
    }

    /// This shape placed by `transform`.
    pub fn at(mut self, transform: Transform) -> Self {
        self.transform = transform;
        self
    }

    /// This shape in `color`.
    pub fn color(mut self, color: Color) -> Self {
        self.color = color;
        self
    }
}

/// Checks shapes and returns their bounds.
pub(crate) fn check_shapes(name: &str, shapes: &[Shape]) -> Result<Option<Bounds>, Error> {
    let mut bounds = None;
    for (i, s) in shapes.iter().enumerate() {
        s.geometry
            .check()
            .map_err(|m| Error::data(name, format!("shape {i}: {m}")))?;
        if !(s.transform.p.is_finite() && s.transform.q.is_finite()) {
            return Err(Error::data(
                name,
                format!("shape {i}: transform is not finite"),
            ));
        }
        let b = Bounds::sphere(s.transform.p, s.geometry.bounding_radius());
        bounds = super::bounds::union(bounds, Some(b));
    }
    Ok(bounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cylinder_is_bounded_by_the_sphere_through_its_rims_and_checked() {
        let c = Shape::cylinder(0.3, 0.4);
        assert!((c.geometry.bounding_radius() - 0.5).abs() < 1e-6);
        assert!(c.geometry.check().is_ok());
        assert!(Shape::cylinder(-0.1, 0.4).geometry.check().is_err());
        assert!(Shape::cylinder(0.1, f32::NAN).geometry.check().is_err());
    }
}
