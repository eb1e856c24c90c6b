//! The wgpu renderer: a shadow pass from the light, then one multisampled pass with
//! the sky, the ground, and every logged entity; resolved into the caller's sRGB
//! target.

mod background;
mod globals;
mod lines;
mod meshes;
mod pipeline;
mod points;
mod primitives;
mod readback;
mod settings;
pub(crate) mod shaders;
mod shapes;
mod targets;
mod timer;

use std::collections::HashMap;
use std::time::Duration;

pub use settings::RenderSettings;

pub(crate) use readback::read_rgba;

use crate::scene::Item;
use crate::{Gpu, OrbitCamera, Scene};
use globals::{FrameGlobals, GlobalsGpu};
use pipeline::{Pass, Target};

/// GPU resources of one logged entity.
enum EntityGpu {
    Points(points::PointsGpu),
    Mesh(meshes::MeshGpu),
    Shapes(shapes::ShapesGpu),
    Lines(lines::LinesGpu),
}

/// Draws a [`Scene`] into an sRGB colour target.
pub(crate) struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    target: Target,
    globals: GlobalsGpu,
    background: background::Background,
    points: points::PointsPipelines,
    meshes: meshes::MeshPipelines,
    shapes: shapes::ShapePipelines,
    lines: lines::LinePipelines,
    entities: HashMap<String, EntityGpu>,
    /// Entity names in draw order.
    order: Vec<String>,
    uploaded: Option<u64>,
    targets: Option<targets::Targets>,
    timer: Option<timer::GpuTimer>,
    shadows_this_frame: bool,
    ground_this_frame: bool,
    has_casters: bool,
}

/// The part of the target a frame draws into, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Viewport {
    pub(crate) x: f32,
    pub(crate) y: f32,
    pub(crate) width: f32,
    pub(crate) height: f32,
}

impl Viewport {
    pub(crate) fn full(size: [u32; 2]) -> Self {
        Viewport {
            x: 0.0,
            y: 0.0,
            width: size[0] as f32,
            height: size[1] as f32,
        }
    }
}

impl Renderer {
    /// A renderer for targets of `format` (which should be an sRGB format), with
    /// `msaa` samples where the adapter supports them.
    pub(crate) fn new(gpu: &Gpu, format: wgpu::TextureFormat, msaa: u32, timestamps: bool) -> Self {
        let device = gpu.device.clone();
        let queue = gpu.queue.clone();
        let target = Target {
            format,
            samples: targets::sample_count(&gpu.adapter, format, msaa),
        };
        let globals = GlobalsGpu::new(&device, &queue);
        let l = &globals.layout;
        Renderer {
            background: background::Background::new(&device, l, target),
            points: points::PointsPipelines::new(&device, l, target),
            meshes: meshes::MeshPipelines::new(&device, l, target),
            shapes: shapes::ShapePipelines::new(&device, l, target),
            lines: lines::LinePipelines::new(&device, l, target),
            timer: if timestamps {
                timer::GpuTimer::new(&device, &queue)
            } else {
                None
            },
            globals,
            entities: HashMap::new(),
            order: Vec::new(),
            uploaded: None,
            targets: None,
            device,
            queue,
            target,
            shadows_this_frame: false,
            ground_this_frame: true,
            has_casters: false,
        }
    }

    /// MSAA samples in use.
    pub(crate) fn samples(&self) -> u32 {
        self.target.samples
    }

    /// Uploads what changed in `scene` and this frame's uniforms.
    pub(crate) fn prepare(
        &mut self,
        scene: &Scene,
        camera: &OrbitCamera,
        settings: &RenderSettings,
        target_size: [u32; 2],
        viewport: Viewport,
    ) {
        if self.uploaded != Some(scene.version()) {
            self.upload(scene);
            self.uploaded = Some(scene.version());
        }
        for e in self.entities.values_mut() {
            if let EntityGpu::Points(p) = e {
                p.set_scale(&self.queue, settings.point_scale);
            }
        }
        let globals = FrameGlobals::new(
            camera,
            [viewport.width, viewport.height],
            settings,
            scene.bounds(),
        );
        self.globals.write(&self.queue, &globals);
        self.shadows_this_frame = settings.shadows && self.has_casters;
        self.ground_this_frame = settings.ground.is_some();
        if self.targets.as_ref().is_none_or(|t| t.size != target_size) {
            self.targets = Some(targets::Targets::new(
                &self.device,
                self.target,
                target_size,
            ));
        }
    }

    fn upload(&mut self, scene: &Scene) {
        self.order.clear();
        let (device, queue) = (&self.device, &self.queue);
        for entry in &scene.entries {
            let gpu = self.entities.remove(&entry.name);
            let gpu = match (&entry.item, gpu) {
                (Item::Points(c), g) => {
                    let mut g = match g {
                        Some(EntityGpu::Points(g)) => g,
                        _ => points::PointsGpu::new(device),
                    };
                    g.upload(device, queue, &self.points, c);
                    EntityGpu::Points(g)
                }
                (Item::Mesh(m), g) => {
                    let mut g = match g {
                        Some(EntityGpu::Mesh(g)) => g,
                        _ => meshes::MeshGpu::new(device, &self.meshes),
                    };
                    g.upload(device, queue, m);
                    EntityGpu::Mesh(g)
                }
                (Item::Shapes(s, _), g) => {
                    let mut g = match g {
                        Some(EntityGpu::Shapes(g)) => g,
                        _ => shapes::ShapesGpu::new(),
                    };
                    g.upload(device, queue, s);
                    EntityGpu::Shapes(g)
                }
                (Item::Lines(l), g) => {
                    let mut g = match g {
                        Some(EntityGpu::Lines(g)) => g,
                        _ => lines::LinesGpu::new(device, &self.lines),
                    };
                    g.upload(device, queue, l);
                    EntityGpu::Lines(g)
                }
            };
            self.order.push(entry.name.clone());
            self.entities.insert(entry.name.clone(), gpu);
        }
        // Drop what the scene no longer has.
        let keep: std::collections::HashSet<&String> = self.order.iter().collect();
        self.entities.retain(|name, _| keep.contains(name));
        self.has_casters = self
            .entities
            .values()
            .any(|e| !matches!(e, EntityGpu::Lines(_)));
    }

    /// Records the shadow pass and the main pass into `encoder`, drawing into the
    /// `viewport` of `output` (a view of `target_size` given to [`prepare`](Self::prepare)).
    pub(crate) fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        output: &wgpu::TextureView,
        viewport: Viewport,
    ) {
        let targets = self.targets.as_ref().expect("prepare() before encode()");
        if self.shadows_this_frame {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.globals.shadow_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: self.timer.as_ref().map(|t| t.writes(0)),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.globals.shadow_group, &[]);
            self.draw_entities(&mut pass, Pass::ShadowMap);
        }
        let (view, resolve) = match &targets.color {
            Some(msaa) => (msaa, Some(output)),
            None => (output, None),
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("main"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: resolve,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &targets.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(0.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: self.timer.as_ref().map(|t| t.writes(1)),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_viewport(
            viewport.x,
            viewport.y,
            viewport.width.max(1.0),
            viewport.height.max(1.0),
            0.0,
            1.0,
        );
        pass.set_bind_group(0, &self.globals.main_group, &[]);
        self.background.draw_sky(&mut pass);
        let shadows = self.shadows_this_frame;
        if self.ground_this_frame {
            self.background.draw_ground(&mut pass, shadows);
        }
        self.draw_entities(&mut pass, Pass::Main { shadows });
        drop(pass);
        if let Some(t) = &self.timer {
            t.resolve(encoder);
        }
    }

    fn draw_entities(&self, pass: &mut wgpu::RenderPass<'_>, which: Pass) {
        for name in &self.order {
            match &self.entities[name] {
                EntityGpu::Points(p) => p.draw(pass, &self.points, which),
                EntityGpu::Mesh(m) => m.draw(pass, &self.meshes, which),
                EntityGpu::Shapes(s) => s.draw(pass, &self.shapes, which),
                EntityGpu::Lines(l) if which != Pass::ShadowMap => l.draw(pass, &self.lines),
                EntityGpu::Lines(_) => {}
            }
        }
    }

    /// GPU time of the last frame's passes (waits for the GPU); `None` without timestamp support.
    pub(crate) fn read_gpu_time(&self) -> Option<Duration> {
        self.timer
            .as_ref()
            .and_then(|t| t.read(&self.device, self.shadows_this_frame))
    }
}
