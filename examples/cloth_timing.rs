//! Times the cloth benchmark's workload (`crates/weft-testkit/src/cloth.rs`: a `dim × dim`
//! grid 0.1 apart, mass 0.1, two corners fixed, springs at grid distance 1 and 2
//! and along both diagonals, stiffness 1000, damping 10, 16 substeps per 60 Hz
//! frame) on the CPU, for A/B runs of two builds:
//!
//! `cargo run --release --example cloth_timing -- [dim] [substeps] [warm-up]`
//!
//! Prints wall-clock µs per substep, the process's CPU time per substep (all
//! threads) and the calling thread's, read from `/proc`, and a checksum of the
//! final positions (the same for builds that compute the same thing).

use std::time::Instant;

use weft::Device;
use weft_testkit::cloth::Workload;

/// CPU seconds (user + system) from a `/proc/.../stat` file.
fn cpu_seconds(path: &str) -> f64 {
    let s = std::fs::read_to_string(path).expect("procfs");
    // Fields after the command name (which is in parentheses).
    let rest = &s[s.rfind(')').expect("stat format") + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    ticks / 100.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let dim = args.first().copied().unwrap_or(128);
    let steps = args.get(1).copied().unwrap_or(2000);
    let warm = args.get(2).copied().unwrap_or(200);
    let mut w = Workload::new(Device::Cpu, dim)?;
    for _ in 0..warm {
        w.substep()?;
    }
    let (p0, t0, w0) = (
        cpu_seconds("/proc/self/stat"),
        cpu_seconds("/proc/thread-self/stat"),
        Instant::now(),
    );
    for _ in 0..steps {
        w.substep()?;
    }
    let wall = w0.elapsed().as_secs_f64();
    let (p1, t1) = (
        cpu_seconds("/proc/self/stat"),
        cpu_seconds("/proc/thread-self/stat"),
    );
    let q = w.a.particle_q.to_vec();
    let sum: f64 = q.iter().map(|p| (p.x + 2.0 * p.y + 3.0 * p.z) as f64).sum();
    let per = |s: f64| s / steps as f64 * 1e6;
    println!(
        "dim {dim} substeps {steps}: wall {:.1} µs/substep, process CPU {:.1} µs, main thread CPU {:.1} µs; checksum {sum:.6}",
        per(wall),
        per(p1 - p0),
        per(t1 - t0)
    );
    Ok(())
}
