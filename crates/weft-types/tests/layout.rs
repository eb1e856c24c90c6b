//! Sizes and alignments of every kernel value type: the PTX back end relies on this table.

use core::mem::{align_of, offset_of, size_of};
use weft_types::*;

macro_rules! layout_table {
    ($($t:ty => ($size:expr, $align:expr)),* $(,)?) => {{
        let mut wrong = Vec::new();
        $(
            let (s, a) = (size_of::<$t>(), align_of::<$t>());
            println!("{:<16} size {:>3} align {:>2}", stringify!($t), s, a);
            if (s, a) != ($size, $align) {
                wrong.push(format!("{}: got {s}/{a}, expected {}/{}", stringify!($t), $size, $align));
            }
        )*
        wrong
    }};
}

#[test]
fn size_and_align_of_every_type() {
    let wrong = layout_table! {
        f32 => (4, 4), f64 => (8, 8), i32 => (4, 4), u32 => (4, 4), i64 => (8, 8), u64 => (8, 8),
        Vec2 => (8, 4), Vec3 => (12, 4), Vec4 => (16, 16),
        DVec2 => (16, 8), DVec3 => (24, 8), DVec4 => (32, 8),
        IVec2 => (8, 4), IVec3 => (12, 4), IVec4 => (16, 4),
        UVec2 => (8, 4), UVec3 => (12, 4), UVec4 => (16, 4),
        I64Vec2 => (16, 8), I64Vec3 => (24, 8), I64Vec4 => (32, 8),
        U64Vec2 => (16, 8), U64Vec3 => (24, 8), U64Vec4 => (32, 8),
        Mat2 => (16, 16), Mat3 => (36, 4), Mat4 => (64, 16),
        DMat2 => (32, 8), DMat3 => (72, 8), DMat4 => (128, 8),
        Quat => (16, 16), DQuat => (32, 8),
        Transform => (32, 16), DTransform => (56, 8),
        SpatialVector => (24, 4), DSpatialVector => (48, 8),
        SpatialMatrix => (144, 4), DSpatialMatrix => (288, 8),
    };
    assert!(wrong.is_empty(), "layout changed:\n{}", wrong.join("\n"));
}

#[test]
fn field_offsets() {
    assert_eq!(offset_of!(Transform, p), 0);
    assert_eq!(offset_of!(Transform, q), 16, "4 bytes of padding after p");
    assert_eq!(offset_of!(DTransform, p), 0);
    assert_eq!(offset_of!(DTransform, q), 24);
    assert_eq!(offset_of!(SpatialVector, top), 0);
    assert_eq!(offset_of!(SpatialVector, bottom), 12);
    assert_eq!(offset_of!(DSpatialVector, bottom), 24);
    assert_eq!(offset_of!(SpatialMatrix, m), 0);
}

#[test]
fn pod_types_cast_to_their_components() {
    let v = SpatialVector::new(Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.0, 5.0, 6.0));
    assert_eq!(
        bytemuck::cast::<_, [f32; 6]>(v),
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
    let m = SpatialMatrix::IDENTITY;
    let flat: &[f32] = bytemuck::cast_slice(core::slice::from_ref(&m));
    assert_eq!(flat.len(), 36);
    assert_eq!(flat[7], 1.0, "row-major: m[1][1] is element 7");
    let t = DTransform::new(
        DVec3::new(1.0, 2.0, 3.0),
        DQuat::from_xyzw(4.0, 5.0, 6.0, 7.0),
    );
    assert_eq!(
        bytemuck::cast::<_, [f64; 7]>(t),
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    );
    let z: Transform = bytemuck::Zeroable::zeroed();
    assert_eq!(z.p, Vec3::ZERO);
    assert_eq!(z.q, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0));
}
