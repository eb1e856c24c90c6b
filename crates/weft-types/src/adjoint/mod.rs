//! Derivative rules of the builtins and operators: one `adj_NAME` function per
//! differentiable entry of `weft_ir::builtins::BUILTINS` (same name with an `adj_` prefix,
//! every float overload), plus [`adj_add`], [`adj_sub`], [`adj_mul`], [`adj_div`],
//! [`adj_rem`] and [`adj_neg`] for the arithmetic operators.
//!
//! The reverse pass of a kernel calls, for each forward call `r = f(a, b, …)`,
//! `adj_f(a, b, …, adj_r)`: the arguments of the forward call followed by the adjoint of
//! its result. It returns the vector-Jacobian products `adj_r · ∂r/∂arg` — one value of the
//! argument's type for one-argument functions, the tuple `(adj_a, adj_b, …)` in argument
//! order otherwise. The caller accumulates them into the arguments' adjoints. Only the
//! float overloads have adjoints (integer and `bool` values carry no gradient), and every
//! argument of those gets one. The adjoint of a [`Transform`](crate::Transform) is a
//! `Transform` holding the adjoints of `p` and `q` (not a rigid transform).
//!
//! # Conventions
//!
//! * Each rule is the exact derivative of the CPU implementation's formula in
//!   [`crate::builtins`] (non-unit quaternions in `quat_rotate`, `normalize` of
//!   `quat_from_matrix`, the unit-`q` formula of `transform_inverse`, …), so central
//!   finite differences of the forward function agree with it. The f32 rules compute in
//!   f32 and the f64 rules in f64; elementary functions are `weft_math`'s.
//! * No NaN inside a function's domain. Where the derivative is infinite or undefined a
//!   defined value is returned, documented on each function: `sqrt`, `cbrt` at 0 → 0;
//!   `asin`, `acos` at ±1 → 0; `atan2(0, 0)` → 0; `length` and `normalize` of a zero
//!   vector → 0; `pow` → 0 where `x^y` is not differentiable; `log` at 0 → ±∞ (and 0 when
//!   `adj_r` is 0).
//! * Subgradients at kinks: `abs` at 0 → 0; `sign floor ceil round trunc` → 0; `min`,
//!   `max` send the adjoint to the argument they return, `a` on ties; `clamp` sends it to
//!   `x` when `lo <= x <= hi`, else to the bound it returns. Vectors: componentwise.
//!
//! ```
//! use weft_types::adjoint::{adj_dot, adj_sin};
//! use weft_types::Vec3;
//!
//! assert_eq!(adj_sin(0.0f64, 2.0), 2.0);
//! let (a, b) = (Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.0, 5.0, 6.0));
//! assert_eq!(adj_dot(a, b, 2.0), (b * 2.0, a * 2.0));
//! ```

mod fused;
mod matrix;
mod ops;
mod quat;
mod scalar;
mod spatial;
pub mod traits;
mod transform;
mod vector;

pub use fused::adj_fma;
pub use matrix::{
    adj_determinant, adj_diag, adj_inverse, adj_outer, adj_skew, adj_trace, adj_transpose,
};
pub use ops::{adj_add, adj_div, adj_mul, adj_neg, adj_rem, adj_sub};
pub use quat::{
    adj_quat_from_axis_angle, adj_quat_from_matrix, adj_quat_inverse, adj_quat_rotate,
    adj_quat_rotate_inv, adj_quat_to_matrix,
};
pub use scalar::{
    adj_abs, adj_acos, adj_asin, adj_atan, adj_atan2, adj_cbrt, adj_ceil, adj_clamp, adj_cos,
    adj_cosh, adj_exp, adj_exp2, adj_floor, adj_log, adj_log2, adj_log10, adj_max, adj_min,
    adj_pow, adj_round, adj_sign, adj_sin, adj_sinh, adj_sqrt, adj_tan, adj_tanh, adj_trunc,
};
pub use spatial::{adj_spatial_bottom, adj_spatial_cross, adj_spatial_cross_dual, adj_spatial_top};
pub use transform::{adj_transform_inverse, adj_transform_point, adj_transform_vector};
pub use vector::{adj_cross, adj_dot, adj_length, adj_length_sq, adj_normalize};
