//! Launching a kernel whose single parameter is the packed argument buffer.

use std::ffi::c_void;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use cudarc::driver::sys;

use super::context::device;
use super::driver::{err, fail};
use super::module::function;
use crate::Error;

/// The default number of threads per block (256 measured faster than 1024 on
/// memory-bound kernels on an H200). `WEFT_CUDA_BLOCK` overrides it.
pub const DEFAULT_BLOCK: u32 = 256;

pub(crate) fn default_block() -> u32 {
    env_block().unwrap_or(DEFAULT_BLOCK)
}

/// `WEFT_CUDA_BLOCK`, when set to a valid block size.
pub(crate) fn env_block() -> Option<u32> {
    static B: OnceLock<Option<u32>> = OnceLock::new();
    *B.get_or_init(|| {
        std::env::var("WEFT_CUDA_BLOCK")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|b| (1..=1024).contains(b))
    })
}

/// `WEFT_CUDA_BLOCKS=kernel=N,other=M`: block sizes for single kernels (a tuning
/// knob, ahead of `WEFT_CUDA_BLOCK` and [`fitting_block`]). `Ok(None)` for a kernel
/// it does not name; `Err` says what is wrong with the variable.
pub(crate) fn kernel_block(kernel: &str) -> Result<Option<u32>, String> {
    static SPEC: OnceLock<Result<Vec<(String, u32)>, String>> = OnceLock::new();
    let spec = SPEC.get_or_init(|| {
        parse_kernel_blocks(&std::env::var("WEFT_CUDA_BLOCKS").unwrap_or_default())
    });
    let spec = spec
        .as_ref()
        .map_err(|e| format!("WEFT_CUDA_BLOCKS: {e}"))?;
    Ok(spec.iter().find(|(k, _)| k == kernel).map(|&(_, b)| b))
}

/// Parses `kernel=N,other=M` (blank: none).
pub(crate) fn parse_kernel_blocks(spec: &str) -> Result<Vec<(String, u32)>, String> {
    spec.split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|entry| {
            let bad = || format!("`{entry}` is not `kernel=threads` with 1 to 1024 threads");
            let (k, b) = entry.split_once('=').ok_or_else(bad)?;
            let b: u32 = b.trim().parse().map_err(|_| bad())?;
            if k.trim().is_empty() || !(1..=1024).contains(&b) {
                return Err(bad());
            }
            Ok((k.trim().to_string(), b))
        })
        .collect()
}

/// The block size a kernel `f` is launched with when the caller sets none:
/// [`DEFAULT_BLOCK`], or half of it when that keeps more threads resident per
/// multiprocessor (a kernel of 65–80 registers fits three blocks of 256 threads,
/// 768, but seven of 128, 896: the BVH queries ran 5–10 % faster so on an H200).
pub(crate) fn fitting_block(f: sys::CUfunction) -> u32 {
    let (full, half) = (DEFAULT_BLOCK, DEFAULT_BLOCK / 2);
    let resident = |b: u32| super::module::resident_blocks(f, b) * b;
    if resident(half) > resident(full) {
        half
    } else {
        full
    }
}

/// 0 until decided; else the waves plus one.
static WAVES: AtomicU32 = AtomicU32::new(0);

/// How many waves of resident blocks a kernel with block-level reductions (a sum
/// into one address) is launched as: `WEFT_CUDA_REDUCE_WAVES`, else
/// [`DEFAULT_REDUCTION_WAVES`], or as last set by [`set_reduction_waves`]. 0 means
/// no cap (one thread per index).
pub fn reduction_waves() -> u32 {
    match WAVES.load(Ordering::Relaxed) {
        0 => {
            let w = std::env::var("WEFT_CUDA_REDUCE_WAVES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(DEFAULT_REDUCTION_WAVES);
            let _ = WAVES.compare_exchange(0, w + 1, Ordering::Relaxed, Ordering::Relaxed);
            w
        }
        w => w - 1,
    }
}

/// Sets [`reduction_waves`] for the whole process (a tuning knob; results are the
/// same up to the order of float sums).
pub fn set_reduction_waves(waves: u32) {
    WAVES.store(waves.saturating_add(1), Ordering::Relaxed);
}

/// The default of [`reduction_waves`].
pub const DEFAULT_REDUCTION_WAVES: u32 = 1;

/// Launches entry `kernel` of the PTX module `ptx` on CUDA device `device` with
/// `grid` blocks of `block` threads, asynchronously on the device's stream (or into
/// the graph being captured on this thread, see [`super::Graph::capture`]).
///
/// The entry must take one parameter, the byte array
/// `.param .align 8 .b8 __args[N]`; `params` is its value (`params.len() >= N`,
/// checked). The module is loaded on the first launch of one of its entries on each
/// device (cached by the address of `ptx`); a PTX error gives [`Error::Cuda`] naming
/// the kernel, with the JIT compiler's log.
///
/// Errors the kernel raises while running (a bad address, say) surface at the next
/// synchronisation ([`super::synchronize`], `Array::to_vec`).
pub fn launch(
    device: usize,
    ptx: &'static str,
    kernel: &'static str,
    grid: u32,
    block: u32,
    params: &[u8],
) -> Result<(), Error> {
    let dev = super::context::device(device)?;
    dev.bind()?;
    let func = function(dev, ptx, kernel)?;
    if params.len() < func.param_bytes {
        return Err(fail(
            format!("launch of kernel `{kernel}` on cuda:{device}"),
            format!(
                "the argument buffer has {} bytes but the entry's parameter takes {}",
                params.len(),
                func.param_bytes
            ),
        ));
    }
    if grid == 0 || block == 0 {
        return Ok(());
    }
    // Kernels loop over their indices with a grid stride; one with block-level
    // reductions runs as a few waves of resident blocks, so each block's shared
    // sum covers several indices and the global atomics number a few per
    // multiprocessor, while enough blocks stay in flight to hide memory latency.
    let grid = match (func.wave_sms, reduction_waves()) {
        (Some(sms), waves) if waves > 0 => {
            let resident = if block == default_block() {
                func.resident_blocks
            } else {
                super::module::resident_blocks(func.f, block)
            };
            grid.min((sms * resident).saturating_mul(waves))
        }
        _ => grid,
    };
    let mut args = [params.as_ptr() as *mut c_void];
    let timing = super::kernel_times::mark(dev)?;
    let stream = dev.work_stream();
    let r = if func.dependent && super::dependent::dependent_launch() {
        // A programmatic dependent of the stream's previous kernel: it may start
        // while that one finishes, and waits for it at its `griddepcontrol.wait`.
        // SAFETY: a zeroed attribute value is valid (a plain C union), and the one
        // field set is the one `id` names.
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.programmaticStreamSerializationAllowed = 1;
        let config = sys::CUlaunchConfig {
            gridDimX: grid,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: block,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: 0,
            hStream: stream,
            attrs: &mut attr,
            numAttrs: 1,
        };
        // SAFETY: as for `cuLaunchKernel` below; `config` and `attr` outlive the call.
        unsafe { sys::cuLaunchKernelEx(&config, func.f, args.as_mut_ptr(), std::ptr::null_mut()) }
    } else {
        // SAFETY: `func` is a live entry whose one parameter has `param_bytes`
        // bytes, all readable from `params` (checked above); the driver copies them
        // before returning. What the kernel does with the addresses inside is the
        // caller's responsibility (the generated launch code passes arrays it holds
        // borrows of).
        unsafe {
            sys::cuLaunchKernel(
                func.f,
                grid,
                1,
                1,
                block,
                1,
                1,
                0,
                stream,
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
    };
    dev.dirty.store(true, Ordering::Release);
    r.result()
        .map_err(|e| err(format!("launch of kernel `{kernel}` on cuda:{device}"), e))?;
    super::kernel_times::close(dev, kernel, timing)
}

/// Launches kernels over a number of threads on one device, with a chosen block
/// size.
///
/// ```no_run
/// # fn main() -> Result<(), weft_runtime::Error> {
/// # let (ptx, args): (&'static str, Vec<u8>) = ("", vec![]);
/// use weft_runtime::cuda::Launcher;
/// Launcher::new(0).block_size(128).launch(ptx, "my_kernel", 1_000_000, &args)?;
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launcher {
    device: usize,
    block: u32,
    /// Whether `block` was chosen ([`Launcher::block_size`]); otherwise each kernel
    /// gets its own (`WEFT_CUDA_BLOCKS`, `WEFT_CUDA_BLOCK`, [`fitting_block`]).
    chosen: bool,
}

impl Launcher {
    /// A launcher for CUDA device `device` with each kernel's default block size:
    /// `WEFT_CUDA_BLOCKS` for that kernel, else `WEFT_CUDA_BLOCK`, else
    /// [`DEFAULT_BLOCK`] or half of it for a kernel whose registers leave more
    /// threads resident in smaller blocks.
    pub fn new(device: usize) -> Launcher {
        Launcher {
            device,
            block: default_block(),
            // The kernel's own (`WEFT_CUDA_BLOCKS`, `WEFT_CUDA_BLOCK`, fitting).
            chosen: false,
        }
    }

    /// Sets the threads per block (1 to 1024).
    ///
    /// # Panics
    /// If `block` is outside 1..=1024.
    pub fn block_size(mut self, block: u32) -> Launcher {
        assert!(
            (1..=1024).contains(&block),
            "a CUDA block has 1 to 1024 threads, not {block}"
        );
        self.block = block;
        self.chosen = true;
        self
    }

    /// The threads per block: as set, else the default (a kernel launched without a
    /// set block size may use half of it, see [`Launcher::new`]).
    pub fn block(&self) -> u32 {
        self.block
    }

    /// The device ordinal.
    pub fn device(&self) -> usize {
        self.device
    }

    /// Launches entry `kernel` of `ptx` over `threads` threads (rounded up to whole
    /// blocks; the kernel checks its thread index against the count it is given).
    /// Nothing is launched for 0 threads, but the module is still loaded and the
    /// arguments checked.
    pub fn launch(
        &self,
        ptx: &'static str,
        kernel: &'static str,
        threads: usize,
        params: &[u8],
    ) -> Result<(), Error> {
        let block = if self.chosen {
            self.block
        } else {
            let dev = device(self.device)?;
            dev.bind()?;
            function(dev, ptx, kernel)?.block
        };
        let blocks = threads.div_ceil(block as usize);
        let grid = u32::try_from(blocks)
            .ok()
            .filter(|&g| g <= i32::MAX as u32)
            .ok_or_else(|| {
                fail(
                    format!("launch of kernel `{kernel}` on cuda:{}", self.device),
                    format!("{threads} threads need too many blocks of {block}"),
                )
            })?;
        if grid == 0 {
            // Still load and check, so errors do not depend on the problem size.
            let dev = device(self.device)?;
            dev.bind()?;
            function(dev, ptx, kernel)?;
        }
        launch(self.device, ptx, kernel, grid, block, params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduction_waves_are_settable_and_zero_means_no_cap() {
        let before = reduction_waves();
        set_reduction_waves(3);
        assert_eq!(reduction_waves(), 3);
        set_reduction_waves(0);
        assert_eq!(reduction_waves(), 0);
        set_reduction_waves(before);
        assert_eq!(reduction_waves(), before);
    }

    #[test]
    fn per_kernel_block_sizes() {
        assert_eq!(parse_kernel_blocks(""), Ok(vec![]));
        assert_eq!(
            parse_kernel_blocks("a=128, b = 64,"),
            Ok(vec![("a".into(), 128), ("b".into(), 64)])
        );
        for bad in ["a", "a=0", "a=2048", "=64", "a=x"] {
            let e = parse_kernel_blocks(bad).unwrap_err();
            assert!(e.contains("is not `kernel=threads`"), "{bad}: {e}");
        }
    }
}
