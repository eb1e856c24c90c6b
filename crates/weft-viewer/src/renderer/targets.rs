//! The multisampled colour and depth attachments of the main pass.

use super::globals::DEPTH_FORMAT;
use super::pipeline::Target;

pub(crate) struct Targets {
    pub(crate) size: [u32; 2],
    /// Multisampled colour, resolved into the output (absent without MSAA).
    pub(crate) color: Option<wgpu::TextureView>,
    pub(crate) depth: wgpu::TextureView,
}

impl Targets {
    pub(crate) fn new(device: &wgpu::Device, target: Target, size: [u32; 2]) -> Self {
        let extent = wgpu::Extent3d {
            width: size[0].max(1),
            height: size[1].max(1),
            depth_or_array_layers: 1,
        };
        let texture = |label, format| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: extent,
                    mip_level_count: 1,
                    sample_count: target.samples,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        Targets {
            size,
            color: (target.samples > 1).then(|| texture("msaa colour", target.format)),
            depth: texture("depth", DEPTH_FORMAT),
        }
    }
}

/// The largest of 4 and 1 samples that both the colour format and the depth format support.
pub(crate) fn sample_count(
    adapter: &wgpu::Adapter,
    format: wgpu::TextureFormat,
    wanted: u32,
) -> u32 {
    let ok = |f: wgpu::TextureFormat| {
        adapter
            .get_texture_format_features(f)
            .flags
            .sample_count_supported(wanted)
    };
    if wanted > 1 && ok(format) && ok(DEPTH_FORMAT) {
        wanted
    } else {
        1
    }
}
