//! Finding the driver without panicking, and turning driver errors into [`Error`]s.

use std::sync::OnceLock;

use cudarc::driver::{DriverError, result, sys};

use crate::Error;

/// The device count, or why CUDA is unusable; computed once.
pub(crate) fn probe() -> Result<usize, String> {
    static PROBE: OnceLock<Result<usize, String>> = OnceLock::new();
    PROBE.get_or_init(probe_uncached).clone()
}

fn probe_uncached() -> Result<usize, String> {
    if let Ok(v) = std::env::var("WEFT_DISABLE_CUDA")
        && !v.is_empty()
        && v != "0"
    {
        return Err(format!("disabled by WEFT_DISABLE_CUDA={v}"));
    }
    // Any driver call made without the library panics inside cudarc: look first.
    // SAFETY: only tries to open the library, which runs no code of ours.
    if !unsafe { sys::is_culib_present() } {
        return Err("no CUDA driver (libcuda.so) found".into());
    }
    // A library too old for a symbol cudarc binds also panics; keep that an error.
    let counted = std::panic::catch_unwind(|| -> Result<usize, String> {
        result::init()
            .map_err(|e| format!("the CUDA driver failed to initialise: {}", describe(e)))?;
        let n = result::device::get_count()
            .map_err(|e| format!("the CUDA driver cannot count devices: {}", describe(e)))?;
        Ok(n.max(0) as usize)
    });
    match counted {
        Ok(Ok(0)) => Err("the CUDA driver found no devices".into()),
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(format!("the CUDA driver library could not be used: {msg}"))
        }
    }
}

/// "CUDA_ERROR_NAME: description", with a note when the error is sticky.
pub(crate) fn describe(e: DriverError) -> String {
    use sys::CUresult::*;
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = if text.is_empty() {
        name
    } else {
        format!("{name} ({text})")
    };
    if matches!(
        e.0,
        CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ASSERT
    ) {
        out.push_str(
            "; the device's context is now unusable and the process must restart (build in debug mode to have kernels bounds-checked)",
        );
    }
    out
}

/// An [`Error::Cuda`] for a failed driver call.
pub(crate) fn err(what: impl Into<String>, e: DriverError) -> Error {
    Error::Cuda {
        what: what.into(),
        reason: describe(e),
    }
}

/// An [`Error::Cuda`] with a reason of ours.
pub(crate) fn fail(what: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::Cuda {
        what: what.into(),
        reason: reason.into(),
    }
}

/// Whether the driver library exports `symbol` (newer entry points are optional).
pub(crate) fn has_symbol(symbol: &str) -> bool {
    // SAFETY: only called after `probe` succeeded, so the library is loaded; looking a
    // symbol up runs no code.
    unsafe { sys::culib().get::<unsafe extern "C" fn()>(symbol).is_ok() }
}
