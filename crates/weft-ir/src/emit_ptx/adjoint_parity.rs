//! The PTX emitter's adjoint rules (`adjoints.rs`) against the CPU's
//! (`weft_types::adjoint`), for every rule and every float type the IR gives it
//! (all but `splat`'s, whose CPU side is weft-runtime's `adj_splat`).
//!
//! The rules are written twice (Rust generic over glam types, and register
//! formulas for PTX); this test is what keeps them one rule. The PTX formulas
//! run on an evaluating builder (`B::eval`): each operation the emitter would
//! write is computed at once with the instruction's rounding, and the
//! elementary functions are weft-math's (the PTX inlines the same source). The
//! results must equal the CPU's bit for bit (any NaN matches any NaN) on random
//! arguments, with special values (`0`, `-0`, `±1`, `±0.5`, `2`) mixed in so the
//! guarded branches (zero lengths, `asin` at 1, `pow` at 0, …) are taken.

use weft_types::adjoint as adj;
use weft_types::{
    DMat2, DMat3, DMat4, DQuat, DSpatialMatrix, DSpatialVector, DTransform, DVec2, DVec3, DVec4,
    Mat2, Mat3, Mat4, Quat, SpatialMatrix, SpatialVector, Transform, Vec2, Vec3, Vec4,
};

use super::adjoints::rule;
use super::build::B;
use super::regs::Reg;
use crate::types::{Scalar, Type};

/// Trials per rule and type.
const TRIALS: usize = 400;

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A component: a special value one time in five, else `[-3, 3]` at a random
    /// binary scale.
    fn component(&mut self) -> f64 {
        const SPECIAL: [f64; 7] = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0];
        let r = self.next();
        if r.is_multiple_of(5) {
            return SPECIAL[(r >> 8) as usize % SPECIAL.len()];
        }
        let u = (r >> 11) as f64 / (1u64 << 53) as f64;
        let scale = 2f64.powi((self.next() % 7) as i32 - 3);
        (u * 6.0 - 3.0) * scale
    }
}

/// A value of the kernel language as its flattened components
/// (`layout::flatten`'s order).
trait Flat: Copy {
    /// Its IR type.
    fn ty() -> Type;
    /// Number of components.
    const N: usize;
    fn flat(self) -> Vec<f64>;
    fn from_flat(x: &[f64]) -> Self;
}

macro_rules! flat_scalar {
    ($($t:ty = $s:ident),*) => {$(
        impl Flat for $t {
            fn ty() -> Type { Type::Scalar(Scalar::$s) }
            const N: usize = 1;
            fn flat(self) -> Vec<f64> { vec![self as f64] }
            fn from_flat(x: &[f64]) -> Self { x[0] as $t }
        }
    )*};
}
flat_scalar!(f32 = F32, f64 = F64);

macro_rules! flat_glam {
    ($($t:ident: $e:ty, $n:expr, $ty:expr, $to:ident, $from:ident);* $(;)?) => {$(
        impl Flat for $t {
            fn ty() -> Type { $ty }
            const N: usize = $n;
            fn flat(self) -> Vec<f64> { self.$to().iter().map(|v| *v as f64).collect() }
            fn from_flat(x: &[f64]) -> Self {
                let a: [$e; $n] = std::array::from_fn(|i| x[i] as $e);
                $t::$from(&a)
            }
        }
    )*};
}
flat_glam! {
    Vec2: f32, 2, Type::Vector(2, Scalar::F32), to_array, from_slice;
    Vec3: f32, 3, Type::Vector(3, Scalar::F32), to_array, from_slice;
    Vec4: f32, 4, Type::Vector(4, Scalar::F32), to_array, from_slice;
    DVec2: f64, 2, Type::Vector(2, Scalar::F64), to_array, from_slice;
    DVec3: f64, 3, Type::Vector(3, Scalar::F64), to_array, from_slice;
    DVec4: f64, 4, Type::Vector(4, Scalar::F64), to_array, from_slice;
    Mat2: f32, 4, Type::Matrix(2, Scalar::F32), to_cols_array, from_cols_slice;
    Mat3: f32, 9, Type::Matrix(3, Scalar::F32), to_cols_array, from_cols_slice;
    Mat4: f32, 16, Type::Matrix(4, Scalar::F32), to_cols_array, from_cols_slice;
    DMat2: f64, 4, Type::Matrix(2, Scalar::F64), to_cols_array, from_cols_slice;
    DMat3: f64, 9, Type::Matrix(3, Scalar::F64), to_cols_array, from_cols_slice;
    DMat4: f64, 16, Type::Matrix(4, Scalar::F64), to_cols_array, from_cols_slice;
    Quat: f32, 4, Type::Quat(Scalar::F32), to_array, from_slice;
    DQuat: f64, 4, Type::Quat(Scalar::F64), to_array, from_slice;
}

macro_rules! flat_rigid {
    ($($t:ident, $v:ident, $q:ident, $sv:ident, $sm:ident, $s:ident);*) => {$(
        impl Flat for $t {
            fn ty() -> Type { Type::Transform(Scalar::$s) }
            const N: usize = 7;
            fn flat(self) -> Vec<f64> {
                let mut v = self.p.flat();
                v.extend(self.q.flat());
                v
            }
            fn from_flat(x: &[f64]) -> Self {
                $t { p: $v::from_flat(&x[..3]), q: $q::from_flat(&x[3..7]) }
            }
        }
        impl Flat for $sv {
            fn ty() -> Type { Type::SpatialVector(Scalar::$s) }
            const N: usize = 6;
            fn flat(self) -> Vec<f64> {
                let mut v = self.top.flat();
                v.extend(self.bottom.flat());
                v
            }
            fn from_flat(x: &[f64]) -> Self {
                $sv::new($v::from_flat(&x[..3]), $v::from_flat(&x[3..6]))
            }
        }
        impl Flat for $sm {
            fn ty() -> Type { Type::SpatialMatrix(Scalar::$s) }
            const N: usize = 36;
            fn flat(self) -> Vec<f64> {
                self.m.iter().flatten().map(|v| *v as f64).collect()
            }
            fn from_flat(x: &[f64]) -> Self {
                $sm::from_rows(std::array::from_fn(|r| std::array::from_fn(|c| x[r * 6 + c] as _)))
            }
        }
    )*};
}
flat_rigid!(
    Transform, Vec3, Quat, SpatialVector, SpatialMatrix, F32;
    DTransform, DVec3, DQuat, DSpatialVector, DSpatialMatrix, F64
);

/// A rule's results (one value, or a tuple in argument order), flattened.
trait Out {
    fn flat_out(self) -> Vec<f64>;
}
impl<T: Flat> Out for T {
    fn flat_out(self) -> Vec<f64> {
        self.flat()
    }
}
impl<A: Flat, B: Flat> Out for (A, B) {
    fn flat_out(self) -> Vec<f64> {
        let mut v = self.0.flat();
        v.extend(self.1.flat());
        v
    }
}
impl<A: Flat, B: Flat, C: Flat> Out for (A, B, C) {
    fn flat_out(self) -> Vec<f64> {
        let mut v = self.0.flat_out();
        v.extend(self.1.flat());
        v.extend(self.2.flat());
        v
    }
}

/// A rule's arguments: the forward arguments, then the result's adjoint.
trait Args: Copy {
    fn types() -> Vec<Type>;
    fn random(rng: &mut Rng) -> Self;
    fn flats(self) -> Vec<Vec<f64>>;
}
macro_rules! args {
    ($($a:ident),*) => {
        impl<$($a: Flat),*> Args for ($($a,)*) {
            fn types() -> Vec<Type> { vec![$($a::ty()),*] }
            fn random(rng: &mut Rng) -> Self {
                ($({
                    let x: Vec<f64> = (0..$a::N).map(|_| rng.component()).collect();
                    $a::from_flat(&x)
                },)*)
            }
            #[allow(non_snake_case)]
            fn flats(self) -> Vec<Vec<f64>> {
                let ($($a,)*) = self;
                vec![$($a.flat()),*]
            }
        }
    };
}
args!(A, G);
args!(A, C, G);
args!(A, C, D, G);

/// Bit equality, any NaN matching any NaN.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Runs rule `name` on random arguments of types `I` on both sides; returns the
/// mismatches, described.
fn check<I: Args, O: Out>(name: &str, cpu: impl Fn(I) -> O) -> Vec<String> {
    let types = I::types();
    let s = types
        .iter()
        .find_map(|t| t.scalar().filter(|s| s.is_float()))
        .unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
    let mut bad = Vec::new();
    for _ in 0..TRIALS {
        let args = I::random(&mut rng);
        let want = cpu(args).flat_out();
        let b = B::eval(s);
        let regs: Vec<Vec<Reg>> = args
            .flats()
            .iter()
            .map(|v| v.iter().map(|x| b.input(*x)).collect())
            .collect();
        let got = match rule(&b, name, &regs, &types) {
            Some(Ok(out)) => out.iter().map(|r| b.value(*r)).collect::<Vec<_>>(),
            Some(Err(e)) => return vec![format!("{name} {types:?}: {e}")],
            None => return vec![format!("{name} {types:?}: no PTX rule")],
        };
        if got.len() != want.len() || !got.iter().zip(&want).all(|(g, w)| same(*g, *w)) {
            bad.push(format!(
                "{name} {types:?} at {:?}: PTX {got:?}, CPU {want:?}",
                args.flats()
            ));
            if bad.len() >= 3 {
                break;
            }
        }
    }
    bad
}

/// The rules of scalars and componentwise vectors, for types `$t`.
macro_rules! piecewise {
    ($c:ident; $($t:ty),*) => {$(
        $c(check("abs", |(x, g): ($t, $t)| adj::adj_abs(x, g)));
        $c(check("sign", |(x, g): ($t, $t)| adj::adj_sign(x, g)));
        $c(check("min", |(x, y, g): ($t, $t, $t)| adj::adj_min(x, y, g)));
        $c(check("max", |(x, y, g): ($t, $t, $t)| adj::adj_max(x, y, g)));
        $c(check("clamp", |(x, l, h, g): ($t, $t, $t, $t)| adj::adj_clamp(x, l, h, g)));
        $c(check("fma", |(x, y, z, g): ($t, $t, $t, $t)| adj::adj_fma(x, y, z, g)));
        $c(check("neg", |(x, g): ($t, $t)| adj::adj_neg(x, g)));
        $c(check("add", |(x, y, g): ($t, $t, $t)| adj::adj_add(x, y, g)));
        $c(check("sub", |(x, y, g): ($t, $t, $t)| adj::adj_sub(x, y, g)));
        $c(check("mul", |(x, y, g): ($t, $t, $t)| adj::adj_mul(x, y, g)));
        $c(check("div", |(x, y, g): ($t, $t, $t)| adj::adj_div(x, y, g)));
        $c(check("rem", |(x, y, g): ($t, $t, $t)| adj::adj_rem(x, y, g)));
    )*};
}

/// The rules of vectors `$v` of scalar `$F`.
macro_rules! vectors {
    ($c:ident, $F:ty; $($v:ty),*) => {$(
        $c(check("dot", |(a, b, g): ($v, $v, $F)| adj::adj_dot(a, b, g)));
        $c(check("length", |(a, g): ($v, $F)| adj::adj_length(a, g)));
        $c(check("length_sq", |(a, g): ($v, $F)| adj::adj_length_sq(a, g)));
        $c(check("normalize", |(a, g): ($v, $v)| adj::adj_normalize(a, g)));
        $c(check("mul", |(a, s, g): ($v, $F, $v)| adj::adj_mul(a, s, g)));
        $c(check("mul", |(s, a, g): ($F, $v, $v)| adj::adj_mul(s, a, g)));
        $c(check("div", |(a, s, g): ($v, $F, $v)| adj::adj_div(a, s, g)));
        $c(check("rem", |(a, s, g): ($v, $F, $v)| adj::adj_rem(a, s, g)));
    )*};
}

/// The rules of matrices `$m` (vectors `$v`) of scalar `$F`.
macro_rules! matrices {
    ($c:ident, $F:ty; $($m:ty, $v:ty);*) => {$(
        $c(check("add", |(a, b, g): ($m, $m, $m)| adj::adj_add(a, b, g)));
        $c(check("sub", |(a, b, g): ($m, $m, $m)| adj::adj_sub(a, b, g)));
        $c(check("neg", |(a, g): ($m, $m)| adj::adj_neg(a, g)));
        $c(check("mul", |(a, b, g): ($m, $m, $m)| adj::adj_mul(a, b, g)));
        $c(check("mul", |(a, v, g): ($m, $v, $v)| adj::adj_mul(a, v, g)));
        $c(check("mul", |(a, s, g): ($m, $F, $m)| adj::adj_mul(a, s, g)));
        $c(check("mul", |(s, a, g): ($F, $m, $m)| adj::adj_mul(s, a, g)));
        $c(check("div", |(a, s, g): ($m, $F, $m)| adj::adj_div(a, s, g)));
        $c(check("transpose", |(a, g): ($m, $m)| adj::adj_transpose(a, g)));
        $c(check("determinant", |(a, g): ($m, $F)| adj::adj_determinant(a, g)));
        $c(check("trace", |(a, g): ($m, $F)| adj::adj_trace(a, g)));
        $c(check("inverse", |(a, g): ($m, $m)| adj::adj_inverse(a, g)));
        $c(check("outer", |(a, b, g): ($v, $v, $m)| adj::adj_outer(a, b, g)));
        $c(check("diag", |(a, g): ($v, $m)| adj::adj_diag(a, g)));
    )*};
}

/// Every rule on the types of one precision.
macro_rules! all_rules {
    ($bad:ident; $F:ty, $V2:ty, $V3:ty, $V4:ty, $M2:ty, $M3:ty, $M4:ty, $Q:ty, $T:ty, $SV:ty, $SM:ty) => {{
        let mut c = |v: Vec<String>| $bad.extend(v);
        // Elementary functions.
        c(check("sin", |(x, g): ($F, $F)| adj::adj_sin(x, g)));
        c(check("cos", |(x, g): ($F, $F)| adj::adj_cos(x, g)));
        c(check("tan", |(x, g): ($F, $F)| adj::adj_tan(x, g)));
        c(check("asin", |(x, g): ($F, $F)| adj::adj_asin(x, g)));
        c(check("acos", |(x, g): ($F, $F)| adj::adj_acos(x, g)));
        c(check("atan", |(x, g): ($F, $F)| adj::adj_atan(x, g)));
        c(check("sinh", |(x, g): ($F, $F)| adj::adj_sinh(x, g)));
        c(check("cosh", |(x, g): ($F, $F)| adj::adj_cosh(x, g)));
        c(check("tanh", |(x, g): ($F, $F)| adj::adj_tanh(x, g)));
        c(check("exp", |(x, g): ($F, $F)| adj::adj_exp(x, g)));
        c(check("exp2", |(x, g): ($F, $F)| adj::adj_exp2(x, g)));
        c(check("log", |(x, g): ($F, $F)| adj::adj_log(x, g)));
        c(check("log2", |(x, g): ($F, $F)| adj::adj_log2(x, g)));
        c(check("log10", |(x, g): ($F, $F)| adj::adj_log10(x, g)));
        c(check("cbrt", |(x, g): ($F, $F)| adj::adj_cbrt(x, g)));
        c(check("sqrt", |(x, g): ($F, $F)| adj::adj_sqrt(x, g)));
        c(check("atan2", |(y, x, g): ($F, $F, $F)| adj::adj_atan2(y, x, g)));
        c(check("pow", |(x, y, g): ($F, $F, $F)| adj::adj_pow(x, y, g)));
        // Piecewise, scalar and componentwise.
        piecewise!(c; $F, $V2, $V3, $V4);
        c(check("floor", |(x, g): ($F, $F)| adj::adj_floor(x, g)));
        c(check("ceil", |(x, g): ($F, $F)| adj::adj_ceil(x, g)));
        c(check("round", |(x, g): ($F, $F)| adj::adj_round(x, g)));
        c(check("trunc", |(x, g): ($F, $F)| adj::adj_trunc(x, g)));
        // Vectors.
        vectors!(c, $F; $V2, $V3, $V4);
        c(check("cross", |(a, b, g): ($V3, $V3, $V3)| adj::adj_cross(a, b, g)));
        c(check("skew", |(a, g): ($V3, $M3)| adj::adj_skew(a, g)));
        // Matrices.
        matrices!(c, $F; $M2, $V2; $M3, $V3; $M4, $V4);
        // Quaternions.
        c(check("add", |(a, b, g): ($Q, $Q, $Q)| adj::adj_add(a, b, g)));
        c(check("sub", |(a, b, g): ($Q, $Q, $Q)| adj::adj_sub(a, b, g)));
        c(check("neg", |(a, g): ($Q, $Q)| adj::adj_neg(a, g)));
        c(check("mul", |(a, b, g): ($Q, $Q, $Q)| adj::adj_mul(a, b, g)));
        c(check("mul", |(a, s, g): ($Q, $F, $Q)| adj::adj_mul(a, s, g)));
        c(check("div", |(a, s, g): ($Q, $F, $Q)| adj::adj_div(a, s, g)));
        c(check("mul", |(q, v, g): ($Q, $V3, $V3)| adj::adj_mul(q, v, g)));
        c(check("dot", |(a, b, g): ($Q, $Q, $F)| adj::adj_dot(a, b, g)));
        c(check("length", |(a, g): ($Q, $F)| adj::adj_length(a, g)));
        c(check("length_sq", |(a, g): ($Q, $F)| adj::adj_length_sq(a, g)));
        c(check("normalize", |(a, g): ($Q, $Q)| adj::adj_normalize(a, g)));
        c(check("inverse", |(q, g): ($Q, $Q)| adj::adj_inverse(q, g)));
        c(check("quat_inverse", |(q, g): ($Q, $Q)| adj::adj_quat_inverse(q, g)));
        c(check("quat_to_matrix", |(q, g): ($Q, $M3)| adj::adj_quat_to_matrix(q, g)));
        c(check("quat_rotate", |(q, v, g): ($Q, $V3, $V3)| adj::adj_quat_rotate(q, v, g)));
        c(check("quat_rotate_inv", |(q, v, g): ($Q, $V3, $V3)| {
            adj::adj_quat_rotate_inv(q, v, g)
        }));
        c(check("quat_from_axis_angle", |(a, t, g): ($V3, $F, $Q)| {
            adj::adj_quat_from_axis_angle(a, t, g)
        }));
        c(check("quat_from_matrix", |(m, g): ($M3, $Q)| adj::adj_quat_from_matrix(m, g)));
        // Transforms.
        c(check("mul", |(a, b, g): ($T, $T, $T)| adj::adj_mul(a, b, g)));
        c(check("inverse", |(t, g): ($T, $T)| adj::adj_inverse(t, g)));
        c(check("transform_inverse", |(t, g): ($T, $T)| adj::adj_transform_inverse(t, g)));
        c(check("transform_point", |(t, p, g): ($T, $V3, $V3)| {
            adj::adj_transform_point(t, p, g)
        }));
        c(check("transform_vector", |(t, p, g): ($T, $V3, $V3)| {
            adj::adj_transform_vector(t, p, g)
        }));
        // Spatial algebra.
        c(check("add", |(a, b, g): ($SV, $SV, $SV)| adj::adj_add(a, b, g)));
        c(check("sub", |(a, b, g): ($SV, $SV, $SV)| adj::adj_sub(a, b, g)));
        c(check("neg", |(a, g): ($SV, $SV)| adj::adj_neg(a, g)));
        c(check("mul", |(a, s, g): ($SV, $F, $SV)| adj::adj_mul(a, s, g)));
        c(check("mul", |(s, a, g): ($F, $SV, $SV)| adj::adj_mul(s, a, g)));
        c(check("div", |(a, s, g): ($SV, $F, $SV)| adj::adj_div(a, s, g)));
        c(check("dot", |(a, b, g): ($SV, $SV, $F)| adj::adj_dot(a, b, g)));
        c(check("spatial_top", |(a, g): ($SV, $V3)| adj::adj_spatial_top(a, g)));
        c(check("spatial_bottom", |(a, g): ($SV, $V3)| adj::adj_spatial_bottom(a, g)));
        c(check("spatial_cross", |(a, b, g): ($SV, $SV, $SV)| adj::adj_spatial_cross(a, b, g)));
        c(check("spatial_cross_dual", |(a, b, g): ($SV, $SV, $SV)| {
            adj::adj_spatial_cross_dual(a, b, g)
        }));
        c(check("add", |(a, b, g): ($SM, $SM, $SM)| adj::adj_add(a, b, g)));
        c(check("sub", |(a, b, g): ($SM, $SM, $SM)| adj::adj_sub(a, b, g)));
        c(check("neg", |(a, g): ($SM, $SM)| adj::adj_neg(a, g)));
        c(check("mul", |(a, b, g): ($SM, $SM, $SM)| adj::adj_mul(a, b, g)));
        c(check("mul", |(a, v, g): ($SM, $SV, $SV)| adj::adj_mul(a, v, g)));
        c(check("mul", |(a, s, g): ($SM, $F, $SM)| adj::adj_mul(a, s, g)));
        c(check("mul", |(s, a, g): ($F, $SM, $SM)| adj::adj_mul(s, a, g)));
    }};
}

#[test]
fn every_adjoint_rule_matches_the_cpu_in_f32() {
    let mut bad = Vec::new();
    all_rules!(bad; f32, Vec2, Vec3, Vec4, Mat2, Mat3, Mat4, Quat, Transform, SpatialVector, SpatialMatrix);
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn every_adjoint_rule_matches_the_cpu_in_f64() {
    let mut bad = Vec::new();
    all_rules!(bad; f64, DVec2, DVec3, DVec4, DMat2, DMat3, DMat4, DQuat, DTransform, DSpatialVector, DSpatialMatrix);
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
