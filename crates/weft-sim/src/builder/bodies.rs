//! Rigid bodies and the shapes attached to them, on the host: [`BodyDesc`],
//! [`BodyKind`], [`BodyMass`], and their checks and mass properties at
//! [`ModelBuilder::finalize`](crate::ModelBuilder::finalize).

use glam::{Mat3, Vec3};
use weft::{SpatialVector, Transform};
use weft_collide::{Geometry, Material, ShapeDesc};
use weft_geom::MassProperties;

use super::ModelBuilder;
use crate::error::{Result, SimError};

/// How a body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BodyKind {
    /// Moved by forces, gravity and contacts.
    #[default]
    Dynamic,
    /// Moves with its velocity, unaffected by forces and contacts (infinite
    /// mass); set its velocity in the state to drive it.
    Kinematic,
    /// Never moves (infinite mass, zero velocity).
    Static,
}

/// Where a body's mass, centre of mass and inertia come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BodyMass {
    /// From its shapes at a uniform density (kg/m³), combined with the
    /// parallel-axis theorem.
    Density(f32),
    /// Given: mass (kg), centre of mass and inertia about it, in the body frame.
    Given(MassProperties),
}

/// A rigid body as added to a [`ModelBuilder`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyDesc {
    /// Pose of the body frame in the world (p, then q = (x, y, z, w)).
    pub pose: Transform,
    /// Initial velocity: linear of the centre of mass, then angular, world frame.
    pub velocity: SpatialVector,
    /// Mass properties. A dynamic body needs a positive mass and a positive
    /// definite inertia, except a *massless link*: `BodyMass::Given(MassProperties::ZERO)`
    /// on a body that is a joint's child (its inverse mass and inertia are
    /// stored as zero; only reduced-coordinate solvers move it).
    pub mass: BodyMass,
    /// Dynamic, kinematic or static.
    pub kind: BodyKind,
    /// The world it belongs to (worlds do not collide with each other).
    pub world: i32,
}

impl BodyDesc {
    /// A dynamic body at `pose`, at rest, with its mass from its shapes at the
    /// density of water (1,000 kg/m³), in world 0.
    pub fn new(pose: Transform) -> Self {
        BodyDesc {
            pose,
            velocity: SpatialVector::new(Vec3::ZERO, Vec3::ZERO),
            mass: BodyMass::Density(1000.0),
            kind: BodyKind::Dynamic,
            world: 0,
        }
    }
}

/// Per-body arrays on the host, checked, ready for the device.
pub(crate) struct BodyArrays {
    pub q: Vec<Transform>,
    pub qd: Vec<SpatialVector>,
    pub com: Vec<Vec3>,
    pub mass: Vec<f32>,
    pub inv_mass: Vec<f32>,
    pub inertia: Vec<Mat3>,
    pub inv_inertia: Vec<Mat3>,
    pub world: Vec<i32>,
}

fn bad(index: usize, message: impl Into<String>) -> SimError {
    SimError::InvalidInput {
        what: "body",
        index,
        message: message.into(),
    }
}

impl ModelBuilder {
    /// Adds a rigid body; returns its index. Attach shapes with
    /// [`ModelBuilder::add_body_shape`].
    pub fn add_body(&mut self, body: BodyDesc) -> usize {
        self.bodies.push(body);
        self.bodies.len() - 1
    }

    /// Attaches a shape of default material to `body` (-1: static, in world
    /// space) at `transform` in the body's frame; returns the shape's index.
    pub fn add_body_shape(&mut self, body: i32, transform: Transform, geometry: Geometry) -> usize {
        self.add_rigid_shape(ShapeDesc::new(body, transform, geometry))
    }

    /// Attaches a shape with its own material, filter and world.
    pub fn add_body_shape_with(
        &mut self,
        body: i32,
        transform: Transform,
        geometry: Geometry,
        material: Material,
    ) -> usize {
        let mut s = ShapeDesc::new(body, transform, geometry);
        s.material = material;
        self.add_rigid_shape(s)
    }

    /// Adds a fully described shape (see [`ShapeDesc`]).
    pub fn add_rigid_shape(&mut self, shape: ShapeDesc) -> usize {
        self.rigid_shapes.push(shape);
        self.rigid_shapes.len() - 1
    }

    /// The shape added as `index` (by [`add_rigid_shape`](Self::add_rigid_shape)
    /// or an importer), to change its material, filter or world after the fact;
    /// `None` past the shapes added so far.
    ///
    /// ```
    /// use weft::prelude::*;
    /// use weft_collide::Geometry;
    /// use weft_sim::ModelBuilder;
    /// let mut b = ModelBuilder::new();
    /// let floor = b.add_body_shape(-1, Transform::IDENTITY, Geometry::Plane { half_extents: Vec2::ZERO });
    /// b.rigid_shape_mut(floor).unwrap().world = -1; // shared by every world
    /// assert!(b.rigid_shape_mut(floor + 1).is_none());
    /// ```
    pub fn rigid_shape_mut(&mut self, index: usize) -> Option<&mut ShapeDesc> {
        self.rigid_shapes.get_mut(index)
    }

    /// Number of rigid bodies added so far.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Checks the bodies and computes their mass properties.
    pub(crate) fn body_arrays(&self) -> Result<BodyArrays> {
        let n = self.bodies.len();
        let mut out = BodyArrays {
            q: Vec::with_capacity(n),
            qd: Vec::with_capacity(n),
            com: Vec::with_capacity(n),
            mass: Vec::with_capacity(n),
            inv_mass: Vec::with_capacity(n),
            inertia: Vec::with_capacity(n),
            inv_inertia: Vec::with_capacity(n),
            world: Vec::with_capacity(n),
        };
        // The shapes of each body, found once (a scan per body is quadratic).
        let mut shapes_of: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (k, s) in self.rigid_shapes.iter().enumerate() {
            if s.body >= 0 && (s.body as usize) < n {
                shapes_of[s.body as usize].push(k);
            }
        }
        for (i, b) in self.bodies.iter().enumerate() {
            let (p, q) = (b.pose.p, b.pose.q);
            if !p.is_finite() || !q.is_finite() || q.length_squared() < 1e-12 {
                return Err(bad(
                    i,
                    format!(
                        "pose must be finite with a non-zero rotation, got {:?}",
                        b.pose
                    ),
                ));
            }
            let (v, w) = (b.velocity.top, b.velocity.bottom);
            if !v.is_finite() || !w.is_finite() {
                return Err(bad(i, format!("velocity must be finite, got {v} {w}")));
            }
            if b.world < 0 {
                return Err(bad(i, format!("world must be >= 0, got {}", b.world)));
            }
            let props = match b.mass {
                BodyMass::Given(m) => m,
                BodyMass::Density(density) => {
                    if !(density.is_finite() && density > 0.0) {
                        return Err(bad(
                            i,
                            format!("density must be finite and > 0, got {density}"),
                        ));
                    }
                    // Surfaces (open meshes, height fields) add no mass.
                    let mut parts: Vec<MassProperties> = Vec::new();
                    let mut surface: Option<String> = None;
                    for s in shapes_of[i].iter().map(|&k| &self.rigid_shapes[k]) {
                        match shape_mass(density, s) {
                            Ok(m) => parts.push(m),
                            Err(why) => {
                                surface.get_or_insert(why);
                            }
                        }
                    }
                    if parts.is_empty() && b.kind == BodyKind::Dynamic {
                        return Err(bad(
                            i,
                            match surface {
                                Some(why) => format!(
                                    "is dynamic but its shapes have no mass: {why}; open meshes and height fields are for static or kinematic bodies — attach a solid shape (a closed mesh, a convex hull, a primitive) or give BodyMass::Given"
                                ),
                                None => "has no shapes to compute its mass from; attach shapes or give BodyMass::Given".into(),
                            },
                        ));
                    }
                    parts.into_iter().sum()
                }
            };
            // A massless link (zero mass and inertia) is allowed as a joint's
            // child: reduced-coordinate solvers move it through its joint, and
            // it carries the frames of bodies with several joints (importers).
            let massless_link = props == MassProperties::ZERO
                && matches!(b.mass, BodyMass::Given(_))
                && self.joints.iter().any(|j| j.child == i as i32);
            let dynamic = b.kind == BodyKind::Dynamic;
            if dynamic && !massless_link {
                props
                    .validate()
                    .map_err(|e| bad(i, format!("mass properties: {e}")))?;
            }
            out.q.push(Transform::new(p, q.normalize()));
            out.qd.push(if b.kind == BodyKind::Static {
                SpatialVector::new(Vec3::ZERO, Vec3::ZERO)
            } else {
                b.velocity
            });
            out.com.push(if props.com.is_finite() {
                props.com
            } else {
                Vec3::ZERO
            });
            let invertible = dynamic && !massless_link;
            out.mass.push(if dynamic { props.mass } else { 0.0 });
            out.inv_mass
                .push(if invertible { 1.0 / props.mass } else { 0.0 });
            out.inertia
                .push(if dynamic { props.inertia } else { Mat3::ZERO });
            out.inv_inertia.push(if invertible {
                props.inertia.inverse()
            } else {
                Mat3::ZERO
            });
            out.world.push(b.world);
        }
        Ok(out)
    }
}

/// Mass properties of shape `s` at `density`, in its body's frame, or why it
/// has none (a surface: see [`Geometry::solid_mass_properties`]).
fn shape_mass(density: f32, s: &ShapeDesc) -> std::result::Result<MassProperties, String> {
    s.geometry
        .solid_mass_properties(density)
        .map(|m| m.transformed(s.transform.q, s.transform.p))
}
