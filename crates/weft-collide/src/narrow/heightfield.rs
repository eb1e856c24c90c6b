//! Height fields: no BVH — the cells under a shape's box (grown by the
//! margin) are found by dividing by the spacing, and each cell's two
//! triangles, their neighbours and which edges and corners are real and owned
//! (as [`mesh_tables`](crate::mesh_tables) records them for meshes) are read
//! straight from the grid of heights, for [`terrain`](super::terrain).
//!
//! Cell `(i, j)` is split along its diagonal from sample `(i, j)` to
//! `(i + 1, j + 1)` into triangle 0 `[p00, p10, p11]` and triangle 1 `[p00,
//! p11, p01]` (as [`weft_geom::HeightField::cell_triangles`]). Triangle 0 owns
//! its three edges and its corner `p00` (and, on the last column and row, the
//! corners there); triangle 1 owns only border edges and, on the last row,
//! `p01`: so every shared edge and every sample has one owner.

use weft::prelude::*;

use super::triangle::corner;
use crate::ShapeSet;

/// Sample `(i, j)` of the height field of `info` (first sample, samples along
/// x and y) and spacing `sp.xy`, in the field's frame.
#[weft::func]
pub fn field_point(shapes: &ShapeSet, info: IVec4, sp: Vec3, i: i32, j: i32) -> Vec3 {
    let cx = -0.5 * ((info.y - 1) as f32) * sp.x;
    let cy = -0.5 * ((info.z - 1) as f32) * sp.y;
    Vec3::new(
        cx + (i as f32) * sp.x,
        cy + (j as f32) * sp.y,
        shapes.field_heights[info.x + j * info.y + i],
    )
}

/// Triangle `t` (0 or 1) of cell `(i, j)`: its corners, the far corners of
/// its neighbours across its edges (its own far corner at a border), and its
/// flags (bits of [`mesh_tables::flags`](crate::mesh_tables::flags)), field frame.
#[weft::func]
pub fn field_triangle(
    shapes: &ShapeSet,
    info: IVec4,
    sp: Vec3,
    i: i32,
    j: i32,
    t: i32,
) -> (Vec3, Vec3, Vec3, Vec3, Vec3, Vec3, i32) {
    let nx = info.y;
    let ny = info.z;
    let p00 = field_point(shapes, info, sp, i, j);
    let p10 = field_point(shapes, info, sp, i + 1, j);
    let p11 = field_point(shapes, info, sp, i + 1, j + 1);
    let p01 = field_point(shapes, info, sp, i, j + 1);
    let mut t1 = p10;
    let mut t2 = p11;
    let mut o0 = p11;
    let mut o1 = p00;
    let mut o2 = p01;
    let mut flags = 0;
    if t == 0 {
        // Edges p00→p10 (below: triangle 1 of cell (i, j-1)), p10→p11 (right:
        // triangle 1 of cell (i+1, j)), p11→p00 (the diagonal); all owned.
        flags = 7 | (1 << 8) | (1 << 9);
        if j > 0 {
            o0 = field_point(shapes, info, sp, i, j - 1);
            flags = flags | (1 << 6);
        }
        if i + 1 <= nx - 2 {
            o1 = field_point(shapes, info, sp, i + 2, j + 1);
            flags = flags | (1 << 7);
        } else {
            flags = flags | (1 << 10);
            if j == ny - 2 {
                flags = flags | (1 << 11);
            }
        }
    } else {
        // Edges p00→p11 (the diagonal), p11→p01 (above: triangle 0 of cell
        // (i, j+1)), p01→p00 (left: triangle 0 of cell (i-1, j)).
        t1 = p11;
        t2 = p01;
        o0 = p10;
        o1 = p00;
        o2 = p11;
        flags = 1 << 6;
        if j + 1 <= ny - 2 {
            o1 = field_point(shapes, info, sp, i + 1, j + 2);
            flags = flags | (1 << 7);
        } else {
            flags = flags | 2 | (1 << 11);
        }
        if i > 0 {
            o2 = field_point(shapes, info, sp, i - 1, j);
            flags = flags | (1 << 8);
        } else {
            flags = flags | 4;
        }
    }
    // Real edges: borders, and edges whose neighbour bends away.
    let nt = normalize(cross(t1 - p00, t2 - p00));
    let mut real = 0;
    for k in 0..3 {
        let a = corner(p00, t1, t2, k);
        let o = corner(o0, o1, o2, k);
        let shared = ((flags >> (6 + k)) & 1) != 0;
        if !shared || dot(nt, o - a) < -1.0e-4 * length(o - a) {
            real = real | (1 << k);
        }
    }
    flags = flags | (real << 3);
    // A corner is real when one of its two edges here is.
    for k in 0..3 {
        if ((real >> k) & 1) != 0 || ((real >> ((k + 2) % 3)) & 1) != 0 {
            flags = flags | (1 << (12 + k));
        }
    }
    (p00, t1, t2, o0, o1, o2, flags)
}

/// The cells `(i0, i1, j0, j1)` (inclusive ranges) of the height field of
/// `info` (spacing `sp.xy`, heights within `range`) under the box `lo..hi`
/// (field frame); empty ranges when the box misses the field.
#[weft::func]
pub fn field_cells(info: IVec4, sp: Vec3, range: Vec2, lo: Vec3, hi: Vec3) -> (i32, i32, i32, i32) {
    let cx = -0.5 * ((info.y - 1) as f32) * sp.x;
    let cy = -0.5 * ((info.z - 1) as f32) * sp.y;
    let mut out = (0, -1, 0, -1);
    if lo.z <= range.y && hi.z >= range.x {
        out = (
            max(floor((lo.x - cx) / sp.x) as i32, 0),
            min(floor((hi.x - cx) / sp.x) as i32, info.y - 2),
            max(floor((lo.y - cy) / sp.y) as i32, 0),
            min(floor((hi.y - cy) / sp.y) as i32, info.z - 2),
        );
    }
    out
}
