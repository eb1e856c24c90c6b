//! A slice of a mesh's signed distance field, computed in a kernel with
//! `weft::geom::mesh_query_point`: the closest point on the mesh gives the
//! distance, the generalized winding number the sign. Writes
//! `out/closest_point.png` (blue inside, orange outside, iso-lines every 0.05) and
//! prints queries per second. Runs on the GPU when one is present.
//!
//! Run: `cargo run --release --example closest_point [-- --size 768 --cpu]`

use std::time::Instant;

use weft::geom::{DeviceMesh, mesh_query_point};
use weft::prelude::*;

/// Signed distance to the mesh at each pixel of the plane `y = 0`, `x, z` in
/// `-extent..extent`; negative inside.
#[weft::kernel]
fn sdf_slice(mesh: &DeviceMesh, extent: f32, width: i32, sdf: &mut Array<f32>) {
    let (row, col) = tid();
    let x = ((col as f32 + 0.5) / width as f32 * 2.0 - 1.0) * extent;
    let z = (1.0 - (row as f32 + 0.5) / width as f32 * 2.0) * extent;
    let p = Vec3::new(x, 0.0, z);
    let q = mesh_query_point(mesh, p, f32::INFINITY);
    let mut d = f32::INFINITY;
    if q.found {
        d = q.sign * length(q.point - p);
    }
    sdf[row * width + col] = d;
}

fn colour(d: f32) -> [u8; 3] {
    let base = if d < 0.0 {
        [0.25, 0.45, 0.85]
    } else {
        [0.95, 0.55, 0.2]
    };
    let fade = (-2.0 * d.abs()).exp() * 0.6 + 0.4;
    let band = (d.abs() / 0.05).fract();
    let line = if band < 0.08 || d.abs() < 0.004 {
        0.35
    } else {
        1.0
    };
    base.map(|c| ((c * fade * line).clamp(0.0, 1.0) * 255.0).round() as u8)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let size = args
        .iter()
        .position(|a| a == "--size")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(512), |s| s.parse::<usize>())?;
    let device = if args.iter().any(|a| a == "--cpu") {
        Device::Cpu
    } else {
        Device::best()
    };
    let mesh = weft_geom::generate::torus_knot(2, 3, 1.0, 0.3, 512, 64);
    println!(
        "torus knot, {} triangles; a {size}×{size} slice on {device:?}",
        mesh.indices().len()
    );
    let dm = DeviceMesh::new(device, &mesh)?;
    let mut sdf = Array::zeros(device, [size * size]);
    let run = |s: &mut Array<f32>| sdf_slice::launch([size, size], &dm, 1.6, size as i32, s);
    run(&mut sdf)?;
    device.synchronize()?;
    let t = Instant::now();
    run(&mut sdf)?;
    device.synchronize()?;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{:.2} ms per slice, {:.2} M signed-distance queries/s",
        secs * 1e3,
        (size * size) as f64 / secs / 1e6
    );
    let d = sdf.to_vec();
    let inside = d.iter().filter(|&&v| v < 0.0).count();
    println!(
        "{:.1} % of the slice is inside",
        100.0 * inside as f64 / d.len() as f64
    );
    let pixels: Vec<u8> = d.iter().flat_map(|&v| colour(v)).collect();
    std::fs::create_dir_all("out")?;
    image::save_buffer(
        "out/closest_point.png",
        &pixels,
        size as u32,
        size as u32,
        image::ColorType::Rgb8,
    )?;
    println!("wrote out/closest_point.png");
    Ok(())
}
