//! The MJCF subset: which attributes of each element the importer reads. Any
//! other attribute met is reported in the description's warnings.

use crate::xml::{SourceFile, describe};
use roxmltree::Node;

/// Attributes read on `tag` (besides the orientation ones where it has a frame).
pub(super) fn attributes(tag: &str) -> &'static [&'static str] {
    match tag {
        "mujoco" => &["model"],
        "compiler" => &[
            "angle",
            "eulerseq",
            "meshdir",
            "assetdir",
            "autolimits",
            "inertiafromgeom",
            "coordinate",
        ],
        "option" => &["timestep", "gravity", "integrator"],
        "flag" => &["contact"],
        "body" => &[
            "name",
            "childclass",
            "pos",
            "quat",
            "axisangle",
            "euler",
            "xyaxes",
            "zaxis",
        ],
        "inertial" => &[
            "pos",
            "quat",
            "axisangle",
            "euler",
            "xyaxes",
            "zaxis",
            "mass",
            "diaginertia",
            "fullinertia",
        ],
        "joint" => &[
            "name",
            "class",
            "type",
            "pos",
            "axis",
            "range",
            "limited",
            "damping",
            "frictionloss",
            "armature",
            "ref",
            "stiffness",
            "springref",
            "actuatorfrcrange",
            "actuatorfrclimited",
        ],
        "freejoint" => &["name"],
        "geom" => &[
            "name",
            "class",
            "type",
            "size",
            "fromto",
            "pos",
            "quat",
            "axisangle",
            "euler",
            "xyaxes",
            "zaxis",
            "mesh",
            "mass",
            "density",
            "friction",
            "rgba",
            "contype",
            "conaffinity",
        ],
        // A site's size, type and rgba only draw a marker; the site is a frame.
        "site" => &[
            "name",
            "class",
            "pos",
            "quat",
            "axisangle",
            "euler",
            "xyaxes",
            "zaxis",
            "size",
            "type",
            "rgba",
        ],
        "mesh" => &["name", "class", "file", "scale"],
        "motor" => &[
            "name",
            "class",
            "joint",
            "gear",
            "ctrlrange",
            "ctrllimited",
            "forcerange",
            "forcelimited",
        ],
        "position" => &[
            "name",
            "class",
            "joint",
            "gear",
            "ctrlrange",
            "ctrllimited",
            "forcerange",
            "forcelimited",
            "kp",
            "kv",
        ],
        "velocity" => &[
            "name",
            "class",
            "joint",
            "gear",
            "ctrlrange",
            "ctrllimited",
            "forcerange",
            "forcelimited",
            "kv",
        ],
        "include" => &["file"],
        _ => &[],
    }
}

/// Appends a warning for every attribute of `node` the importer does not read.
pub(super) fn check(src: &SourceFile, node: Node, warnings: &mut Vec<String>) {
    let known = attributes(node.tag_name().name());
    for a in node.attributes().filter(|a| !known.contains(&a.name())) {
        warnings.push(format!(
            "{}: <{}> attribute '{}' is not supported; ignored",
            src.at(node),
            describe(node),
            a.name()
        ));
    }
}

/// Appends a warning for an element the importer does not read.
pub(super) fn unsupported(src: &SourceFile, node: Node, warnings: &mut Vec<String>) {
    warnings.push(format!(
        "{}: <{}> is not supported; ignored",
        src.at(node),
        describe(node)
    ));
}
