//! Helpers shared by Weft's integration tests, examples and benchmarks.

#![deny(missing_docs)]

pub mod billiards;
pub mod bounce;
pub mod cloth;
pub mod cloth_throw;
pub mod devices;
pub mod fd_check;
pub mod gpu_policy;
pub mod granular;
pub mod mesh_workload;
pub mod particles;
pub mod rigid_pile;
pub mod sph;
pub mod spring_robot;

/// Deterministic pseudo-random f32 values in `[lo, hi)` (SplitMix64), for test inputs.
pub fn random_f32s(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            let u = (z >> 40) as f32 / (1u64 << 24) as f32;
            lo + (hi - lo) * u
        })
        .collect()
}
