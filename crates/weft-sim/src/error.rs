//! Errors of model building and simulation.

/// What went wrong while building a model or stepping it.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// An input to the builder is out of range or not finite; names the item.
    #[error("{what} {index}: {message}")]
    InvalidInput {
        /// The kind of item (`particle`, `spring`, `triangle`, …).
        what: &'static str,
        /// Its index among items of that kind.
        index: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A joint does not fit the model; names the joint (and its name, if any).
    #[error("joint {index}{}: {message}", quoted(name))]
    InvalidJoint {
        /// The joint's index.
        index: usize,
        /// The joint's name (may be empty).
        name: String,
        /// What is wrong with it.
        message: String,
    },
    /// A loop joint does not fit the model; names it (and its name, if any).
    #[error("loop joint {index}{}: {message}", quoted(name))]
    InvalidLoopJoint {
        /// The loop joint's index.
        index: usize,
        /// The loop joint's name (may be empty).
        name: String,
        /// What is wrong with it.
        message: String,
    },
    /// A parameter of the builder or an integrator is out of range.
    #[error("parameter `{name}`: {message}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// Arrays passed together do not fit the model (counts, devices).
    #[error("{0}")]
    Mismatch(String),
    /// A geometry error (a mesh shape, the hash grid).
    #[error(transparent)]
    Geom(#[from] weft_geom::GeomError),
    /// A launch or copy failed.
    #[error(transparent)]
    Runtime(#[from] weft::Error),
}

/// The name in backquotes after a space; nothing for an empty name.
fn quoted(name: &str) -> String {
    if name.is_empty() {
        String::new()
    } else {
        format!(" `{name}`")
    }
}

/// `Result` with [`SimError`].
pub type Result<T, E = SimError> = std::result::Result<T, E>;
