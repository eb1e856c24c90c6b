//! URDF import through `urdf-rs`.
//!
//! The text is read twice: `roxmltree` first, for XML syntax errors with lines,
//! validation of every number, joint type and reference with the element's line,
//! and the list of unsupported elements (warnings); then `urdf-rs` for the values.
//!
//! Mapping: each link becomes a [`Body`] whose pose is its parent joint's
//! `origin` (the URDF joint frame *is* the child link frame, so the joint anchor
//! is 0 and the axis is in the child frame); the root link is welded to the world
//! (add a free joint yourself for a floating base); `fixed` joints are kept as
//! [`JointKind::Fixed`] entries so their names survive; `continuous` is a revolute
//! joint without limits; `floating` is [`JointKind::Free`]. Bodies are in
//! depth-first order from the root, children in joint order.

use crate::ImportOptions;
use crate::description::*;
use crate::error::{ImportError, Location};
use crate::mesh::MeshTable;
use crate::xml::{SourceFile, describe};
use glam::{DMat3, DQuat, DVec3, EulerRot};
use roxmltree::Node;
use std::collections::HashMap;
use std::path::Path;

/// Reads URDF text; `file` (if any) gives error locations and the directory
/// relative mesh paths start from.
pub(crate) fn parse(
    text: &str,
    file: Option<&Path>,
    opts: &ImportOptions,
) -> Result<RobotDescription, ImportError> {
    let src = SourceFile::new(file);
    let doc = src.parse(text)?;
    let root = doc.root_element();
    if root.tag_name().name() != "robot" {
        return Err(ImportError::WrongRoot {
            location: src.at(root),
            found: root.tag_name().name().to_owned(),
            expected: "robot",
        });
    }
    let mut warnings = Vec::new();
    let index = validate(&src, root, &mut warnings)?;
    let robot = urdf_rs::read_from_string(text).map_err(|e| ImportError::Urdf {
        location: src.file_only(),
        message: e.to_string(),
    })?;
    Builder {
        src: &src,
        index: &index,
        robot: &robot,
        meshes: MeshTable::new(file.and_then(Path::parent), &opts.package_paths),
        warnings,
    }
    .build()
}

/// What the roxmltree pass learned: element nodes by name, in document order.
struct Index<'a, 'i> {
    links: HashMap<&'a str, Node<'a, 'i>>,
    joints: HashMap<&'a str, Node<'a, 'i>>,
    materials: HashMap<&'a str, [f64; 4]>,
}

const JOINT_TYPES: [&str; 7] = [
    "revolute",
    "continuous",
    "prismatic",
    "fixed",
    "floating",
    "planar",
    "spherical",
];

/// Checks structure, numbers, names and types with lines; collects warnings.
fn validate<'a, 'i>(
    src: &SourceFile,
    robot: Node<'a, 'i>,
    warnings: &mut Vec<String>,
) -> Result<Index<'a, 'i>, ImportError> {
    let mut index = Index {
        links: HashMap::new(),
        joints: HashMap::new(),
        materials: HashMap::new(),
    };
    // URDF 1.0 (the default) requires effort and velocity on <limit>; 1.2 does not.
    let limits_optional = robot.attribute("version").is_some_and(|v| v != "1.0");
    for attr in robot.attributes() {
        if !matches!(attr.name(), "name" | "version") {
            warn_attr(src, robot, attr.name(), warnings);
        }
    }
    for node in robot.children().filter(Node::is_element) {
        match node.tag_name().name() {
            "link" => {
                let name = required(src, node, "name")?;
                if let Some(first) = index.links.insert(name, node) {
                    return Err(duplicate(src, node, first, "link", name));
                }
                validate_link(src, node, warnings)?;
            }
            "joint" => {
                let name = required(src, node, "name")?;
                if let Some(first) = index.joints.insert(name, node) {
                    return Err(duplicate(src, node, first, "joint", name));
                }
                validate_joint(src, node, limits_optional, warnings)?;
            }
            "material" => {
                if let Some(rgba) = validate_material(src, node, warnings)? {
                    index
                        .materials
                        .insert(node.attribute("name").unwrap_or(""), rgba);
                }
            }
            _ => warn_element(src, node, warnings),
        }
    }
    if index.links.is_empty() {
        return Err(ImportError::Missing {
            location: src.at(robot),
            element: describe(robot),
            what: "at least one <link>".into(),
        });
    }
    Ok(index)
}

fn validate_link(
    src: &SourceFile,
    link: Node,
    warnings: &mut Vec<String>,
) -> Result<(), ImportError> {
    let mut inertials = 0;
    for child in link.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "inertial" => {
                inertials += 1;
                if inertials > 1 {
                    return Err(bad_value(
                        src,
                        child,
                        "inertial",
                        "",
                        "a link has at most one <inertial>",
                    ));
                }
                only_children(src, child, &["origin", "mass", "inertia"], warnings);
                let mass = required_child(src, child, "mass")?;
                let m = number(src, mass, "value", true)?.unwrap_or(0.0);
                if m < 0.0 {
                    return Err(bad_value(
                        src,
                        mass,
                        "value",
                        &m.to_string(),
                        "mass must not be negative",
                    ));
                }
                let inertia = required_child(src, child, "inertia")?;
                for a in ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"] {
                    number(src, inertia, a, true)?;
                }
                validate_origin(src, child, warnings)?;
            }
            "visual" | "collision" => {
                only_children(src, child, &["origin", "geometry", "material"], warnings);
                validate_origin(src, child, warnings)?;
                validate_geometry(src, required_child(src, child, "geometry")?, warnings)?;
                if let Some(m) = first_child(child, "material") {
                    validate_material(src, m, warnings)?;
                }
            }
            _ => warn_element(src, child, warnings),
        }
    }
    Ok(())
}

fn validate_geometry(
    src: &SourceFile,
    geometry: Node,
    warnings: &mut Vec<String>,
) -> Result<(), ImportError> {
    let shapes: Vec<Node> = geometry.children().filter(Node::is_element).collect();
    let [shape] = shapes.as_slice() else {
        return Err(ImportError::Missing {
            location: src.at(geometry),
            element: "geometry".into(),
            what: format!("exactly one shape element, found {}", shapes.len()),
        });
    };
    let positive = |attr: &str| -> Result<(), ImportError> {
        let v = number(src, *shape, attr, true)?.unwrap_or(0.0);
        if v <= 0.0 {
            return Err(bad_value(
                src,
                *shape,
                attr,
                &v.to_string(),
                "must be positive",
            ));
        }
        Ok(())
    };
    match shape.tag_name().name() {
        "box" => {
            let size = numbers(src, *shape, "size", 3, true)?.unwrap_or_default();
            if size.iter().any(|&s| s <= 0.0) {
                return Err(bad_value(
                    src,
                    *shape,
                    "size",
                    shape.attribute("size").unwrap_or(""),
                    "sizes must be positive",
                ));
            }
        }
        "sphere" => positive("radius")?,
        "cylinder" | "capsule" => {
            positive("radius")?;
            positive("length")?;
        }
        "mesh" => {
            required(src, *shape, "filename")?;
            numbers(src, *shape, "scale", 3, false)?;
        }
        other => {
            return Err(bad_value(
                src,
                *shape,
                "",
                other,
                "unknown geometry (box, cylinder, capsule, sphere and mesh are URDF shapes)",
            ));
        }
    }
    let known: &[&str] = match shape.tag_name().name() {
        "box" => &["size"],
        "sphere" => &["radius"],
        "mesh" => &["filename", "scale"],
        _ => &["radius", "length"],
    };
    for a in shape.attributes().filter(|a| !known.contains(&a.name())) {
        warn_attr(src, *shape, a.name(), warnings);
    }
    Ok(())
}

fn validate_material(
    src: &SourceFile,
    m: Node,
    warnings: &mut Vec<String>,
) -> Result<Option<[f64; 4]>, ImportError> {
    let mut rgba = None;
    for child in m.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "color" => {
                let v = numbers(src, child, "rgba", 4, true)?.unwrap_or_default();
                rgba = Some([v[0], v[1], v[2], v[3]]);
            }
            _ => warn_element(src, child, warnings),
        }
    }
    Ok(rgba)
}

fn validate_origin(
    src: &SourceFile,
    parent: Node,
    warnings: &mut Vec<String>,
) -> Result<(), ImportError> {
    if let Some(o) = first_child(parent, "origin") {
        numbers(src, o, "xyz", 3, false)?;
        numbers(src, o, "rpy", 3, false)?;
        numbers(src, o, "quat_xyzw", 4, false)?;
        for a in o
            .attributes()
            .filter(|a| !matches!(a.name(), "xyz" | "rpy" | "quat_xyzw"))
        {
            warn_attr(src, o, a.name(), warnings);
        }
    }
    Ok(())
}

fn validate_joint(
    src: &SourceFile,
    joint: Node,
    limits_optional: bool,
    warnings: &mut Vec<String>,
) -> Result<(), ImportError> {
    let kind = required(src, joint, "type")?;
    if !JOINT_TYPES.contains(&kind) {
        return Err(ImportError::UnknownJointType {
            location: src.at(joint),
            element: describe(joint),
            kind: kind.to_owned(),
        });
    }
    for tag in ["parent", "child"] {
        required(src, required_child(src, joint, tag)?, "link")?;
    }
    validate_origin(src, joint, warnings)?;
    for child in joint.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "parent" | "child" | "origin" => {}
            "axis" => {
                let a = numbers(src, child, "xyz", 3, false)?.unwrap_or(vec![1.0, 0.0, 0.0]);
                if a.iter().all(|&x| x == 0.0) {
                    return Err(bad_value(
                        src,
                        child,
                        "xyz",
                        "0 0 0",
                        "the axis must not be zero",
                    ));
                }
            }
            "limit" => {
                for a in ["lower", "upper"] {
                    number(src, child, a, false)?;
                }
                for a in ["effort", "velocity"] {
                    number(src, child, a, !limits_optional)?;
                }
            }
            "dynamics" => {
                for a in ["damping", "friction"] {
                    number(src, child, a, false)?;
                }
            }
            _ => warn_element(src, child, warnings),
        }
    }
    Ok(())
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

fn first_child<'a, 'i>(n: Node<'a, 'i>, tag: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name(tag))
}

fn required<'a>(src: &SourceFile, n: Node<'a, '_>, attr: &str) -> Result<&'a str, ImportError> {
    n.attribute(attr).ok_or_else(|| ImportError::Missing {
        location: src.at(n),
        element: describe(n),
        what: format!("attribute '{attr}'"),
    })
}

fn required_child<'a, 'i>(
    src: &SourceFile,
    n: Node<'a, 'i>,
    tag: &str,
) -> Result<Node<'a, 'i>, ImportError> {
    first_child(n, tag).ok_or_else(|| ImportError::Missing {
        location: src.at(n),
        element: describe(n),
        what: format!("a <{tag}> element"),
    })
}

fn numbers(
    src: &SourceFile,
    n: Node,
    attr: &str,
    count: usize,
    needed: bool,
) -> Result<Option<Vec<f64>>, ImportError> {
    match n.attribute(attr) {
        Some(v) => src.floats(n, attr, v, Some(count)).map(Some),
        None if needed => Err(ImportError::Missing {
            location: src.at(n),
            element: describe(n),
            what: format!("attribute '{attr}'"),
        }),
        None => Ok(None),
    }
}

fn number(src: &SourceFile, n: Node, attr: &str, needed: bool) -> Result<Option<f64>, ImportError> {
    Ok(numbers(src, n, attr, 1, needed)?.map(|v| v[0]))
}

fn bad_value(src: &SourceFile, n: Node, attr: &str, value: &str, message: &str) -> ImportError {
    ImportError::BadValue {
        location: src.at(n),
        element: describe(n),
        attribute: attr.to_owned(),
        value: value.to_owned(),
        message: message.to_owned(),
    }
}

fn duplicate(
    src: &SourceFile,
    node: Node,
    first: Node,
    kind: &'static str,
    name: &str,
) -> ImportError {
    ImportError::DuplicateName {
        location: src.at(node),
        kind,
        name: name.to_owned(),
        first: src.at(first),
    }
}

fn only_children(src: &SourceFile, n: Node, known: &[&str], warnings: &mut Vec<String>) {
    for c in n.children().filter(Node::is_element) {
        if !known.contains(&c.tag_name().name()) {
            warn_element(src, c, warnings);
        }
    }
}

fn warn_element(src: &SourceFile, n: Node, warnings: &mut Vec<String>) {
    warnings.push(format!(
        "{}: <{}> is not supported; ignored",
        src.at(n),
        describe(n)
    ));
}

fn warn_attr(src: &SourceFile, n: Node, attr: &str, warnings: &mut Vec<String>) {
    warnings.push(format!(
        "{}: <{}> attribute '{attr}' is not supported; ignored",
        src.at(n),
        describe(n)
    ));
}
