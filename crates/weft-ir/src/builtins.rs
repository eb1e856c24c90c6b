//! The builtin function table: names, overloads (argument types → result type) and
//! whether each is differentiable.
//!
//! Every builtin `name` is implemented for the CPU by `weft_types::builtins::name`
//! (dispatched on the argument types by rustc) and, for the GPU, by the PTX emitter.
//! The type checker resolves overloads here, so all back ends agree on result types.

use crate::types::{Scalar, Type};

/// Documentation of one builtin, for error messages and the README table.
#[derive(Clone, Copy, Debug)]
pub struct BuiltinDoc {
    /// Function name as written in kernels.
    pub name: &'static str,
    /// The accepted signatures, human readable.
    pub signatures: &'static str,
    /// Whether the builtin has a derivative rule (integer results never carry gradients).
    pub differentiable: bool,
}

macro_rules! table {
    ($( $name:literal : $sig:literal, $diff:literal; )*) => {
        /// All builtin functions callable from kernels and funcs.
        pub const BUILTINS: &[BuiltinDoc] = &[
            $( BuiltinDoc { name: $name, signatures: $sig, differentiable: $diff }, )*
        ];
    };
}

table! {
    "sin": "(F) -> F for F in f32, f64", true;
    "cos": "(F) -> F", true;
    "tan": "(F) -> F", true;
    "asin": "(F) -> F", true;
    "acos": "(F) -> F", true;
    "atan": "(F) -> F", true;
    "atan2": "(y: F, x: F) -> F", true;
    "sinh": "(F) -> F", true;
    "cosh": "(F) -> F", true;
    "tanh": "(F) -> F", true;
    "exp": "(F) -> F", true;
    "exp2": "(F) -> F", true;
    "log": "(F) -> F", true;
    "log2": "(F) -> F", true;
    "log10": "(F) -> F", true;
    "pow": "(F, F) -> F", true;
    "sqrt": "(F) -> F", true;
    "cbrt": "(F) -> F", true;
    "floor": "(F) -> F", true;
    "ceil": "(F) -> F", true;
    "round": "(F) -> F", true;
    "trunc": "(F) -> F", true;
    "abs": "(S) -> S, (V) -> V componentwise, S any signed/float scalar", true;
    "sign": "(S) -> S, (V) -> V: -1, 0 or 1", true;
    "min": "(T, T) -> T for scalars and vectors (componentwise)", true;
    "max": "(T, T) -> T for scalars and vectors (componentwise)", true;
    "clamp": "(x: T, lo: T, hi: T) -> T for scalars and vectors", true;
    "fma": "(a: T, b: T, c: T) -> T, a * b + c rounded once, for float scalars and vectors (componentwise)", true;
    "dot": "(V, V) -> F; (Quat, Quat) -> F; (SpatialVector, SpatialVector) -> F", true;
    "cross": "(Vec3, Vec3) -> Vec3", true;
    "length": "(V) -> F; (Quat) -> F", true;
    "length_sq": "(V) -> F; (Quat) -> F", true;
    "normalize": "(V) -> V; (Quat) -> Quat (zero stays zero)", true;
    "outer": "(VecN, VecN) -> MatN", true;
    "transpose": "(MatN) -> MatN", true;
    "determinant": "(MatN) -> F", true;
    "inverse": "(MatN) -> MatN; (Quat) -> Quat; (Transform) -> Transform", true;
    "trace": "(MatN) -> F", true;
    "diag": "(VecN) -> MatN", true;
    "skew": "(Vec3) -> Mat3 (skew(a) * b == cross(a, b))", true;
    "quat_from_axis_angle": "(axis: Vec3, angle: F) -> Quat", true;
    "quat_to_matrix": "(Quat) -> Mat3", true;
    "quat_from_matrix": "(Mat3) -> Quat", true;
    "quat_inverse": "(Quat) -> Quat", true;
    "quat_rotate": "(Quat, Vec3) -> Vec3", true;
    "quat_rotate_inv": "(Quat, Vec3) -> Vec3", true;
    "transform_point": "(Transform, Vec3) -> Vec3", true;
    "transform_vector": "(Transform, Vec3) -> Vec3", true;
    "transform_inverse": "(Transform) -> Transform", true;
    "spatial_top": "(SpatialVector) -> Vec3 (linear part)", true;
    "spatial_bottom": "(SpatialVector) -> Vec3 (angular part)", true;
    "spatial_cross": "(SpatialVector, SpatialVector) -> SpatialVector (motion cross product)", true;
    "spatial_cross_dual": "(SpatialVector, SpatialVector) -> SpatialVector (force cross product)", true;
    "rand_init": "(seed: u32, offset: u32) -> u32 state", false;
    "randi": "(&mut u32 state) -> u32", false;
    "randf": "(&mut u32 state) -> f32 in [0, 1)", false;
    "randf_range": "(&mut u32 state, lo: f32, hi: f32) -> f32", false;
    "randn": "(&mut u32 state) -> f32 standard normal", false;
    "f32_to_bits": "(f32) -> u32", false;
    "f32_from_bits": "(u32) -> f32", false;
    "f64_to_bits": "(f64) -> u64", false;
    "f64_from_bits": "(u64) -> f64", false;
    "stop_gradient": "(T) -> T: its argument, through which no gradient flows back (for float scalars, vectors, matrices, quaternions, transforms and spatial values)", false;
    "thread_fence": "() -> (): orders the thread's memory accesses across the device (writes before it are seen by a thread that sees a later atomic of this one)", false;
}

/// Builtins whose first argument is `&mut` a local `u32` random state.
pub const RNG_BUILTINS: &[&str] = &["randi", "randf", "randf_range", "randn"];

/// Looks a builtin up by name.
pub fn doc(name: &str) -> Option<&'static BuiltinDoc> {
    BUILTINS.iter().find(|b| b.name == name)
}

fn float(t: &Type) -> Option<Scalar> {
    match t {
        Type::Scalar(s) if s.is_float() => Some(*s),
        _ => None,
    }
}

fn float_vector(t: &Type) -> Option<(u8, Scalar)> {
    match t {
        Type::Vector(n, s) if s.is_float() => Some((*n, *s)),
        _ => None,
    }
}

/// Resolves a call of builtin `name` with argument types `args` to its result type.
///
/// The error string says what is accepted; the caller adds the span.
pub fn resolve(name: &str, args: &[Type]) -> Result<Type, String> {
    let Some(d) = doc(name) else {
        return Err(format!("`{name}` is not a builtin"));
    };
    let bad = || {
        let got: Vec<_> = args.iter().map(|t| t.rust_name()).collect();
        format!(
            "no overload of `{name}` takes ({}); accepted: {}",
            got.join(", "),
            d.signatures
        )
    };
    let arity = |n: usize| -> Result<(), String> {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!(
                "`{name}` takes {n} argument{}, found {}; accepted: {}",
                if n == 1 { "" } else { "s" },
                args.len(),
                d.signatures
            ))
        }
    };
    let same = |a: &Type, b: &Type| a == b;
    use Type as T;
    let r = match name {
        "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "sinh" | "cosh" | "tanh" | "exp"
        | "exp2" | "log" | "log2" | "log10" | "sqrt" | "cbrt" | "floor" | "ceil" | "round"
        | "trunc" => {
            arity(1)?;
            float(&args[0]).map(T::Scalar)
        }
        "atan2" | "pow" => {
            arity(2)?;
            float(&args[0])
                .filter(|_| same(&args[0], &args[1]))
                .map(T::Scalar)
        }
        "abs" | "sign" => {
            arity(1)?;
            match &args[0] {
                T::Scalar(s) if s.is_float() || s.is_signed_int() => Some(args[0].clone()),
                T::Vector(_, s) if s.is_float() || s.is_signed_int() => Some(args[0].clone()),
                _ => None,
            }
        }
        "min" | "max" => {
            arity(2)?;
            match &args[0] {
                T::Scalar(s) | T::Vector(_, s)
                    if *s != Scalar::Bool && same(&args[0], &args[1]) =>
                {
                    Some(args[0].clone())
                }
                _ => None,
            }
        }
        "clamp" => {
            arity(3)?;
            match &args[0] {
                T::Scalar(s) | T::Vector(_, s)
                    if *s != Scalar::Bool
                        && same(&args[0], &args[1])
                        && same(&args[0], &args[2]) =>
                {
                    Some(args[0].clone())
                }
                _ => None,
            }
        }
        "fma" => {
            arity(3)?;
            match &args[0] {
                T::Scalar(s) | T::Vector(_, s)
                    if s.is_float() && same(&args[0], &args[1]) && same(&args[0], &args[2]) =>
                {
                    Some(args[0].clone())
                }
                _ => None,
            }
        }
        "dot" => {
            arity(2)?;
            match &args[0] {
                T::Vector(_, s) | T::Quat(s) | T::SpatialVector(s)
                    if s.is_float() && same(&args[0], &args[1]) =>
                {
                    Some(T::Scalar(*s))
                }
                _ => None,
            }
        }
        "cross" => {
            arity(2)?;
            match float_vector(&args[0]) {
                Some((3, _)) if same(&args[0], &args[1]) => Some(args[0].clone()),
                _ => None,
            }
        }
        "length" | "length_sq" => {
            arity(1)?;
            match &args[0] {
                T::Vector(_, s) | T::Quat(s) if s.is_float() => Some(T::Scalar(*s)),
                _ => None,
            }
        }
        "normalize" => {
            arity(1)?;
            match &args[0] {
                T::Vector(_, s) | T::Quat(s) if s.is_float() => Some(args[0].clone()),
                _ => None,
            }
        }
        "outer" => {
            arity(2)?;
            match float_vector(&args[0]) {
                Some((n, s)) if same(&args[0], &args[1]) => Some(T::Matrix(n, s)),
                _ => None,
            }
        }
        "transpose" => {
            arity(1)?;
            matches!(args[0], T::Matrix(..)).then(|| args[0].clone())
        }
        "determinant" | "trace" => {
            arity(1)?;
            match &args[0] {
                T::Matrix(_, s) => Some(T::Scalar(*s)),
                _ => None,
            }
        }
        "inverse" => {
            arity(1)?;
            matches!(args[0], T::Matrix(..) | T::Quat(_) | T::Transform(_)).then(|| args[0].clone())
        }
        "diag" => {
            arity(1)?;
            float_vector(&args[0]).map(|(n, s)| T::Matrix(n, s))
        }
        "skew" => {
            arity(1)?;
            match float_vector(&args[0]) {
                Some((3, s)) => Some(T::Matrix(3, s)),
                _ => None,
            }
        }
        "quat_from_axis_angle" => {
            arity(2)?;
            match (&args[0], &args[1]) {
                (T::Vector(3, s), T::Scalar(s2)) if s.is_float() && s == s2 => Some(T::Quat(*s)),
                _ => None,
            }
        }
        "quat_to_matrix" => {
            arity(1)?;
            match &args[0] {
                T::Quat(s) => Some(T::Matrix(3, *s)),
                _ => None,
            }
        }
        "quat_from_matrix" => {
            arity(1)?;
            match &args[0] {
                T::Matrix(3, s) => Some(T::Quat(*s)),
                _ => None,
            }
        }
        "quat_inverse" => {
            arity(1)?;
            matches!(args[0], T::Quat(_)).then(|| args[0].clone())
        }
        "quat_rotate" | "quat_rotate_inv" => {
            arity(2)?;
            match (&args[0], &args[1]) {
                (T::Quat(s), T::Vector(3, s2)) if s == s2 => Some(args[1].clone()),
                _ => None,
            }
        }
        "transform_point" | "transform_vector" => {
            arity(2)?;
            match (&args[0], &args[1]) {
                (T::Transform(s), T::Vector(3, s2)) if s == s2 => Some(args[1].clone()),
                _ => None,
            }
        }
        "transform_inverse" => {
            arity(1)?;
            matches!(args[0], T::Transform(_)).then(|| args[0].clone())
        }
        "spatial_top" | "spatial_bottom" => {
            arity(1)?;
            match &args[0] {
                T::SpatialVector(s) => Some(T::Vector(3, *s)),
                _ => None,
            }
        }
        "spatial_cross" | "spatial_cross_dual" => {
            arity(2)?;
            (matches!(args[0], T::SpatialVector(_)) && same(&args[0], &args[1]))
                .then(|| args[0].clone())
        }
        "rand_init" => {
            arity(2)?;
            (args[0] == T::U32 && args[1] == T::U32).then_some(T::U32)
        }
        "randi" => {
            arity(1)?;
            (args[0] == T::U32).then_some(T::U32)
        }
        "randf" | "randn" => {
            arity(1)?;
            (args[0] == T::U32).then_some(T::F32)
        }
        "randf_range" => {
            arity(3)?;
            (args[0] == T::U32 && args[1] == T::F32 && args[2] == T::F32).then_some(T::F32)
        }
        "thread_fence" => {
            arity(0)?;
            Some(T::Unit)
        }
        "stop_gradient" => {
            arity(1)?;
            match &args[0] {
                T::Scalar(s)
                | T::Vector(_, s)
                | T::Matrix(_, s)
                | T::Quat(s)
                | T::Transform(s)
                | T::SpatialVector(s)
                | T::SpatialMatrix(s)
                    if s.is_float() =>
                {
                    Some(args[0].clone())
                }
                _ => None,
            }
        }
        "f32_to_bits" => {
            arity(1)?;
            (args[0] == T::F32).then_some(T::U32)
        }
        "f32_from_bits" => {
            arity(1)?;
            (args[0] == T::U32).then_some(T::F32)
        }
        "f64_to_bits" => {
            arity(1)?;
            (args[0] == T::F64).then_some(T::Scalar(Scalar::U64))
        }
        "f64_from_bits" => {
            arity(1)?;
            (args[0] == T::Scalar(Scalar::U64)).then_some(T::F64)
        }
        _ => unreachable!("builtin `{name}` is in the table but has no resolver"),
    };
    r.ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_entry_has_a_resolver() {
        for b in BUILTINS {
            // Must not hit `unreachable!`: any arity error or type error is fine.
            let _ = resolve(b.name, &[Type::F32]);
        }
    }

    #[test]
    fn overloads() {
        let v3 = Type::Vector(3, Scalar::F32);
        assert_eq!(resolve("dot", &[v3.clone(), v3.clone()]), Ok(Type::F32));
        assert_eq!(resolve("cross", &[v3.clone(), v3.clone()]), Ok(v3.clone()));
        let v2 = Type::Vector(2, Scalar::F32);
        assert!(resolve("cross", &[v2.clone(), v2]).is_err());
        assert_eq!(resolve("sin", &[Type::F64]), Ok(Type::F64));
        assert!(
            resolve("sin", &[Type::I32])
                .unwrap_err()
                .contains("no overload of `sin`")
        );
        assert!(
            resolve("atan2", &[Type::F32])
                .unwrap_err()
                .contains("takes 2 arguments")
        );
        assert_eq!(
            resolve("outer", &[v3.clone(), v3.clone()]),
            Ok(Type::Matrix(3, Scalar::F32))
        );
        assert_eq!(
            resolve("fma", &[v3.clone(), v3.clone(), v3.clone()]),
            Ok(v3.clone())
        );
        assert_eq!(resolve("fma", &[Type::F64; 3]), Ok(Type::F64));
        assert_eq!(resolve("stop_gradient", &[Type::F64]), Ok(Type::F64));
        assert_eq!(
            resolve("stop_gradient", &[Type::Matrix(3, Scalar::F32)]),
            Ok(Type::Matrix(3, Scalar::F32))
        );
        assert!(resolve("stop_gradient", &[Type::I32]).is_err());
        assert!(resolve("fma", &[Type::I32; 3]).is_err());
        assert!(resolve("fma", &[v3, Type::F32, Type::F32]).is_err());
    }
}
