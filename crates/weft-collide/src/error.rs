//! Errors of collision setup and detection.

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum CollideError {
    /// A shape's description is invalid; names the shape.
    #[error("shape {index}: {message}")]
    InvalidShape {
        /// The shape's index.
        index: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A parameter (capacity, margin) is out of range.
    #[error("parameter `{name}`: {message}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// A launch or copy failed.
    #[error(transparent)]
    Runtime(#[from] weft::Error),
}

/// `Result` with [`CollideError`].
pub type Result<T, E = CollideError> = std::result::Result<T, E>;
