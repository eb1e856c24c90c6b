//! Times the CPU SPH step of `benches/sph.rs`'s workload (32,000 particles)
//! after `settle` steps (default 600), `reps` repetitions of each phase
//! (default 60): `cargo run --release --example sph_timing -- [settle] [reps]`.
//! Prints the mean neighbour count, then per phase the wall time and the
//! process CPU time (all threads, from `/proc/self/stat`, 10 ms ticks) per
//! repetition: on a shared machine the CPU time is the steadier measure of
//! the work (`RAYON_NUM_THREADS=1` for one thread's). The steps come last and
//! advance the fluid. Environment: `WEFT_SPH_STATE=file` reads the settled
//! state from `file` when it exists and writes it there otherwise (so that
//! `valgrind --tool=callgrind` need not settle); `WEFT_SPH_PHASE=name` times
//! one phase only (grid, density, forces, integrate, step).

use std::time::Instant;
use weft::prelude::*;
use weft_testkit::sph::Workload;

/// CPU time of the process (all threads, user + system), seconds.
fn cpu_time() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let rest = &s[s.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let tick = 100.0;
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / tick
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap())
        .collect();
    let settle = args.first().copied().unwrap_or(600);
    let reps = args.get(1).copied().unwrap_or(60);
    let mut w = Workload::new(Device::Cpu, 32_000).unwrap();
    // `WEFT_SPH_STATE=file`: the settled state is read from `file` when it
    // exists (written there after settling otherwise), so that slow tools
    // (valgrind) need not settle.
    let file = std::env::var("WEFT_SPH_STATE").ok();
    match file.as_deref().map(std::fs::read) {
        Some(Ok(bytes)) => {
            let f: Vec<f32> = bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            let v: Vec<Vec3> = f.chunks_exact(3).map(Vec3::from_slice).collect();
            let n = w.model.particle_count();
            w.a.particle_q = Array::from_slice(Device::Cpu, &v[..n]);
            w.a.particle_qd = Array::from_slice(Device::Cpu, &v[n..]);
        }
        _ => {
            for _ in 0..settle {
                w.step().unwrap();
            }
            if let Some(f) = &file {
                let mut v = w.a.particle_q.to_vec();
                v.extend(w.a.particle_qd.to_vec());
                let bytes: Vec<u8> = v
                    .iter()
                    .flat_map(|p| p.to_array())
                    .flat_map(f32::to_le_bytes)
                    .collect();
                std::fs::write(f, bytes).unwrap();
            }
        }
    }
    w.grid().unwrap();
    println!(
        "settle {settle}: mean neighbours {:.1}",
        w.mean_neighbours().unwrap()
    );
    // `WEFT_SPH_PHASE=name`: time only that phase.
    let only = std::env::var("WEFT_SPH_PHASE").ok();
    let mut time = |name: &str, f: &mut dyn FnMut(&mut Workload)| {
        if only.as_deref().is_some_and(|o| o != name) {
            return;
        }
        let (t0, c0) = (Instant::now(), cpu_time());
        for _ in 0..reps {
            f(&mut w);
        }
        let (t, c) = (t0.elapsed().as_secs_f64(), cpu_time() - c0);
        println!(
            "{name:>9}: wall {:6.2} ms, cpu {:6.2} ms",
            1e3 * t / reps as f64,
            1e3 * c / reps as f64
        );
    };
    time("grid", &mut |w| w.grid().unwrap());
    time("density", &mut |w| w.density().unwrap());
    time("forces", &mut |w| w.forces().unwrap());
    time("integrate", &mut |w| w.integrate().unwrap());
    // Steps last: they advance the fluid (by `reps` steps).
    time("step", &mut |w| w.step().unwrap());
}
