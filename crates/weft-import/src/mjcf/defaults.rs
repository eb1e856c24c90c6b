//! MJCF `<default>` classes and attribute lookup through them.
//!
//! A class holds, per element kind, the attributes its `<default>` sets; a nested
//! class starts as a copy of its parent. An element reads an attribute from itself,
//! else from its class: its `class` attribute, else the nearest enclosing body's
//! `childclass`, else `main` (the top-level `<default>`). Actuator shortcuts
//! (`motor`, `position`, `velocity`) share one set of defaults, as MuJoCo's
//! shortcuts all set the one `general` actuator's defaults.

use super::supported;
use crate::error::ImportError;
use crate::xml::{SourceFile, describe};
use roxmltree::Node;
use std::collections::HashMap;

/// Attribute values of one element kind in one class.
pub(super) type ClassAttrs = HashMap<String, String>;

/// All default classes by name; `main` always exists.
#[derive(Debug)]
pub(super) struct Defaults {
    classes: HashMap<String, HashMap<&'static str, ClassAttrs>>,
}

impl Default for Defaults {
    fn default() -> Self {
        Self {
            classes: HashMap::from([("main".to_owned(), HashMap::new())]),
        }
    }
}

/// The element kind whose defaults an element uses (`motor` → `actuator`).
pub(super) fn kind_of(tag: &str) -> Option<&'static str> {
    Some(match tag {
        "geom" => "geom",
        "joint" => "joint",
        "site" => "site",
        "mesh" => "mesh",
        "motor" | "position" | "velocity" | "general" => "actuator",
        _ => return None,
    })
}

impl Defaults {
    /// Reads a `<default>` element and its nested classes; `parent` is the
    /// enclosing class (`None` for the top-level one, which is `main`).
    pub(super) fn read(
        &mut self,
        src: &SourceFile,
        node: Node,
        parent: Option<&str>,
        warnings: &mut Vec<String>,
    ) -> Result<(), ImportError> {
        let name = match (parent, node.attribute("class")) {
            (None, Some(c)) if c != "main" => {
                return Err(ImportError::BadValue {
                    location: src.at(node),
                    element: describe(node),
                    attribute: "class".into(),
                    value: c.into(),
                    message: "the top-level <default> is the class \"main\"; name nested classes"
                        .into(),
                });
            }
            (None, _) => "main".to_owned(),
            (Some(_), Some(c)) => c.to_owned(),
            (Some(_), None) => {
                return Err(ImportError::Missing {
                    location: src.at(node),
                    element: "default".into(),
                    what: "attribute 'class' (nested default classes are named)".into(),
                });
            }
        };
        if parent.is_some() && self.classes.contains_key(&name) {
            return Err(ImportError::DuplicateName {
                location: src.at(node),
                kind: "default class",
                name,
                first: src.file_only(),
            });
        }
        let mut class = parent
            .and_then(|p| self.classes.get(p))
            .cloned()
            .unwrap_or_default();
        if let Some(main) = self.classes.get(&name)
            && parent.is_none()
        {
            class = main.clone();
        }
        for a in node.attributes().filter(|a| a.name() != "class") {
            warnings.push(format!(
                "{}: <default> attribute '{}' is not supported; ignored",
                src.at(node),
                a.name()
            ));
        }
        let mut nested = Vec::new();
        for child in node.children().filter(Node::is_element) {
            let tag = child.tag_name().name();
            if tag == "default" {
                nested.push(child);
                continue;
            }
            let Some(kind) = kind_of(tag) else {
                warnings.push(format!(
                    "{}: <default> of <{tag}> is not supported; ignored",
                    src.at(child)
                ));
                continue;
            };
            let known = supported::attributes(tag);
            let attrs = class.entry(kind).or_default();
            for a in child.attributes() {
                if known.contains(&a.name()) && !matches!(a.name(), "name" | "class") {
                    attrs.insert(a.name().to_owned(), a.value().to_owned());
                } else {
                    warnings.push(format!(
                        "{}: <default> <{tag}> attribute '{}' is not supported; ignored",
                        src.at(child),
                        a.name()
                    ));
                }
            }
        }
        self.classes.insert(name.clone(), class);
        for child in nested {
            self.read(src, child, Some(&name), warnings)?;
        }
        Ok(())
    }

    /// The defaults of `kind` in `class`, or an error naming the element if the class
    /// does not exist.
    pub(super) fn lookup(
        &self,
        src: &SourceFile,
        node: Node,
        class: &str,
    ) -> Result<Option<&ClassAttrs>, ImportError> {
        let classes = self
            .classes
            .get(class)
            .ok_or_else(|| ImportError::UnknownReference {
                location: src.at(node),
                element: describe(node),
                kind: "default class",
                name: class.to_owned(),
            })?;
        Ok(kind_of(node.tag_name().name()).and_then(|k| classes.get(k)))
    }
}

/// An element's attributes with its class defaults behind them, and the helpers
/// that parse them with the element's line in every error.
pub(super) struct Attrs<'a, 'i> {
    pub(super) node: Node<'a, 'i>,
    pub(super) src: &'a SourceFile,
    defaults: Option<&'a ClassAttrs>,
}

impl<'a, 'i> Attrs<'a, 'i> {
    /// Attributes of `node` in `class` (its own `class` attribute wins).
    pub(super) fn new(
        src: &'a SourceFile,
        node: Node<'a, 'i>,
        defaults: &'a Defaults,
        childclass: Option<&str>,
    ) -> Result<Self, ImportError> {
        let class = node.attribute("class").or(childclass).unwrap_or("main");
        Ok(Self {
            node,
            src,
            defaults: defaults.lookup(src, node, class)?,
        })
    }

    /// Attributes of `node` without defaults.
    pub(super) fn plain(src: &'a SourceFile, node: Node<'a, 'i>) -> Self {
        Self {
            node,
            src,
            defaults: None,
        }
    }

    /// Raw text of an attribute, from the element or its class.
    pub(super) fn get(&self, name: &str) -> Option<&'a str> {
        self.node
            .attribute(name)
            .or_else(|| self.defaults.and_then(|d| d.get(name)).map(String::as_str))
    }

    /// Whether the attribute is set on the element or its class.
    pub(super) fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Numbers in an attribute; `count` = exact count required.
    pub(super) fn floats(
        &self,
        name: &str,
        count: Option<usize>,
    ) -> Result<Option<Vec<f64>>, ImportError> {
        self.get(name)
            .map(|v| self.src.floats(self.node, name, v, count))
            .transpose()
    }

    /// Between `min` and `max` numbers.
    pub(super) fn floats_between(
        &self,
        name: &str,
        min: usize,
        max: usize,
    ) -> Result<Option<Vec<f64>>, ImportError> {
        let v = self.floats(name, None)?;
        if let Some(v) = &v
            && !(min..=max).contains(&v.len())
        {
            return Err(self.bad_number(
                name,
                format!("expected {min} to {max} numbers, found {}", v.len()),
            ));
        }
        Ok(v)
    }

    /// One number, or `default` when absent.
    pub(super) fn float_or(&self, name: &str, default: f64) -> Result<f64, ImportError> {
        Ok(self.floats(name, Some(1))?.map_or(default, |v| v[0]))
    }

    /// Three numbers as a vector, or `default` when absent.
    pub(super) fn vec3_or(
        &self,
        name: &str,
        default: glam::DVec3,
    ) -> Result<glam::DVec3, ImportError> {
        Ok(self
            .floats(name, Some(3))?
            .map_or(default, |v| glam::DVec3::new(v[0], v[1], v[2])))
    }

    /// A (lo, hi) range with lo ≤ hi.
    pub(super) fn range(&self, name: &str) -> Result<Option<(f64, f64)>, ImportError> {
        let Some(v) = self.floats(name, Some(2))? else {
            return Ok(None);
        };
        if v[0] > v[1] {
            return Err(self.bad_value(name, "the lower bound exceeds the upper bound"));
        }
        Ok(Some((v[0], v[1])))
    }

    /// `true`/`false`/`auto` (auto = `auto_value`).
    pub(super) fn tristate(&self, name: &str, auto_value: bool) -> Result<bool, ImportError> {
        match self.get(name).unwrap_or("auto") {
            "true" => Ok(true),
            "false" => Ok(false),
            "auto" => Ok(auto_value),
            _ => Err(self.bad_value(name, "expected true, false or auto")),
        }
    }

    /// An error for an attribute with a bad value.
    pub(super) fn bad_value(&self, name: &str, message: &str) -> ImportError {
        ImportError::BadValue {
            location: self.src.at(self.node),
            element: describe(self.node),
            attribute: name.to_owned(),
            value: self.get(name).unwrap_or("").to_owned(),
            message: message.to_owned(),
        }
    }

    fn bad_number(&self, name: &str, expected: String) -> ImportError {
        ImportError::BadNumber {
            location: self.src.at(self.node),
            element: describe(self.node),
            attribute: name.to_owned(),
            value: self.get(name).unwrap_or("").to_owned(),
            expected,
        }
    }

    /// An error for a missing required attribute.
    pub(super) fn missing(&self, name: &str) -> ImportError {
        ImportError::Missing {
            location: self.src.at(self.node),
            element: describe(self.node),
            what: format!("attribute '{name}'"),
        }
    }
}
