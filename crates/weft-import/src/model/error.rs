//! [`RobotModelError`]: why a description could not become a model.

/// Why [`add_robot`](super::add_robot) refused a description. Every variant
/// names the element (body, joint, geom, actuator or mesh) by its name.
#[derive(Debug, thiserror::Error)]
pub enum RobotModelError {
    /// Something the description holds that Weft's models cannot express yet.
    #[error("{element}: {message}")]
    Unsupported {
        /// The element, e.g. ``joint `knee` ``.
        element: String,
        /// What is not supported, and what to do instead.
        message: String,
    },
    /// A mesh could not be turned into a collision shape.
    #[error("mesh `{name}`: {message}")]
    Mesh {
        /// The mesh's name.
        name: String,
        /// What went wrong.
        message: String,
    },
    /// The builder refused a body or joint (see [`weft_sim::SimError`]).
    #[error(transparent)]
    Sim(#[from] weft_sim::SimError),
}

/// Shorthand for an [`RobotModelError::Unsupported`].
pub(crate) fn unsupported(element: String, message: impl Into<String>) -> RobotModelError {
    RobotModelError::Unsupported {
        element,
        message: message.into(),
    }
}
