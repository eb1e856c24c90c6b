//! Procedural meshes: icosphere, displaced (bumpy) sphere, torus, box, plane, terrain
//! and a torus knot (whose [`high_poly`] version has about a million triangles).
//! [`bench_sphere`] is the query-benchmark mesh (327,680 or 1,310,720 triangles).
//!
//! All are deterministic (terrain noise included), share vertices between faces
//! (closed shapes are watertight 2-manifolds) and face outward / up
//! (counter-clockwise). Computed in `f64`, stored as `f32`. Z is up.

mod cuboid;
mod displaced_sphere;
mod icosphere;
mod noise;
mod noise3;
mod plane;
mod terrain;
mod torus;
mod torus_knot;

pub use cuboid::cuboid;
pub use displaced_sphere::{bench_sphere, displaced_sphere};
pub use icosphere::icosphere;
pub use noise::fbm;
pub use noise3::fbm3;
pub use plane::plane;
pub use terrain::terrain;
pub use torus::torus;
pub use torus_knot::{high_poly, torus_knot};

use glam::{DVec3, Vec3};

use crate::mesh::Mesh;

/// Builds a mesh from generator output (always valid).
fn mesh(points: Vec<DVec3>, indices: Vec<[u32; 3]>) -> Mesh {
    let points = points
        .into_iter()
        .map(|p| p.as_vec3())
        .collect::<Vec<Vec3>>();
    Mesh::new(points, indices).expect("generators produce valid meshes")
}

/// Triangles of a `rows × cols` quad grid whose vertex `(r, c)` is `index(r, c)`;
/// quads `(r, c) (r, c+1) (r+1, c+1) (r+1, c)` are split along the `(r, c)–(r+1, c+1)`
/// diagonal, keeping that corner order (counter-clockwise when `c` runs along +x and
/// `r` along +y, seen from +z).
fn grid_triangles(rows: usize, cols: usize, index: impl Fn(usize, usize) -> u32) -> Vec<[u32; 3]> {
    let mut tris = Vec::with_capacity(2 * rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            let (a, b) = (index(r, c), index(r, c + 1));
            let (d, e) = (index(r + 1, c + 1), index(r + 1, c));
            tris.push([a, b, d]);
            tris.push([a, d, e]);
        }
    }
    tris
}

/// The small meshes committed under `crates/weft-geom/assets/` as `<name>.obj`
/// (written by `cargo run -p weft-geom --example gen_assets`; a test checks that the
/// files match).
pub fn assets() -> Vec<(&'static str, Mesh)> {
    vec![
        ("icosphere", icosphere(1.0, 3)),
        ("torus", torus(1.0, 0.25, 48, 24)),
        ("box", cuboid(Vec3::splat(0.5))),
        ("plane", plane(2.0, 2.0, 16, 16)),
        ("terrain", terrain(10.0, 48, 1.0, 7)),
        ("torus_knot", torus_knot(2, 3, 1.0, 0.15, 192, 16)),
    ]
}
