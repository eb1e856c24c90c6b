//! Drawing a robot description (`weft_import::RobotDescription`) at a model's
//! body poses in the viewer; shared by the robot examples through
//! `#[path = "common/robot_drawing.rs"] mod robot_drawing;` (Cargo does not
//! build `examples/common/` as an example of its own).

#![allow(dead_code)] // each example uses a part

use glam::Vec3;
use weft::Transform;
use weft_import::{GeomRole, RobotDescription, RobotHandles, pose_to_transform};
use weft_viewer::{Color, Mesh, Scene, Shape};

/// One drawn geom: a shape or a mesh fixed on a body (or the world).
pub struct Part {
    /// The Weft body (`None`: the world).
    pub body: Option<usize>,
    /// Pose in the body frame (in the world for world geoms).
    pub local: Transform,
    pub kind: PartKind,
    pub color: Color,
}

pub enum PartKind {
    Shape(Shape),
    Mesh { mesh: usize, scale: Vec3 },
}

/// What of a robot description is drawn, and how.
pub struct RobotDrawing {
    pub parts: Vec<Part>,
    /// The description's meshes as the viewer takes them.
    pub meshes: Vec<(Vec<Vec3>, Vec<[u32; 3]>)>,
}

impl RobotDrawing {
    /// The visual geoms of each body (URDF `<visual>`, MJCF geoms), or its
    /// collision geoms where it has no visual one; world planes and fully
    /// transparent geoms are left out. `base` places the world geoms.
    pub fn new(robot: &RobotDescription, handles: &RobotHandles, base: Transform) -> Self {
        let shown = |body: Option<usize>, role: GeomRole| {
            let has_visual = robot
                .geoms
                .iter()
                .any(|g| g.body == body && g.role != GeomRole::Collision);
            if has_visual {
                role != GeomRole::Collision
            } else {
                true
            }
        };
        let mut parts = Vec::new();
        for g in &robot.geoms {
            if !shown(g.body, g.role) || g.rgba[3] <= 0.0 {
                continue;
            }
            let kind = match g.shape {
                weft_import::Shape::Sphere { radius } => {
                    PartKind::Shape(Shape::sphere(radius as f32))
                }
                weft_import::Shape::Capsule {
                    radius,
                    half_length,
                } => PartKind::Shape(Shape::capsule(radius as f32, half_length as f32)),
                weft_import::Shape::Cylinder {
                    radius,
                    half_length,
                } => PartKind::Shape(Shape::cylinder(radius as f32, half_length as f32)),
                weft_import::Shape::Box { half_extents } => {
                    PartKind::Shape(Shape::cuboid(half_extents.as_vec3()))
                }
                weft_import::Shape::Mesh { mesh, scale } => PartKind::Mesh {
                    mesh,
                    scale: scale.as_vec3(),
                },
                // The viewer's ground grid stands for planes.
                weft_import::Shape::Plane { .. } => continue,
            };
            let [r, gr, b, _] = g.rgba.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
            let local = pose_to_transform(&g.pose);
            parts.push(Part {
                body: g.body.map(|b| handles.bodies[b]),
                local: if g.body.is_some() {
                    local
                } else {
                    base * local
                },
                kind,
                color: Color::rgb(r, gr, b),
            });
        }
        let meshes = robot
            .meshes
            .iter()
            .map(|m| {
                let v = m.vertices.iter().map(|&p| Vec3::from(p)).collect();
                (v, m.triangles.clone())
            })
            .collect();
        RobotDrawing { parts, meshes }
    }

    /// World pose of `part` for body poses `body_q`.
    pub fn pose(part: &Part, body_q: &[Transform]) -> Transform {
        match part.body {
            Some(b) => body_q[b] * part.local,
            None => part.local,
        }
    }

    /// Logs the robot at body poses `body_q` as `name` (shapes) and
    /// `name mesh K` (one per mesh geom).
    pub fn draw(
        &self,
        scene: &mut Scene,
        name: &str,
        body_q: &[Transform],
    ) -> Result<(), weft_viewer::Error> {
        let mut shapes = Vec::new();
        for (k, part) in self.parts.iter().enumerate() {
            let pose = Self::pose(part, body_q);
            match &part.kind {
                PartKind::Shape(s) => shapes.push(s.at(pose).color(part.color)),
                PartKind::Mesh { mesh, scale } => {
                    let (v, t) = &self.meshes[*mesh];
                    scene.log_mesh(
                        &format!("{name} mesh {k}"),
                        Mesh::from_triangles(v, t)
                            .transform(pose)
                            .scale(*scale)
                            .color(part.color),
                    )?;
                }
            }
        }
        scene.log_shapes(name, &shapes)
    }

    /// The lowest point of the drawn geoms at body poses `body_q` (world z).
    pub fn lowest_z(&self, body_q: &[Transform]) -> Option<f32> {
        let mut low: Option<f32> = None;
        for part in &self.parts {
            let x = Self::pose(part, body_q);
            let z = match &part.kind {
                PartKind::Shape(s) => {
                    let axis = x.q * Vec3::Z;
                    match s.geometry {
                        weft_viewer::Geometry::Sphere { radius } => x.p.z - radius,
                        weft_viewer::Geometry::Box { half_extents } => {
                            let (ax, ay) = (x.q * Vec3::X, x.q * Vec3::Y);
                            x.p.z
                                - ax.z.abs() * half_extents.x
                                - ay.z.abs() * half_extents.y
                                - axis.z.abs() * half_extents.z
                        }
                        weft_viewer::Geometry::Capsule {
                            radius,
                            half_height,
                        } => x.p.z - axis.z.abs() * half_height - radius,
                        weft_viewer::Geometry::Cylinder {
                            radius,
                            half_height,
                        } => {
                            let across = (1.0 - axis.z * axis.z).max(0.0).sqrt();
                            x.p.z - axis.z.abs() * half_height - radius * across
                        }
                    }
                }
                PartKind::Mesh { mesh, scale } => self.meshes[*mesh]
                    .0
                    .iter()
                    .map(|v| (x.p + x.q * (*v * *scale)).z)
                    .fold(f32::INFINITY, f32::min),
            };
            low = Some(low.map_or(z, |l: f32| l.min(z)));
        }
        low
    }
}
