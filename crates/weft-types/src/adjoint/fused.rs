//! Adjoint of `fma`.

use crate::builtins::traits::MulAdd;
use core::ops::Mul;

/// Adjoint of `fma(a, b, c) = a b + c` (componentwise for vectors), with
/// `G = adj_r`: `(G b, G a, G)`.
///
/// ```
/// use weft_types::adjoint::adj_fma;
/// assert_eq!(adj_fma(2.0f32, 3.0, 4.0, 0.5), (1.5, 1.0, 0.5));
/// ```
#[inline]
pub fn adj_fma<T: MulAdd + Mul<Output = T>>(a: T, b: T, _c: T, adj_r: T) -> (T, T, T) {
    (adj_r * b, adj_r * a, adj_r)
}
