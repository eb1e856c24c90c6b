//! Renders a triangle mesh by casting one ray per pixel in a kernel (the BVH query
//! of `weft::geom`), shaded by the surface normal; writes `out/raycast.png` and
//! prints rays per second. Runs on the GPU when one is present, else the CPU.
//!
//! Run: `cargo run --release --example raycast [-- --size 1024 --cpu]`

use std::time::Instant;

use weft::geom::{DeviceMesh, mesh_query_ray};
use weft::prelude::*;

/// One ray per pixel from a pinhole camera at `eye` looking along `forward`;
/// `(0.5 + 0.5 n)` for the normal `n` facing the camera, a dark backdrop elsewhere.
#[weft::kernel]
fn render(
    mesh: &DeviceMesh,
    eye: Vec3,
    forward: Vec3,
    right: Vec3,
    up: Vec3,
    width: i32,
    height: i32,
    image: &mut Array<Vec3>,
) {
    let (y, x) = tid();
    let u = ((x as f32 + 0.5) / width as f32 * 2.0 - 1.0) * width as f32 / height as f32;
    let v = 1.0 - (y as f32 + 0.5) / height as f32 * 2.0;
    let dir = normalize(forward + right * (u * 0.5) + up * (v * 0.5));
    let hit = mesh_query_ray(mesh, eye, dir, 1.0e6);
    let mut colour = Vec3::new(0.08, 0.09, 0.11) * (1.2 - 0.4 * v);
    if hit.hit {
        // `sign` is -1 on a back face: turn its normal toward the camera.
        colour = Vec3::splat(0.5) + hit.normal * (0.5 * hit.sign);
    }
    image[y * width + x] = colour;
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let size = args
        .iter()
        .position(|a| a == "--size")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(768), |s| s.parse::<usize>())?;
    let device = if args.iter().any(|a| a == "--cpu") {
        Device::Cpu
    } else {
        Device::best()
    };
    let mesh = weft_geom::generate::torus_knot(2, 3, 1.0, 0.3, 512, 64);
    println!(
        "torus knot, {} triangles, {size}×{size} pixels on {device:?}",
        mesh.indices().len()
    );
    let t = Instant::now();
    let dm = DeviceMesh::new(device, &mesh)?;
    println!(
        "BVH build + upload: {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );

    let eye = Vec3::new(0.0, -4.2, 1.6);
    let forward = (Vec3::ZERO - eye).normalize();
    let right = forward.cross(Vec3::Z).normalize();
    let up = right.cross(forward);
    let mut image = Array::zeros(device, [size * size]);
    let (w, h) = (size as i32, size as i32);
    let frame = |img: &mut Array<Vec3>| {
        render::launch([size, size], &dm, eye, forward, right, up, w, h, img)
    };
    frame(&mut image)?; // first launch: module load on a GPU
    device.synchronize()?;
    let reps = 5;
    let t = Instant::now();
    for _ in 0..reps {
        frame(&mut image)?;
    }
    device.synchronize()?;
    let secs = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "{:.2} ms per frame, {:.1} Mrays/s",
        secs * 1e3,
        (size * size) as f64 / secs / 1e6
    );

    let pixels: Vec<u8> = image
        .to_vec()
        .iter()
        .flat_map(|c| {
            c.to_array()
                .map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
        })
        .collect();
    std::fs::create_dir_all("out")?;
    image::save_buffer(
        "out/raycast.png",
        &pixels,
        size as u32,
        size as u32,
        image::ColorType::Rgb8,
    )?;
    println!("wrote out/raycast.png");
    Ok(())
}
