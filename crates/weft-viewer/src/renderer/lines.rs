//! Line segments as screen-space quads, one instance each (see `shaders/lines.wgsl`).

use bytemuck::{Pod, Zeroable};

use super::pipeline::{self, GrowBuffer, Spec, Target};
use crate::Color;
use crate::scene::LineSet;

/// Mirrors `LineInstance` in `shaders/lines.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Instance {
    a: [f32; 3],
    b: [f32; 3],
    color: Color,
}

/// Pipeline and layout shared by every line set.
pub(crate) struct LinePipelines {
    layout: wgpu::BindGroupLayout,
    main: wgpu::RenderPipeline,
}

impl LinePipelines {
    pub(crate) fn new(
        device: &wgpu::Device,
        globals: &wgpu::BindGroupLayout,
        target: Target,
    ) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("lines"),
            entries: &[pipeline::uniform_entry(0)],
        });
        let pl = pipeline::layout(device, "lines", globals, Some(&layout));
        let module = super::shaders::module(device, "lines.wgsl");
        let buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<Instance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Unorm8x4],
        })];
        let spec = Spec {
            label: "lines",
            layout: &pl,
            module: &module,
            vs: "vs_lines",
            fs: Some("fs_lines"),
            buffers: &buffers,
            alpha_to_coverage: false,
            depth_write: true,
            depth_test: true,
            topology: wgpu::PrimitiveTopology::TriangleList,
        };
        LinePipelines {
            main: pipeline::main(device, &spec, target),
            layout,
        }
    }
}

/// One line set on the GPU.
pub(crate) struct LinesGpu {
    uniform: wgpu::Buffer,
    group: wgpu::BindGroup,
    instances: GrowBuffer,
    count: u32,
    scratch: Vec<Instance>,
}

impl LinesGpu {
    pub(crate) fn new(device: &wgpu::Device, p: &LinePipelines) -> Self {
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("line width"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("lines"),
            layout: &p.layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }],
        });
        LinesGpu {
            uniform,
            group,
            instances: GrowBuffer::new("line segments", wgpu::BufferUsages::VERTEX),
            count: 0,
            scratch: Vec::new(),
        }
    }

    pub(crate) fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, lines: &LineSet) {
        queue.write_buffer(
            &self.uniform,
            0,
            bytemuck::cast_slice(&[lines.width, 0.0, 0.0, 0.0]),
        );
        self.scratch.clear();
        self.scratch.extend(
            lines
                .segments
                .iter()
                .enumerate()
                .map(|(i, [a, b])| Instance {
                    a: (*a).into(),
                    b: (*b).into(),
                    color: lines.colors.color_of(i),
                }),
        );
        self.instances
            .write(device, queue, bytemuck::cast_slice(&self.scratch));
        self.count = self.scratch.len() as u32;
    }

    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, p: &LinePipelines) {
        let Some(instances) = self.instances.get() else {
            return;
        };
        if self.count == 0 {
            return;
        }
        pass.set_pipeline(&p.main);
        pass.set_bind_group(1, &self.group, &[]);
        pass.set_vertex_buffer(0, instances.slice(..));
        pass.draw(0..6, 0..self.count);
    }
}
