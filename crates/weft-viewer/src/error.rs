//! The viewer's errors.

/// Errors from an app's own code (`step`, `draw`, `reset`): anything that converts
/// into a boxed error, so `?` works on `weft::Error`, I/O errors and the viewer's own.
pub type AppError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The result type of [`App`](crate::App) methods.
pub type AppResult<T = ()> = Result<T, AppError>;

/// What went wrong in the viewer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No graphics adapter: the message says what to install.
    #[error(
        "no graphics adapter found (wgpu tried: {tried}).\n\
         The viewer needs a Vulkan, Metal, DirectX 12 or OpenGL driver. On a machine without a GPU,\n\
         install Mesa's lavapipe (Vulkan on the CPU):\n  \
         Debian/Ubuntu: sudo apt-get install mesa-vulkan-drivers\n  \
         Fedora:        sudo dnf install mesa-vulkan-drivers\n  \
         Arch:          sudo pacman -S vulkan-swrast\n\
         (`WGPU_BACKEND=vulkan|gl` picks a back end explicitly.)"
    )]
    NoAdapter {
        /// The back ends that were tried.
        tried: String,
    },
    /// An adapter was found but refused to open a device.
    #[error("could not open a device on {adapter}: {message}")]
    Device {
        /// The adapter.
        adapter: String,
        /// wgpu's reason.
        message: String,
    },
    /// Logged data is inconsistent (mismatched lengths, out-of-range indices, bad sizes).
    #[error("`{entity}`: {message}")]
    Data {
        /// The entity's name as logged.
        entity: String,
        /// What is wrong, with the numbers.
        message: String,
    },
    /// The window or its surface could not be created or drawn to.
    #[error("window: {0}")]
    Window(String),
    /// An unknown or malformed `--set name=value` parameter.
    #[error("parameter: {0}")]
    Param(String),
    /// Writing an image or a file failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The reason.
        message: String,
    },
    /// The app's own code returned an error.
    #[error("{0}")]
    App(AppError),
}

impl Error {
    pub(crate) fn data(entity: &str, message: impl Into<String>) -> Self {
        Error::Data {
            entity: entity.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn io(path: &std::path::Path, err: impl std::fmt::Display) -> Self {
        Error::Io {
            path: path.display().to_string(),
            message: err.to_string(),
        }
    }
}
