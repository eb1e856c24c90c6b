//! Writes the committed sample meshes to `crates/weft-geom/assets/`, and the
//! ~1M-triangle benchmark mesh to `out/geom/high_poly.obj` (ignored by git).
//!
//! ```sh
//! cargo run -p weft-geom --example gen_assets              # small assets only
//! cargo run -p weft-geom --release --example gen_assets -- --high-poly
//! ```

use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), weft_geom::GeomError> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let assets = crate_dir.join("assets");
    let mut total = 0;
    for (name, mesh) in weft_geom::generate::assets() {
        let path = assets.join(format!("{name}.obj"));
        mesh.save_obj(&path)?;
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        total += bytes;
        println!(
            "{:<28} {:>7} faces {:>7} points {:>8} bytes",
            path.strip_prefix(crate_dir).unwrap_or(&path).display(),
            mesh.num_faces(),
            mesh.num_points(),
            bytes
        );
    }
    println!("total {total} bytes");

    if std::env::args().any(|a| a == "--high-poly") {
        let start = Instant::now();
        let mesh = weft_geom::generate::high_poly();
        let generated = start.elapsed();
        let root = crate_dir.ancestors().nth(2).unwrap_or(crate_dir);
        let path = root.join("out/geom/high_poly.obj");
        mesh.save_obj(&path)?;
        println!(
            "{} {} faces (generated in {:.2?}, written in {:.2?})",
            path.display(),
            mesh.num_faces(),
            generated,
            start.elapsed() - generated
        );
    }
    Ok(())
}
