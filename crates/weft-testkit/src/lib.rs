//! What Weft's tests, examples and benchmarks share.
//!
//! Always present (`std` and `serde_json` only, so the crates below the facade
//! can use them without building the engine):
//! - [`gpu_policy`]: what a test does without a GPU or `ptxas` (skip, or fail
//!   under `WEFT_REQUIRE_CUDA=1`);
//! - [`Rng`] and [`random_f32s`]: seeded, reproducible inputs;
//! - [`references`]: the committed reference data (MuJoCo, Pinocchio) and the
//!   comparisons made with it.
//!
//! With the default `engine` feature:
//! - [`devices`]: running on every device, CPU/CUDA parity, the PTX checks;
//! - [`fd_check`]: adjoints against finite differences;
//! - workloads shared by tests, examples and benches ([`bounce`], [`cloth`],
//!   [`sph`], [`rigid_pile`], …).
//!
//! ```
//! let mut rng = weft_testkit::Rng::new(7);
//! let x = rng.range(-1.0, 1.0);
//! assert!((-1.0..1.0).contains(&x));
//! assert_eq!(weft_testkit::random_f32s(1, 7, -1.0, 1.0), [x]);
//! ```

#![deny(missing_docs)]

pub mod gpu_policy;
pub mod references;
mod rng;

pub use rng::{Rng, random_f32s};

#[cfg(feature = "engine")]
pub mod billiards;
#[cfg(feature = "engine")]
pub mod bounce;
#[cfg(feature = "engine")]
pub mod cloth;
#[cfg(feature = "engine")]
pub mod cloth_throw;
#[cfg(feature = "engine")]
pub mod devices;
#[cfg(feature = "engine")]
pub mod fd_check;
#[cfg(feature = "engine")]
pub mod granular;
#[cfg(feature = "engine")]
pub mod mesh_workload;
#[cfg(feature = "engine")]
pub mod particles;
#[cfg(feature = "engine")]
pub mod rigid_pile;
#[cfg(feature = "engine")]
pub mod sph;
#[cfg(feature = "engine")]
pub mod spring_robot;
