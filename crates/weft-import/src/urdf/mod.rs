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

mod build;
mod validate;

use crate::ImportOptions;
use crate::description::RobotDescription;
use crate::error::ImportError;
use crate::mesh::MeshTable;
use crate::xml::SourceFile;
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
    let index = validate::validate(&src, root, &mut warnings)?;
    let robot = urdf_rs::read_from_string(text).map_err(|e| ImportError::Urdf {
        location: src.file_only(),
        message: e.to_string(),
    })?;
    let meshes = MeshTable::new(file.and_then(Path::parent), &opts.package_paths);
    build::build(&src, &index, &robot, meshes, warnings)
}

/// What the roxmltree pass learned: link and joint elements by name (for lines),
/// and the colours of named top-level materials.
struct Index<'a, 'i> {
    links: HashMap<&'a str, Node<'a, 'i>>,
    joints: HashMap<&'a str, Node<'a, 'i>>,
    materials: HashMap<&'a str, [f64; 4]>,
}
