//! [`gradcheck`]: compares tape gradients with central finite differences.

use crate::tape::One;
use crate::{Array, Elem, Error, Tape};

/// Element types whose float components `gradcheck` can perturb.
pub trait Components: Elem {
    /// Number of float components.
    const COUNT: usize;
    /// Whether the components are `f64` (else `f32`), which sets the default step.
    const DOUBLE: bool;
    /// Component `i` as `f64`.
    fn get(&self, i: usize) -> f64;
    /// Sets component `i` (rounded to the component type).
    fn set(&mut self, i: usize, v: f64);
}

macro_rules! scalar_components {
    ($($t:ty: $d:literal),*) => {$(
        impl Components for $t {
            const COUNT: usize = 1;
            const DOUBLE: bool = $d;
            fn get(&self, _: usize) -> f64 {
                *self as f64
            }
            fn set(&mut self, _: usize, v: f64) {
                *self = v as $t;
            }
        }
    )*};
}
scalar_components!(f32: false, f64: true);

macro_rules! vector_components {
    ($($t:ty: $s:ty, $n:literal, $d:literal),*) => {$(
        impl Components for $t {
            const COUNT: usize = $n;
            const DOUBLE: bool = $d;
            fn get(&self, i: usize) -> f64 {
                self[i] as f64
            }
            fn set(&mut self, i: usize, v: f64) {
                self[i] = v as $s;
            }
        }
    )*};
}
vector_components!(weft_types::Vec2: f32, 2, false, weft_types::Vec3: f32, 3, false, weft_types::Vec4: f32, 4, false,
    weft_types::DVec2: f64, 2, true, weft_types::DVec3: f64, 3, true, weft_types::DVec4: f64, 4, true);

macro_rules! spatial_components {
    ($($t:ty: $s:ty, $d:literal),*) => {$(
        /// Linear (top) components first, then angular (bottom).
        impl Components for $t {
            const COUNT: usize = 6;
            const DOUBLE: bool = $d;
            fn get(&self, i: usize) -> f64 {
                if i < 3 { self.top[i] as f64 } else { self.bottom[i - 3] as f64 }
            }
            fn set(&mut self, i: usize, v: f64) {
                if i < 3 { self.top[i] = v as $s } else { self.bottom[i - 3] = v as $s }
            }
        }
    )*};
}
spatial_components!(weft_types::SpatialVector: f32, false, weft_types::DSpatialVector: f64, true);

/// The outcome of [`gradcheck`].
#[derive(Clone, Debug, PartialEq)]
pub struct GradCheck {
    /// Number of scalar components compared.
    pub checked: usize,
    /// Largest `|tape − finite difference|`; infinite where either was not finite.
    pub max_abs: f64,
    /// Largest `|tape − fd| / max(|fd|, 1)`.
    pub max_rel: f64,
    /// Where the largest relative error is: (input, element, component, tape, fd).
    pub worst: Option<(usize, usize, usize, f64, f64)>,
}

impl std::fmt::Display for GradCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "gradcheck: {} components, max abs error {:.3e}, max rel error {:.3e}",
            self.checked, self.max_abs, self.max_rel
        )?;
        if let Some((i, e, c, t, d)) = self.worst {
            write!(
                f,
                " (input {i}, element {e}, component {c}: tape {t:.6e}, finite difference {d:.6e})"
            )?;
        }
        Ok(())
    }
}

/// Compares the tape's gradient of a scalar loss with central finite differences,
/// over every component of every input array.
///
/// `f(inputs, loss)` must compute the loss from the inputs with kernel launches and
/// write it to `loss[0]` (overwriting it, not accumulating). It is run once on a tape
/// for the gradient, then twice per component with that component moved by ±`h`;
/// `h` is `step` times `max(|x|, 1)`, by default `1e-6` for f64 inputs and `2e-3` for
/// f32 inputs (about the cube root of the type's epsilon, which balances truncation
/// and rounding errors). The inputs are restored afterwards, and get gradients if
/// they had none.
pub fn gradcheck<T: Components, L: Elem + One + Into<f64>>(
    inputs: &mut [&mut Array<T>],
    step: Option<f64>,
    mut f: impl FnMut(&[&Array<T>], &mut Array<L>) -> Result<(), Error>,
) -> Result<GradCheck, Error> {
    for a in inputs.iter_mut() {
        if !a.has_grad() {
            let device = a.device();
            let taken = std::mem::replace(&mut **a, Array::zeros(device, [0]));
            **a = taken.requires_grad();
        }
        a.zero_grad();
    }
    let device = inputs.first().map(|a| a.device()).unwrap_or_default();
    let mut loss: Array<L> = Array::zeros(device, [1]).requires_grad();
    let mut tape = Tape::new();
    {
        let views: Vec<&Array<T>> = inputs.iter().map(|a| &**a).collect();
        tape.record(|| f(&views, &mut loss))?;
    }
    tape.backward(&mut loss)?;
    let grads: Vec<Vec<T>> = inputs
        .iter()
        .map(|a| a.grad_to_vec().unwrap_or_default())
        .collect();
    let step = step.unwrap_or(if T::DOUBLE { 1e-6 } else { 2e-3 });

    let mut out = GradCheck {
        checked: 0,
        max_abs: 0.0,
        max_rel: 0.0,
        worst: None,
    };
    for k in 0..inputs.len() {
        let original = inputs[k].to_vec();
        for e in 0..original.len() {
            for c in 0..T::COUNT {
                let x = original[e].get(c);
                let h = step * x.abs().max(1.0);
                let mut eval = |v: f64, inputs: &mut [&mut Array<T>]| -> Result<f64, Error> {
                    let mut data = original.clone();
                    data[e].set(c, v);
                    inputs[k].copy_from_slice(&data)?;
                    let views: Vec<&Array<T>> = inputs.iter().map(|a| &**a).collect();
                    f(&views, &mut loss)?;
                    Ok(loss.to_vec()[0].into())
                };
                // Use the step actually representable in the component type.
                let (xp, xm) = (x + h, x - h);
                let mut probe = original[e];
                probe.set(c, xp);
                let xp = probe.get(c);
                probe.set(c, xm);
                let xm = probe.get(c);
                let fp = eval(xp, inputs)?;
                let fm = eval(xm, inputs)?;
                let fd = (fp - fm) / (xp - xm);
                let t = grads[k][e].get(c);
                // A non-finite gradient or difference is an infinite error (not
                // NaN, which `max` would drop): the check can only fail on it.
                let (abs, rel) = if t.is_finite() && fd.is_finite() {
                    let abs = (t - fd).abs();
                    (abs, abs / fd.abs().max(1.0))
                } else {
                    (f64::INFINITY, f64::INFINITY)
                };
                out.checked += 1;
                out.max_abs = out.max_abs.max(abs);
                let first_infinite = rel.is_infinite() && out.max_rel.is_finite();
                if rel > out.max_rel || first_infinite || out.worst.is_none() {
                    out.max_rel = out.max_rel.max(rel);
                    out.worst = Some((k, e, c, t, fd));
                }
            }
        }
        inputs[k].copy_from_slice(&original)?;
    }
    Ok(out)
}
