//! Launch overhead of a tiny hand-written CUDA kernel (`scale2`, 1024 threads): host
//! time to enqueue one launch, a launch followed by a synchronisation, 100 launches
//! one by one against a captured graph of the same 100 launches replayed, and the
//! module load of the first launch (printed). Without a GPU it prints
//! `SKIPPED (no CUDA)` and measures nothing (a failure under `WEFT_REQUIRE_CUDA=1`).
//! Run by `scripts/gpu-check.sh`'s runner; it was a `#[test]` of `cuda_runtime.rs`.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use weft_runtime::cuda::{self, Graph, Launcher};
use weft_runtime::{Array, Device};

#[path = "../tests/common/scale2.rs"]
mod scale2;
use scale2::{SCALE2, scale2_args};

use weft_testkit::gpu_policy;

const DEV: Device = Device::Cuda(0);
/// Threads per launch.
const N: usize = 1024;
/// Launches per graph (and per one-by-one batch it is compared with).
const PER_GRAPH: usize = 100;

fn bench(c: &mut Criterion) {
    if let Some(reason) = cuda::skip_reason() {
        gpu_policy::skip_without_cuda("launch_overhead benchmark", &reason);
        return;
    }
    let x = Array::from_vec(DEV, vec![1.0f32; N]);
    let mut y = Array::<f32>::zeros(DEV, [N]);
    let args = scale2_args(&x, &mut y);
    let launcher = Launcher::new(0);
    let launch = || launcher.launch(SCALE2, "scale2", N, &args).unwrap();
    launch();
    DEV.synchronize().unwrap();
    for l in cuda::module_load_stats() {
        println!(
            "module load: kernel `{}`, {} bytes of PTX, {:.3} ms ({:.3} ms JIT)",
            l.kernel, l.ptx_bytes, l.millis, l.jit_millis
        );
    }
    let mut g = c.benchmark_group("cuda_launch_1024_threads");
    // Host time of the enqueueing only; the synchronisation after the batch is
    // outside the timed span.
    g.bench_function("enqueue", |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            for _ in 0..iters {
                launch();
            }
            let spent = t.elapsed();
            DEV.synchronize().unwrap();
            spent
        })
    });
    g.bench_function("launch_then_synchronize", |b| {
        b.iter(|| {
            launch();
            DEV.synchronize().unwrap();
        })
    });
    g.bench_function("100_launches_then_synchronize", |b| {
        b.iter(|| {
            for _ in 0..PER_GRAPH {
                launch();
            }
            DEV.synchronize().unwrap();
        })
    });
    let graph = Graph::capture(0, || {
        (0..PER_GRAPH).try_for_each(|_| launcher.launch(SCALE2, "scale2", N, &args))
    })
    .unwrap();
    g.bench_function("graph_of_100_launches_then_synchronize", |b| {
        b.iter(|| {
            graph.launch().unwrap();
            DEV.synchronize().unwrap();
        })
    });
    g.finish();
    assert!(
        y.to_vec().iter().all(|&v| v == 2.0),
        "scale2 computed a wrong result"
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
