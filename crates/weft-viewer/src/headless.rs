//! Offscreen rendering: the [`Offscreen`] renderer, and the headless mode that
//! writes PNG frames (plus the null mode, which renders nothing).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::renderer::{RenderSettings, Renderer, Viewport, read_rgba};
use crate::sim::{Sim, slug};
use crate::{App, Error, Gpu, Options, OrbitCamera, Params, Scene};

const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// Renders scenes to images without a window (on a GPU, or on the CPU through lavapipe).
///
/// ```no_run
/// use weft_viewer::{Offscreen, OrbitCamera, Points, Scene};
/// use glam::Vec3;
/// let mut scene = Scene::new();
/// scene.log_points("p", Points::new(&[Vec3::new(0.0, 0.0, 0.5)]).radius(0.5))?;
/// let mut off = Offscreen::new(640, 360)?;
/// let image = off.render(&scene, &OrbitCamera::default())?;
/// image.save("ball.png").unwrap();
/// # Ok::<(), weft_viewer::Error>(())
/// ```
pub struct Offscreen {
    gpu: Gpu,
    renderer: Renderer,
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    /// What is drawn besides the scene (ground, shadows, light).
    pub settings: RenderSettings,
    gpu_time: Option<Duration>,
}

impl Offscreen {
    /// An offscreen renderer of `width × height` pixels on a new device, with 4× MSAA.
    pub fn new(width: u32, height: u32) -> Result<Self, Error> {
        Ok(Self::with_gpu(Gpu::new()?, width, height, 4))
    }

    /// An offscreen renderer on `gpu`, with `msaa` samples (1 or 4) where supported.
    pub fn with_gpu(gpu: Gpu, width: u32, height: u32, msaa: u32) -> Self {
        let renderer = Renderer::new(&gpu, FORMAT, msaa, true);
        let (texture, view) = target(&gpu.device, width, height);
        Offscreen {
            gpu,
            renderer,
            texture,
            view,
            settings: RenderSettings::default(),
            gpu_time: None,
        }
    }

    /// The device in use.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Image size in pixels.
    pub fn size(&self) -> [u32; 2] {
        [self.texture.width(), self.texture.height()]
    }

    /// MSAA samples in use (1 where the adapter has no 4× support).
    pub fn samples(&self) -> u32 {
        self.renderer.samples()
    }

    /// Changes the image size.
    pub fn resize(&mut self, width: u32, height: u32) {
        if self.size() != [width, height] {
            (self.texture, self.view) = target(&self.gpu.device, width, height);
        }
    }

    /// Renders `scene` seen by `camera` and waits for the GPU, without reading the
    /// image back (for timing).
    pub fn render_only(&mut self, scene: &Scene, camera: &OrbitCamera) -> Result<(), Error> {
        let size = self.size();
        let viewport = Viewport::full(size);
        self.renderer
            .prepare(scene, camera, &self.settings, size, viewport);
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        self.renderer.encode(&mut encoder, &self.view, viewport);
        self.gpu.queue.submit([encoder.finish()]);
        self.gpu_time = self.renderer.read_gpu_time();
        self.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Window(format!("waiting for the GPU: {e}")))?;
        Ok(())
    }

    /// Renders `scene` seen by `camera` into an RGBA image.
    pub fn render(
        &mut self,
        scene: &Scene,
        camera: &OrbitCamera,
    ) -> Result<image::RgbaImage, Error> {
        self.render_only(scene, camera)?;
        read_rgba(&self.gpu.device, &self.gpu.queue, &self.texture)
    }

    /// GPU time of the last frame's render passes, where the adapter has timestamp queries.
    pub fn last_gpu_time(&self) -> Option<Duration> {
        self.gpu_time
    }
}

fn target(device: &wgpu::Device, width: u32, height: u32) -> (wgpu::Texture, wgpu::TextureView) {
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("offscreen"),
        size: wgpu::Extent3d {
            width: width.max(1),
            height: height.max(1),
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    (texture, view)
}

/// Saves `image` as a PNG, creating the folder.
pub(crate) fn save_png(image: &image::RgbaImage, path: &Path) -> Result<(), Error> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    image.save(path).map_err(|e| Error::io(path, e))
}

/// The output folder: `--out`, else `out/<title>`.
pub(crate) fn out_dir(options: &Options, title: &str) -> PathBuf {
    options
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(slug(title)))
}

/// Applies `--set` overrides through the app's `params`, failing on unknown names.
pub(crate) fn apply_overrides<A: App>(sim: &mut Sim<A>, options: &Options) -> Result<(), Error> {
    let overrides = options.overrides()?;
    let mut params = Params::with_overrides(&overrides);
    sim.app.params(&mut params);
    params.finish()?;
    if !overrides.is_empty() {
        sim.reset()?;
    }
    Ok(())
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Headless mode: renders `--frames` frames and writes PNGs and `scalars.csv` to the output folder.
pub(crate) fn run_headless<A: App>(
    mut sim: Sim<A>,
    options: &Options,
    null: bool,
) -> Result<(), Error> {
    let title = sim.settings.title.clone();
    let size = options.size.unwrap_or(sim.settings.size);
    let frames = options.frames.unwrap_or(60).max(1);
    let every = options.every.max(1);
    let dir = out_dir(options, &title);
    let mut offscreen = if null {
        None
    } else {
        let gpu = Gpu::new()?;
        eprintln!(
            "weft-viewer: {title}: rendering {frames} frames of {}x{} on {}",
            size[0],
            size[1],
            gpu.describe()
        );
        let mut off = Offscreen::with_gpu(gpu, size[0], size[1], options.msaa);
        off.settings.ground = sim.settings.ground;
        off.settings.shadows = !options.no_shadows;
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        Some(off)
    };
    sim.reset()?;
    apply_overrides(&mut sim, options)?;
    let mut camera = sim.settings.camera;
    let mut csv: Option<std::fs::File> = None;
    let (mut render_ms, mut gpu_ms, mut saved) = (Vec::new(), Vec::new(), 0);
    for frame in 0..frames {
        if frame > 0 {
            sim.advance(sim.steps_per_frame)?;
        }
        let mut params = Params::with_overrides::<&str, &str>(&[]);
        sim.app.params(&mut params);
        sim.redraw()?;
        let cam = *camera.get_or_insert_with(|| {
            let mut c = OrbitCamera::default();
            if let Some(b) = sim.scene.bounds() {
                c.frame(b, size[0] as f32 / size[1] as f32);
            }
            c
        });
        if let Some(off) = offscreen.as_mut() {
            let t0 = Instant::now();
            let image = off.render(&sim.scene, &cam)?;
            render_ms.push(t0.elapsed().as_secs_f64() * 1e3);
            if let Some(g) = off.last_gpu_time() {
                gpu_ms.push(g.as_secs_f64() * 1e3);
            }
            if frame % every == 0 || frame + 1 == frames {
                save_png(&image, &dir.join(format!("frame_{frame:04}.png")))?;
                saved += 1;
            }
            write_scalars(&mut csv, &dir, frame, &sim)?;
        }
    }
    let step_ms = mean(&sim.step_ms.values().map(|v| v as f64).collect::<Vec<_>>());
    if null {
        eprintln!(
            "weft-viewer: {title}: {frames} frames, {} steps, {:.3} ms per step (no rendering)",
            sim.steps, step_ms
        );
    } else {
        let gpu = if gpu_ms.is_empty() {
            String::new()
        } else {
            format!(", GPU {:.2} ms", mean(&gpu_ms))
        };
        eprintln!(
            "weft-viewer: {title}: wrote {saved} PNG(s) to {}; {:.1} ms per frame rendered and read back{gpu}; {:.3} ms per simulation step",
            dir.display(),
            mean(&render_ms),
            step_ms
        );
    }
    for (name, r) in &sim.scalars {
        if let Some(v) = r.last() {
            eprintln!("  {name} = {v}");
        }
    }
    Ok(())
}

fn write_scalars<A: App>(
    csv: &mut Option<std::fs::File>,
    dir: &Path,
    frame: u64,
    sim: &Sim<A>,
) -> Result<(), Error> {
    let scalars: Vec<(&str, f64)> = sim.scene.scalars().collect();
    if scalars.is_empty() {
        return Ok(());
    }
    let path = dir.join("scalars.csv");
    let io = |e| Error::io(&path, e);
    if csv.is_none() {
        let mut f = std::fs::File::create(&path).map_err(io)?;
        let names: Vec<&str> = scalars.iter().map(|(n, _)| *n).collect();
        writeln!(f, "frame,time,steps,{}", names.join(",")).map_err(io)?;
        *csv = Some(f);
    }
    let f = csv.as_mut().expect("created above");
    let values: Vec<String> = scalars.iter().map(|(_, v)| v.to_string()).collect();
    writeln!(f, "{frame},{},{},{}", sim.time, sim.steps, values.join(",")).map_err(io)
}
