//! Locates the line behind an error that `tobj` reports without one.

use std::path::Path;

use crate::error::GeomError;

/// Finds the first face with an unparsable or out-of-range vertex index.
pub(super) fn bad_face(path: &Path, text: &str) -> Option<GeomError> {
    let mut num_vertices = 0usize;
    let mut face = 0usize;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let mut words = raw.split_whitespace();
        match words.next() {
            Some("v") => num_vertices += 1,
            Some("f") => {
                face += 1;
                for corner in words {
                    let first = corner.split('/').next().unwrap_or("");
                    let Ok(index) = first.parse::<i64>() else {
                        return Some(GeomError::ObjSyntax {
                            path: path.into(),
                            line: Some(line),
                            message: format!(
                                "face {face}: cannot read vertex index `{corner}` (expected an \
                                 integer, optionally followed by /texcoord/normal)"
                            ),
                        });
                    };
                    let resolved = if index < 0 {
                        num_vertices as i64 + index
                    } else {
                        index - 1
                    };
                    if index == 0 || resolved < 0 || resolved >= num_vertices as i64 {
                        return Some(GeomError::ObjFaceIndex {
                            path: path.into(),
                            line,
                            face,
                            index,
                            num_vertices,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// Finds the first `v` line whose coordinates are not all finite.
pub(super) fn non_finite_vertex(path: &Path, text: &str) -> Option<GeomError> {
    let mut vertex = 0usize;
    for (i, raw) in text.lines().enumerate() {
        let mut words = raw.split_whitespace();
        if words.next() != Some("v") {
            continue;
        }
        vertex += 1;
        let coords: Vec<&str> = words.take(3).collect();
        let finite = coords
            .iter()
            .all(|w| w.parse::<f32>().map(f32::is_finite).unwrap_or(true));
        if !finite {
            return Some(GeomError::ObjNonFinite {
                path: path.into(),
                line: i + 1,
                vertex,
                text: coords.join(" "),
            });
        }
    }
    None
}
