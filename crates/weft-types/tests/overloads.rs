//! Every builtin of `weft_ir::builtins::BUILTINS` exists here with every overload the IR's
//! resolver accepts (a compile-time check), and the names match the IR table.

use weft_types::builtins::*;
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
const M2: Mat2 = Mat2::IDENTITY;
const M3: Mat3 = Mat3::IDENTITY;
const M4: Mat4 = Mat4::IDENTITY;
const DM2: DMat2 = DMat2::IDENTITY;
const DM3: DMat3 = DMat3::IDENTITY;
const DM4: DMat4 = DMat4::IDENTITY;

macro_rules! overloads {
    ($($name:ident: [$($call:expr),* $(,)?];)*) => {
        /// Builtin names exercised below.
        const COVERED: &[&str] = &[$(stringify!($name)),*];

        #[test]
        fn every_overload_resolves() {
            $($( std::hint::black_box($call); )*)*
        }
    };
}

/// The f32 and f64 overloads of the one-argument float functions.
macro_rules! float_unary {
    ($($name:ident),*) => {
        #[test]
        fn float_unary_overloads() {
            $( std::hint::black_box(($name(F), $name(D))); )*
        }
    };
}
float_unary!(
    sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, exp, exp2, log, log2, log10, sqrt, cbrt,
    floor, ceil, round, trunc
);

overloads! {
    sin: [sin(F)]; cos: [cos(F)]; tan: [tan(F)]; asin: [asin(F)]; acos: [acos(F)];
    atan: [atan(F)]; atan2: [atan2(F, F), atan2(D, D)]; sinh: [sinh(F)]; cosh: [cosh(F)];
    tanh: [tanh(F)]; exp: [exp(F)]; exp2: [exp2(F)]; log: [log(F)]; log2: [log2(F)];
    log10: [log10(F)]; pow: [pow(F, F), pow(D, D)]; sqrt: [sqrt(F)]; cbrt: [cbrt(F)];
    floor: [floor(F)]; ceil: [ceil(F)]; round: [round(F)]; trunc: [trunc(F)];
    abs: [abs(F), abs(D), abs(1i32), abs(1i64), abs(V2), abs(V3), abs(V4), abs(DV2), abs(DV3),
        abs(DV4), abs(IVec2::ONE), abs(IVec3::ONE), abs(IVec4::ONE), abs(I64Vec2::ONE),
        abs(I64Vec3::ONE), abs(I64Vec4::ONE)];
    sign: [sign(F), sign(D), sign(1i32), sign(1i64), sign(V2), sign(V3), sign(V4), sign(DV2),
        sign(DV3), sign(DV4), sign(IVec2::ONE), sign(IVec3::ONE), sign(IVec4::ONE),
        sign(I64Vec2::ONE), sign(I64Vec3::ONE), sign(I64Vec4::ONE)];
    min: [min(F, F), min(D, D), min(1i32, 2), min(1u32, 2), min(1i64, 2), min(1u64, 2),
        min(V2, V2), min(V3, V3), min(V4, V4), min(DV2, DV2), min(DV3, DV3), min(DV4, DV4),
        min(IVec2::ONE, IVec2::ONE), min(IVec3::ONE, IVec3::ONE), min(IVec4::ONE, IVec4::ONE),
        min(UVec2::ONE, UVec2::ONE), min(UVec3::ONE, UVec3::ONE), min(UVec4::ONE, UVec4::ONE),
        min(I64Vec2::ONE, I64Vec2::ONE), min(I64Vec3::ONE, I64Vec3::ONE),
        min(I64Vec4::ONE, I64Vec4::ONE), min(U64Vec2::ONE, U64Vec2::ONE),
        min(U64Vec3::ONE, U64Vec3::ONE), min(U64Vec4::ONE, U64Vec4::ONE)];
    max: [max(F, F), max(D, D), max(1i32, 2), max(1u32, 2), max(1i64, 2), max(1u64, 2),
        max(V3, V3), max(DV4, DV4), max(IVec3::ONE, IVec3::ONE), max(UVec2::ONE, UVec2::ONE),
        max(I64Vec4::ONE, I64Vec4::ONE), max(U64Vec3::ONE, U64Vec3::ONE)];
    clamp: [clamp(F, F, F), clamp(D, D, D), clamp(1i32, 0, 2), clamp(1u32, 0, 2),
        clamp(1i64, 0, 2), clamp(1u64, 0, 2), clamp(V2, V2, V2), clamp(DV3, DV3, DV3),
        clamp(IVec4::ONE, IVec4::ZERO, IVec4::ONE), clamp(UVec3::ONE, UVec3::ZERO, UVec3::ONE),
        clamp(I64Vec2::ONE, I64Vec2::ZERO, I64Vec2::ONE),
        clamp(U64Vec4::ONE, U64Vec4::ZERO, U64Vec4::ONE)];
    fma: [fma(F, F, F), fma(D, D, D), fma(V2, V2, V2), fma(V3, V3, V3), fma(V4, V4, V4),
        fma(DV2, DV2, DV2), fma(DV3, DV3, DV3), fma(DV4, DV4, DV4)];
    dot: [dot(V2, V2), dot(V3, V3), dot(V4, V4), dot(DV2, DV2), dot(DV3, DV3), dot(DV4, DV4),
        dot(Q, Q), dot(DQ, DQ), dot(S, S), dot(DS, DS)];
    cross: [cross(V3, V3), cross(DV3, DV3)];
    length: [length(V2), length(V3), length(V4), length(DV2), length(DV3), length(DV4),
        length(Q), length(DQ)];
    length_sq: [length_sq(V2), length_sq(V3), length_sq(V4), length_sq(DV2), length_sq(DV3),
        length_sq(DV4), length_sq(Q), length_sq(DQ)];
    normalize: [normalize(V2), normalize(V3), normalize(V4), normalize(DV2), normalize(DV3),
        normalize(DV4), normalize(Q), normalize(DQ)];
    outer: [outer(V2, V2), outer(V3, V3), outer(V4, V4), outer(DV2, DV2), outer(DV3, DV3),
        outer(DV4, DV4)];
    transpose: [transpose(M2), transpose(M3), transpose(M4), transpose(DM2), transpose(DM3),
        transpose(DM4)];
    determinant: [determinant(M2), determinant(M3), determinant(M4), determinant(DM2),
        determinant(DM3), determinant(DM4)];
    inverse: [inverse(M2), inverse(M3), inverse(M4), inverse(DM2), inverse(DM3), inverse(DM4),
        inverse(Q), inverse(DQ), inverse(T), inverse(DT)];
    trace: [trace(M2), trace(M3), trace(M4), trace(DM2), trace(DM3), trace(DM4)];
    diag: [diag(V2), diag(V3), diag(V4), diag(DV2), diag(DV3), diag(DV4)];
    skew: [skew(V3), skew(DV3)];
    quat_from_axis_angle: [quat_from_axis_angle(V3, F), quat_from_axis_angle(DV3, D)];
    quat_to_matrix: [quat_to_matrix(Q), quat_to_matrix(DQ)];
    quat_from_matrix: [quat_from_matrix(M3), quat_from_matrix(DM3)];
    quat_inverse: [quat_inverse(Q), quat_inverse(DQ)];
    quat_rotate: [quat_rotate(Q, V3), quat_rotate(DQ, DV3)];
    quat_rotate_inv: [quat_rotate_inv(Q, V3), quat_rotate_inv(DQ, DV3)];
    transform_point: [transform_point(T, V3), transform_point(DT, DV3)];
    transform_vector: [transform_vector(T, V3), transform_vector(DT, DV3)];
    transform_inverse: [transform_inverse(T), transform_inverse(DT)];
    spatial_top: [spatial_top(S), spatial_top(DS)];
    spatial_bottom: [spatial_bottom(S), spatial_bottom(DS)];
    spatial_cross: [spatial_cross(S, S), spatial_cross(DS, DS)];
    spatial_cross_dual: [spatial_cross_dual(S, S), spatial_cross_dual(DS, DS)];
    rand_init: [rand_init(1, 2)];
    randi: [randi(&mut 1)];
    randf: [randf(&mut 1)];
    randf_range: [randf_range(&mut 1, 0.0, 1.0)];
    randn: [randn(&mut 1)];
    f32_to_bits: [f32_to_bits(F)];
    f32_from_bits: [f32_from_bits(1)];
    f64_to_bits: [f64_to_bits(D)];
    f64_from_bits: [f64_from_bits(1)];
    stop_gradient: [stop_gradient(F), stop_gradient(D), stop_gradient(V3), stop_gradient(DV4),
        stop_gradient(M3), stop_gradient(DM2), stop_gradient(Q), stop_gradient(T), stop_gradient(S)];
    thread_fence: [thread_fence()];
}

#[test]
fn names_match_the_ir_table() {
    let ir: Vec<String> = ir_table::entries().into_iter().map(|(n, _)| n).collect();
    assert!(
        ir.len() > 50,
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
        "builtins of the IR table missing here: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "builtins here that the IR table lacks: {extra:?}"
    );
}
