//! The CUDA runtime: devices, arrays on the GPU, copies, hand-written PTX launches,
//! graphs, the JIT error log and the GPU error record.
//!
//! Without a usable GPU every GPU test prints `SKIPPED (no CUDA): <reason>` and
//! passes, or fails under `WEFT_REQUIRE_CUDA=1` (the policy of
//! `crates/weft-testkit/src/gpu_policy.rs`); `no_cuda_is_an_error_not_a_panic` checks that path.
//! The launch-overhead measurement is the bench `benches/launch_overhead.rs`.

use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use weft_runtime::cuda::{self, Event, Graph, Launcher};
use weft_runtime::{Array, Device, Error};
use weft_types::{DVec3, Mat3, Quat, Transform, Vec3};

/// GPU tests share one device and its error record: run them one at a time.
static GPU: Mutex<()> = Mutex::new(());

#[path = "common/scale2.rs"]
mod scale2;
use scale2::{SCALE2, scale2_args};

use weft_testkit::gpu_policy;

/// The device lock, or `None` (after printing why) when there is no GPU; a panic
/// instead under `WEFT_REQUIRE_CUDA=1`.
fn gpu(test: &str) -> Option<MutexGuard<'static, ()>> {
    if let Some(reason) = cuda::skip_reason() {
        gpu_policy::skip_without_cuda(test, &reason);
        return None;
    }
    Some(GPU.lock().unwrap_or_else(|p| p.into_inner()))
}

const DEV: Device = Device::Cuda(0);

/// The message of the panic `f` raises (fails if it returns).
fn panic_message<R>(f: impl FnOnce() -> R) -> String {
    let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .err()
        .expect("expected a panic");
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// The same kernel in another string: a module first loaded inside a graph capture.
const SCALE2_AGAIN: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry scale2(
    .param .align 8 .b8 __args[24]
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<3>;

    ld.param.u64 %rd1, [__args+0];
    ld.param.u64 %rd2, [__args+8];
    ld.param.u32 %r1, [__args+16];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    add.f32 %f2, %f1, %f1;
    st.global.f32 [%rd5], %f2;
DONE:
    ret;
}
"#;

/// Writes the error record like a bounds-checked kernel: the first thread whose
/// compare-and-swap of the flag succeeds stores kernel id, parameter, index, extent.
/// Arguments: record address (u64 at 0), index (i64 at 8), extent (i64 at 16).
fn oob_ptx(kernel_id: u32) -> &'static str {
    let text = format!(
        r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry oob_test(
    .param .align 8 .b8 __args[24]
)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [__args+0];
    ld.param.u64 %rd2, [__args+8];
    ld.param.u64 %rd3, [__args+16];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r4, 0;
    mov.u32 %r5, 1;
    atom.global.cas.b32 %r1, [%rd1], %r4, %r5;
    setp.ne.b32 %p1, %r1, 0;
    @%p1 bra DONE;
    mov.u32 %r2, {kernel_id};
    st.global.u32 [%rd1+4], %r2;
    mov.u32 %r3, 1;
    st.global.u32 [%rd1+8], %r3;
    st.global.b64 [%rd1+16], %rd2;
    st.global.b64 [%rd1+24], %rd3;
DONE:
    ret;
}}
"#
    );
    Box::leak(text.into_boxed_str())
}

#[test]
fn no_cuda_is_an_error_not_a_panic() {
    let Some(reason) = cuda::skip_reason() else {
        println!("(a GPU is present: the no-driver path is not exercised here)");
        return;
    };
    println!("no CUDA here: {reason}");
    assert!(!reason.is_empty());
    assert!(cuda::device_count().is_err());
    assert!(!cuda::is_available());
    assert_eq!(Device::best(), Device::Cpu);
    let e = Device::cuda(0).unwrap_err();
    assert!(e.to_string().contains(&reason), "{e}");
    let e = Array::<f32>::try_zeros(Device::Cuda(0), [4]).unwrap_err();
    assert!(matches!(e, Error::Cuda { .. }), "{e}");
    assert!(Device::Cuda(0).synchronize().is_err());
    assert!(cuda::launch(0, SCALE2, "scale2", 1, 1, &[0; 24]).is_err());
    assert!(Graph::capture(0, || Ok(())).is_err());
    assert!(Event::new(0).is_err());
    assert!(cuda::error_record_ptr(0).is_err());
    let msg = panic_message(|| Array::from_slice(Device::Cuda(0), &[1.0f32]));
    assert!(msg.starts_with("Array::from_slice: CUDA:"), "{msg}");
    assert!(msg.contains(&reason), "{msg}");
    // A placeholder carries the label but no memory.
    let a = Array::<f32>::placeholder(Device::Cuda(0), [3]);
    assert_eq!(a.device(), Device::Cuda(0));
    let e = a.try_to_vec().unwrap_err();
    assert!(e.to_string().contains("placeholder"), "{e}");
}

#[test]
fn devices() {
    let Some(_g) = gpu("devices") else { return };
    let n = cuda::device_count().unwrap();
    assert!(n >= 1);
    assert_eq!(Device::cuda(0).unwrap(), Device::Cuda(0));
    let e = Device::cuda(n).unwrap_err();
    assert!(e.to_string().contains("no such device"), "{e}");
    assert_eq!(Device::best(), Device::Cuda(0));
    assert!(Device::Cuda(n).synchronize().is_err());
    let info = cuda::device_info(0).unwrap();
    println!(
        "cuda:0 = {} (sm_{}{}, {} SMs, {:.1} GiB); {n} device(s)",
        info.name,
        info.compute_capability.0,
        info.compute_capability.1,
        info.multiprocessors,
        info.total_memory as f64 / (1u64 << 30) as f64
    );
    assert!(!info.name.is_empty() && info.total_memory > 0);
    DEV.synchronize().unwrap();
}

fn round_trip<T: weft_runtime::Elem + PartialEq + std::fmt::Debug>(data: Vec<T>) {
    let a = Array::from_slice(DEV, &data);
    assert_eq!(a.device(), DEV);
    assert_eq!(a.len(), data.len());
    assert!(a.device_ptr().is_some());
    assert_eq!(a.to_vec(), data, "{}", std::any::type_name::<T>());
    let b = Array::from_vec(DEV, data.clone());
    assert_eq!(b.try_to_vec().unwrap(), data);
    let c = b.clone();
    if !data.is_empty() {
        assert_ne!(c.device_ptr(), b.device_ptr());
    }
    assert_eq!(c.to_vec(), data);
}

#[test]
fn array_round_trips() {
    let Some(_g) = gpu("array_round_trips") else {
        return;
    };
    let n: usize = 1001;
    round_trip((0..n).map(|i| i as f32 * 0.5 - 3.0).collect::<Vec<_>>());
    round_trip((0..n).map(|i| i as f64 * 1e-3).collect::<Vec<_>>());
    round_trip((0..n).map(|i| i as i32 - 500).collect::<Vec<_>>());
    round_trip((0..n).map(|i| i as u32 * 7).collect::<Vec<_>>());
    round_trip((0..n).map(|i| (i as u64) << 33).collect::<Vec<_>>());
    round_trip((0..n).map(|i| i % 3 == 0).collect::<Vec<_>>());
    round_trip(
        (0..n)
            .map(|i| Vec3::new(i as f32, -(i as f32), 0.25))
            .collect::<Vec<_>>(),
    );
    round_trip(
        (0..n)
            .map(|i| DVec3::new(i as f64, 1.0, -2.0))
            .collect::<Vec<_>>(),
    );
    round_trip(
        (0..n)
            .map(|i| Mat3::from_diagonal(Vec3::splat(i as f32)))
            .collect::<Vec<_>>(),
    );
    round_trip(
        (0..n)
            .map(|i| Transform::new(Vec3::new(i as f32, 2.0, 3.0), Quat::from_rotation_z(0.1)))
            .collect::<Vec<_>>(),
    );
    round_trip(Vec::<f32>::new());
    // Vec3 is 12 bytes on the device too.
    let v = Array::from_slice(DEV, &[Vec3::X, Vec3::Y]);
    let back = Array::from_slice(DEV, &[0.0f32; 6]);
    let mut back = back;
    let bytes = 24;
    assert_eq!(std::mem::size_of::<Vec3>() * v.len(), bytes);
    // Reinterpret through the host: the layout is glam's.
    let host: Vec<f32> = v.to_vec().iter().flat_map(|p| p.to_array()).collect();
    back.copy_from_slice(&host).unwrap();
    assert_eq!(back.to_vec(), vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    // 2-D arrays and shape errors.
    let m =
        Array::<f32, 2>::from_vec_shaped(DEV, (0..12).map(|i| i as f32).collect(), [3, 4]).unwrap();
    assert_eq!(m.shape(), [3, 4]);
    assert_eq!(m.to_vec()[11], 11.0);
    assert!(Array::<f32, 2>::from_vec_shaped(DEV, vec![0.0; 5], [2, 3]).is_err());
    let z = Array::<Vec3, 2>::zeros(DEV, [64, 33]);
    assert!(z.to_vec().iter().all(|v| *v == Vec3::ZERO));
    // A large array: 64 MiB each way. Copies into fresh host memory are dominated by
    // page faults on the VM (about 1 GB/s); into memory already touched, pageable
    // copies measured 12.6–14.6 GB/s on the H200 machine.
    let big: Vec<f32> = (0..(16 << 20)).map(|i| (i % 977) as f32).collect();
    let gbs = |s: f64| 64.0 * 1.048_576e-3 / s;
    for _ in 0..2 {
        let t = Instant::now();
        let mut a = Array::from_slice(DEV, &big);
        DEV.synchronize().unwrap();
        let up_new = t.elapsed().as_secs_f64();
        let t = Instant::now();
        a.copy_from_slice(&big).unwrap();
        DEV.synchronize().unwrap();
        let up = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let back = a.to_vec();
        let down_new = t.elapsed().as_secs_f64();
        assert_eq!(back, big);
        let mut host = Array::from_vec(Device::Cpu, back);
        let t = Instant::now();
        host.copy_from(&a).unwrap();
        let down = t.elapsed().as_secs_f64();
        println!(
            "64 MiB: host->device {:.1} GB/s (new array), {:.1} GB/s (existing); device->host {:.1} GB/s (to_vec), {:.1} GB/s (existing array)",
            gbs(up_new),
            gbs(up),
            gbs(down_new),
            gbs(down)
        );
    }
    // Odd sizes.
    for n in [(256 << 10) / 4 + 1, (8 << 20) / 4 - 3, (24 << 20) / 4 + 5] {
        let v: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let a = Array::from_slice(DEV, &v);
        assert_eq!(a.to_vec(), v, "{n}");
    }
}

#[test]
fn copies_between_devices_and_host() {
    let Some(_g) = gpu("copies_between_devices_and_host") else {
        return;
    };
    let data: Vec<f32> = (0..777).map(|i| i as f32).collect();
    let host = Array::from_slice(Device::Cpu, &data);
    // host -> device
    let mut d = Array::zeros(DEV, [777]);
    d.copy_from(&host).unwrap();
    assert_eq!(d.to_vec(), data);
    // device -> device
    let mut d2 = Array::zeros(DEV, [777]);
    d2.copy_from(&d).unwrap();
    assert_eq!(d2.to_vec(), data);
    // device -> host
    let mut h2 = Array::zeros(Device::Cpu, [777]);
    h2.copy_from(&d2).unwrap();
    assert_eq!(h2.as_slice().to_vec(), data);
    // to_device both ways
    let on_gpu = host.to_device(DEV);
    assert_eq!(on_gpu.device(), DEV);
    let back = on_gpu.to_device(Device::Cpu);
    assert_eq!(back.device(), Device::Cpu);
    assert_eq!(back.as_slice().to_vec(), data);
    // copy_from_slice onto the device; shape errors
    let mut e = Array::zeros(DEV, [3]);
    e.copy_from_slice(&[1.0f32, 2.0, 3.0]).unwrap();
    assert_eq!(e.to_vec(), vec![1.0, 2.0, 3.0]);
    assert!(e.copy_from_slice(&[1.0]).is_err());
    assert!(e.copy_from(&d).is_err());
    // Copying an array onto itself through a shared handle is a no-op.
    let shared = e.share();
    e.copy_from(&shared).unwrap();
    // Between two GPUs when there are two.
    if cuda::device_count().unwrap() > 1 {
        let other = d.to_device(Device::Cuda(1));
        assert_eq!(other.to_vec(), data);
        let mut again = Array::zeros(DEV, [777]);
        again.copy_from(&other).unwrap();
        assert_eq!(again.to_vec(), data);
    } else {
        println!("(one GPU: no copy between devices)");
    }
}

#[test]
fn fill_and_gradients() {
    let Some(_g) = gpu("fill_and_gradients") else {
        return;
    };
    let mut a = Array::<f32>::zeros(DEV, [1000]);
    a.fill(2.5);
    assert!(a.to_vec().iter().all(|&x| x == 2.5));
    let mut b = Array::<f64>::zeros(DEV, [999]);
    b.fill(-1.25);
    assert!(b.to_vec().iter().all(|&x| x == -1.25));
    let mut c = Array::<Vec3>::zeros(DEV, [513]);
    c.fill(Vec3::new(1.0, 2.0, 3.0));
    assert!(c.to_vec().iter().all(|&x| x == Vec3::new(1.0, 2.0, 3.0)));
    let mut t = Array::<Transform>::zeros(DEV, [100]);
    let tf = Transform::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_x(0.5));
    t.fill(tf);
    assert!(t.to_vec().iter().all(|&x| x == tf));
    let mut flags = Array::<bool>::zeros(DEV, [77]);
    flags.fill(true);
    assert!(flags.to_vec().iter().all(|&x| x));
    let mut i = Array::<i32>::zeros(DEV, [5]);
    i.fill(-7);
    assert_eq!(i.to_vec(), vec![-7; 5]);

    // Gradients live on the device too.
    let mut x = Array::from_slice(DEV, &[1.0f32, 2.0, 3.0]).requires_grad();
    assert!(x.has_grad());
    assert_eq!(x.grad_to_vec().unwrap(), vec![0.0; 3]);
    assert!(x.grad_device_ptr().is_some());
    assert_ne!(x.grad_device_ptr(), x.device_ptr());
    x.set_grad(&[4.0, 5.0, 6.0]).unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![4.0, 5.0, 6.0]);
    x.zero_grad();
    assert_eq!(x.grad_to_vec().unwrap(), vec![0.0; 3]);
    let mut y = Array::<f32>::zeros(DEV, [3]);
    assert_eq!(y.grad_device_ptr(), None);
    y.ensure_grad();
    assert_eq!(y.grad_to_vec().unwrap(), vec![0.0; 3]);

    // Host-only accessors say where the array lives.
    let msg = panic_message(|| {
        let _ = x.as_slice();
    });
    assert!(
        msg.contains("Array::as_slice: the array lives on cuda:0") && msg.contains("to_vec()"),
        "{msg}"
    );
    panic_message(|| x.grad().map(|g| g.len()));
    let e = x.view("k", "x").unwrap_err();
    assert!(matches!(e, Error::NotOnHost { device: DEV, .. }), "{e}");
    assert!(x.grad_view("k", "x").is_err());

    // Launcher arguments with their borrows: the version counts writes.
    let v0 = x.flags().version();
    {
        let (p, _r) = x.device_arg("k", "x").unwrap();
        assert_eq!(Some(p), x.device_ptr());
        // A writer while a reader holds the array is refused.
        let mut other = x.share();
        let e = other.device_arg_mut("k", "x").unwrap_err();
        assert!(e.to_string().contains("being read"), "{e}");
    }
    {
        let (_p, _w) = x.device_arg_mut("k", "x").unwrap();
    }
    // Borrowing for writing leaves the version alone: a launch bumps the
    // versions of the arrays it does write once it has launched (an array only
    // read through a `&mut` structure keeps its version for the tape).
    assert_eq!(x.flags().version(), v0);
    let (gp, gg) = x.grad_device_arg("k", "x").unwrap();
    assert_eq!(Some(gp), x.grad_device_ptr());
    assert!(gg.is_some());
    let (gp, gg) = y
        .share()
        .grad_device_arg("k", "y")
        .map(|(p, g)| (p, g.is_some()))
        .unwrap();
    assert!(gp != 0 && gg);
    let host = Array::from_slice(Device::Cpu, &[1.0f32]);
    assert_eq!(host.device_ptr(), None);
    let e = host.device_arg("k", "h").unwrap_err();
    assert!(e.to_string().contains("lives on cpu"), "{e}");
}

#[test]
fn hand_written_ptx_kernel() {
    let Some(_g) = gpu("hand_written_ptx_kernel") else {
        return;
    };
    let n = 1_000_003;
    let x = Array::from_vec(DEV, (0..n).map(|i| (i % 1000) as f32).collect());
    let mut y = Array::<f32>::zeros(DEV, [n]);
    y.fill(-1.0);
    let args = scale2_args(&x, &mut y);
    let grid = n.div_ceil(256) as u32;
    DEV.synchronize().unwrap();
    let t = Instant::now();
    cuda::launch(0, SCALE2, "scale2", grid, 256, &args).unwrap();
    let first = t.elapsed().as_secs_f64();
    DEV.synchronize().unwrap();
    let first_synced = t.elapsed().as_secs_f64();
    println!(
        "first launch of scale2 (module load + launch): {:.3} ms to return, {:.3} ms to complete",
        first * 1e3,
        first_synced * 1e3
    );
    let out = y.to_vec();
    assert!(
        out.iter()
            .enumerate()
            .all(|(i, &v)| v == 2.0 * (i % 1000) as f32)
    );
    // Through a launcher with other block sizes.
    for block in [32, 128, 1024] {
        y.fill(-1.0);
        Launcher::new(0)
            .block_size(block)
            .launch(SCALE2, "scale2", n, &args)
            .unwrap();
        assert_eq!(
            y.to_vec()[n - 1],
            2.0 * ((n - 1) % 1000) as f32,
            "block {block}"
        );
    }
    assert_eq!(Launcher::new(0).block(), cuda::DEFAULT_BLOCK);
    Launcher::new(0).launch(SCALE2, "scale2", 0, &args).unwrap();
    // A short argument buffer is refused, not read past.
    let e = cuda::launch(0, SCALE2, "scale2", 1, 1, &args[..16]).unwrap_err();
    assert!(
        e.to_string().contains("argument buffer has 16 bytes"),
        "{e}"
    );
    let e = cuda::launch(0, SCALE2, "missing_entry", 1, 1, &args).unwrap_err();
    assert!(e.to_string().contains("missing_entry"), "{e}");
    let loads = cuda::module_load_stats();
    let first = loads.iter().find(|l| l.kernel == "scale2").unwrap();
    println!(
        "module load of scale2 ({} bytes of PTX): {:.3} ms host, {:.3} ms JIT",
        first.ptx_bytes, first.millis, first.jit_millis
    );
    DEV.synchronize().unwrap();
}

#[test]
fn jit_errors_carry_the_log() {
    let Some(_g) = gpu("jit_errors_carry_the_log") else {
        return;
    };
    const BAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\n\
        .visible .entry broken(.param .align 8 .b8 __args[8])\n{\n    .reg .b32 %r<2>;\n    \
        mov.u32 %r1, %nosuchreg;\n    frobnicate.u32 %r1, %r1;\n    ret;\n}\n";
    let e = cuda::launch(0, BAD, "broken", 1, 1, &[0; 8]).unwrap_err();
    let msg = e.to_string();
    println!("JIT error as reported:\n{msg}");
    assert!(matches!(e, Error::Cuda { .. }));
    assert!(msg.contains("kernel `broken`"), "{msg}");
    assert!(msg.contains("JIT log"), "{msg}");
    // The device is still usable.
    let a = Array::from_slice(DEV, &[1.0f32]);
    assert_eq!(a.to_vec(), vec![1.0]);
}

#[test]
fn error_record_reports_out_of_bounds() {
    let Some(_g) = gpu("error_record_reports_out_of_bounds") else {
        return;
    };
    DEV.synchronize().unwrap();
    let id = cuda::kernel_id("oob_test");
    cuda::register_kernel_params(id, &["x", "y"]);
    let ptx = oob_ptx(id);
    let rec = cuda::error_record_ptr(0).unwrap();
    assert_ne!(rec, 0);
    let mut args = Vec::new();
    args.extend_from_slice(&rec.to_ne_bytes());
    args.extend_from_slice(&7i64.to_ne_bytes());
    args.extend_from_slice(&3i64.to_ne_bytes());
    // Many threads fail; the first report is kept.
    cuda::launch(0, ptx, "oob_test", 4, 256, &args).unwrap();
    let e = DEV.synchronize().unwrap_err();
    assert_eq!(
        e,
        Error::OutOfBounds {
            kernel: "oob_test".into(),
            param: "y".into(),
            index: 7,
            len: 3
        }
    );
    println!("reported: {e}");
    // Reported once, then cleared.
    DEV.synchronize().unwrap();
    // Reading an array back reports it too.
    let a = Array::from_slice(DEV, &[1.0f32, 2.0]);
    cuda::launch(0, ptx, "oob_test", 1, 1, &args).unwrap();
    let e = a.try_to_vec().unwrap_err();
    assert!(matches!(e, Error::OutOfBounds { index: 7, .. }), "{e}");
    let msg = panic_message(|| {
        cuda::launch(0, ptx, "oob_test", 1, 1, &args).unwrap();
        a.to_vec()
    });
    assert!(
        msg.contains("kernel `oob_test`: index 7 out of bounds for array `y`"),
        "{msg}"
    );
    DEV.synchronize().unwrap();
    assert_eq!(a.to_vec(), vec![1.0, 2.0]);
}

#[test]
fn graphs_capture_and_replay() {
    let Some(_g) = gpu("graphs_capture_and_replay") else {
        return;
    };
    let n = 4096;
    let mut a = Array::from_vec(DEV, vec![1.0f32; n]);
    let mut b = Array::<f32>::zeros(DEV, [n]);
    let ab = scale2_args(&a, &mut b);
    let ba = scale2_args(&b, &mut a);
    let launcher = Launcher::new(0);
    // Load outside the capture once.
    launcher.launch(SCALE2, "scale2", 0, &ab).unwrap();
    let mut scratch = Array::<f32>::zeros(DEV, [n]);
    let graph = Graph::capture(0, || {
        scratch.try_fill(9.0)?;
        launcher.launch(SCALE2, "scale2", n, &ab)?; // b = 2a
        launcher.launch(SCALE2, "scale2", n, &ba) // a = 2b
    })
    .unwrap();
    assert_eq!(graph.node_count(), 3);
    assert_eq!(graph.device(), DEV);
    // Nothing ran during the capture.
    assert_eq!(a.to_vec()[0], 1.0);
    assert_eq!(scratch.to_vec()[0], 0.0);
    for _ in 0..3 {
        graph.launch().unwrap();
    }
    DEV.synchronize().unwrap();
    assert!(a.to_vec().iter().all(|&x| x == 64.0));
    assert!(b.to_vec().iter().all(|&x| x == 32.0));
    assert_eq!(scratch.to_vec()[0], 9.0);

    // What cannot be captured is an error, and the capture is abandoned.
    let e = Graph::capture(0, || a.try_to_vec().map(|_| ())).unwrap_err();
    assert!(e.to_string().contains("Graph::capture"), "{e}");
    let e = Graph::capture(0, || Array::<f32>::try_zeros(DEV, [4]).map(|_| ())).unwrap_err();
    assert!(e.to_string().contains("allocate"), "{e}");
    let e = Graph::capture(0, || a.copy_from_slice(&vec![0.0; n])).unwrap_err();
    assert!(e.to_string().contains("Graph::capture"), "{e}");
    let e = Graph::capture(0, || Graph::capture(0, || Ok(())).map(|_| ())).unwrap_err();
    assert!(e.to_string().contains("do not nest"), "{e}");
    // A panic inside ends the capture too; the device keeps working.
    let msg = panic_message(|| Graph::capture(0, || panic!("inside")).ok());
    assert_eq!(msg, "inside");
    assert_eq!(a.to_vec()[0], 64.0);

    // A module first loaded inside a capture, with arrays kept alive by the graph.
    let x = Array::from_vec(DEV, vec![3.0f32; n]);
    let mut y = Array::<f32>::zeros(DEV, [n]);
    let y_out = y.share();
    let args = scale2_args(&x, &mut y);
    let g2 = Graph::capture(0, || {
        assert!(cuda::retain_in_capture(x.share()));
        assert!(cuda::retain_in_capture(y.share()));
        launcher.launch(SCALE2_AGAIN, "scale2", n, &args)
    })
    .unwrap();
    drop((x, y));
    g2.launch().unwrap();
    assert!(y_out.to_vec().iter().all(|&v| v == 6.0));
    assert!(!cuda::retain_in_capture(1u32));
    drop(g2);
    DEV.synchronize().unwrap();
}

#[test]
fn kernel_timing_sums_device_time_per_kernel() {
    let Some(_g) = gpu("kernel_timing_sums_device_time_per_kernel") else {
        return;
    };
    let n = 1 << 20;
    let x = Array::from_vec(DEV, vec![1.0f32; n]);
    let mut y = Array::<f32>::zeros(DEV, [n]);
    let args = scale2_args(&x, &mut y);
    let launcher = Launcher::new(0);
    launcher.launch(SCALE2, "scale2", n, &args).unwrap(); // loaded, untimed
    assert!(!cuda::kernel_timing());
    assert!(cuda::kernel_times().unwrap().is_empty());
    cuda::set_kernel_timing(true);
    for _ in 0..3 {
        launcher.launch(SCALE2, "scale2", n, &args).unwrap();
    }
    // A capture is not timed (events cannot be read from inside a graph).
    let graph = Graph::capture(0, || launcher.launch(SCALE2, "scale2", n, &args)).unwrap();
    graph.launch().unwrap();
    cuda::set_kernel_timing(false);
    launcher.launch(SCALE2, "scale2", n, &args).unwrap();
    let times = cuda::kernel_times().unwrap();
    assert_eq!(times.len(), 1, "{times:?}");
    assert_eq!((times[0].kernel, times[0].launches), ("scale2", 3));
    // 3 × 8 MiB moved: more than a microsecond, less than a second.
    assert!(times[0].ms > 1e-3 && times[0].ms < 1e3, "{times:?}");
    assert!(
        cuda::kernel_times().unwrap().is_empty(),
        "the sums were not cleared"
    );
    assert_eq!(y.to_vec()[n - 1], 2.0);
}
