//! Shape kinds as the kernels see them (`i32` codes in [`ShapeSet::kind`](crate::ShapeSet))
//! and what each packs into [`ShapeSet::size`](crate::ShapeSet).
//!
//! Every shape lives in its own frame; round shapes (sphere, capsule) are a core
//! (a point, a segment along Z) thickened by a radius, which is how contacts
//! store them: the solver measures the distance between the cores and subtracts
//! the radii, so a rolling sphere keeps an exact contact distance.

/// A plane through the shape's origin with normal +Z (static only);
/// `size.xy` > 0 bounds it to a rectangle of those half extents (0: infinite).
pub const PLANE: i32 = 0;
/// A sphere of radius `size.x` around the origin.
pub const SPHERE: i32 = 1;
/// A box of half extents `size`.
pub const BOX: i32 = 2;
/// A capsule: the segment from `-size.y` to `size.y` along Z, radius `size.x`.
pub const CAPSULE: i32 = 3;
/// A cylinder along Z: radius `size.x`, half height `size.y`.
pub const CYLINDER: i32 = 4;
/// A convex hull (index `source` into the hull tables), scaled by `size`.
pub const CONVEX: i32 = 5;
/// A triangle mesh (index `source`), scaled by `size`.
pub const MESH: i32 = 6;
/// A height field (index `source`).
pub const HEIGHTFIELD: i32 = 7;

/// The name of a kind code, for messages.
pub fn kind_name(kind: i32) -> &'static str {
    match kind {
        PLANE => "plane",
        SPHERE => "sphere",
        BOX => "box",
        CAPSULE => "capsule",
        CYLINDER => "cylinder",
        CONVEX => "convex hull",
        MESH => "mesh",
        HEIGHTFIELD => "height field",
        _ => "unknown",
    }
}
