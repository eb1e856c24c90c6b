//! A description's geoms as weft-collide shapes.

use std::sync::Arc;

use glam::{Vec2, Vec3};
use weft::Transform;
use weft_collide::Geometry;
use weft_geom::{ConvexHull, Mesh};

use super::error::RobotModelError;
use crate::{Pose, RobotDescription, Shape};

/// How mesh geoms collide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MeshShapes {
    /// As their convex hull (what MuJoCo does with mesh geoms).
    #[default]
    ConvexHull,
    /// As the triangle mesh itself (one-sided triangles; see
    /// [`Geometry::Mesh`]).
    TriangleMesh,
}

/// Meshes and hulls made once per description mesh, shared by every geom that
/// uses it (shapes sharing an `Arc` share one copy on the device).
#[derive(Default)]
pub(crate) struct MeshCache {
    meshes: Vec<Option<Arc<Mesh>>>,
    hulls: Vec<Option<Arc<ConvexHull>>>,
}

impl MeshCache {
    fn mesh(&mut self, robot: &RobotDescription, k: usize) -> Result<Arc<Mesh>, RobotModelError> {
        self.meshes.resize(robot.meshes.len(), None);
        if let Some(m) = &self.meshes[k] {
            return Ok(m.clone());
        }
        let data = &robot.meshes[k];
        let points = data.vertices.iter().map(|&v| Vec3::from(v)).collect();
        let mesh =
            Mesh::new(points, data.triangles.clone()).map_err(|e| RobotModelError::Mesh {
                name: data.name.clone(),
                message: e.to_string(),
            })?;
        let mesh = Arc::new(mesh);
        self.meshes[k] = Some(mesh.clone());
        Ok(mesh)
    }

    fn hull(
        &mut self,
        robot: &RobotDescription,
        k: usize,
    ) -> Result<Arc<ConvexHull>, RobotModelError> {
        self.hulls.resize(robot.meshes.len(), None);
        if let Some(h) = &self.hulls[k] {
            return Ok(h.clone());
        }
        let data = &robot.meshes[k];
        let points: Vec<Vec3> = data.vertices.iter().map(|&v| Vec3::from(v)).collect();
        let hull = ConvexHull::new(&points).map_err(|e| RobotModelError::Mesh {
            name: data.name.clone(),
            message: format!("no convex hull: {e}"),
        })?;
        let hull = Arc::new(hull);
        self.hulls[k] = Some(hull.clone());
        Ok(hull)
    }
}

/// A pose as a Weft transform (f32).
pub(crate) fn to_transform(p: &Pose) -> Transform {
    Transform::new(p.pos.as_vec3(), p.rot.normalize().as_quat())
}

/// The shape of a geom; meshes as hulls when `as_hull`.
pub(crate) fn geometry(
    robot: &RobotDescription,
    shape: &Shape,
    cache: &mut MeshCache,
    as_hull: bool,
) -> Result<Geometry, RobotModelError> {
    Ok(match *shape {
        Shape::Sphere { radius } => Geometry::Sphere {
            radius: radius as f32,
        },
        Shape::Capsule {
            radius,
            half_length,
        } => Geometry::Capsule {
            radius: radius as f32,
            half_height: half_length as f32,
        },
        Shape::Cylinder {
            radius,
            half_length,
        } => Geometry::Cylinder {
            radius: radius as f32,
            half_height: half_length as f32,
        },
        Shape::Box { half_extents } => Geometry::Box {
            half_extents: half_extents.as_vec3(),
        },
        Shape::Plane { half_size } => Geometry::Plane {
            // Weft's planes are infinite or bounded on both axes.
            half_extents: if half_size[0] > 0.0 && half_size[1] > 0.0 {
                Vec2::new(half_size[0] as f32, half_size[1] as f32)
            } else {
                Vec2::ZERO
            },
        },
        Shape::Mesh { mesh, scale } if as_hull => Geometry::Convex {
            hull: cache.hull(robot, mesh)?,
            scale: scale.as_vec3(),
        },
        Shape::Mesh { mesh, scale } => Geometry::Mesh {
            mesh: cache.mesh(robot, mesh)?,
            scale: scale.as_vec3(),
        },
    })
}
