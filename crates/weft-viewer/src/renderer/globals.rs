//! The per-view uniforms (camera, light, sky, ground) and the bind group that holds
//! them with the shadow map and the colour-map texture.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};

use super::settings::RenderSettings;
use crate::colormap::{LUT_WIDTH, lut_texels};
use crate::{Bounds, Colormap, OrbitCamera};

/// Side of the square shadow map in texels.
pub(crate) const SHADOW_SIZE: u32 = 2048;
pub(crate) const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Mirrors `Globals` in `shaders/common.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(crate) struct Globals {
    view_proj: [[f32; 4]; 4],
    inv_view_proj: [[f32; 4]; 4],
    light_view_proj: [[f32; 4]; 4],
    eye: [f32; 4],
    forward: [f32; 4],
    light_dir: [f32; 4],
    light_color: [f32; 4],
    sky_top: [f32; 4],
    sky_horizon: [f32; 4],
    ambient_sky: [f32; 4],
    ambient_ground: [f32; 4],
    ground: [f32; 4],
    ground_center: [f32; 4],
    viewport: [f32; 4],
    shadow: [f32; 4],
}

fn lin(srgb: [f32; 3]) -> [f32; 4] {
    let [r, g, b] = srgb.map(crate::color::srgb_to_linear);
    [r, g, b, 1.0]
}

/// The camera's and the light's uniforms for one frame.
pub(crate) struct FrameGlobals {
    pub(crate) main: Globals,
    pub(crate) shadow: Globals,
}

/// Fits the light's orthographic view around `bounds` (reversed depth like the camera).
fn light_view_proj(dir: Vec3, bounds: Bounds) -> Mat4 {
    let center = bounds.center();
    let r = bounds.radius().max(0.05);
    let up = if dir.z.abs() > 0.99 { Vec3::X } else { Vec3::Z };
    let view = glam::camera::rh::view::look_at_mat4(center + dir * 2.0 * r, center, up);
    // near = 4r and far = 0 swapped: depth 1 next to the light, 0 far from it.
    glam::camera::rh::proj::directx::orthographic(-r, r, -r, r, 4.0 * r, 0.0) * view
}

/// A power of ten suited to a scene of bounding radius `r`.
pub(crate) fn auto_grid_spacing(r: f32) -> f32 {
    10f32.powf(r.max(1e-3).log10().floor())
}

impl FrameGlobals {
    pub(crate) fn new(
        camera: &OrbitCamera,
        viewport: [f32; 2],
        settings: &RenderSettings,
        bounds: Option<Bounds>,
    ) -> Self {
        let aspect = viewport[0] / viewport[1].max(1.0);
        let view_proj = camera.view_proj(aspect);
        let light = settings.light_dir.normalize_or(Vec3::Z);
        let scene = bounds.unwrap_or(Bounds::sphere(camera.target, camera.distance * 0.25));
        let r = scene.radius().max(0.05);
        // Let the shadow box include the ground under the scene.
        let shadow_bounds = match settings.ground {
            Some(h) => scene.union(Bounds::point(Vec3::new(
                scene.center().x,
                scene.center().y,
                h,
            ))),
            None => scene,
        };
        let light_vp = light_view_proj(light, shadow_bounds);
        let shadow_r = shadow_bounds.radius().max(0.05);
        let texel_world = 2.0 * shadow_r / SHADOW_SIZE as f32;
        let spacing = settings
            .grid_spacing
            .unwrap_or_else(|| auto_grid_spacing(r));
        let eye = camera.eye();
        let ground_half = (r * 40.0).max(camera.distance * 6.0).max(spacing * 20.0);
        let fog_start = camera.distance + 3.0 * r;
        let main = Globals {
            view_proj: view_proj.to_cols_array_2d(),
            inv_view_proj: view_proj.inverse().to_cols_array_2d(),
            light_view_proj: light_vp.to_cols_array_2d(),
            eye: eye.extend(1.0).into(),
            forward: camera.forward().extend(0.0).into(),
            light_dir: light
                .extend(if settings.shadows { 1.0 } else { 0.0 })
                .into(),
            light_color: (Vec4::new(1.0, 0.96, 0.90, 1.0) * 0.82).into(),
            sky_top: lin([0.40, 0.55, 0.74]),
            sky_horizon: lin([0.86, 0.89, 0.93]),
            ambient_sky: (Vec4::from(lin([0.60, 0.64, 0.70])) * 0.55).into(),
            ambient_ground: (Vec4::from(lin([0.45, 0.42, 0.40])) * 0.35).into(),
            ground: [
                settings.ground.unwrap_or(0.0),
                spacing,
                ground_half,
                settings.ground.is_some() as u32 as f32,
            ],
            ground_center: [
                camera.target.x,
                camera.target.y,
                fog_start,
                fog_start + ground_half * 0.8,
            ],
            viewport: [
                viewport[0],
                viewport[1],
                1.0 / viewport[0].max(1.0),
                1.0 / viewport[1].max(1.0),
            ],
            shadow: [
                1.0 / SHADOW_SIZE as f32,
                2.0 * texel_world / (4.0 * shadow_r),
                1.5 * texel_world,
                0.0,
            ],
        };
        // The light's view: orthographic (eye.w = 0) looking along -light.
        let shadow = Globals {
            view_proj: light_vp.to_cols_array_2d(),
            inv_view_proj: light_vp.inverse().to_cols_array_2d(),
            eye: (shadow_bounds.center() + light * 2.0 * shadow_r)
                .extend(0.0)
                .into(),
            forward: (-light).extend(0.0).into(),
            light_dir: light.extend(0.0).into(),
            viewport: [SHADOW_SIZE as f32; 4],
            ..main
        };
        FrameGlobals { main, shadow }
    }
}

/// GPU side of the globals: the two uniform buffers, the shadow map and the colour maps.
pub(crate) struct GlobalsGpu {
    pub(crate) layout: wgpu::BindGroupLayout,
    main_buffer: wgpu::Buffer,
    shadow_buffer: wgpu::Buffer,
    pub(crate) shadow_view: wgpu::TextureView,
    pub(crate) main_group: wgpu::BindGroup,
    pub(crate) shadow_group: wgpu::BindGroup,
}

impl GlobalsGpu {
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        use wgpu::ShaderStages as S;
        let entry = |binding, visibility, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty,
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("globals"),
            entries: &[
                entry(
                    0,
                    S::VERTEX_FRAGMENT,
                    wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                ),
                entry(
                    1,
                    S::FRAGMENT,
                    wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                entry(
                    2,
                    S::FRAGMENT,
                    wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                ),
                entry(
                    3,
                    S::VERTEX_FRAGMENT,
                    wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                entry(
                    4,
                    S::VERTEX_FRAGMENT,
                    wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                ),
            ],
        });
        let uniform = |label| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: std::mem::size_of::<Globals>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let main_buffer = uniform("globals (camera)");
        let shadow_buffer = uniform("globals (light)");
        let depth_texture = |label, size| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width: size,
                    height: size,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: DEPTH_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
        };
        let shadow_view = depth_texture("shadow map", SHADOW_SIZE).create_view(&Default::default());
        // The shadow pass cannot sample the map it renders to: it binds a stand-in.
        let dummy_view = depth_texture("shadow map stand-in", 1).create_view(&Default::default());
        let compare = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow compare"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::GreaterEqual),
            ..Default::default()
        });
        let rows = Colormap::ALL.len() as u32;
        let lut = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("colour maps"),
            size: wgpu::Extent3d {
                width: LUT_WIDTH,
                height: rows,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        queue.write_texture(
            lut.as_image_copy(),
            &lut_texels(),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(LUT_WIDTH * 4),
                rows_per_image: Some(rows),
            },
            wgpu::Extent3d {
                width: LUT_WIDTH,
                height: rows,
                depth_or_array_layers: 1,
            },
        );
        let lut_view = lut.create_view(&Default::default());
        let linear = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("colour map"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let group = |label, buffer: &wgpu::Buffer, shadow: &wgpu::TextureView| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(shadow),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Sampler(&compare),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: wgpu::BindingResource::TextureView(&lut_view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: wgpu::BindingResource::Sampler(&linear),
                    },
                ],
            })
        };
        let main_group = group("globals (camera)", &main_buffer, &shadow_view);
        let shadow_group = group("globals (light)", &shadow_buffer, &dummy_view);
        GlobalsGpu {
            layout,
            main_buffer,
            shadow_buffer,
            shadow_view,
            main_group,
            shadow_group,
        }
    }

    pub(crate) fn write(&self, queue: &wgpu::Queue, globals: &FrameGlobals) {
        queue.write_buffer(&self.main_buffer, 0, bytemuck::bytes_of(&globals.main));
        queue.write_buffer(&self.shadow_buffer, 0, bytemuck::bytes_of(&globals.shadow));
    }
}
