//! Particles: sphere impostors read from storage buffers (see `shaders/points.wgsl`).

use std::num::NonZeroU64;

use bytemuck::{Pod, Zeroable};

use super::pipeline::{self, GrowBuffer, Lit, Pass, Spec, Target};
use crate::colormap::normalize;
use crate::scene::{Colors, PointCloud, Radii};

/// Mirrors `Batch` in `shaders/points.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Batch {
    color: [f32; 4],
    radius: f32,
    color_mode: u32,
    radius_mode: u32,
    colormap: u32,
    scalar_min: f32,
    scalar_scale: f32,
    radius_scale: f32,
    _pad: f32,
}

/// Pipelines and layout shared by every point cloud.
pub(crate) struct PointsPipelines {
    layout: wgpu::BindGroupLayout,
    main: Lit,
    shadow: wgpu::RenderPipeline,
    /// Bound where a cloud has no per-point colours or radii.
    dummy: wgpu::Buffer,
    /// Most points one draw handles (storage bindings have a maximum size).
    chunk: u64,
}

impl PointsPipelines {
    pub(crate) fn new(
        device: &wgpu::Device,
        globals: &wgpu::BindGroupLayout,
        target: Target,
    ) -> Self {
        let storage = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("points"),
            entries: &[
                pipeline::uniform_entry(0),
                storage(1),
                storage(2),
                storage(3),
            ],
        });
        let pl = pipeline::layout(device, "points", globals, Some(&layout));
        let module = super::shaders::module(device, "points.wgsl");
        let spec = Spec {
            label: "points",
            layout: &pl,
            module: &module,
            vs: "vs_points",
            fs: Some("fs_points"),
            buffers: &[],
            alpha_to_coverage: true,
            depth_write: true,
            depth_test: true,
            topology: wgpu::PrimitiveTopology::TriangleStrip,
        };
        let main = Lit::new(device, &spec, target);
        let shadow = pipeline::shadow(
            device,
            &Spec {
                label: "points (shadow)",
                fs: Some("fs_points_shadow"),
                ..spec
            },
        );
        let dummy = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("points: no per-point data"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let limits = device.limits();
        let max_binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        // Multiples of 256 points keep every chunk's offset aligned (12 * 256 bytes).
        let chunk = (max_binding / 12 / 256 * 256).clamp(256, u32::MAX as u64 / 256 * 256);
        PointsPipelines {
            layout,
            main,
            shadow,
            dummy,
            chunk,
        }
    }
}

/// One point cloud on the GPU.
pub(crate) struct PointsGpu {
    uniform: wgpu::Buffer,
    positions: GrowBuffer,
    attrs: GrowBuffer,
    radii: GrowBuffer,
    batch: Batch,
    /// One bind group and point count per chunk.
    chunks: Vec<(wgpu::BindGroup, u32)>,
}

impl PointsGpu {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let storage = wgpu::BufferUsages::STORAGE;
        PointsGpu {
            uniform: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("points batch"),
                size: std::mem::size_of::<Batch>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            positions: GrowBuffer::new("point positions", storage),
            attrs: GrowBuffer::new("point colours", storage),
            radii: GrowBuffer::new("point radii", storage),
            batch: Batch::zeroed(),
            chunks: Vec::new(),
        }
    }

    /// Uploads a cloud's data and rebuilds its bind groups.
    pub(crate) fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        p: &PointsPipelines,
        cloud: &PointCloud,
    ) {
        let n = cloud.positions.len() as u64;
        let mut batch = Batch {
            radius_scale: 1.0,
            ..Batch::zeroed()
        };
        self.positions
            .write(device, queue, bytemuck::cast_slice(&cloud.positions));
        let attrs = match &cloud.colors {
            Colors::Uniform(c) => {
                batch.color = c.to_linear();
                false
            }
            Colors::PerItem(colors) => {
                batch.color_mode = 1;
                self.attrs
                    .write(device, queue, bytemuck::cast_slice(colors));
                true
            }
            Colors::Scalars { values, map, range } => {
                batch.color_mode = 2;
                batch.colormap = map.index();
                if normalize(range.0, *range) == 0.5 {
                    // Degenerate range: every value maps to the middle of the map.
                    batch.scalar_min = range.0 - 0.5;
                    batch.scalar_scale = 1.0;
                } else {
                    batch.scalar_min = range.0;
                    batch.scalar_scale = 1.0 / (range.1 - range.0);
                }
                self.attrs
                    .write(device, queue, bytemuck::cast_slice(values));
                true
            }
        };
        let radii = match &cloud.radii {
            Radii::Uniform(r) => {
                batch.radius = *r;
                false
            }
            Radii::PerPoint(r) => {
                batch.radius_mode = 1;
                self.radii.write(device, queue, bytemuck::cast_slice(r));
                true
            }
        };
        self.batch = batch;
        self.chunks.clear();
        let Some(positions) = self.positions.get() else {
            return;
        };
        let mut start = 0u64;
        while start < n {
            let count = (n - start).min(p.chunk);
            fn part(
                buffer: &wgpu::Buffer,
                start: u64,
                count: u64,
                elem: u64,
            ) -> wgpu::BindingResource<'_> {
                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: start * elem,
                    size: NonZeroU64::new(count * elem),
                })
            }
            let attrs_res = match (attrs, self.attrs.get()) {
                (true, Some(b)) => part(b, start, count, 4),
                _ => p.dummy.as_entire_binding(),
            };
            let radii_res = match (radii, self.radii.get()) {
                (true, Some(b)) => part(b, start, count, 4),
                _ => p.dummy.as_entire_binding(),
            };
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("points"),
                layout: &p.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: self.uniform.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: part(positions, start, count, 12),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: attrs_res,
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: radii_res,
                    },
                ],
            });
            self.chunks.push((group, count as u32));
            start += count;
        }
    }

    /// Writes the per-frame part of the uniform (the point-size factor).
    pub(crate) fn set_scale(&mut self, queue: &wgpu::Queue, scale: f32) {
        self.batch.radius_scale = scale;
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&self.batch));
    }

    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, p: &PointsPipelines, kind: Pass) {
        pass.set_pipeline(match kind {
            Pass::ShadowMap => &p.shadow,
            Pass::Main { shadows } => p.main.get(shadows),
        });
        for (group, count) in &self.chunks {
            pass.set_bind_group(1, group, &[]);
            pass.draw(0..4, 0..*count);
        }
    }
}
