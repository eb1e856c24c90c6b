//! Writes the benchmark sphere (327,680 triangles, `benches/cuda.rs`) and its host
//! SAH trees with a few builder options to raw little-endian files, for the CUDA
//! C++ reference in `benches/reference/bvh_traversal_variants.cu`:
//! `cargo run --release --example dump_bvh -- DIR` (default `target-exp`).
//!
//! Files: `points.bin` (3 × f32 per vertex), `faces.bin` (3 × u32 per face), and per
//! tree `nodes_NAME.bin` (the 32-byte `BvhNode`s), `prims_NAME.bin` and
//! `parents_NAME.bin` (u32 each); NAME is `c{traversal cost}l{max leaf size}`.

use std::io::Write;

/// Writes `words` (32-bit each) to `dir/name`, little-endian.
fn write_words(dir: &std::path::Path, name: &str, words: impl Iterator<Item = u32>) {
    let bytes: Vec<u8> = words.flat_map(u32::to_le_bytes).collect();
    let path = dir.join(name);
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(&bytes))
        .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target-exp".into());
    let dir = std::path::Path::new(&dir);
    std::fs::create_dir_all(dir).expect("creating the output folder");
    let sphere = weft_geom::generate::icosphere(1.0, 7);
    write_words(
        dir,
        "points.bin",
        sphere
            .points()
            .iter()
            .flat_map(|p| p.to_array())
            .map(f32::to_bits),
    );
    write_words(dir, "faces.bin", sphere.indices().iter().flatten().copied());
    for (name, cost, leaf) in [
        ("c3l8", 3.0, 8),
        ("c1l4", 1.0, 4),
        ("c2l4", 2.0, 4),
        ("c1l1", 1.0, 1),
    ] {
        let options = weft_geom::BuildOptions {
            max_leaf_size: leaf,
            traversal_cost: cost,
            ..Default::default()
        };
        let bvh = weft_geom::Bvh::from_mesh_with(&sphere, &options).expect("valid options");
        let nodes = bvh.nodes().iter().flat_map(|n| {
            [
                n.lower.x.to_bits(),
                n.lower.y.to_bits(),
                n.lower.z.to_bits(),
                n.left_or_first,
                n.upper.x.to_bits(),
                n.upper.y.to_bits(),
                n.upper.z.to_bits(),
                n.right_or_count,
            ]
        });
        write_words(dir, &format!("nodes_{name}.bin"), nodes);
        write_words(
            dir,
            &format!("prims_{name}.bin"),
            bvh.prim_indices().iter().copied(),
        );
        write_words(
            dir,
            &format!("parents_{name}.bin"),
            bvh.parents().iter().copied(),
        );
        println!("{name}: {} nodes, depth {}", bvh.nodes().len(), bvh.depth());
    }
}
