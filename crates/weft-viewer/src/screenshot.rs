//! Screenshots of the 3D view (the panel's button): the scene alone, without the
//! panel, rendered at the viewport's size and saved as a PNG.

use std::path::{Path, PathBuf};

use crate::headless::save_png;
use crate::renderer::{RenderSettings, Renderer, Viewport, read_rgba};
use crate::{Error, Gpu, OrbitCamera, Scene};

/// The first `screenshot_NNN.png` in `dir` that does not exist yet, so screenshots
/// of earlier runs are kept.
pub(crate) fn next_path(dir: &Path) -> PathBuf {
    (0u32..)
        .map(|n| dir.join(format!("screenshot_{n:03}.png")))
        .find(|p| !p.exists())
        .expect("fewer than 2^32 screenshots")
}

/// Renders `scene` as `camera` sees it into a new `size` image with `renderer`
/// (whose colour format is `format`, an sRGB one) and saves it at `path`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn save(
    gpu: &Gpu,
    renderer: &mut Renderer,
    format: wgpu::TextureFormat,
    scene: &Scene,
    camera: &OrbitCamera,
    settings: &RenderSettings,
    size: [u32; 2],
    path: &Path,
) -> Result<(), Error> {
    let [w, h] = [size[0].max(1), size[1].max(1)];
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("screenshot"),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let target = texture.create_view(&Default::default());
    let full = Viewport::full([w, h]);
    renderer.prepare(scene, camera, settings, [w, h], full);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.encode(&mut encoder, &target, full);
    gpu.queue.submit([encoder.finish()]);
    let image = read_rgba(&gpu.device, &gpu.queue, &texture)?;
    save_png(&image, path)
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::{Color, Shape, Transform};

    #[test]
    fn numbers_count_up_past_existing_files() {
        let dir = std::env::temp_dir().join(format!("weft-shot-names-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(next_path(&dir), dir.join("screenshot_000.png"));
        std::fs::write(dir.join("screenshot_000.png"), b"").unwrap();
        std::fs::write(dir.join("screenshot_001.png"), b"").unwrap();
        assert_eq!(next_path(&dir), dir.join("screenshot_002.png"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The button's code path with a window-less device: a PNG of the view appears.
    #[test]
    fn screenshot_writes_a_png_of_the_view() {
        let gpu = match Gpu::new() {
            Ok(g) => g,
            Err(e) if std::env::var_os("CI").is_none() => {
                println!("SKIPPED: no graphics adapter: {e}");
                return;
            }
            Err(e) => panic!("CI must render (install mesa-vulkan-drivers): {e}"),
        };
        let format = wgpu::TextureFormat::Rgba8UnormSrgb;
        let mut renderer = Renderer::new(&gpu, format, 4, false);
        let mut scene = Scene::new();
        scene
            .log_shapes(
                "ball",
                &[Shape::sphere(0.5)
                    .at(Transform::from_translation(Vec3::Z * 0.5))
                    .color(Color::rgb(220, 30, 30))],
            )
            .unwrap();
        let camera = OrbitCamera::look_at(Vec3::new(2.5, -2.5, 1.5), Vec3::Z * 0.5);
        let dir = std::env::temp_dir().join(format!("weft-shot-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for expected in ["screenshot_000.png", "screenshot_001.png"] {
            let path = next_path(&dir);
            assert_eq!(path, dir.join(expected));
            save(
                &gpu,
                &mut renderer,
                format,
                &scene,
                &camera,
                &RenderSettings::default(),
                [200, 120],
                &path,
            )
            .unwrap();
            let image = image::open(&path).unwrap().to_rgba8();
            assert_eq!(image.dimensions(), (200, 120));
            // The ball's disc is about 19 px in radius (~1100 px); its lit part is red.
            let red = image
                .pixels()
                .filter(|p| {
                    p[0] > 90 && p[0] as u32 > 2 * p[1] as u32 && p[0] as u32 > 2 * p[2] as u32
                })
                .count();
            assert!(
                (500..1300).contains(&red),
                "the red ball covers {red} pixels of {path:?}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
