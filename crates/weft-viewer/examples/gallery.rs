//! Renders one image of everything the renderer draws, without the `App` trait:
//! build a `Scene`, render it with `Offscreen`, save the PNG.
//!
//! Run: `cargo run --release -p weft-viewer --example gallery -- out/gallery.png`

use glam::{Quat, Vec3};
use weft_viewer::{
    Color, Colormap, Lines, Mesh, Offscreen, OrbitCamera, Points, Scene, Shape, Transform,
};

fn main() -> Result<(), weft_viewer::Error> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "out/gallery.png".into());
    let mut scene = Scene::new();

    // A block of particles coloured by height.
    let mut x = Vec::new();
    for i in 0..20 {
        for j in 0..20 {
            for k in 0..10 {
                x.push(Vec3::new(
                    -1.8 + i as f32 * 0.06,
                    -0.6 + j as f32 * 0.06,
                    0.05 + k as f32 * 0.06,
                ));
            }
        }
    }
    let h: Vec<f32> = x.iter().map(|p| p.z).collect();
    scene.log_points(
        "particles",
        Points::new(&x).radius(0.025).scalars(&h, Colormap::Viridis),
    )?;

    // A wavy cloth sheet, its normals computed by the viewer.
    let n = 40;
    let mut cloth = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let (u, v) = (i as f32 / n as f32, j as f32 / n as f32);
            cloth.push(Vec3::new(
                0.2 + u * 1.4,
                -0.7 + v * 1.4,
                0.9 + 0.12 * (u * 9.0).sin() * (v * 6.0).cos(),
            ));
        }
    }
    let mut tris = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let a = (j * (n + 1) + i) as u32;
            let b = a + 1;
            let c = a + n as u32 + 1;
            tris.push([a, b, c + 1]);
            tris.push([a, c + 1, c]);
        }
    }
    scene.log_mesh(
        "cloth",
        Mesh::from_triangles(&cloth, &tris).color(Color::CORAL),
    )?;

    // Rigid bodies.
    let q = Quat::from_rotation_z(0.5) * Quat::from_rotation_x(0.3);
    scene.log_shapes(
        "bodies",
        &[
            Shape::sphere(0.25)
                .at(Transform::from_translation(Vec3::new(0.6, 1.2, 0.25)))
                .color(Color::TEAL),
            Shape::cuboid(Vec3::new(0.3, 0.2, 0.15))
                .at(Transform::new(Vec3::new(1.3, 1.1, 0.25), q))
                .color(Color::GOLD),
            Shape::capsule(0.12, 0.25).at(Transform::new(
                Vec3::new(-0.2, 1.3, 0.5),
                Quat::from_rotation_x(1.2),
            )),
        ],
    )?;

    // Lines: the cloth's border and some debug vectors.
    let border: Vec<Vec3> = (0..=n).map(|i| cloth[i] + Vec3::Z * 0.01).collect();
    scene.log_lines(
        "border",
        Lines::strip(&border).color(Color::BLACK).width(2.0),
    )?;
    let tops: Vec<Vec3> = x.iter().step_by(97).copied().collect();
    let up = vec![Vec3::new(0.0, 0.2, 1.0); tops.len()];
    scene.log_lines(
        "vectors",
        Lines::vectors(&tops, &up, 0.4)
            .color(Color::BLUE)
            .width(2.0),
    )?;

    let mut off = Offscreen::new(960, 540)?;
    eprintln!("rendering on {}", off.gpu().describe());
    let mut camera = OrbitCamera::default();
    camera.frame(scene.bounds().expect("not empty"), 960.0 / 540.0);
    camera.distance *= 0.85;
    let image = off.render(&scene, &camera)?;
    if let Some(dir) = std::path::Path::new(&path).parent() {
        std::fs::create_dir_all(dir).ok();
    }
    image.save(&path).map_err(|e| weft_viewer::Error::Io {
        path: path.clone(),
        message: e.to_string(),
    })?;
    eprintln!("wrote {path}");
    Ok(())
}
