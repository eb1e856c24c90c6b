//! Shared pipeline construction: the main (MSAA, colour + reversed depth) and the
//! shadow (depth only) variants of each drawing pipeline.

use super::globals::DEPTH_FORMAT;

/// The colour target of the main pass.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target {
    pub(crate) format: wgpu::TextureFormat,
    pub(crate) samples: u32,
}

/// One pipeline's description, built into the main or shadow variant.
pub(crate) struct Spec<'a> {
    pub(crate) label: &'a str,
    pub(crate) layout: &'a wgpu::PipelineLayout,
    pub(crate) module: &'a wgpu::ShaderModule,
    pub(crate) vs: &'a str,
    pub(crate) fs: Option<&'a str>,
    pub(crate) buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    pub(crate) alpha_to_coverage: bool,
    pub(crate) depth_write: bool,
    pub(crate) depth_test: bool,
    pub(crate) topology: wgpu::PrimitiveTopology,
}

fn depth(write: bool, test: bool) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(write),
        // Reversed depth: nearer is larger.
        depth_compare: Some(if test {
            wgpu::CompareFunction::Greater
        } else {
            wgpu::CompareFunction::Always
        }),
        stencil: Default::default(),
        bias: Default::default(),
    }
}

/// Which pass a draw is recorded into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Depth from the light, into the shadow map.
    ShadowMap,
    /// The camera's view; `shadows`: the shadow map was rendered this frame.
    Main { shadows: bool },
}

/// A lit main-pass pipeline in two variants: with the shadow-map lookup compiled in
/// and without it (the `SHADOWS` override in `common.wgsl`).
pub(crate) struct Lit {
    shadowed: wgpu::RenderPipeline,
    unshadowed: wgpu::RenderPipeline,
}

impl Lit {
    pub(crate) fn new(device: &wgpu::Device, spec: &Spec<'_>, target: Target) -> Self {
        Lit {
            shadowed: build_main(device, spec, target, &[("SHADOWS", 1.0)]),
            unshadowed: build_main(device, spec, target, &[("SHADOWS", 0.0)]),
        }
    }

    /// The variant for a main pass with or without this frame's shadow map.
    pub(crate) fn get(&self, shadows: bool) -> &wgpu::RenderPipeline {
        if shadows {
            &self.shadowed
        } else {
            &self.unshadowed
        }
    }
}

/// The main-pass pipeline (colour into `target`, depth tested) of a shader that
/// does no lighting (see [`Lit`] for those that do).
pub(crate) fn main(device: &wgpu::Device, spec: &Spec<'_>, target: Target) -> wgpu::RenderPipeline {
    build_main(device, spec, target, &[])
}

fn build_main(
    device: &wgpu::Device,
    spec: &Spec<'_>,
    target: Target,
    constants: &[(&str, f64)],
) -> wgpu::RenderPipeline {
    let options = wgpu::PipelineCompilationOptions {
        constants,
        ..Default::default()
    };
    let targets = [Some(wgpu::ColorTargetState {
        format: target.format,
        blend: None,
        write_mask: wgpu::ColorWrites::ALL,
    })];
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(spec.label),
        layout: Some(spec.layout),
        vertex: wgpu::VertexState {
            module: spec.module,
            entry_point: Some(spec.vs),
            compilation_options: options.clone(),
            buffers: spec.buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: spec.topology,
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: Some(depth(spec.depth_write, spec.depth_test)),
        multisample: wgpu::MultisampleState {
            count: target.samples,
            mask: !0,
            alpha_to_coverage_enabled: spec.alpha_to_coverage && target.samples > 1,
        },
        fragment: spec.fs.map(|fs| wgpu::FragmentState {
            module: spec.module,
            entry_point: Some(fs),
            compilation_options: options.clone(),
            targets: &targets,
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// The shadow-pass pipeline (depth only; `fs` only where the shader writes depth).
pub(crate) fn shadow(device: &wgpu::Device, spec: &Spec<'_>) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(spec.label),
        layout: Some(spec.layout),
        vertex: wgpu::VertexState {
            module: spec.module,
            entry_point: Some(spec.vs),
            compilation_options: Default::default(),
            buffers: spec.buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: spec.topology,
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: Some(depth(true, true)),
        multisample: Default::default(),
        fragment: spec.fs.map(|fs| wgpu::FragmentState {
            module: spec.module,
            entry_point: Some(fs),
            compilation_options: Default::default(),
            targets: &[],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// A pipeline layout of the globals and, optionally, one more group.
pub(crate) fn layout(
    device: &wgpu::Device,
    label: &str,
    globals: &wgpu::BindGroupLayout,
    extra: Option<&wgpu::BindGroupLayout>,
) -> wgpu::PipelineLayout {
    let groups: Vec<Option<&wgpu::BindGroupLayout>> = match extra {
        Some(e) => vec![Some(globals), Some(e)],
        None => vec![Some(globals)],
    };
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &groups,
        immediate_size: 0,
    })
}

/// A uniform-buffer layout entry.
pub(crate) fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A growable GPU buffer: reallocated (larger) when the data outgrows it.
pub(crate) struct GrowBuffer {
    label: &'static str,
    usage: wgpu::BufferUsages,
    buffer: Option<wgpu::Buffer>,
}

impl GrowBuffer {
    pub(crate) fn new(label: &'static str, usage: wgpu::BufferUsages) -> Self {
        GrowBuffer {
            label,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            buffer: None,
        }
    }

    /// Uploads `bytes` (padded to 4 bytes, at least 16), growing the buffer if needed.
    pub(crate) fn write(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        bytes: &[u8],
    ) -> &wgpu::Buffer {
        let needed = (bytes.len() as u64).max(16).next_multiple_of(4);
        if self.buffer.as_ref().is_none_or(|b| b.size() < needed) {
            let size = (needed + needed / 4).next_multiple_of(256);
            self.buffer = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(self.label),
                size,
                usage: self.usage,
                mapped_at_creation: false,
            }));
        }
        let buffer = self.buffer.as_ref().expect("allocated above");
        let whole = bytes.len() as u64 / 4 * 4;
        if whole > 0 {
            queue.write_buffer(buffer, 0, &bytes[..whole as usize]);
        }
        if whole < bytes.len() as u64 {
            let mut tail = [0u8; 4];
            tail[..bytes.len() - whole as usize].copy_from_slice(&bytes[whole as usize..]);
            queue.write_buffer(buffer, whole, &tail);
        }
        buffer
    }

    pub(crate) fn get(&self) -> Option<&wgpu::Buffer> {
        self.buffer.as_ref()
    }
}
