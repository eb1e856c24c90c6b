//! Wavefront OBJ input and output.
//!
//! Reading goes through [`tobj`]: polygons are triangulated (as fans), all objects and
//! groups are merged into one [`Mesh`](crate::Mesh), and faces index the positions
//! directly — normals and texture coordinates are ignored, so vertices are never split
//! at normal or UV seams (the topology a simulation needs). Points and lines (`f`
//! lines with fewer than 3 corners, `l`, `p`) are dropped. By default positions that
//! are bitwise equal are welded into one point and points keep the order of their
//! `v` lines (see [`ObjOptions`]).
//!
//! Writing emits `v` and `f` lines with the shortest decimal that reads back to the
//! same `f32`, so `write → read` reproduces a mesh exactly when its points are
//! distinct and all used by faces (as for every generated mesh).

mod diagnose;
mod read;
mod write;

pub use read::ObjOptions;
pub use write::write_obj;
