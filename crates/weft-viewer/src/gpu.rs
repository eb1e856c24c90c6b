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
        quiet_wayland_probe();
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

/// Keeps headless runs free of Mesa's `error: XDG_RUNTIME_DIR is invalid or not set
/// in the environment.` line.
///
/// The line comes from libwayland: Mesa's Vulkan device-selection layer (an implicit
/// layer that mesa-vulkan-drivers installs) asks the Wayland compositor which GPU
/// it uses while the adapters are listed, and libwayland complains when there is no
/// `XDG_RUNTIME_DIR` to look for the compositor's socket in. That is every server,
/// container and CI job: no login session, no compositor, nothing to ask.
///
/// When the variable is unset (a desktop session always sets it, so desktops are
/// untouched) it is pointed at an empty directory private to the user (mode 0700,
/// `$TMPDIR/weft-runtime-UID`, the same one for every run, so runs leave no litter):
/// the layer finds no socket there and carries on silently, and its other duties —
/// `MESA_VK_DEVICE_SELECT`, `DRI_PRIME` — keep working. Disabling the layer with
/// `NODEVICE_SELECT=1` would also silence it but would drop those choices. If the
/// directory exists and is not a private one of this user's, nothing is changed
/// (the line returns; nothing else does).
///
/// Only offscreen devices ([`Gpu::new`]) do this; the window path does not, as a
/// windowing system normally comes with a session.
fn quiet_wayland_probe() {
    #[cfg(target_os = "linux")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            if std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|v| !v.is_empty()) {
                return;
            }
            if let Some(dir) = private_runtime_dir() {
                // SAFETY: setting a variable races with C code reading the
                // environment on another thread. This runs once, before the first
                // offscreen device of the process (concurrent `Gpu::new` callers wait
                // on the `Once`), so no driver thread started by the viewer exists
                // yet unless a window was opened first — and a window comes with a
                // display session, which sets XDG_RUNTIME_DIR, so nothing is written.
                // Rust code reads the environment under std's own lock.
                unsafe { std::env::set_var("XDG_RUNTIME_DIR", dir) };
            }
        });
    }
}

/// `$TMPDIR/weft-runtime-UID`, created with mode 0700 or reused when it is a real
/// directory of this user with that mode.
#[cfg(target_os = "linux")]
fn private_runtime_dir() -> Option<std::path::PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    // The owner of /proc/self is this process's user.
    let uid = std::fs::metadata("/proc/self").ok()?.uid();
    let dir = std::env::temp_dir().join(format!("weft-runtime-{uid}"));
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    (meta.is_dir() && meta.uid() == uid && meta.mode() & 0o777 == 0o700).then_some(dir)
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
