//! The roxmltree pass over a URDF: structure, numbers, names and joint types
//! checked with their lines; unsupported elements and attributes collected.

use super::Index;
use crate::error::ImportError;
use crate::xml::{SourceFile, describe};
use roxmltree::Node;
use std::collections::HashMap;

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
pub(super) fn validate<'a, 'i>(
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

pub(super) fn first_child<'a, 'i>(n: Node<'a, 'i>, tag: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name(tag))
}

pub(super) fn required<'a>(
    src: &SourceFile,
    n: Node<'a, '_>,
    attr: &str,
) -> Result<&'a str, ImportError> {
    n.attribute(attr).ok_or_else(|| ImportError::Missing {
        location: src.at(n),
        element: describe(n),
        what: format!("attribute '{attr}'"),
    })
}

pub(super) fn required_child<'a, 'i>(
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

pub(super) fn numbers(
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

pub(super) fn number(
    src: &SourceFile,
    n: Node,
    attr: &str,
    needed: bool,
) -> Result<Option<f64>, ImportError> {
    Ok(numbers(src, n, attr, 1, needed)?.map(|v| v[0]))
}

pub(super) fn bad_value(
    src: &SourceFile,
    n: Node,
    attr: &str,
    value: &str,
    message: &str,
) -> ImportError {
    ImportError::BadValue {
        location: src.at(n),
        element: describe(n),
        attribute: attr.to_owned(),
        value: value.to_owned(),
        message: message.to_owned(),
    }
}

pub(super) fn duplicate(
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

pub(super) fn only_children(src: &SourceFile, n: Node, known: &[&str], warnings: &mut Vec<String>) {
    for c in n.children().filter(Node::is_element) {
        if !known.contains(&c.tag_name().name()) {
            warn_element(src, c, warnings);
        }
    }
}

pub(super) fn warn_element(src: &SourceFile, n: Node, warnings: &mut Vec<String>) {
    warnings.push(format!(
        "{}: <{}> is not supported; ignored",
        src.at(n),
        describe(n)
    ));
}

pub(super) fn warn_attr(src: &SourceFile, n: Node, attr: &str, warnings: &mut Vec<String>) {
    warnings.push(format!(
        "{}: <{}> attribute '{attr}' is not supported; ignored",
        src.at(n),
        describe(n)
    ));
}
