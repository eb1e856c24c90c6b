//! Programmatic dependent launch (compute capability 9.0 and later): a kernel may be
//! launched while the one before it on the stream is still finishing, and waits for
//! it inside (`griddepcontrol.wait`) after its prologue. Between the small kernels
//! of a simulation step this hides most of the gap from one kernel to the next,
//! eagerly and in CUDA graphs alike.
//!
//! Only Weft's own kernels take part: the PTX emitter marks where an entry must
//! wait ([`GRID_DEPENDENCY_MARK`]), and the module loader turns the mark into
//! instructions on devices that have them. Entries without the mark (hand-written
//! PTX) are launched the ordinary way.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// The line Weft's PTX emitter writes right after an entry's launch header, before
/// any memory access (the same text as `weft_ir::emit_ptx::GRID_DEPENDENCY_MARK`).
pub const GRID_DEPENDENCY_MARK: &str = "\t// weft: grid dependency\n";

/// What the mark becomes on devices of compute capability 9.0 and later: wait for
/// the grids this one depends on (their memory visible), then let the next launch
/// start its own prologue.
const WAIT: &str = "\tgriddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;\n";

/// The PTX to load on a device of compute capability `major.minor`: for a marked
/// module on 9.0 or later, the text with the mark replaced by the wait and the
/// target raised to `sm_90` (the instructions need it); `None` to load `ptx` as is.
pub(crate) fn with_grid_dependency(ptx: &str, major: i32) -> Option<String> {
    if major < 9 || !ptx.contains(GRID_DEPENDENCY_MARK) {
        return None;
    }
    let (head, rest) = ptx.split_once(".target sm_")?;
    let (_, rest) = rest.split_once('\n')?;
    Some(format!(
        "{head}.target sm_90\n{}",
        rest.replace(GRID_DEPENDENCY_MARK, WAIT)
    ))
}

/// 0: not decided yet, 1: off, 2: on.
static ENABLED: AtomicU8 = AtomicU8::new(0);

/// Whether marked kernels are launched as programmatic dependents where the device
/// supports it: on unless `WEFT_CUDA_PDL=0`, or as last set by
/// [`set_dependent_launch`].
pub fn dependent_launch() -> bool {
    match ENABLED.load(Ordering::Relaxed) {
        0 => {
            static FROM_ENV: OnceLock<bool> = OnceLock::new();
            let on =
                *FROM_ENV.get_or_init(|| std::env::var("WEFT_CUDA_PDL").map_or(true, |v| v != "0"));
            let _ =
                ENABLED.compare_exchange(0, 1 + u8::from(on), Ordering::Relaxed, Ordering::Relaxed);
            on
        }
        v => v == 2,
    }
}

/// Turns programmatic dependent launches of Weft's kernels on or off for the whole
/// process (for measuring what they save; results are the same either way).
pub fn set_dependent_launch(on: bool) {
    ENABLED.store(1 + u8::from(on), Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "//\n.version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .align 8 .b8 __args[32]\n)\n{\n\tld.param.b32 %r1, [__args+0];\n\t// weft: grid dependency\n\tret;\n}\n";

    #[test]
    fn marked_modules_wait_on_hopper_only() {
        assert_eq!(with_grid_dependency(PTX, 8), None);
        let t = with_grid_dependency(PTX, 9).unwrap();
        assert!(t.contains(".target sm_90\n.address_size 64"), "{t}");
        assert!(
            !t.contains("sm_80") && !t.contains(GRID_DEPENDENCY_MARK),
            "{t}"
        );
        let wait = t.find("griddepcontrol.wait;").unwrap();
        assert!(wait > t.find("ld.param").unwrap() && wait < t.find("ret;").unwrap());
        assert_eq!(
            with_grid_dependency(&PTX.replace(GRID_DEPENDENCY_MARK, ""), 9),
            None
        );
    }

    #[test]
    fn dependent_launch_is_a_process_wide_switch() {
        let before = dependent_launch();
        set_dependent_launch(!before);
        assert_eq!(dependent_launch(), !before);
        set_dependent_launch(before);
        assert_eq!(dependent_launch(), before);
    }
}
