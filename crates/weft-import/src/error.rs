//! Import errors: each names the element and, where known, the file and line.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where in a file something was found: file (if read from disk) and 1-based line.
///
/// ```
/// let l = weft_import::Location { file: Some(std::path::Path::new("a.xml").into()), line: Some(3) };
/// assert_eq!(l.to_string(), "a.xml:3");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// The file, when the text came from one.
    pub file: Option<Arc<Path>>,
    /// 1-based line, when known.
    pub line: Option<u32>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(p), Some(l)) => write!(f, "{}:{l}", p.display()),
            (Some(p), None) => write!(f, "{}", p.display()),
            (None, Some(l)) => write!(f, "line {l}"),
            (None, None) => write!(f, "unknown position"),
        }
    }
}

/// Everything that can go wrong reading a robot file.
///
/// ```
/// let e = weft_import::parse_mjcf("<mujoco><worldbody>", &Default::default()).unwrap_err();
/// assert!(matches!(e, weft_import::ImportError::Xml { .. }));
/// assert!(e.to_string().contains("line 1"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The text is not well-formed XML.
    #[error("{location}: XML syntax error: {message}")]
    Xml {
        /// Where.
        location: Location,
        /// The parser's message.
        message: String,
    },
    /// The file's root element is not what the format expects.
    #[error("{location}: root element is <{found}>, expected <{expected}>")]
    WrongRoot {
        /// Where.
        location: Location,
        /// Root element found.
        found: String,
        /// Root element expected.
        expected: &'static str,
    },
    /// The URDF parser (urdf-rs) rejected the file.
    #[error("{location}: invalid URDF: {message}")]
    Urdf {
        /// Where (file only: urdf-rs does not report lines).
        location: Location,
        /// urdf-rs's message.
        message: String,
    },
    /// An attribute that must be a number (or list of numbers) is not.
    #[error("{location}: <{element}> attribute {attribute}=\"{value}\": {expected}")]
    BadNumber {
        /// Where.
        location: Location,
        /// Element name.
        element: String,
        /// Attribute name.
        attribute: String,
        /// Its text.
        value: String,
        /// What was expected, e.g. "expected 3 numbers".
        expected: String,
    },
    /// A required attribute or child element is absent.
    #[error("{location}: <{element}> needs {what}")]
    Missing {
        /// Where.
        location: Location,
        /// Element name.
        element: String,
        /// What is missing, e.g. "attribute 'size'".
        what: String,
    },
    /// A joint `type` that the format does not define.
    #[error("{location}: <{element}> has unknown joint type \"{kind}\"")]
    UnknownJointType {
        /// Where.
        location: Location,
        /// Element (with its name).
        element: String,
        /// The type given.
        kind: String,
    },
    /// An attribute value outside its allowed set or range.
    #[error("{location}: <{element}> attribute {attribute}=\"{value}\": {message}")]
    BadValue {
        /// Where.
        location: Location,
        /// Element name.
        element: String,
        /// Attribute name.
        attribute: String,
        /// Its text.
        value: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// A name used twice where names must be unique.
    #[error("{location}: duplicate {kind} name \"{name}\" (first at {first})")]
    DuplicateName {
        /// Where the second one is.
        location: Location,
        /// Kind of thing ("link", "joint", "body", ...).
        kind: &'static str,
        /// The name.
        name: String,
        /// Where the first one is.
        first: Location,
    },
    /// A reference to a name that does not exist (a joint's parent link, an
    /// actuator's joint, a geom's mesh).
    #[error("{location}: <{element}> refers to {kind} \"{name}\", which does not exist")]
    UnknownReference {
        /// Where.
        location: Location,
        /// Referring element.
        element: String,
        /// Kind of the missing thing.
        kind: &'static str,
        /// The missing name.
        name: String,
    },
    /// The link graph is not a tree: a cycle, or a link with two parents.
    #[error("{location}: {message}")]
    NotATree {
        /// Where.
        location: Location,
        /// What is wrong.
        message: String,
    },
    /// A mesh file that does not exist (after `package://` and search-path resolution).
    #[error("{location}: <{element}> mesh file \"{filename}\" not found (looked in: {tried})")]
    MeshNotFound {
        /// Where.
        location: Location,
        /// Referring element.
        element: String,
        /// The file name as written.
        filename: String,
        /// The paths tried, comma separated.
        tried: String,
    },
    /// A mesh file that exists but cannot be read as OBJ or STL.
    #[error("{location}: cannot load mesh {path}: {message}")]
    BadMesh {
        /// Where it was referenced.
        location: Location,
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

impl ImportError {
    /// The location of the error, if it has one.
    ///
    /// ```
    /// let text = "<mujoco>\n<worldbody>\n<body pos=\"0 0 x\"/>\n</worldbody>\n</mujoco>";
    /// let e = weft_import::parse_mjcf(text, &Default::default()).unwrap_err();
    /// assert_eq!(e.location().unwrap().line, Some(3));
    /// ```
    pub fn location(&self) -> Option<&Location> {
        use ImportError::*;
        match self {
            Io { .. } => None,
            Xml { location, .. }
            | WrongRoot { location, .. }
            | Urdf { location, .. }
            | BadNumber { location, .. }
            | Missing { location, .. }
            | UnknownJointType { location, .. }
            | BadValue { location, .. }
            | DuplicateName { location, .. }
            | UnknownReference { location, .. }
            | NotATree { location, .. }
            | MeshNotFound { location, .. }
            | BadMesh { location, .. } => Some(location),
        }
    }
}
