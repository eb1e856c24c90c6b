//! Rigid shapes, instanced over four unit meshes (see `shaders/shapes.wgsl`).

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use super::pipeline::{self, GrowBuffer, Lit, Pass, Spec, Target};
use super::primitives::{Primitives, Range, ShapeVertex};
use crate::Color;
use crate::scene::{Geometry, Shape};

/// Mirrors `ShapeInstance` in `shaders/shapes.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Instance {
    translation: [f32; 3],
    rotation: [f32; 4],
    size: [f32; 4],
    color: Color,
}

/// Pipelines and the unit meshes shared by every shape set.
pub(crate) struct ShapePipelines {
    main: Lit,
    shadow: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    ranges: [Range; 4],
}

impl ShapePipelines {
    pub(crate) fn new(
        device: &wgpu::Device,
        globals: &wgpu::BindGroupLayout,
        target: Target,
    ) -> Self {
        let pl = pipeline::layout(device, "shapes", globals, None);
        let module = super::shaders::module(device, "shapes.wgsl");
        let buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<ShapeVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32],
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<Instance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &wgpu::vertex_attr_array![3 => Float32x3, 4 => Float32x4, 5 => Float32x4, 6 => Unorm8x4],
            }),
        ];
        let spec = Spec {
            label: "shapes",
            layout: &pl,
            module: &module,
            vs: "vs_shapes",
            fs: Some("fs_shapes"),
            buffers: &buffers,
            alpha_to_coverage: false,
            depth_write: true,
            depth_test: true,
            topology: wgpu::PrimitiveTopology::TriangleList,
        };
        let main = Lit::new(device, &spec, target);
        let shadow = pipeline::shadow(
            device,
            &Spec {
                label: "shapes (shadow)",
                vs: "vs_shapes_shadow",
                fs: None,
                ..spec
            },
        );
        let prims = Primitives::new();
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("shape meshes"),
            contents: bytemuck::cast_slice(&prims.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("shape mesh indices"),
            contents: bytemuck::cast_slice(&prims.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        ShapePipelines {
            main,
            shadow,
            vertices,
            indices,
            ranges: [prims.sphere, prims.cuboid, prims.capsule, prims.cylinder],
        }
    }
}

/// One shape set on the GPU: instances sorted by kind.
pub(crate) struct ShapesGpu {
    instances: GrowBuffer,
    /// Instance count per kind (sphere, box, capsule, cylinder).
    counts: [u32; 4],
    scratch: Vec<Instance>,
}

impl ShapesGpu {
    pub(crate) fn new() -> Self {
        ShapesGpu {
            instances: GrowBuffer::new("shape instances", wgpu::BufferUsages::VERTEX),
            counts: [0; 4],
            scratch: Vec::new(),
        }
    }

    pub(crate) fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, shapes: &[Shape]) {
        self.scratch.clear();
        self.counts = [0; 4];
        for kind in 0..4 {
            for s in shapes {
                let (k, size) = match s.geometry {
                    Geometry::Sphere { radius } => (0, [radius, radius, radius, 0.0]),
                    Geometry::Box { half_extents: h } => (1, [h.x, h.y, h.z, 0.0]),
                    Geometry::Capsule {
                        radius,
                        half_height,
                    } => (2, [radius, radius, radius, half_height]),
                    Geometry::Cylinder {
                        radius,
                        half_height,
                    } => (3, [radius, radius, half_height, 0.0]),
                };
                if k != kind {
                    continue;
                }
                let q = s.transform.q.normalize();
                self.scratch.push(Instance {
                    translation: s.transform.p.into(),
                    rotation: [q.x, q.y, q.z, q.w],
                    size,
                    color: s.color,
                });
                self.counts[kind] += 1;
            }
        }
        self.instances
            .write(device, queue, bytemuck::cast_slice(&self.scratch));
    }

    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, p: &ShapePipelines, which: Pass) {
        let Some(instances) = self.instances.get() else {
            return;
        };
        pass.set_pipeline(match which {
            Pass::ShadowMap => &p.shadow,
            Pass::Main { shadows } => p.main.get(shadows),
        });
        pass.set_vertex_buffer(0, p.vertices.slice(..));
        pass.set_vertex_buffer(1, instances.slice(..));
        pass.set_index_buffer(p.indices.slice(..), wgpu::IndexFormat::Uint32);
        let mut first = 0;
        for (kind, &count) in self.counts.iter().enumerate() {
            if count > 0 {
                let r = p.ranges[kind];
                pass.draw_indexed(
                    r.first_index..r.first_index + r.index_count,
                    r.base_vertex,
                    first..first + count,
                );
            }
            first += count;
        }
    }
}
