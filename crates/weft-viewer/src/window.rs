//! Windowed mode: a winit window, a wgpu surface (vsync), the orbit camera on the
//! mouse, keyboard shortcuts, and the egui panel drawn over the 3D view.

use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

use crate::headless::{apply_overrides, out_dir, save_png};
use crate::input::{Input, UiFocus, ViewControls};
use crate::panel::{self, Actions, PanelState};
use crate::renderer::{RenderSettings, Renderer, read_rgba};
use crate::sim::Sim;
use crate::{App, Error, Gpu, Options, screenshot};

/// Runs `sim` in a window until it is closed (or for `--frames` frames).
pub(crate) fn run_window<A: App>(sim: Sim<A>, options: &Options) -> Result<(), Error> {
    let event_loop = EventLoop::new().map_err(|e| {
        Error::Window(format!(
            "cannot open a window ({e}); run with --headless to render PNG files instead"
        ))
    })?;
    event_loop.set_control_flow(ControlFlow::Wait);
    let mut handler = Handler {
        sim,
        options,
        view: None,
        error: None,
    };
    event_loop
        .run_app(&mut handler)
        .map_err(|e| Error::Window(e.to_string()))?;
    match handler.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

struct Handler<'o, A: App> {
    sim: Sim<A>,
    options: &'o Options,
    view: Option<View>,
    error: Option<Error>,
}

/// Everything that exists while the window is open.
struct View {
    window: Arc<Window>,
    gpu: Gpu,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    scene_format: wgpu::TextureFormat,
    renderer: Renderer,
    egui_ctx: egui::Context,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    /// Camera, viewport and the drag in progress (the testable part).
    controls: ViewControls,
    settings: RenderSettings,
    panel: PanelState,
    last_frame: Option<Instant>,
    frames: u64,
}

impl<A: App> ApplicationHandler for Handler<'_, A> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.view.is_some() {
            return;
        }
        match self.open(event_loop) {
            Ok(view) => {
                view.window.request_redraw();
                self.view = Some(view);
            }
            Err(e) => {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(view) = self.view.as_mut() else {
            return;
        };
        let response = view.egui_state.on_window_event(&view.window, &event);
        if response.repaint {
            view.window.request_redraw();
        }
        let ui = UiFocus {
            consumed: response.consumed,
            pointer_over_ui: view.egui_ctx.is_pointer_over_egui(),
            wants_keyboard: view.egui_ctx.egui_wants_keyboard_input(),
        };
        let input = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                return;
            }
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.frame(event_loop) {
                    self.error = Some(e);
                    event_loop.exit();
                }
                return;
            }
            WindowEvent::Resized(size) => Input::Resized {
                width: size.width,
                height: size.height,
            },
            WindowEvent::ModifiersChanged(m) => Input::Modifiers(m.state()),
            WindowEvent::KeyboardInput { event, .. } => Input::Key {
                key: event.logical_key,
                pressed: event.state == ElementState::Pressed,
                repeat: event.repeat,
            },
            WindowEvent::MouseInput { state, button, .. } => Input::Button {
                button,
                pressed: state == ElementState::Pressed,
            },
            WindowEvent::CursorMoved { position, .. } => Input::CursorMoved {
                x: position.x,
                y: position.y,
            },
            WindowEvent::MouseWheel { delta, .. } => Input::Wheel(delta),
            _ => return,
        };
        let outcome = crate::input::handle(&mut view.controls, &mut self.sim, input, ui);
        if let Some([width, height]) = outcome.resize {
            view.config.width = width;
            view.config.height = height;
            view.surface.configure(&view.gpu.device, &view.config);
        }
        if outcome.actions != Actions::default()
            && let Err(e) = apply(&mut self.sim, view, self.options, outcome.actions)
        {
            report(&mut self.sim, view, e);
        }
        if outcome.redraw {
            view.window.request_redraw();
        }
    }
}

impl<A: App> Handler<'_, A> {
    fn open(&mut self, event_loop: &ActiveEventLoop) -> Result<View, Error> {
        let size = self.options.size.unwrap_or(self.sim.settings.size);
        let attributes = Window::default_attributes()
            .with_title(format!("Weft — {}", self.sim.settings.title))
            .with_inner_size(PhysicalSize::new(size[0], size[1]));
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .map_err(|e| Error::Window(e.to_string()))?,
        );
        let display = event_loop.owned_display_handle();
        let surface_window = window.clone();
        let (gpu, surface) = Gpu::open(
            |backends| {
                let mut desc = wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                    Box::new(display.clone()),
                );
                desc.backends = backends;
                wgpu::Instance::new(desc)
            },
            Some(&|instance: &wgpu::Instance| {
                instance
                    .create_surface(surface_window.clone())
                    .map_err(|e| {
                        Error::Window(format!("cannot create a surface for the window: {e}"))
                    })
            }),
        )?;
        let surface = surface.expect("asked for a surface");
        let inner = window.inner_size();
        let mut config = surface
            .get_default_config(&gpu.adapter, inner.width.max(1), inner.height.max(1))
            .ok_or_else(|| {
                Error::Window(format!("{} cannot present to this window", gpu.describe()))
            })?;
        let caps = surface.get_capabilities(&gpu.adapter);
        // egui wants a plain (non-sRGB) target; the scene is drawn through an sRGB view.
        let plain = caps
            .formats
            .iter()
            .copied()
            .find(|f| !f.is_srgb() && f.add_srgb_suffix() != *f);
        config.format = plain.unwrap_or(caps.formats[0]);
        let scene_format = config.format.add_srgb_suffix();
        config.view_formats = if scene_format != config.format {
            vec![scene_format]
        } else {
            vec![]
        };
        config.present_mode = wgpu::PresentMode::AutoVsync;
        if caps.usages.contains(wgpu::TextureUsages::COPY_SRC) {
            config.usage |= wgpu::TextureUsages::COPY_SRC;
        }
        surface.configure(&gpu.device, &config);
        let renderer = Renderer::new(&gpu, scene_format, self.options.msaa, false);
        let egui_ctx = egui::Context::default();
        let max_texture = gpu.device.limits().max_texture_dimension_2d as usize;
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            None,
            Some(max_texture),
        );
        let egui_renderer =
            egui_wgpu::Renderer::new(&gpu.device, config.format, Default::default());
        eprintln!(
            "weft-viewer: {}: window on {}",
            self.sim.settings.title,
            gpu.describe()
        );
        let mut settings = RenderSettings {
            ground: self.sim.settings.ground,
            ..Default::default()
        };
        settings.shadows = !self.options.no_shadows;
        self.sim.reset()?;
        apply_overrides(&mut self.sim, self.options)?;
        Ok(View {
            panel: PanelState::new(gpu.describe()),
            window,
            gpu,
            surface,
            config,
            scene_format,
            renderer,
            egui_ctx,
            egui_state,
            egui_renderer,
            controls: ViewControls::new(self.sim.settings.camera, [inner.width, inner.height]),
            settings,
            last_frame: None,
            frames: 0,
        })
    }

    fn frame(&mut self, event_loop: &ActiveEventLoop) -> Result<(), Error> {
        let Handler {
            sim, options, view, ..
        } = self;
        let options: &Options = options;
        let Some(view) = view.as_mut() else {
            return Ok(());
        };
        let now = Instant::now();
        if let Some(last) = view.last_frame {
            view.panel.frame_ms.push((now - last).as_secs_f32() * 1e3);
        }
        view.last_frame = Some(now);

        // The panel first: it decides the 3D viewport and this frame's actions.
        let raw = view.egui_state.take_egui_input(&view.window);
        let mut actions = Actions::default();
        let mut area = egui::Rect::NOTHING;
        let full = view.egui_ctx.run_ui(raw, |ui| {
            actions = panel::show(ui, sim, &mut view.panel, &mut view.settings);
            area = ui.available_rect_before_wrap();
        });
        let mut full = full;
        view.egui_state
            .handle_platform_output(&view.window, std::mem::take(&mut full.platform_output));
        // Upload egui's new textures now; free the released ones after this frame.
        let mut textures = std::mem::take(&mut full.textures_delta);
        for (id, deltas) in &textures.set {
            for delta in deltas {
                view.egui_renderer
                    .update_texture(&view.gpu.device, &view.gpu.queue, *id, delta);
            }
        }
        let to_free = std::mem::take(&mut textures.free);
        textures.clear();
        let ppp = full.pixels_per_point;
        view.controls.surface = [view.config.width, view.config.height];
        view.controls.layout(area.left() * ppp);

        if let Err(e) = apply(sim, view, options, actions) {
            report(sim, view, e);
        }
        let t0 = Instant::now();
        if sim.playing
            && let Err(e) = sim.advance(sim.steps_per_frame)
        {
            report(sim, view, e);
        }
        view.panel.sim_ms.push(t0.elapsed().as_secs_f32() * 1e3);
        if let Err(e) = sim.redraw() {
            report(sim, view, e);
        }
        let camera = view.controls.camera_or_frame(sim.scene.bounds());
        let viewport = view.controls.viewport;

        let frame = match view.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f)
            | wgpu::CurrentSurfaceTexture::Suboptimal(f) => f,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                to_free
                    .iter()
                    .for_each(|id| view.egui_renderer.free_texture(id));
                view.surface.configure(&view.gpu.device, &view.config);
                view.window.request_redraw();
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                to_free
                    .iter()
                    .for_each(|id| view.egui_renderer.free_texture(id));
                view.window.request_redraw();
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                return Err(Error::Window(
                    "the surface reported a validation error".into(),
                ));
            }
        };
        let t_render = Instant::now();
        let scene_view = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(view.scene_format),
            ..Default::default()
        });
        let ui_view = frame.texture.create_view(&Default::default());
        let size = [view.config.width, view.config.height];
        view.renderer
            .prepare(&sim.scene, &camera, &view.settings, size, viewport);
        let mut encoder = view.gpu.device.create_command_encoder(&Default::default());
        view.renderer.encode(&mut encoder, &scene_view, viewport);

        let jobs = view.egui_ctx.tessellate(full.shapes, ppp);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: size,
            pixels_per_point: ppp,
        };
        let extra = view.egui_renderer.update_buffers(
            &view.gpu.device,
            &view.gpu.queue,
            &mut encoder,
            &jobs,
            &screen,
        );
        {
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("egui"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &ui_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            view.egui_renderer
                .render(&mut pass.forget_lifetime(), &jobs, &screen);
        }
        for id in &to_free {
            view.egui_renderer.free_texture(id);
        }
        view.gpu
            .queue
            .submit(extra.into_iter().chain([encoder.finish()]));
        view.frames += 1;
        let last = options.frames.is_some_and(|n| view.frames >= n);
        if last && let Some(dir) = &options.out {
            // `--frames N --out DIR` in a window (the smoke test): the window's pixels,
            // panel included, and a screenshot through the panel button's code path.
            if view.config.usage.contains(wgpu::TextureUsages::COPY_SRC) {
                let image = read_rgba(&view.gpu.device, &view.gpu.queue, &frame.texture)?;
                save_png(&image, &dir.join("window.png"))?;
            } else {
                eprintln!("weft-viewer: this surface cannot be read back; no window.png");
            }
            let shot = Actions {
                screenshot: true,
                ..Default::default()
            };
            apply(sim, view, options, shot)?;
        }
        view.gpu.queue.present(frame);
        view.panel
            .render_ms
            .push(t_render.elapsed().as_secs_f32() * 1e3);
        if last {
            eprintln!(
                "weft-viewer: {}: {} frames shown, {} steps",
                sim.settings.title, view.frames, sim.steps
            );
            event_loop.exit();
            return Ok(());
        }
        let egui_busy = full
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .is_some_and(|v| v.repaint_delay.is_zero());
        if sim.playing || egui_busy || options.frames.is_some() {
            view.window.request_redraw();
        }
        Ok(())
    }
}

/// Applies panel or keyboard actions: the simulation and camera ones through
/// [`crate::input::apply`], screenshots here (they need the GPU).
fn apply<A: App>(
    sim: &mut Sim<A>,
    view: &mut View,
    options: &Options,
    actions: Actions,
) -> Result<(), Error> {
    crate::input::apply(sim, &mut view.controls, actions)?;
    if actions.screenshot {
        let path = screenshot::next_path(&out_dir(options, &sim.settings.title));
        let viewport = view.controls.viewport;
        screenshot::save(
            &view.gpu,
            &mut view.renderer,
            view.scene_format,
            &sim.scene,
            &view.controls.camera.unwrap_or_default(),
            &view.settings,
            [viewport.width as u32, viewport.height as u32],
            &path,
        )?;
        eprintln!("weft-viewer: saved {}", path.display());
        view.panel.message = Some((format!("saved {}", path.display()), false));
    }
    Ok(())
}

/// Shows an app error in the panel and pauses (the window stays usable).
fn report<A: App>(sim: &mut Sim<A>, view: &mut View, e: Error) {
    eprintln!("weft-viewer: {e}");
    sim.playing = false;
    view.panel.message = Some((e.to_string(), true));
}
