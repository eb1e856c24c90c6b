//! `crate = path`: kernels, funcs and structures defined against this crate (no
//! facade), spelled as an extern crate or as a module that re-exports its
//! `__private`, work together and with the library funcs of `weft_runtime::funcs`.

use weft_macros::{func, kernel, structure};
use weft_runtime::funcs::lerp;
use weft_runtime::{Array, Device, Tape};
use weft_types::Vec3;

/// The runtime reached through a module of this crate.
mod rt {
    pub use weft_runtime::__private;
}

#[structure(crate = ::weft_runtime)]
#[derive(Default)]
pub struct Spring {
    pub rest: f32,
    pub stiffness: f32,
}

#[func(crate = ::weft_runtime)]
fn tension(s: Spring, length: f32) -> f32 {
    s.stiffness * (length - s.rest)
}

#[kernel(crate = crate::rt)]
fn forces(s: Spring, a: &Array<Vec3>, b: &Array<Vec3>, f: &mut Array<f32>) {
    let i = tid();
    f[i] = tension(s, length(b[i] - a[i]));
}

#[kernel(crate = "weft_runtime")]
fn blend(x: &Array<f32>, y: &mut Array<f32>, t: f32) {
    let i = tid();
    y[i] = lerp(x[i], 2.0 * x[i], t);
}

#[test]
fn kernels_calling_funcs_and_structures_of_either_spelling_launch() {
    let a = Array::from_slice(Device::Cpu, &[Vec3::ZERO, Vec3::ZERO]);
    let b = Array::from_slice(Device::Cpu, &[Vec3::X, Vec3::new(0.0, 3.0, 0.0)]);
    let mut f = Array::zeros(Device::Cpu, [2]);
    let s = Spring {
        rest: 1.0,
        stiffness: 10.0,
    };
    forces::launch(2, s, &a, &b, &mut f).unwrap();
    assert_eq!(f.to_vec(), vec![0.0, 20.0]);
}

#[test]
fn a_library_func_is_differentiated_through_a_kernel_without_the_facade() {
    let x = Array::from_slice(Device::Cpu, &[1.0f32, 2.0]).requires_grad();
    let mut y = Array::zeros(Device::Cpu, [2]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| blend::launch(2, &x, &mut y, 0.5)).unwrap();
    assert_eq!(y.to_vec(), vec![1.5, 3.0]);
    tape.backward_from(&mut y, &[1.0, 1.0]).unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![1.5, 1.5]);
}
