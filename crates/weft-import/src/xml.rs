//! Shared XML helpers: parsing with line-numbered errors, locating nodes, numbers.

use crate::error::{ImportError, Location};
use roxmltree::{Document, Node};
use std::path::Path;
use std::sync::Arc;

/// The file being read (for error locations).
#[derive(Clone, Debug, Default)]
pub(crate) struct SourceFile {
    pub(crate) path: Option<Arc<Path>>,
}

impl SourceFile {
    pub(crate) fn new(path: Option<&Path>) -> Self {
        Self {
            path: path.map(Arc::from),
        }
    }

    /// Location of a node's start tag.
    pub(crate) fn at(&self, node: Node<'_, '_>) -> Location {
        let pos = node.document().text_pos_at(node.range().start);
        Location {
            file: self.path.clone(),
            line: Some(pos.row),
        }
    }

    /// Location with the file only.
    pub(crate) fn file_only(&self) -> Location {
        Location {
            file: self.path.clone(),
            line: None,
        }
    }

    /// Parses XML text, mapping syntax errors to [`ImportError::Xml`] with a line.
    pub(crate) fn parse<'a>(&self, text: &'a str) -> Result<Document<'a>, ImportError> {
        Document::parse(text).map_err(|e| ImportError::Xml {
            location: Location {
                file: self.path.clone(),
                line: Some(e.pos().row),
            },
            message: e.to_string(),
        })
    }

    /// Parses whitespace-separated finite numbers; `count` = exact count expected.
    pub(crate) fn floats(
        &self,
        node: Node<'_, '_>,
        attribute: &str,
        value: &str,
        count: Option<usize>,
    ) -> Result<Vec<f64>, ImportError> {
        let bad = |expected: String| ImportError::BadNumber {
            location: self.at(node),
            element: describe(node),
            attribute: attribute.to_owned(),
            value: value.to_owned(),
            expected,
        };
        let mut out = Vec::new();
        for word in value.split_ascii_whitespace() {
            match word.parse::<f64>() {
                Ok(x) if x.is_finite() => out.push(x),
                _ => return Err(bad(format!("\"{word}\" is not a finite number"))),
            }
        }
        match count {
            Some(n) if out.len() != n => {
                Err(bad(format!("expected {n} numbers, found {}", out.len())))
            }
            _ => Ok(out),
        }
    }
}

/// `tag` or `tag name="..."`, for messages.
pub(crate) fn describe(node: Node<'_, '_>) -> String {
    let tag = node.tag_name().name();
    match node.attribute("name") {
        Some(n) => format!("{tag} name=\"{n}\""),
        None => tag.to_owned(),
    }
}
