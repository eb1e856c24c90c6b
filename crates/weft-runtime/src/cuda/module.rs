//! Loading PTX modules (once per text and device, with the JIT compiler's logs) and
//! finding their kernel entry points.

use std::ffi::{CString, c_void};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use cudarc::driver::sys;

use super::context::Dev;
use super::driver::{describe, err, fail, has_symbol};
use super::record::{kernel_id, register_default_name};
use crate::Error;

/// A module's cache key: the address and length of its `&'static` PTX text.
pub(crate) type ModKey = (usize, usize);
/// An entry point's cache key: the module's key and the entry name's address and length.
pub(crate) type FnKey = (usize, usize, usize, usize);

/// A loaded module (never unloaded: its kernels may be launched at any time), and
/// whether its entries wait for the grid before them (loaded with
/// [`super::dependent::with_grid_dependency`]'s text).
pub(crate) struct Module(sys::CUmodule, bool);

// SAFETY: a module handle may be used from any thread of its context.
unsafe impl Send for Module {}

/// A kernel entry point and the size of its one byte-array parameter.
#[derive(Clone, Copy)]
pub(crate) struct Func {
    pub(crate) f: sys::CUfunction,
    pub(crate) param_bytes: usize,
    /// For an entry with block-level reductions (its PTX declares
    /// `__weft_red_<kernel>`): the device's multiprocessor count, so launches can
    /// be capped at a few waves of blocks. `None` otherwise.
    pub(crate) wave_sms: Option<u32>,
    /// Blocks of [`super::launch::default_block`] threads resident per
    /// multiprocessor (the driver's occupancy calculation), for reducing entries.
    pub(crate) resident_blocks: u32,
    /// Whether the entry waits for the grid before it, so it may be launched as a
    /// programmatic dependent ([`super::dependent`]).
    pub(crate) dependent: bool,
    /// Threads per block when the launch sets none: the default for reducing
    /// entries (their waves are sized for it), else
    /// [`super::launch::fitting_block`].
    pub(crate) block: u32,
}

// SAFETY: a function handle may be used from any thread of its context.
unsafe impl Send for Func {}

/// One PTX module load, as recorded by [`module_load_stats`].
#[derive(Clone, Debug, PartialEq)]
pub struct ModuleLoad {
    /// The device ordinal.
    pub device: usize,
    /// The kernel whose first launch loaded the module.
    pub kernel: &'static str,
    /// Size of the PTX text in bytes.
    pub ptx_bytes: usize,
    /// Host time spent in `cuModuleLoadDataEx`, in milliseconds.
    pub millis: f64,
    /// The JIT compiler's own wall time, in milliseconds (`CU_JIT_WALL_TIME`).
    pub jit_millis: f32,
    /// The JIT compiler's information log (register use etc. with verbose logging).
    pub info_log: String,
}

fn stats() -> &'static Mutex<Vec<ModuleLoad>> {
    static S: OnceLock<Mutex<Vec<ModuleLoad>>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(Vec::new()))
}

/// Every PTX module load so far in this process, in order (each module is loaded
/// once per device, on the first launch of one of its kernels).
pub fn module_load_stats() -> Vec<ModuleLoad> {
    stats().lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Whether `WEFT_CUDA_VERBOSE` asks for module loads to be printed.
pub(crate) fn verbose() -> bool {
    static V: OnceLock<bool> = OnceLock::new();
    *V.get_or_init(|| std::env::var("WEFT_CUDA_VERBOSE").is_ok_and(|v| !v.is_empty() && v != "0"))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The entry `kernel` of the module `ptx` on `dev`, loading the module on first use.
#[inline]
pub(crate) fn function(dev: &Dev, ptx: &'static str, kernel: &'static str) -> Result<Func, Error> {
    let key = (
        ptx.as_ptr() as usize,
        ptx.len(),
        kernel.as_ptr() as usize,
        kernel.len(),
    );
    if let Some(f) = lock(&dev.functions).get(&key) {
        return Ok(*f);
    }
    let f = load_function(dev, ptx, kernel)?;
    lock(&dev.functions).insert(key, f);
    Ok(f)
}

#[cold]
fn load_function(dev: &Dev, ptx: &'static str, kernel: &'static str) -> Result<Func, Error> {
    let (module, dependent) = {
        let mut modules = lock(&dev.modules);
        let mkey = (ptx.as_ptr() as usize, ptx.len());
        match modules.get(&mkey) {
            Some(m) => (m.0, m.1),
            None => {
                let m = load_module(dev, ptx, kernel)?;
                modules.insert(mkey, Module(m.0, m.1));
                m
            }
        }
    };
    let what = || format!("kernel `{kernel}` on cuda:{}", dev.ordinal);
    let name =
        CString::new(kernel).map_err(|_| fail(what(), "the entry name contains a NUL byte"))?;
    let mut f = std::ptr::null_mut();
    // SAFETY: the module is loaded in this (current) context and never unloaded.
    let r = unsafe { sys::cuModuleGetFunction(&mut f, module, name.as_ptr()) };
    if r == sys::CUresult::CUDA_ERROR_NOT_FOUND {
        return Err(fail(
            what(),
            format!("the PTX module has no entry `.entry {kernel}`"),
        ));
    }
    r.result().map_err(|e| err(what(), e))?;
    let param_bytes = param_bytes(f, ptx, kernel).map_err(|r| fail(what(), r))?;
    register_default_name(kernel_id(kernel), kernel);
    if let Some(base) = kernel.strip_suffix("_adjoint") {
        // Adjoint kernels report under their forward kernel's id.
        register_default_name(kernel_id(base), base);
    }
    let own = super::launch::kernel_block(kernel).map_err(|e| fail(what(), e))?;
    let (wave_sms, resident_blocks, block) = if ptx.contains(&format!("__weft_red_{kernel}[")) {
        let block = own.unwrap_or_else(super::launch::default_block);
        (
            Some(dev.multiprocessors()?),
            resident_blocks(f, block),
            block,
        )
    } else {
        let block = own
            .or_else(super::launch::env_block)
            .unwrap_or_else(|| super::launch::fitting_block(f));
        (None, 0, block)
    };
    Ok(Func {
        f,
        param_bytes,
        wave_sms,
        resident_blocks,
        dependent,
        block,
    })
}

/// How many blocks of `block` threads of `f` fit on one multiprocessor at once
/// (registers, shared memory and thread limits), at least 1; from the driver's
/// occupancy calculator, or the thread limit if it cannot tell.
pub(crate) fn resident_blocks(f: sys::CUfunction, block: u32) -> u32 {
    let mut n: std::ffi::c_int = 0;
    // SAFETY: `f` is a live function handle; the output is a plain integer.
    let r = unsafe { sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, f, block as _, 0) };
    if r == sys::CUresult::CUDA_SUCCESS && n > 0 {
        n as u32
    } else {
        (2048 / block.max(1)).max(1)
    }
}

/// Size of the entry's single parameter, from the driver when it can tell
/// (`cuFuncGetParamInfo`, CUDA 12.4+), else from the PTX text.
fn param_bytes(f: sys::CUfunction, ptx: &str, kernel: &str) -> Result<usize, String> {
    static HAS_PARAM_INFO: OnceLock<bool> = OnceLock::new();
    if *HAS_PARAM_INFO.get_or_init(|| has_symbol("cuFuncGetParamInfo")) {
        let (mut off, mut size) = (0usize, 0usize);
        // SAFETY: `f` is a live function handle; the outputs are plain integers.
        let r = unsafe { sys::cuFuncGetParamInfo(f, 0, &mut off, &mut size) };
        if r == sys::CUresult::CUDA_SUCCESS {
            // SAFETY: as above.
            let second = unsafe { sys::cuFuncGetParamInfo(f, 1, &mut off, &mut 0) };
            if second == sys::CUresult::CUDA_SUCCESS {
                return Err(
                    "the entry takes more than one parameter; Weft kernels take one byte array `.param .align 8 .b8 __args[N]`"
                        .into(),
                );
            }
            return Ok(size);
        }
        if r == sys::CUresult::CUDA_ERROR_INVALID_VALUE {
            return Err(
                "the entry takes no parameter; Weft kernels take one byte array `.param .align 8 .b8 __args[N]`"
                    .into(),
            );
        }
    }
    ptx_param_bytes(ptx, kernel).ok_or_else(|| {
        "cannot find the size of the entry's parameter `.param .align 8 .b8 __args[N]` in its PTX"
            .into()
    })
}

/// `N` of `.entry kernel(.param ... name[N])` in PTX text.
fn ptx_param_bytes(ptx: &str, kernel: &str) -> Option<usize> {
    let mut rest = ptx;
    while let Some(at) = rest.find(".entry") {
        rest = &rest[at + ".entry".len()..];
        let t = rest.trim_start();
        let Some(after) = t.strip_prefix(kernel) else {
            continue;
        };
        let after = after.trim_start();
        let Some(list) = after.strip_prefix('(') else {
            continue;
        };
        let list = &list[..list.find(')')?];
        if list.matches(".param").count() != 1 {
            return None;
        }
        let open = list.find('[')?;
        let close = open + list[open..].find(']')?;
        return list[open + 1..close].trim().parse().ok();
    }
    None
}

#[cold]
fn load_module(
    dev: &Dev,
    ptx: &'static str,
    kernel: &'static str,
) -> Result<(sys::CUmodule, bool), Error> {
    let what = || {
        format!(
            "load the PTX module of kernel `{kernel}` on cuda:{}",
            dev.ordinal
        )
    };
    dev.bind()?;
    let replaced = replacement_ptx(kernel).map_err(|r| fail(what(), r))?;
    let ptx: &str = replaced.as_deref().unwrap_or(ptx);
    let (major, _) = dev.ctx.compute_capability().map_err(|e| err(what(), e))?;
    let waiting = super::dependent::with_grid_dependency(ptx, major);
    let dependent = waiting.is_some();
    let src = CString::new(waiting.unwrap_or_else(|| ptx.to_string()))
        .map_err(|_| fail(what(), "the PTX text contains a NUL byte"))?;
    const LOG: usize = 1 << 16;
    let mut info = vec![0u8; LOG];
    let mut error = vec![0u8; LOG];
    use sys::CUjit_option::*;
    let mut options = vec![
        CU_JIT_WALL_TIME,
        CU_JIT_INFO_LOG_BUFFER,
        CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_ERROR_LOG_BUFFER,
        CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_LOG_VERBOSE,
    ];
    let mut values: Vec<*mut c_void> = vec![
        std::ptr::null_mut(),
        info.as_mut_ptr() as *mut c_void,
        LOG as *mut c_void,
        error.as_mut_ptr() as *mut c_void,
        LOG as *mut c_void,
        usize::from(verbose()) as *mut c_void,
    ];
    if let Some(n) = max_registers() {
        options.push(CU_JIT_MAX_REGISTERS);
        values.push(n as usize as *mut c_void);
    }
    let mut module = std::ptr::null_mut();
    let t0 = Instant::now();
    // SAFETY: the option arrays agree in length and kind; the log buffers outlive
    // the call and their sizes are given; `src` is NUL-terminated.
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            src.as_ptr() as *const c_void,
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    let millis = t0.elapsed().as_secs_f64() * 1e3;
    let text = |buf: &[u8]| {
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).trim().to_string()
    };
    let (info_log, error_log) = (text(&info), text(&error));
    if r != sys::CUresult::CUDA_SUCCESS {
        let e = cudarc::driver::DriverError(r);
        let log = if error_log.is_empty() {
            &info_log
        } else {
            &error_log
        };
        let reason = if log.is_empty() {
            describe(e)
        } else {
            format!("{}; JIT log:\n{log}", describe(e))
        };
        return Err(fail(what(), reason));
    }
    let jit_millis = f32::from_bits(values[0] as usize as u32);
    let load = ModuleLoad {
        device: dev.ordinal,
        kernel,
        ptx_bytes: ptx.len(),
        millis,
        jit_millis,
        info_log,
    };
    if verbose() {
        eprintln!(
            "weft: loaded the PTX module of kernel `{kernel}` on cuda:{} ({} bytes) in {millis:.3} ms (JIT {jit_millis:.3} ms){}{}",
            dev.ordinal,
            ptx.len(),
            if load.info_log.is_empty() { "" } else { "\n" },
            load.info_log
        );
    }
    lock(stats()).push(load);
    Ok((module, dependent))
}

/// `WEFT_CUDA_PTX_DIR`: a folder of replacement PTX, for experiments with edited
/// PTX (the bench's `--ptx DIR` writes the originals): a kernel whose
/// `<kernel>.ptx` is there loads that text instead of its own, with a note on
/// stderr. `None` when the variable is unset or the file is absent.
fn replacement_ptx(kernel: &str) -> Result<Option<String>, String> {
    replacement_ptx_in(std::env::var_os("WEFT_CUDA_PTX_DIR"), kernel)
}

/// [`replacement_ptx`] from the folder `dir`.
fn replacement_ptx_in(
    dir: Option<std::ffi::OsString>,
    kernel: &str,
) -> Result<Option<String>, String> {
    let Some(dir) = dir.filter(|d| !d.is_empty()) else {
        return Ok(None);
    };
    let path = std::path::Path::new(&dir).join(format!("{kernel}.ptx"));
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read the replacement PTX {}: {e}", path.display()))?;
    eprintln!(
        "weft: kernel `{kernel}` loads its PTX from {}",
        path.display()
    );
    Ok(Some(text))
}

/// `WEFT_CUDA_MAXREG`: a cap on registers per thread for every module the JIT
/// compiles (a tuning knob: fewer registers, more resident warps, maybe spills).
fn max_registers() -> Option<u32> {
    static N: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("WEFT_CUDA_MAXREG")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|n| (16..=255).contains(n))
    })
}

#[cfg(test)]
mod tests {
    use super::{ptx_param_bytes, replacement_ptx_in};

    #[test]
    fn replacement_ptx_comes_from_the_kernels_file() {
        let dir = std::env::temp_dir().join(format!("weft-ptx-dir-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("edited.ptx"), ".version 8.0").unwrap();
        let d = Some(dir.clone().into_os_string());
        assert_eq!(
            replacement_ptx_in(d.clone(), "edited").unwrap().as_deref(),
            Some(".version 8.0")
        );
        assert_eq!(replacement_ptx_in(d, "other").unwrap(), None);
        assert_eq!(replacement_ptx_in(None, "edited").unwrap(), None);
        assert_eq!(replacement_ptx_in(Some("".into()), "edited").unwrap(), None);
        std::fs::create_dir_all(dir.join("folder.ptx")).unwrap();
        let e = replacement_ptx_in(Some(dir.clone().into_os_string()), "folder").unwrap_err();
        assert!(e.contains("cannot read the replacement PTX"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn parameter_size_from_ptx() {
        let ptx = ".version 8.0\n.target sm_90\n.visible .entry other(.param .u64 p) {}\n\
                   .visible .entry k(\n  .param .align 8 .b8 __args[48]\n)\n{ ret; }";
        assert_eq!(ptx_param_bytes(ptx, "k"), Some(48));
        assert_eq!(ptx_param_bytes(ptx, "other"), None);
        assert_eq!(ptx_param_bytes(ptx, "missing"), None);
    }
}
