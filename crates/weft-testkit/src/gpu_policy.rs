//! What a test does when it cannot reach a GPU or `ptxas`: the one place that decides.
//!
//! A plain `cargo test` on a machine without CUDA skips the GPU parts with a printed
//! `SKIPPED (no CUDA): …` line and passes; with `WEFT_REQUIRE_CUDA=1` (which the runner
//! that `scripts/gpu-check.sh` writes sets) the same situation is a failure, so a GPU
//! run cannot pass without having run on the GPU. The PTX checks assemble with
//! `$WEFT_PTXAS` when set; under `WEFT_REQUIRE_CUDA=1` an unset `WEFT_PTXAS` fails them.
//!
//! It uses only `std`, so it is in the kit without the `engine` feature, for the
//! crates below the facade (`weft-runtime`'s tests and launch benchmark).

use std::fmt::Display;

/// The environment variable that turns a missing GPU or `ptxas` into a failure.
pub const REQUIRE_CUDA: &str = "WEFT_REQUIRE_CUDA";
/// The environment variable naming the `ptxas` executable for the PTX checks.
pub const PTXAS: &str = "WEFT_PTXAS";

/// Whether `WEFT_REQUIRE_CUDA=1`: missing CUDA or `ptxas` must fail the tests.
pub fn cuda_required() -> bool {
    std::env::var(REQUIRE_CUDA).is_ok_and(|v| v == "1")
}

/// Reports that `what` cannot run for want of a GPU (`reason`): panics under
/// `WEFT_REQUIRE_CUDA=1`, otherwise prints `SKIPPED (no CUDA): what: reason`.
pub fn skip_without_cuda(what: &str, reason: &dyn Display) {
    if cuda_required() {
        panic!("{what}: no usable CUDA device, but {REQUIRE_CUDA}=1: {reason}");
    }
    println!("SKIPPED (no CUDA): {what}: {reason}");
}

/// The `ptxas` to assemble PTX with (`$WEFT_PTXAS`), or `None` when unset (the
/// assembly check is then skipped); panics when unset under `WEFT_REQUIRE_CUDA=1`.
pub fn ptxas_tool() -> Option<String> {
    match std::env::var(PTXAS) {
        Ok(tool) if !tool.is_empty() => Some(tool),
        _ if cuda_required() => panic!(
            "{REQUIRE_CUDA}=1 but {PTXAS} is not set: the PTX assembly checks cannot run \
             (set {PTXAS}=/path/to/ptxas, e.g. /usr/local/cuda/bin/ptxas)"
        ),
        _ => None,
    }
}
