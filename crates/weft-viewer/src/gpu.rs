//! Finding a graphics adapter and opening a device, with clear errors.

use crate::Error;

/// Makes a window surface on a candidate instance.
pub(crate) type SurfaceMaker<'a> =
    dyn Fn(&wgpu::Instance) -> Result<wgpu::Surface<'static>, Error> + 'a;

/// A wgpu adapter, device and queue: a GPU, or Mesa's lavapipe on machines without one.
pub struct Gpu {
    /// Kept alive for as long as the device.
    _instance: wgpu::Instance,
    pub(crate) adapter: wgpu::Adapter,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
}

impl Gpu {
    /// Opens a device for offscreen rendering.
    ///
    /// Tries Vulkan, Metal and DirectX 12 first, then OpenGL (`WGPU_BACKEND` overrides
    /// the choice), preferring a real GPU over a software one. Without any adapter
    /// the error says what to install.
    pub fn new() -> Result<Gpu, Error> {
        let (gpu, _) = Self::open(
            |backends| {
                let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
                desc.backends = backends;
                wgpu::Instance::new(desc)
            },
            None,
        )?;
        Ok(gpu)
    }

    /// Opens a device able to present to surfaces made by `make_surface` (which gets
    /// each candidate instance in turn).
    pub(crate) fn open(
        make_instance: impl Fn(wgpu::Backends) -> wgpu::Instance,
        make_surface: Option<&SurfaceMaker<'_>>,
    ) -> Result<(Gpu, Option<wgpu::Surface<'static>>), Error> {
        let candidates = match wgpu::Backends::from_env() {
            Some(b) => vec![b],
            None => vec![wgpu::Backends::PRIMARY, wgpu::Backends::GL],
        };
        let mut tried = Vec::new();
        for backends in candidates {
            tried.push(format!("{backends:?}"));
            let instance = make_instance(backends);
            let surface = match make_surface {
                Some(f) => Some(f(&instance)?),
                None => None,
            };
            let adapter = [false, true].into_iter().find_map(|fallback| {
                pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::HighPerformance,
                    force_fallback_adapter: fallback,
                    compatible_surface: surface.as_ref(),
                    ..Default::default()
                }))
                .ok()
            });
            let Some(adapter) = adapter else { continue };
            let info = adapter.get_info();
            let mut features = wgpu::Features::empty();
            if adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
                features |= wgpu::Features::TIMESTAMP_QUERY;
            }
            let (device, queue) =
                pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                    label: Some("weft-viewer"),
                    required_features: features,
                    required_limits: adapter.limits(),
                    ..Default::default()
                }))
                .map_err(|e| Error::Device {
                    adapter: describe(&info),
                    message: e.to_string(),
                })?;
            return Ok((
                Gpu {
                    _instance: instance,
                    adapter,
                    device,
                    queue,
                },
                surface,
            ));
        }
        Err(Error::NoAdapter {
            tried: tried.join(", then "),
        })
    }
}

impl Gpu {
    /// The adapter's name, driver and back end, e.g.
    /// `llvmpipe (LLVM 15.0.6, 256 bits) — Vulkan, software (Mesa lavapipe)`.
    pub fn describe(&self) -> String {
        describe(&self.adapter.get_info())
    }

    /// Whether the adapter renders on the CPU (lavapipe, WARP, SwiftShader).
    pub fn is_software(&self) -> bool {
        self.adapter.get_info().device_type == wgpu::DeviceType::Cpu
    }

    /// Whether GPU timestamps are available (per-pass GPU time is then measured).
    pub fn has_timestamps(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
    }
}

fn describe(info: &wgpu::AdapterInfo) -> String {
    let kind = match info.device_type {
        wgpu::DeviceType::Cpu if info.name.contains("llvmpipe") => "software (Mesa lavapipe)",
        wgpu::DeviceType::Cpu => "software",
        wgpu::DeviceType::DiscreteGpu => "discrete GPU",
        wgpu::DeviceType::IntegratedGpu => "integrated GPU",
        wgpu::DeviceType::VirtualGpu => "virtual GPU",
        wgpu::DeviceType::Other => "other",
    };
    let driver = if info.driver_info.is_empty() {
        String::new()
    } else {
        format!(" ({})", info.driver_info)
    };
    format!("{}{driver} — {:?}, {kind}", info.name, info.backend)
}
