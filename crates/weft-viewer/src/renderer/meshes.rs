//! Triangle meshes: positions, normals and colours as vertex buffers, an index buffer
//! and a model matrix each (see `shaders/mesh.wgsl`).

use glam::Mat4;

use super::pipeline::{self, GrowBuffer, Lit, Pass, Spec, Target};
use crate::Color;
use crate::scene::{Colors, TriMesh};

/// Pipelines and layout shared by every mesh.
pub(crate) struct MeshPipelines {
    layout: wgpu::BindGroupLayout,
    main: Lit,
    shadow: wgpu::RenderPipeline,
}

fn attrs<const N: usize>(
    attrs: &'static [wgpu::VertexAttribute; N],
    stride: u64,
) -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: stride,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: attrs,
    }
}

impl MeshPipelines {
    pub(crate) fn new(
        device: &wgpu::Device,
        globals: &wgpu::BindGroupLayout,
        target: Target,
    ) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("mesh"),
            entries: &[pipeline::uniform_entry(0)],
        });
        let pl = pipeline::layout(device, "mesh", globals, Some(&layout));
        let module = super::shaders::module(device, "mesh.wgsl");
        let buffers = [
            Some(attrs(&wgpu::vertex_attr_array![0 => Float32x3], 12)),
            Some(attrs(&wgpu::vertex_attr_array![1 => Float32x3], 12)),
            Some(attrs(&wgpu::vertex_attr_array![2 => Unorm8x4], 4)),
        ];
        let spec = Spec {
            label: "mesh",
            layout: &pl,
            module: &module,
            vs: "vs_mesh",
            fs: Some("fs_mesh"),
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
                label: "mesh (shadow)",
                vs: "vs_mesh_shadow",
                fs: None,
                ..spec
            },
        );
        MeshPipelines {
            layout,
            main,
            shadow,
        }
    }
}

/// One mesh on the GPU.
pub(crate) struct MeshGpu {
    uniform: wgpu::Buffer,
    group: wgpu::BindGroup,
    positions: GrowBuffer,
    normals: GrowBuffer,
    colors: GrowBuffer,
    indices: GrowBuffer,
    index_count: u32,
    scratch: Vec<Color>,
}

impl MeshGpu {
    pub(crate) fn new(device: &wgpu::Device, p: &MeshPipelines) -> Self {
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("mesh transform"),
            size: 128,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("mesh"),
            layout: &p.layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }],
        });
        let vertex = wgpu::BufferUsages::VERTEX;
        MeshGpu {
            uniform,
            group,
            positions: GrowBuffer::new("mesh positions", vertex),
            normals: GrowBuffer::new("mesh normals", vertex),
            colors: GrowBuffer::new("mesh colours", vertex),
            indices: GrowBuffer::new("mesh indices", wgpu::BufferUsages::INDEX),
            index_count: 0,
            scratch: Vec::new(),
        }
    }

    pub(crate) fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, mesh: &TriMesh) {
        let model = Mat4::from_scale_rotation_translation(
            mesh.scale,
            mesh.transform.q.normalize(),
            mesh.transform.p,
        );
        let normal = model.inverse().transpose();
        let mut m = [0f32; 32];
        m[..16].copy_from_slice(&model.to_cols_array());
        m[16..].copy_from_slice(&normal.to_cols_array());
        queue.write_buffer(&self.uniform, 0, bytemuck::cast_slice(&m));
        self.positions
            .write(device, queue, bytemuck::cast_slice(&mesh.positions));
        self.normals
            .write(device, queue, bytemuck::cast_slice(&mesh.normals));
        let n = mesh.positions.len();
        let colors: &[Color] = match &mesh.colors {
            Colors::PerItem(c) => c,
            other => {
                self.scratch.clear();
                self.scratch.extend((0..n).map(|i| other.color_of(i)));
                &self.scratch
            }
        };
        self.colors
            .write(device, queue, bytemuck::cast_slice(colors));
        self.indices
            .write(device, queue, bytemuck::cast_slice(&mesh.indices));
        self.index_count = mesh.indices.len() as u32;
    }

    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, p: &MeshPipelines, kind: Pass) {
        let (Some(pos), Some(nrm), Some(col), Some(idx)) = (
            self.positions.get(),
            self.normals.get(),
            self.colors.get(),
            self.indices.get(),
        ) else {
            return;
        };
        if self.index_count == 0 {
            return;
        }
        pass.set_pipeline(match kind {
            Pass::ShadowMap => &p.shadow,
            Pass::Main { shadows } => p.main.get(shadows),
        });
        pass.set_bind_group(1, &self.group, &[]);
        pass.set_vertex_buffer(0, pos.slice(..));
        pass.set_vertex_buffer(1, nrm.slice(..));
        pass.set_vertex_buffer(2, col.slice(..));
        pass.set_index_buffer(idx.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..self.index_count, 0, 0..1);
    }
}
