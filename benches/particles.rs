//! Particle integration (semi-implicit Euler, gravity, ground plane), N = 1M:
//! the Weft kernel against the same math as a hand-written rayon loop, and both
//! against the ceiling of a memory-bound kernel that updates its arrays in place: a
//! read-modify-write pass over the same x and v arrays that does no math
//! (`in_place_ceiling`). Bytes per particle: read x, v and write x, v = 48 B.
//!
//! `parallel_copy_same_bytes` copies 24 MB into a separate buffer: its stores miss
//! the cache and read their lines first (write-allocate), 72 MB of traffic for the
//! 48 counted, so it is a floor the in-place kernel beats, not a limit. Report the
//! kernel as a fraction of `in_place_ceiling`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use weft::prelude::*;
use weft_testkit::particles::integrate;

const N: usize = 1 << 20;
const DT: f32 = 1.0 / 600.0;

fn hand_written(x: &mut [Vec3], v: &mut [Vec3], g: Vec3, dt: f32) {
    let threads = rayon::current_num_threads();
    let grain = (x.len() / (threads * 4)).max(1024);
    x.par_iter_mut()
        .zip(v.par_iter_mut())
        .with_min_len(grain)
        .for_each(|(p, u)| {
            let mut vel = *u + g * dt;
            let mut pos = *p + vel * dt;
            if pos.z < 0.0 {
                pos.z = 0.0;
                vel.z *= -0.5;
            }
            *p = pos;
            *u = vel;
        });
}

/// The same loop, chunked by hand so each worker runs a plain inner loop.
fn hand_written_chunks(x: &mut [Vec3], v: &mut [Vec3], g: Vec3, dt: f32) {
    let threads = rayon::current_num_threads();
    let chunk = x.len().div_ceil(threads * 4).max(1024);
    x.par_chunks_mut(chunk)
        .zip(v.par_chunks_mut(chunk))
        .for_each(|(xs, vs)| {
            for (p, u) in xs.iter_mut().zip(vs.iter_mut()) {
                let mut vel = *u + g * dt;
                let mut pos = *p + vel * dt;
                if pos.z < 0.0 {
                    pos.z = 0.0;
                    vel.z *= -0.5;
                }
                *p = pos;
                *u = vel;
            }
        });
}

/// The least an in-place update of x and v can cost: each component gets `+ k`
/// (`k` = 0, hidden from the optimiser), the same reads and writes as the kernel.
fn in_place_ceiling(x: &mut [Vec3], v: &mut [Vec3], k: f32) {
    let threads = rayon::current_num_threads();
    let chunk = x.len().div_ceil(threads * 4).max(1024);
    x.par_chunks_mut(chunk)
        .zip(v.par_chunks_mut(chunk))
        .for_each(|(xs, vs)| {
            for (p, u) in xs.iter_mut().zip(vs.iter_mut()) {
                *p += Vec3::splat(k);
                *u += Vec3::splat(k);
            }
        });
}

fn parallel_copy(src: &[u8], dst: &mut [u8]) {
    let threads = rayon::current_num_threads();
    let chunk = (src.len() / (threads * 4)).max(1 << 16);
    dst.par_chunks_mut(chunk)
        .zip(src.par_chunks(chunk))
        .for_each(|(d, s)| d.copy_from_slice(s));
}

fn initial() -> (Vec<Vec3>, Vec<Vec3>) {
    let r = weft_testkit::random_f32s(3 * N, 1, -1.0, 1.0);
    let x = (0..N)
        .map(|i| Vec3::new(r[3 * i], r[3 * i + 1], r[3 * i + 2].abs() * 10.0))
        .collect();
    let v = (0..N)
        .map(|i| Vec3::new(r[3 * i + 2], r[3 * i], r[3 * i + 1]))
        .collect();
    (x, v)
}

fn bench(c: &mut Criterion) {
    let g = Vec3::new(0.0, 0.0, -9.81);
    let bytes = (N * 48) as u64;
    let mut group = c.benchmark_group("particles_1M");
    group.throughput(Throughput::Bytes(bytes));
    group.sample_size(50);

    let (x0, v0) = initial();
    let mut x = Array::from_vec(Device::Cpu, x0.clone());
    let mut v = Array::from_vec(Device::Cpu, v0.clone());
    group.bench_function("weft_kernel", |b| {
        b.iter(|| integrate::launch(N, &mut x, &mut v, g, DT).unwrap())
    });

    let (mut hx, mut hv) = (x0.clone(), v0.clone());
    group.bench_function("hand_written_rayon", |b| {
        b.iter(|| hand_written(&mut hx, &mut hv, g, DT))
    });

    let (mut cx, mut cv) = (x0, v0);
    group.bench_function("hand_written_chunks", |b| {
        b.iter(|| hand_written_chunks(&mut cx, &mut cv, g, DT))
    });

    // The ceiling: the kernel's reads and in-place writes, no math.
    let (mut ix, mut iv) = initial();
    let k = std::hint::black_box(0.0f32);
    group.bench_function("in_place_ceiling", |b| {
        b.iter(|| in_place_ceiling(&mut ix, &mut iv, k))
    });

    // 24 MB read and 24 MB written into another buffer (plus the write-allocate
    // reads of the destination's lines): not a ceiling, see the module docs.
    let src = vec![1u8; N * 24];
    let mut dst = vec![0u8; N * 24];
    group.bench_function("parallel_copy_same_bytes", |b| {
        b.iter(|| parallel_copy(&src, &mut dst))
    });
    group.finish();

    // The kernel and the hand-written loop compute the same thing.
    let (x1, v1) = initial();
    let mut a = Array::from_vec(Device::Cpu, x1.clone());
    let mut b = Array::from_vec(Device::Cpu, v1.clone());
    integrate::launch(N, &mut a, &mut b, g, DT).unwrap();
    let (mut hx, mut hv) = (x1.clone(), v1.clone());
    hand_written(&mut hx, &mut hv, g, DT);
    assert_eq!(&*a.as_slice(), &hx[..]);
    assert_eq!(&*b.as_slice(), &hv[..]);
    let (mut cx, mut cv) = (x1, v1);
    hand_written_chunks(&mut cx, &mut cv, g, DT);
    assert_eq!(&*a.as_slice(), &cx[..]);
    assert_eq!(&*b.as_slice(), &cv[..]);
}

criterion_group!(benches, bench);
criterion_main!(benches);
