//! Running a test on every available device and comparing the CUDA results with the
//! CPU's, plus the PTX checks that need no GPU. A missing GPU or `ptxas` is handled
//! by [`crate::gpu_policy`]: skipped in a plain `cargo test`, a failure under
//! `WEFT_REQUIRE_CUDA=1`.
//!
//! Parity bounds (CPU result `c`, CUDA result `g`, per component):
//! * integers and booleans: exactly equal;
//! * floats: within [`FLOAT_ULPS`] units in the last place (NaN matches NaN, infinities
//!   must be equal). Both back ends round every operation to nearest in the same order
//!   and share Weft's elementary functions, so they normally agree bit for bit; the
//!   margin covers summation order only where atomics sum;
//! * gradients: `|g - c| <= rel · max(|c|, |g|, 1)` with [`GRAD_REL_F32`] /
//!   [`GRAD_REL_F64`] (gradients are sums whose order the GPU's atomics choose).

use std::cell::Cell;

use weft::prelude::*;

use crate::gpu_policy;

/// Largest float difference between the back ends, in units in the last place.
pub const FLOAT_ULPS: u64 = 4;
/// Largest relative gradient difference between the back ends, f32 values.
pub const GRAD_REL_F32: f64 = 1e-5;
/// Largest relative gradient difference between the back ends, f64 values.
pub const GRAD_REL_F64: f64 = 1e-12;

thread_local! {
    static TOLD: Cell<bool> = const { Cell::new(false) };
}

/// The first CUDA device, or `None` with a printed `SKIPPED (no CUDA): reason` (once
/// per test thread); under `WEFT_REQUIRE_CUDA=1` a missing device panics instead
/// (see [`crate::gpu_policy`]).
pub fn cuda() -> Option<Device> {
    match Device::cuda(0) {
        Ok(d) => Some(d),
        Err(e) => {
            if gpu_policy::cuda_required() || !TOLD.with(|t| t.replace(true)) {
                gpu_policy::skip_without_cuda("CUDA device 0", &e);
            }
            None
        }
    }
}

/// The devices to run on: the CPU, then the first CUDA device when one works.
pub fn devices() -> Vec<Device> {
    let mut d = vec![Device::Cpu];
    d.extend(cuda());
    d
}

/// One scalar of a result.
#[derive(Clone, Copy, Debug)]
pub enum Val {
    /// An `f32` component.
    F32(f32),
    /// An `f64` component.
    F64(f64),
    /// An integer or boolean.
    Int(i128),
}

/// A result whose components can be compared across back ends.
pub trait Flat {
    /// Appends every component.
    fn flat(&self, out: &mut Vec<Val>);
}

macro_rules! flat_scalar {
    ($($t:ty => $v:ident),*) => {$(
        impl Flat for $t {
            fn flat(&self, out: &mut Vec<Val>) {
                out.push(Val::$v((*self).into()));
            }
        }
    )*};
}
flat_scalar!(f32 => F32, f64 => F64, i32 => Int, u32 => Int, i64 => Int, u64 => Int, bool => Int);

macro_rules! flat_array {
    ($($t:ty: $f:ident),*) => {$(
        impl Flat for $t {
            fn flat(&self, out: &mut Vec<Val>) {
                for x in self.$f() {
                    x.flat(out);
                }
            }
        }
    )*};
}
flat_array!(
    Vec2: to_array, Vec3: to_array, Vec4: to_array, DVec2: to_array, DVec3: to_array,
    DVec4: to_array, IVec2: to_array, IVec3: to_array, IVec4: to_array, UVec3: to_array,
    Quat: to_array, DQuat: to_array, Mat2: to_cols_array, Mat3: to_cols_array,
    Mat4: to_cols_array, DMat2: to_cols_array, DMat3: to_cols_array, DMat4: to_cols_array,
    SpatialVector: to_array, DSpatialVector: to_array
);

impl Flat for SpatialMatrix {
    fn flat(&self, out: &mut Vec<Val>) {
        self.m.as_flattened().iter().for_each(|x| x.flat(out));
    }
}

impl Flat for DSpatialMatrix {
    fn flat(&self, out: &mut Vec<Val>) {
        self.m.as_flattened().iter().for_each(|x| x.flat(out));
    }
}

impl Flat for Transform {
    fn flat(&self, out: &mut Vec<Val>) {
        self.p.flat(out);
        self.q.flat(out);
    }
}

impl Flat for DTransform {
    fn flat(&self, out: &mut Vec<Val>) {
        self.p.flat(out);
        self.q.flat(out);
    }
}

impl<T: Flat> Flat for Vec<T> {
    fn flat(&self, out: &mut Vec<Val>) {
        self.iter().for_each(|x| x.flat(out));
    }
}

impl<T: Flat> Flat for Option<T> {
    fn flat(&self, out: &mut Vec<Val>) {
        if let Some(x) = self {
            x.flat(out);
        }
    }
}

macro_rules! flat_tuple {
    ($(($($n:ident $i:tt),*)),*) => {$(
        impl<$($n: Flat),*> Flat for ($($n,)*) {
            fn flat(&self, out: &mut Vec<Val>) {
                $(self.$i.flat(out);)*
            }
        }
    )*};
}
flat_tuple!((A 0), (A 0, B 1), (A 0, B 1, C 2), (A 0, B 1, C 2, D 3), (A 0, B 1, C 2, D 3, E 4));

/// Distance in units in the last place between two floats of one type (as f64
/// bit patterns of the ordered integers), `u64::MAX` for NaN against a number.
fn ulps(a: Val, b: Val) -> u64 {
    fn ordered32(x: f32) -> i64 {
        let b = x.to_bits() as i32;
        (if b < 0 { i32::MIN - b } else { b }) as i64
    }
    fn ordered64(x: f64) -> i128 {
        let b = x.to_bits() as i64;
        (if b < 0 { i64::MIN - b } else { b }) as i128
    }
    match (a, b) {
        (Val::F32(x), Val::F32(y)) if x.is_nan() && y.is_nan() => 0,
        (Val::F64(x), Val::F64(y)) if x.is_nan() && y.is_nan() => 0,
        (Val::F32(x), Val::F32(y)) if x.is_nan() || y.is_nan() => u64::MAX,
        (Val::F64(x), Val::F64(y)) if x.is_nan() || y.is_nan() => u64::MAX,
        (Val::F32(x), Val::F32(y)) => (ordered32(x) - ordered32(y)).unsigned_abs(),
        (Val::F64(x), Val::F64(y)) => {
            u64::try_from((ordered64(x) - ordered64(y)).unsigned_abs()).unwrap_or(u64::MAX)
        }
        (Val::Int(x), Val::Int(y)) => u64::from(x != y) * u64::MAX,
        _ => u64::MAX,
    }
}

/// Asserts that `gpu` matches `cpu`: integers exactly, floats within [`FLOAT_ULPS`].
pub fn assert_same<T: Flat + ?Sized>(what: &str, cpu: &T, gpu: &T) {
    let (mut c, mut g) = (Vec::new(), Vec::new());
    cpu.flat(&mut c);
    gpu.flat(&mut g);
    assert_eq!(
        c.len(),
        g.len(),
        "{what}: CPU and CUDA results differ in size"
    );
    for (k, (x, y)) in c.iter().zip(&g).enumerate() {
        assert!(
            ulps(*x, *y) <= FLOAT_ULPS,
            "{what}: component {k}: CPU {x:?}, CUDA {y:?} (bound: integers exact, floats {FLOAT_ULPS} ulp)"
        );
    }
}

/// Asserts that gradients `gpu` match `cpu` within [`GRAD_REL_F32`] / [`GRAD_REL_F64`].
pub fn assert_grads<T: Flat + ?Sized>(what: &str, cpu: &T, gpu: &T) {
    let (mut c, mut g) = (Vec::new(), Vec::new());
    cpu.flat(&mut c);
    gpu.flat(&mut g);
    assert_eq!(
        c.len(),
        g.len(),
        "{what}: CPU and CUDA gradients differ in size"
    );
    for (k, (x, y)) in c.iter().zip(&g).enumerate() {
        let (a, b, rel) = match (*x, *y) {
            (Val::F32(a), Val::F32(b)) => (a as f64, b as f64, GRAD_REL_F32),
            (Val::F64(a), Val::F64(b)) => (a, b, GRAD_REL_F64),
            _ => {
                assert!(
                    ulps(*x, *y) == 0,
                    "{what}: component {k}: CPU {x:?}, CUDA {y:?}"
                );
                continue;
            }
        };
        let ok = (a.is_nan() && b.is_nan())
            || a == b
            || (a - b).abs() <= rel * a.abs().max(b.abs()).max(1.0);
        assert!(
            ok,
            "{what}: gradient component {k}: CPU {a:e}, CUDA {b:e} (bound: {rel:e} relative)"
        );
    }
}

/// Runs `run` on the CPU and, when a GPU works, on CUDA; asserts the CUDA result
/// matches the CPU's ([`assert_same`]) and returns the CPU's.
pub fn on_devices<T: Flat>(what: &str, run: impl Fn(Device) -> T) -> T {
    let c = run(Device::Cpu);
    if let Some(d) = cuda() {
        let g = run(d);
        assert_same(what, &c, &g);
    }
    c
}

/// Asserts a kernel's PTX exists; with `WEFT_PTXAS=/path/to/ptxas` it must also
/// assemble for sm_90 (required under `WEFT_REQUIRE_CUDA=1`, see [`ptxas`]).
pub fn check_ptx(name: &str, ptx: Result<&'static str, &'static str>) {
    if let Err(e) = ptx_ok(name, ptx) {
        panic!("{e}");
    }
}

fn ptx_ok(name: &str, ptx: Result<&'static str, &'static str>) -> Result<(), String> {
    let ptx = ptx.map_err(|e| format!("kernel `{name}` has no PTX: {e}"))?;
    // Floats fuse only where a kernel calls `fma`, which is `fma.rn` (correctly rounded).
    if ptx.contains(".approx") || ptx.matches("fma.").count() != ptx.matches("fma.rn.").count() {
        return Err(format!("`{name}`: inexact math"));
    }
    // More than 4,352 bytes of parameters (a large structure and its
    // gradients) need PTX ISA 8.1; the others keep 8.0 (older drivers).
    let size: usize = ptx
        .split(".b8 __args[")
        .nth(1)
        .and_then(|r| r.split(']').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let want = if size > 4352 {
        ".version 8.1"
    } else {
        ".version 8.0"
    };
    if !ptx.contains(want) {
        return Err(format!(
            "`{name}`: {size} bytes of parameters want `{want}`"
        ));
    }
    ptxas(name, ptx)
}

/// Assembles `ptx` with `$WEFT_PTXAS` for sm_90: nothing without the variable, a
/// panic without it under `WEFT_REQUIRE_CUDA=1` ([`gpu_policy::ptxas_tool`]).
pub fn ptxas(name: &str, ptx: &str) -> Result<(), String> {
    let Some(tool) = gpu_policy::ptxas_tool() else {
        return Ok(());
    };
    let dir = std::env::temp_dir().join(format!("weft-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = name.replace("::", "_");
    let path = dir.join(format!("{file}.ptx"));
    std::fs::write(&path, ptx).unwrap();
    let out = std::process::Command::new(&tool)
        .args(["-arch=sm_90", "-o"])
        .arg(dir.join(format!("{file}.cubin")))
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ptxas `{tool}`: {e}"));
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ptxas rejected `{name}`:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// A kernel's `(name, PTX, ADJOINT_PTX)`.
pub type KernelPtx = (
    &'static str,
    Result<&'static str, &'static str>,
    Result<&'static str, &'static str>,
);

/// Checks the PTX of every kernel in `kernels`: both the kernel's and its adjoint's
/// must exist (and assemble, see [`check_ptx`]), except for the kernels named in
/// `unsupported` with the reason: their adjoint must fail with an error containing
/// it (and their forward PTX, if it fails too, with the same reason).
pub fn check_all_ptx(kernels: &[KernelPtx], unsupported: &[(&str, &str)]) {
    // What to assemble, and the errors found without assembling.
    let mut jobs: Vec<(String, Result<&'static str, &'static str>)> = Vec::new();
    let mut errors = Vec::new();
    for (name, fwd, adj) in kernels {
        let adj_name = format!("{name}_adjoint");
        match unsupported.iter().find(|(n, _)| n == name) {
            Some((_, why)) => {
                match fwd {
                    Ok(p) => jobs.push((name.to_string(), Ok(p))),
                    Err(e) if !e.contains(why) => errors.push(format!("`{name}`: {e}")),
                    Err(_) => {}
                }
                match adj {
                    Ok(_) => errors.push(format!(
                        "`{name}` is listed as unsupported but has adjoint PTX now"
                    )),
                    Err(e) if !e.contains(why) => errors.push(format!("`{adj_name}`: {e}")),
                    Err(_) => {}
                }
            }
            None => {
                jobs.push((name.to_string(), *fwd));
                jobs.push((adj_name, *adj));
            }
        }
    }
    // ptxas takes seconds to minutes on the largest kernels (a tree walk
    // with every func inlined): assemble on every core, and say which are slow.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads.min(jobs.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((name, ptx)) = jobs.get(i) else {
                        break;
                    };
                    let start = std::time::Instant::now();
                    let r = ptx_ok(name, *ptx);
                    let took = start.elapsed().as_secs_f64();
                    if took > 5.0 {
                        println!("ptxas `{name}`: {took:.1} s");
                    }
                    if let Err(e) = r {
                        found.lock().unwrap().push(e);
                    }
                }
            });
        }
    });
    errors.extend(found.into_inner().unwrap());
    assert!(
        errors.is_empty(),
        "{} of {} kernels:\n{}",
        errors.len(),
        kernels.len(),
        errors.join("\n")
    );
}

/// `(name, PTX, ADJOINT_PTX)` of kernels, for [`check_all_ptx`].
#[macro_export]
macro_rules! ptx_of {
    ($($k:path),* $(,)?) => {
        [$((stringify!($k), <$k>::PTX, <$k>::ADJOINT_PTX)),*]
    };
}
