//! Turns urdf-rs's robot into the description, bodies in depth-first order.

use super::Index;
use super::validate::first_child;
use crate::description::*;
use crate::error::{ImportError, Location};
use crate::mesh::MeshTable;
use crate::xml::SourceFile;
use glam::{DMat3, DQuat, DVec3, EulerRot};
use roxmltree::Node;
use std::collections::HashMap;

/// Builds the description from urdf-rs's robot and the validation pass's index.
pub(super) fn build(
    src: &SourceFile,
    index: &Index,
    robot: &urdf_rs::Robot,
    meshes: MeshTable,
    warnings: Vec<String>,
) -> Result<RobotDescription, ImportError> {
    Builder {
        src,
        index,
        robot,
        meshes,
        warnings,
    }
    .build()
}

/// Turns urdf-rs's robot into the description, in topological order.
struct Builder<'s, 'a, 'i> {
    src: &'s SourceFile,
    index: &'s Index<'a, 'i>,
    robot: &'s urdf_rs::Robot,
    meshes: MeshTable<'s>,
    warnings: Vec<String>,
}

impl Builder<'_, '_, '_> {
    fn build(mut self) -> Result<RobotDescription, ImportError> {
        let robot = self.robot;
        let link_of: HashMap<&str, usize> = robot
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name.as_str(), i))
            .collect();
        // Parent joint of each link, and children of each link in joint order.
        let mut parent_joint: Vec<Option<usize>> = vec![None; robot.links.len()];
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); robot.links.len()];
        for (ji, j) in robot.joints.iter().enumerate() {
            let at = self.joint_location(ji);
            let find = |name: &str, what: &str| {
                link_of
                    .get(name)
                    .copied()
                    .ok_or_else(|| ImportError::UnknownReference {
                        location: at.clone(),
                        element: format!("joint name=\"{}\"> <{what}", j.name),
                        kind: "link",
                        name: name.to_owned(),
                    })
            };
            let (p, c) = (
                find(&j.parent.link, "parent")?,
                find(&j.child.link, "child")?,
            );
            if p == c {
                return Err(ImportError::NotATree {
                    location: at,
                    message: format!(
                        "joint \"{}\" connects link \"{}\" to itself",
                        j.name, j.child.link
                    ),
                });
            }
            if let Some(first) = parent_joint[c].replace(ji) {
                return Err(ImportError::NotATree {
                    location: at,
                    message: format!(
                        "link \"{}\" has two parent joints, \"{}\" and \"{}\"",
                        j.child.link, robot.joints[first].name, j.name
                    ),
                });
            }
            children[p].push(ji);
        }
        let roots: Vec<usize> = (0..robot.links.len())
            .filter(|&l| parent_joint[l].is_none())
            .collect();
        let root = match roots.as_slice() {
            [r] => *r,
            [] => {
                return Err(ImportError::NotATree {
                    location: self.src.file_only(),
                    message: "the joints form a cycle: every link has a parent joint, so there is no root link".into(),
                });
            }
            many => {
                let names: Vec<&str> = many.iter().map(|&l| robot.links[l].name.as_str()).collect();
                return Err(ImportError::NotATree {
                    location: self.link_location(&robot.links[many[1]].name),
                    message: format!(
                        "several root links ({}): a URDF is one tree; connect them with joints",
                        names.join(", ")
                    ),
                });
            }
        };
        let mut order = Vec::with_capacity(robot.links.len());
        let mut stack = vec![root];
        while let Some(l) = stack.pop() {
            order.push(l);
            stack.extend(
                children[l]
                    .iter()
                    .rev()
                    .map(|&j| link_of[robot.joints[j].child.link.as_str()]),
            );
        }
        if order.len() < robot.links.len() {
            let lost = (0..robot.links.len())
                .find(|l| !order.contains(l))
                .unwrap_or(0);
            let name = &robot.links[lost].name;
            return Err(ImportError::NotATree {
                location: self.link_location(name),
                message: format!(
                    "link \"{name}\" is on a cycle of joints, unreachable from the root link"
                ),
            });
        }
        let mut desc = RobotDescription {
            name: robot.name.clone(),
            format: SourceFormat::Urdf,
            bodies: Vec::new(),
            joints: Vec::new(),
            geoms: Vec::new(),
            sites: Vec::new(),
            actuators: Vec::new(),
            meshes: Vec::new(),
            options: SimOptions::default(),
            warnings: Vec::new(),
        };
        let mut body_of = vec![usize::MAX; robot.links.len()];
        for &l in &order {
            let b = desc.bodies.len();
            body_of[l] = b;
            let link = &robot.links[l];
            let (parent, pose) = match parent_joint[l] {
                Some(j) => {
                    let joint = &robot.joints[j];
                    (
                        Some(body_of[link_of[joint.parent.link.as_str()]]),
                        pose(&joint.origin),
                    )
                }
                None => (None, Pose::IDENTITY),
            };
            let mut joints = Vec::new();
            if let Some(j) = parent_joint[l] {
                joints.push(desc.joints.len());
                desc.joints.push(self.joint(j, b)?);
            }
            desc.bodies.push(Body {
                name: link.name.clone(),
                parent,
                pose,
                mass: self.mass(link),
                joints,
            });
            self.geoms(link, b, &mut desc.geoms)?;
        }
        desc.meshes = self.meshes.into_meshes(&mut self.warnings);
        desc.warnings = self.warnings;
        Ok(desc)
    }

    fn joint_location(&self, j: usize) -> Location {
        let name = self.robot.joints[j].name.as_str();
        self.index
            .joints
            .get(name)
            .map_or_else(|| self.src.file_only(), |n| self.src.at(*n))
    }

    fn link_location(&self, name: &str) -> Location {
        self.index
            .links
            .get(name)
            .map_or_else(|| self.src.file_only(), |n| self.src.at(*n))
    }

    fn mass(&self, link: &urdf_rs::Link) -> MassSource {
        let has_inertial = self
            .index
            .links
            .get(link.name.as_str())
            .is_some_and(|n| first_child(*n, "inertial").is_some());
        if !has_inertial {
            return MassSource::Massless;
        }
        let i = &link.inertial.inertia;
        let tensor = DMat3::from_cols_array(&[
            i.ixx, i.ixy, i.ixz, i.ixy, i.iyy, i.iyz, i.ixz, i.iyz, i.izz,
        ]);
        MassSource::Explicit(Inertial {
            mass: link.inertial.mass.value,
            frame: pose(&link.inertial.origin),
            inertia: tensor,
        })
    }

    fn joint(&mut self, j: usize, body: usize) -> Result<Joint, ImportError> {
        use urdf_rs::JointType as T;
        let joint = &self.robot.joints[j];
        let node = self.index.joints.get(joint.name.as_str()).copied();
        let limit_node = node.and_then(|n| first_child(n, "limit"));
        let kind = match joint.joint_type {
            T::Revolute | T::Continuous => JointKind::Revolute,
            T::Prismatic => JointKind::Prismatic,
            T::Fixed => JointKind::Fixed,
            T::Floating => JointKind::Free,
            T::Planar => JointKind::Planar,
            T::Spherical => JointKind::Ball,
        };
        let limited = matches!(joint.joint_type, T::Revolute | T::Prismatic);
        let has = |a: &str| limit_node.is_some_and(|n| n.attribute(a).is_some());
        let limits = (limited && has("lower") && has("upper"))
            .then_some((joint.limit.lower, joint.limit.upper));
        if let Some((lo, hi)) = limits
            && lo > hi
        {
            return Err(ImportError::BadValue {
                location: self.joint_location(j),
                element: format!("joint name=\"{}\"> <limit", joint.name),
                attribute: "lower".into(),
                value: lo.to_string(),
                message: format!("lower limit above upper limit {hi}"),
            });
        }
        if limited && limits.is_none() {
            self.warnings.push(format!(
                "{}: <joint name=\"{}\"> of type {:?} has no lower/upper limit; treated as unlimited",
                self.joint_location(j),
                joint.name,
                joint.joint_type
            ));
        }
        let positive = |a: &str, v: f64| (has(a) && v > 0.0).then_some(v);
        let dynamics = joint.dynamics.clone().unwrap_or_default();
        Ok(Joint {
            name: joint.name.clone(),
            body,
            kind,
            anchor: DVec3::ZERO,
            axis: DVec3::from_array(joint.axis.xyz.0).normalize(),
            limits,
            reference: 0.0,
            damping: dynamics.damping,
            friction: dynamics.friction,
            armature: 0.0,
            stiffness: 0.0,
            spring_ref: 0.0,
            effort_limit: positive("effort", joint.limit.effort),
            velocity_limit: positive("velocity", joint.limit.velocity),
        })
    }

    fn geoms(
        &mut self,
        link: &urdf_rs::Link,
        body: usize,
        out: &mut Vec<Geom>,
    ) -> Result<(), ImportError> {
        let node = self.index.links.get(link.name.as_str()).copied();
        let elements = |tag: &'static str| {
            node.into_iter()
                .flat_map(move |n| n.children().filter(move |c| c.has_tag_name(tag)))
        };
        let visual_nodes: Vec<Node> = elements("visual").collect();
        let collision_nodes: Vec<Node> = elements("collision").collect();
        for (i, v) in link.visual.iter().enumerate() {
            let rgba = v.material.as_ref().and_then(|m| {
                m.color
                    .as_ref()
                    .map(|c| c.rgba.0)
                    .or_else(|| self.index.materials.get(m.name.as_str()).copied())
            });
            let at = visual_nodes.get(i).copied();
            if let Some(shape) = self.shape(&v.geometry, at)? {
                out.push(geom(
                    v.name.clone(),
                    body,
                    pose(&v.origin),
                    shape,
                    GeomRole::Visual,
                    rgba,
                ));
            }
        }
        for (i, c) in link.collision.iter().enumerate() {
            let at = collision_nodes.get(i).copied();
            if let Some(shape) = self.shape(&c.geometry, at)? {
                out.push(geom(
                    c.name.clone(),
                    body,
                    pose(&c.origin),
                    shape,
                    GeomRole::Collision,
                    None,
                ));
            }
        }
        Ok(())
    }

    fn shape(
        &mut self,
        g: &urdf_rs::Geometry,
        node: Option<Node>,
    ) -> Result<Option<Shape>, ImportError> {
        use urdf_rs::Geometry as G;
        Ok(Some(match g {
            G::Box { size } => Shape::Box {
                half_extents: DVec3::from_array(size.0) * 0.5,
            },
            G::Cylinder { radius, length } => Shape::Cylinder {
                radius: *radius,
                half_length: length * 0.5,
            },
            G::Capsule { radius, length } => Shape::Capsule {
                radius: *radius,
                half_length: length * 0.5,
            },
            G::Sphere { radius } => Shape::Sphere { radius: *radius },
            G::Mesh { filename, scale } => {
                let location = node.map_or_else(|| self.src.file_only(), |n| self.src.at(n));
                let Some(mesh) = self.meshes.get(filename, None, &location, "mesh")? else {
                    return Ok(None);
                };
                Shape::Mesh {
                    mesh,
                    scale: scale.map_or(DVec3::ONE, |s| DVec3::from_array(s.0)),
                }
            }
        }))
    }
}

fn geom(
    name: Option<String>,
    body: usize,
    pose: Pose,
    shape: Shape,
    role: GeomRole,
    rgba: Option<[f64; 4]>,
) -> Geom {
    Geom {
        name,
        body: Some(body),
        pose,
        shape,
        role,
        mass: None,
        density: 1000.0,
        friction: 1.0,
        rgba: rgba.unwrap_or([0.5, 0.5, 0.5, 1.0]),
    }
}

/// URDF origin: `rpy` is roll about X, then pitch about Y, then yaw about Z, all
/// about fixed axes, i.e. R = Rz(yaw) Ry(pitch) Rx(roll).
fn pose(p: &urdf_rs::Pose) -> Pose {
    let [r, pi, y] = p.rpy.0;
    Pose::new(
        DVec3::from_array(p.xyz.0),
        DQuat::from_euler(EulerRot::ZYX, y, pi, r),
    )
}
