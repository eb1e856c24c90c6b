//! Static collision shapes on the host.

use glam::{Quat, Vec3};

/// A static collision shape in world space.
#[derive(Debug, Clone)]
pub enum Shape {
    /// A plane through `pose`'s origin with normal `pose`'s +Z, bounded to a
    /// rectangle of half extents `half_extents` in its X and Y (0: unbounded).
    Plane {
        /// Where the plane is.
        pose: (Vec3, Quat),
        /// Half extents along the plane's X and Y; 0 for an infinite plane.
        half_extents: [f32; 2],
        /// Friction coefficient.
        mu: f32,
    },
    /// A sphere.
    Sphere {
        /// Centre.
        center: Vec3,
        /// Radius.
        radius: f32,
        /// Friction coefficient.
        mu: f32,
    },
    /// A box.
    Box {
        /// Centre and orientation.
        pose: (Vec3, Quat),
        /// Half extents along its axes.
        half_extents: Vec3,
        /// Friction coefficient.
        mu: f32,
    },
    /// A capsule whose segment runs along its Z axis.
    Capsule {
        /// Centre and orientation.
        pose: (Vec3, Quat),
        /// Radius.
        radius: f32,
        /// Half length of the segment.
        half_height: f32,
        /// Friction coefficient.
        mu: f32,
    },
    /// A triangle mesh, placed by `pose` and scaled by `scale` (in its own frame
    /// first). Particles collide with its surface thickened by
    /// [`ModelBuilder::mesh_thickness`](crate::ModelBuilder::mesh_thickness) and
    /// are pushed out on the side the face normal points to.
    Mesh {
        /// Where the mesh is.
        pose: (Vec3, Quat),
        /// Per-axis scale.
        scale: Vec3,
        /// The mesh.
        mesh: weft_geom::Mesh,
    },
}

impl Shape {
    /// The shape's name, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Shape::Plane { .. } => "plane",
            Shape::Sphere { .. } => "sphere",
            Shape::Box { .. } => "box",
            Shape::Capsule { .. } => "capsule",
            Shape::Mesh { .. } => "mesh",
        }
    }

    /// The mesh's vertices in world space (meshes only).
    pub(crate) fn world_points(&self) -> Option<Vec<Vec3>> {
        match self {
            Shape::Mesh { pose, scale, mesh } => Some(
                mesh.points()
                    .iter()
                    .map(|&p| pose.0 + pose.1 * (p * *scale))
                    .collect(),
            ),
            _ => None,
        }
    }
}
