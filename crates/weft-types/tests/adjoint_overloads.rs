//! Every differentiable builtin of `weft_ir::builtins::BUILTINS` has an `adj_` function
//! here with every float overload the IR's resolver accepts (a compile-time check), and
//! every operator combination of `binary_type` on floats has its operator adjoint.

use weft_types::adjoint::*;
use weft_types::*;

#[path = "common/ir_table.rs"]
mod ir_table;

const F: f32 = 0.5;
const D: f64 = 0.5;
const V2: Vec2 = Vec2::new(0.5, 0.25);
const V3: Vec3 = Vec3::new(0.5, 0.25, 0.125);
const V4: Vec4 = Vec4::new(0.5, 0.25, 0.125, 1.0);
const DV2: DVec2 = DVec2::new(0.5, 0.25);
const DV3: DVec3 = DVec3::new(0.5, 0.25, 0.125);
const DV4: DVec4 = DVec4::new(0.5, 0.25, 0.125, 1.0);
const Q: Quat = Quat::IDENTITY;
const DQ: DQuat = DQuat::IDENTITY;
const T: Transform = Transform::IDENTITY;
const DT: DTransform = DTransform::IDENTITY;
const S: SpatialVector = SpatialVector::ZERO;
const DS: DSpatialVector = DSpatialVector::ZERO;
const SM: SpatialMatrix = SpatialMatrix::IDENTITY;
const DSM: DSpatialMatrix = DSpatialMatrix::IDENTITY;
const M2: Mat2 = Mat2::IDENTITY;
const M3: Mat3 = Mat3::IDENTITY;
const M4: Mat4 = Mat4::IDENTITY;
const DM2: DMat2 = DMat2::IDENTITY;
const DM3: DMat3 = DMat3::IDENTITY;
const DM4: DMat4 = DMat4::IDENTITY;

macro_rules! overloads {
    ($($name:ident: [$($call:expr),* $(,)?];)*) => {
        /// Builtin names (without `adj_`) exercised below.
        const COVERED: &[&str] = &[$(stringify!($name)),*];

        #[test]
        fn every_overload_has_an_adjoint() {
            $($( std::hint::black_box($call); )*)*
        }
    };
}

overloads! {
    sin: [adj_sin(F, F), adj_sin(D, D)]; cos: [adj_cos(F, F), adj_cos(D, D)];
    tan: [adj_tan(F, F), adj_tan(D, D)]; asin: [adj_asin(F, F), adj_asin(D, D)];
    acos: [adj_acos(F, F), adj_acos(D, D)]; atan: [adj_atan(F, F), adj_atan(D, D)];
    atan2: [adj_atan2(F, F, F), adj_atan2(D, D, D)]; sinh: [adj_sinh(F, F), adj_sinh(D, D)];
    cosh: [adj_cosh(F, F), adj_cosh(D, D)]; tanh: [adj_tanh(F, F), adj_tanh(D, D)];
    exp: [adj_exp(F, F), adj_exp(D, D)]; exp2: [adj_exp2(F, F), adj_exp2(D, D)];
    log: [adj_log(F, F), adj_log(D, D)]; log2: [adj_log2(F, F), adj_log2(D, D)];
    log10: [adj_log10(F, F), adj_log10(D, D)]; pow: [adj_pow(F, F, F), adj_pow(D, D, D)];
    sqrt: [adj_sqrt(F, F), adj_sqrt(D, D)]; cbrt: [adj_cbrt(F, F), adj_cbrt(D, D)];
    floor: [adj_floor(F, F), adj_floor(D, D)]; ceil: [adj_ceil(F, F), adj_ceil(D, D)];
    round: [adj_round(F, F), adj_round(D, D)]; trunc: [adj_trunc(F, F), adj_trunc(D, D)];
    abs: [adj_abs(F, F), adj_abs(D, D), adj_abs(V2, V2), adj_abs(V3, V3), adj_abs(V4, V4),
        adj_abs(DV2, DV2), adj_abs(DV3, DV3), adj_abs(DV4, DV4)];
    sign: [adj_sign(F, F), adj_sign(D, D), adj_sign(V2, V2), adj_sign(V3, V3),
        adj_sign(V4, V4), adj_sign(DV2, DV2), adj_sign(DV3, DV3), adj_sign(DV4, DV4)];
    min: [adj_min(F, F, F), adj_min(D, D, D), adj_min(V2, V2, V2), adj_min(V3, V3, V3),
        adj_min(V4, V4, V4), adj_min(DV2, DV2, DV2), adj_min(DV3, DV3, DV3),
        adj_min(DV4, DV4, DV4)];
    max: [adj_max(F, F, F), adj_max(D, D, D), adj_max(V2, V2, V2), adj_max(V3, V3, V3),
        adj_max(V4, V4, V4), adj_max(DV2, DV2, DV2), adj_max(DV3, DV3, DV3),
        adj_max(DV4, DV4, DV4)];
    clamp: [adj_clamp(F, F, F, F), adj_clamp(D, D, D, D), adj_clamp(V2, V2, V2, V2),
        adj_clamp(V3, V3, V3, V3), adj_clamp(V4, V4, V4, V4), adj_clamp(DV2, DV2, DV2, DV2),
        adj_clamp(DV3, DV3, DV3, DV3), adj_clamp(DV4, DV4, DV4, DV4)];
    fma: [adj_fma(F, F, F, F), adj_fma(D, D, D, D), adj_fma(V2, V2, V2, V2),
        adj_fma(V3, V3, V3, V3), adj_fma(V4, V4, V4, V4), adj_fma(DV2, DV2, DV2, DV2),
        adj_fma(DV3, DV3, DV3, DV3), adj_fma(DV4, DV4, DV4, DV4)];
    dot: [adj_dot(V2, V2, F), adj_dot(V3, V3, F), adj_dot(V4, V4, F), adj_dot(DV2, DV2, D),
        adj_dot(DV3, DV3, D), adj_dot(DV4, DV4, D), adj_dot(Q, Q, F), adj_dot(DQ, DQ, D),
        adj_dot(S, S, F), adj_dot(DS, DS, D)];
    cross: [adj_cross(V3, V3, V3), adj_cross(DV3, DV3, DV3)];
    length: [adj_length(V2, F), adj_length(V3, F), adj_length(V4, F), adj_length(DV2, D),
        adj_length(DV3, D), adj_length(DV4, D), adj_length(Q, F), adj_length(DQ, D)];
    length_sq: [adj_length_sq(V2, F), adj_length_sq(V3, F), adj_length_sq(V4, F),
        adj_length_sq(DV2, D), adj_length_sq(DV3, D), adj_length_sq(DV4, D),
        adj_length_sq(Q, F), adj_length_sq(DQ, D)];
    normalize: [adj_normalize(V2, V2), adj_normalize(V3, V3), adj_normalize(V4, V4),
        adj_normalize(DV2, DV2), adj_normalize(DV3, DV3), adj_normalize(DV4, DV4),
        adj_normalize(Q, Q), adj_normalize(DQ, DQ)];
    outer: [adj_outer(V2, V2, M2), adj_outer(V3, V3, M3), adj_outer(V4, V4, M4),
        adj_outer(DV2, DV2, DM2), adj_outer(DV3, DV3, DM3), adj_outer(DV4, DV4, DM4)];
    transpose: [adj_transpose(M2, M2), adj_transpose(M3, M3), adj_transpose(M4, M4),
        adj_transpose(DM2, DM2), adj_transpose(DM3, DM3), adj_transpose(DM4, DM4)];
    determinant: [adj_determinant(M2, F), adj_determinant(M3, F), adj_determinant(M4, F),
        adj_determinant(DM2, D), adj_determinant(DM3, D), adj_determinant(DM4, D)];
    inverse: [adj_inverse(M2, M2), adj_inverse(M3, M3), adj_inverse(M4, M4),
        adj_inverse(DM2, DM2), adj_inverse(DM3, DM3), adj_inverse(DM4, DM4),
        adj_inverse(Q, Q), adj_inverse(DQ, DQ), adj_inverse(T, T), adj_inverse(DT, DT)];
    trace: [adj_trace(M2, F), adj_trace(M3, F), adj_trace(M4, F), adj_trace(DM2, D),
        adj_trace(DM3, D), adj_trace(DM4, D)];
    diag: [adj_diag(V2, M2), adj_diag(V3, M3), adj_diag(V4, M4), adj_diag(DV2, DM2),
        adj_diag(DV3, DM3), adj_diag(DV4, DM4)];
    skew: [adj_skew(V3, M3), adj_skew(DV3, DM3)];
    quat_from_axis_angle: [adj_quat_from_axis_angle(V3, F, Q),
        adj_quat_from_axis_angle(DV3, D, DQ)];
    quat_to_matrix: [adj_quat_to_matrix(Q, M3), adj_quat_to_matrix(DQ, DM3)];
    quat_from_matrix: [adj_quat_from_matrix(M3, Q), adj_quat_from_matrix(DM3, DQ)];
    quat_inverse: [adj_quat_inverse(Q, Q), adj_quat_inverse(DQ, DQ)];
    quat_rotate: [adj_quat_rotate(Q, V3, V3), adj_quat_rotate(DQ, DV3, DV3)];
    quat_rotate_inv: [adj_quat_rotate_inv(Q, V3, V3), adj_quat_rotate_inv(DQ, DV3, DV3)];
    transform_point: [adj_transform_point(T, V3, V3), adj_transform_point(DT, DV3, DV3)];
    transform_vector: [adj_transform_vector(T, V3, V3), adj_transform_vector(DT, DV3, DV3)];
    transform_inverse: [adj_transform_inverse(T, T), adj_transform_inverse(DT, DT)];
    spatial_top: [adj_spatial_top(S, V3), adj_spatial_top(DS, DV3)];
    spatial_bottom: [adj_spatial_bottom(S, V3), adj_spatial_bottom(DS, DV3)];
    spatial_cross: [adj_spatial_cross(S, S, S), adj_spatial_cross(DS, DS, DS)];
    spatial_cross_dual: [adj_spatial_cross_dual(S, S, S), adj_spatial_cross_dual(DS, DS, DS)];
}

/// Every float operand combination of `weft_ir::builder::binary_type` (and unary `-`).
#[test]
fn every_operator_combination_has_an_adjoint() {
    macro_rules! same {
        ($f:ident: $($x:expr),*) => {$( std::hint::black_box($f($x, $x, $x)); )*};
    }
    // + - on every float type with itself; unary -.
    same!(adj_add: F, D, V2, V3, V4, DV2, DV3, DV4, M2, M3, M4, DM2, DM3, DM4, Q, DQ, S, DS,
        SM, DSM);
    same!(adj_sub: F, D, V2, V3, V4, DV2, DV3, DV4, M2, M3, M4, DM2, DM3, DM4, Q, DQ, S, DS,
        SM, DSM);
    macro_rules! neg {
        ($($x:expr),*) => {$( std::hint::black_box(adj_neg($x, $x)); )*};
    }
    neg!(
        F, D, V2, V3, V4, DV2, DV3, DV4, M2, M3, M4, DM2, DM3, DM4, Q, DQ, S, DS, SM, DSM
    );
    // * / % componentwise; * of square matrices, quaternions, transforms, spatial matrices.
    same!(adj_mul: F, D, V2, V3, V4, DV2, DV3, DV4, M2, M3, M4, DM2, DM3, DM4, Q, DQ, T, DT,
        SM, DSM);
    same!(adj_div: F, D, V2, V3, V4, DV2, DV3, DV4);
    same!(adj_rem: F, D, V2, V3, V4, DV2, DV3, DV4);
    macro_rules! mixed {
        ($f:ident: $($a:expr, $b:expr => $r:expr);*) => {
            $( std::hint::black_box($f($a, $b, $r)); )*
        };
    }
    // X * s, s * X, X / s, X % s.
    mixed!(adj_mul: V2, F => V2; V3, F => V3; V4, F => V4; DV2, D => DV2; DV3, D => DV3;
        DV4, D => DV4; F, V2 => V2; F, V3 => V3; F, V4 => V4; D, DV2 => DV2; D, DV3 => DV3;
        D, DV4 => DV4; M2, F => M2; M3, F => M3; M4, F => M4; DM2, D => DM2; DM3, D => DM3;
        DM4, D => DM4; F, M2 => M2; F, M3 => M3; F, M4 => M4; D, DM2 => DM2; D, DM3 => DM3;
        D, DM4 => DM4; Q, F => Q; DQ, D => DQ; S, F => S; DS, D => DS; F, S => S; D, DS => DS;
        SM, F => SM; DSM, D => DSM; F, SM => SM; D, DSM => DSM);
    mixed!(adj_div: V2, F => V2; V3, F => V3; V4, F => V4; DV2, D => DV2; DV3, D => DV3;
        DV4, D => DV4; M2, F => M2; M3, F => M3; M4, F => M4; DM2, D => DM2; DM3, D => DM3;
        DM4, D => DM4; Q, F => Q; DQ, D => DQ; S, F => S; DS, D => DS);
    mixed!(adj_rem: V2, F => V2; V3, F => V3; V4, F => V4; DV2, D => DV2; DV3, D => DV3;
        DV4, D => DV4);
    // Matrix * vector, quaternion * vector (rotation), spatial matrix * spatial vector.
    mixed!(adj_mul: M2, V2 => V2; M3, V3 => V3; M4, V4 => V4; DM2, DV2 => DV2;
        DM3, DV3 => DV3; DM4, DV4 => DV4; Q, V3 => V3; DQ, DV3 => DV3; SM, S => S;
        DSM, DS => DS);
}

#[test]
fn every_differentiable_builtin_has_an_adjoint() {
    // The differentiable entries end in `, true;`.
    let ir: Vec<String> = ir_table::entries()
        .into_iter()
        .filter(|(_, line)| line.ends_with(", true;"))
        .map(|(n, _)| n)
        .collect();
    assert!(
        ir.len() > 40,
        "parsed only {} names from the IR table",
        ir.len()
    );
    let missing: Vec<_> = ir
        .iter()
        .filter(|n| !COVERED.contains(&n.as_str()))
        .collect();
    let extra: Vec<_> = COVERED
        .iter()
        .filter(|n| !ir.iter().any(|i| i == *n))
        .collect();
    assert!(
        missing.is_empty(),
        "differentiable builtins without an adjoint: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "adjoints of builtins the IR table lacks or marks non-differentiable: {extra:?}"
    );
}
