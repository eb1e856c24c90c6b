//! Mouse and keyboard handling of the window, without the window: input events (in
//! winit's plain value types) go in, camera moves, the app's pointer events and
//! panel-style [`Actions`] come out, and [`apply`] carries the actions out on the
//! simulation. The window only translates its `WindowEvent`s into [`Input`]; the
//! tests feed synthetic ones.
//!
//! The mouse goes first to the panel, then to the app (a press over the 3D view is
//! offered to [`App::pointer`]; a captured one makes the drag the app's), then to
//! the camera.

use glam::Vec2;
use winit::event::{MouseButton, MouseScrollDelta};
use winit::keyboard::{Key, ModifiersState, NamedKey};

use crate::panel::Actions;
use crate::renderer::Viewport;
use crate::sim::Sim;
use crate::{
    App, Bounds, Error, Modifiers, OrbitCamera, PointerButton, PointerEvent, PointerKind,
    PointerResponse,
};

/// One input event, reduced to what the viewer uses.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Input {
    /// A key went down (`pressed`) or up; `repeat` when held down.
    Key {
        key: Key,
        pressed: bool,
        repeat: bool,
    },
    /// A mouse button went down or up.
    Button { button: MouseButton, pressed: bool },
    /// The cursor moved to `(x, y)` physical pixels from the window's top left.
    CursorMoved { x: f64, y: f64 },
    /// The wheel turned (positive: away from the user, i.e. zoom in).
    Wheel(MouseScrollDelta),
    /// Shift / Ctrl / Alt / Super changed.
    Modifiers(ModifiersState),
    /// The window's inner size changed (physical pixels).
    Resized { width: u32, height: u32 },
}

/// What egui made of the same event: the 3D view ignores what the panel takes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct UiFocus {
    /// egui used the event (a click on a button, typing in a field).
    pub(crate) consumed: bool,
    /// The pointer is over the panel.
    pub(crate) pointer_over_ui: bool,
    /// A text field has the keyboard.
    pub(crate) wants_keyboard: bool,
}

/// What an event asks of the window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Outcome {
    /// Panel-equivalent actions (play/pause, step, reset, frame, screenshot).
    pub(crate) actions: Actions,
    /// The view changed: draw a frame.
    pub(crate) redraw: bool,
    /// The app captured a pointer event: call its `draw` again (even when paused).
    pub(crate) app_changed: bool,
    /// The surface must be reconfigured to this size.
    pub(crate) resize: Option<[u32; 2]>,
}

/// Wheel notches per pixel of a touchpad's pixel-precise scroll.
const NOTCHES_PER_PIXEL: f32 = 1.0 / 40.0;

/// Who a mouse drag in progress belongs to, and its button.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Drag {
    /// Orbit or pan.
    Camera(MouseButton),
    /// The app captured the press: moves and the release are its.
    App(MouseButton),
}

/// The interactive state of the 3D view: camera, drag in progress, viewport.
#[derive(Clone, Debug)]
pub(crate) struct ViewControls {
    /// `None` until the first frame frames the scene (or the app gave a camera).
    pub(crate) camera: Option<OrbitCamera>,
    /// Surface size in physical pixels.
    pub(crate) surface: [u32; 2],
    /// The part of the surface the scene is drawn in (right of the panel).
    pub(crate) viewport: Viewport,
    drag: Option<Drag>,
    cursor: Option<(f64, f64)>,
    modifiers: ModifiersState,
}

impl ViewControls {
    pub(crate) fn new(camera: Option<OrbitCamera>, surface: [u32; 2]) -> Self {
        let surface = [surface[0].max(1), surface[1].max(1)];
        ViewControls {
            camera,
            surface,
            viewport: Viewport::full(surface),
            drag: None,
            cursor: None,
            modifiers: ModifiersState::empty(),
        }
    }

    /// Width / height of the scene's viewport.
    pub(crate) fn aspect(&self) -> f32 {
        self.viewport.width / self.viewport.height.max(1.0)
    }

    /// Places the scene's viewport right of a panel ending `panel_right` physical
    /// pixels from the left edge of the surface.
    pub(crate) fn layout(&mut self, panel_right: f32) {
        let (w, h) = (self.surface[0] as f32, self.surface[1] as f32);
        let x0 = panel_right.clamp(0.0, w - 1.0);
        self.viewport = Viewport {
            x: x0,
            y: 0.0,
            width: (w - x0).max(1.0),
            height: h.max(1.0),
        };
    }

    /// This frame's camera; the first call without one frames `bounds`.
    pub(crate) fn camera_or_frame(&mut self, bounds: Option<Bounds>) -> OrbitCamera {
        let aspect = self.aspect();
        *self.camera.get_or_insert_with(|| {
            let mut c = OrbitCamera::default();
            if let Some(b) = bounds {
                c.frame(b, aspect);
            }
            c
        })
    }

    /// Fits the camera to `bounds` from its current direction (`f`).
    pub(crate) fn frame(&mut self, bounds: Bounds) {
        let aspect = self.aspect();
        self.camera
            .get_or_insert_with(OrbitCamera::default)
            .frame(bounds, aspect);
    }

    /// [`handle_with`](Self::handle_with) for an app that ignores the pointer.
    #[cfg(test)]
    pub(crate) fn handle(&mut self, input: Input, ui: UiFocus) -> Outcome {
        self.handle_with(input, ui, &mut |_| PointerResponse::Ignored)
    }

    /// The pointer event of `kind` at the current cursor, or `None` before the
    /// first frame (no camera) or the first cursor position.
    fn pointer_event(
        &self,
        kind: PointerKind,
        button: Option<MouseButton>,
    ) -> Option<PointerEvent> {
        let (camera, (x, y)) = (self.camera?, self.cursor?);
        let v = self.viewport;
        Some(PointerEvent::new(
            kind,
            button.map(pointer_button),
            Vec2::new(x as f32 - v.x, y as f32 - v.y),
            modifiers(self.modifiers),
            camera,
            Vec2::new(v.width, v.height),
        ))
    }

    /// Handles one event: offers mouse events over the 3D view to the app
    /// (`pointer`, [`App::pointer`] in the window), moves the camera with those it
    /// leaves, or says which actions a key asks for.
    pub(crate) fn handle_with(
        &mut self,
        input: Input,
        ui: UiFocus,
        pointer: &mut dyn FnMut(&PointerEvent) -> PointerResponse,
    ) -> Outcome {
        let mut out = Outcome::default();
        let mut offer = |event: Option<PointerEvent>, out: &mut Outcome| {
            let captured = event.is_some_and(|e| pointer(&e) == PointerResponse::Captured);
            out.app_changed |= captured;
            out.redraw |= captured;
            captured
        };
        match input {
            Input::Modifiers(m) => self.modifiers = m,
            Input::Resized { width, height } => {
                let panel_right = self.viewport.x;
                self.surface = [width.max(1), height.max(1)];
                self.layout(panel_right);
                out.resize = Some(self.surface);
                out.redraw = true;
            }
            Input::Key {
                key,
                pressed,
                repeat,
            } => {
                if !pressed || ui.consumed || ui.wants_keyboard {
                    return out;
                }
                match shortcut(&key, repeat) {
                    Some(actions) => {
                        out.actions = actions;
                        out.redraw = true;
                    }
                    None => return out,
                }
            }
            Input::Button { button, pressed } => match self.drag {
                // While the app holds a drag, other buttons do nothing.
                Some(Drag::App(held)) => {
                    if !pressed && held == button {
                        self.drag = None;
                        offer(
                            self.pointer_event(PointerKind::Release, Some(button)),
                            &mut out,
                        );
                    }
                }
                Some(Drag::Camera(held)) => {
                    if pressed && !ui.consumed && !ui.pointer_over_ui {
                        self.drag = Some(Drag::Camera(button));
                    } else if !pressed && held == button {
                        self.drag = None;
                    }
                }
                // A drag starts only on the 3D view, never on the panel: the app's if
                // it captures the press, else the camera's.
                None => {
                    if pressed && !ui.consumed && !ui.pointer_over_ui {
                        let press = self.pointer_event(PointerKind::Press, Some(button));
                        self.drag = Some(if offer(press, &mut out) {
                            Drag::App(button)
                        } else {
                            Drag::Camera(button)
                        });
                    }
                }
            },
            Input::CursorMoved { x, y } => {
                let previous = self.cursor.replace((x, y));
                match self.drag {
                    // A drag that started on the view keeps going over the panel.
                    Some(Drag::App(button)) => {
                        offer(
                            self.pointer_event(PointerKind::Move, Some(button)),
                            &mut out,
                        );
                        return out;
                    }
                    None if !ui.consumed && !ui.pointer_over_ui => {
                        offer(self.pointer_event(PointerKind::Move, None), &mut out);
                        return out;
                    }
                    _ => {}
                }
                if let (Some(Drag::Camera(button)), Some((px, py)), Some(cam)) =
                    (self.drag, previous, self.camera.as_mut())
                {
                    let (dx, dy) = ((x - px) as f32, (y - py) as f32);
                    let pan = button == MouseButton::Right
                        || button == MouseButton::Middle
                        || (button == MouseButton::Left && self.modifiers.shift_key());
                    if pan {
                        cam.pan(dx, dy, self.viewport.height);
                        out.redraw = true;
                    } else if button == MouseButton::Left {
                        cam.orbit(dx, dy);
                        out.redraw = true;
                    }
                }
            }
            Input::Wheel(delta) => {
                if ui.consumed || ui.pointer_over_ui {
                    return out;
                }
                let notches = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 * NOTCHES_PER_PIXEL,
                };
                if let Some(cam) = self.camera.as_mut() {
                    cam.zoom(notches);
                    out.redraw = true;
                }
            }
        }
        out
    }
}

fn pointer_button(b: MouseButton) -> PointerButton {
    match b {
        MouseButton::Left => PointerButton::Left,
        MouseButton::Right => PointerButton::Right,
        MouseButton::Middle => PointerButton::Middle,
        _ => PointerButton::Other,
    }
}

fn modifiers(m: ModifiersState) -> Modifiers {
    Modifiers {
        shift: m.shift_key(),
        ctrl: m.control_key(),
        alt: m.alt_key(),
        logo: m.super_key(),
    }
}

/// [`ViewControls::handle_with`] for the window: mouse events go to `sim`'s app,
/// and what it captures marks the scene for a redraw.
pub(crate) fn handle<A: App>(
    controls: &mut ViewControls,
    sim: &mut Sim<A>,
    input: Input,
    ui: UiFocus,
) -> Outcome {
    let out = controls.handle_with(input, ui, &mut |e| sim.app.pointer(e));
    if out.app_changed {
        sim.mark_dirty();
    }
    out
}

/// The keyboard shortcuts: `Space` play/pause, `.` step (repeats while held), `r`
/// reset, `f` frame the scene.
fn shortcut(key: &Key, repeat: bool) -> Option<Actions> {
    let mut a = Actions::default();
    match key.as_ref() {
        Key::Named(NamedKey::Space) if !repeat => a.toggle_play = true,
        Key::Character(".") => a.step = true,
        Key::Character("r" | "R") if !repeat => a.reset = true,
        Key::Character("f" | "F") if !repeat => a.frame = true,
        _ => return None,
    }
    Some(a)
}

/// Carries out play/pause, step, reset and frame on `sim` and the camera (the
/// window takes screenshots itself: that needs the GPU).
pub(crate) fn apply<A: App>(
    sim: &mut Sim<A>,
    controls: &mut ViewControls,
    actions: Actions,
) -> Result<(), Error> {
    if actions.toggle_play {
        sim.playing = !sim.playing;
    }
    if actions.step {
        sim.playing = false;
        sim.advance(1)?;
    }
    if actions.reset {
        sim.reset()?;
    }
    if actions.frame {
        sim.redraw()?;
        if let Some(b) = sim.scene.bounds() {
            controls.frame(b);
        }
    }
    Ok(())
}

#[cfg(test)]
mod pointer_tests;

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use winit::dpi::PhysicalPosition;

    use super::*;
    use crate::{AppResult, Options, Points, Scene};

    /// One particle that rises by 1 m per step from `z0`.
    struct Riser {
        z: f32,
        z0: f32,
    }

    impl App for Riser {
        fn reset(&mut self) -> AppResult {
            self.z = self.z0;
            Ok(())
        }
        fn step(&mut self, _dt: f32) -> AppResult {
            self.z += 1.0;
            Ok(())
        }
        fn draw(&mut self, scene: &mut Scene) -> AppResult {
            scene.log_points("p", Points::new(&[Vec3::new(0.0, 0.0, self.z)]).radius(0.5))?;
            Ok(())
        }
    }

    fn sim() -> Sim<Riser> {
        let options = Options::parse_from(["test", "--paused"]).unwrap();
        let mut sim = Sim::new(Riser { z: 0.0, z0: 2.0 }, &options);
        sim.reset().unwrap();
        sim
    }

    fn controls() -> ViewControls {
        let mut c = ViewControls::new(Some(OrbitCamera::default()), [960, 540]);
        c.layout(290.0);
        c
    }

    fn key(k: Key) -> Input {
        Input::Key {
            key: k,
            pressed: true,
            repeat: false,
        }
    }

    fn ch(s: &str) -> Input {
        key(Key::Character(s.into()))
    }

    /// Presses `button` at `from`, moves to `to` in a few steps, releases.
    fn drag(c: &mut ViewControls, button: MouseButton, from: (f64, f64), to: (f64, f64)) {
        let ui = UiFocus::default();
        c.handle(
            Input::CursorMoved {
                x: from.0,
                y: from.1,
            },
            ui,
        );
        c.handle(
            Input::Button {
                button,
                pressed: true,
            },
            ui,
        );
        for k in 1..=4 {
            let t = k as f64 / 4.0;
            let out = c.handle(
                Input::CursorMoved {
                    x: from.0 + (to.0 - from.0) * t,
                    y: from.1 + (to.1 - from.1) * t,
                },
                ui,
            );
            assert!(out.redraw, "a drag redraws");
        }
        c.handle(
            Input::Button {
                button,
                pressed: false,
            },
            ui,
        );
    }

    #[test]
    fn left_drag_orbits_around_the_target() {
        let mut c = controls();
        let before = c.camera.unwrap();
        drag(&mut c, MouseButton::Left, (600.0, 300.0), (700.0, 260.0));
        let after = c.camera.unwrap();
        assert_eq!(after.target, before.target);
        assert_eq!(after.distance, before.distance);
        // 100 px right turns the eye left (yaw down), 40 px up lowers it.
        assert!((after.yaw - (before.yaw - 100.0 * 0.006)).abs() < 1e-5);
        assert!((after.pitch - (before.pitch - 40.0 * 0.006)).abs() < 1e-5);
        // Released: moving the cursor no longer turns the camera.
        let out = c.handle(Input::CursorMoved { x: 10.0, y: 10.0 }, UiFocus::default());
        assert!(!out.redraw);
        assert_eq!(c.camera.unwrap(), after);
    }

    #[test]
    fn right_middle_and_shift_left_drags_pan() {
        for (button, shift) in [
            (MouseButton::Right, false),
            (MouseButton::Middle, false),
            (MouseButton::Left, true),
        ] {
            let mut c = controls();
            if shift {
                c.handle(Input::Modifiers(ModifiersState::SHIFT), UiFocus::default());
            }
            let before = c.camera.unwrap();
            let (w, h) = (c.viewport.width, c.viewport.height);
            let origin = before.project(Vec3::ZERO, w, h).unwrap();
            drag(&mut c, button, (500.0, 300.0), (540.0, 270.0));
            let after = c.camera.unwrap();
            assert_eq!((after.yaw, after.pitch), (before.yaw, before.pitch));
            assert_ne!(after.target, before.target, "{button:?} shift={shift}");
            // The world follows the cursor: the origin moved by the drag on screen.
            let moved = after.project(Vec3::ZERO, w, h).unwrap() - origin;
            assert!(
                (moved - glam::Vec2::new(40.0, -30.0)).length() < 0.5,
                "{button:?} shift={shift}: moved {moved}"
            );
        }
    }

    #[test]
    fn drags_that_start_on_the_panel_leave_the_camera_alone() {
        let mut c = controls();
        let before = c.camera.unwrap();
        let on_panel = UiFocus {
            pointer_over_ui: true,
            ..Default::default()
        };
        c.handle(Input::CursorMoved { x: 100.0, y: 100.0 }, on_panel);
        c.handle(
            Input::Button {
                button: MouseButton::Left,
                pressed: true,
            },
            on_panel,
        );
        c.handle(
            Input::CursorMoved { x: 400.0, y: 100.0 },
            UiFocus::default(),
        );
        assert_eq!(c.camera.unwrap(), before);
    }

    #[test]
    fn wheel_zooms_in_and_out_but_not_over_the_panel() {
        let mut c = controls();
        let d0 = c.camera.unwrap().distance;
        let out = c.handle(
            Input::Wheel(MouseScrollDelta::LineDelta(0.0, 2.0)),
            UiFocus::default(),
        );
        assert!(out.redraw);
        let d1 = c.camera.unwrap().distance;
        assert!((d1 - d0 * 0.88f32.powi(2)).abs() < 1e-5, "{d0} -> {d1}");
        // A touchpad's 80 pixels back out by the same two notches.
        c.handle(
            Input::Wheel(MouseScrollDelta::PixelDelta(PhysicalPosition::new(
                0.0, -80.0,
            ))),
            UiFocus::default(),
        );
        assert!((c.camera.unwrap().distance - d0).abs() < 1e-4);
        let over_panel = UiFocus {
            pointer_over_ui: true,
            ..Default::default()
        };
        let out = c.handle(
            Input::Wheel(MouseScrollDelta::LineDelta(0.0, 3.0)),
            over_panel,
        );
        assert!(!out.redraw);
        assert!((c.camera.unwrap().distance - d0).abs() < 1e-4);
    }

    #[test]
    fn keys_map_to_the_panel_actions() {
        let mut c = controls();
        let ui = UiFocus::default();
        let a = |c: &mut ViewControls, i| c.handle(i, ui).actions;
        assert!(a(&mut c, key(Key::Named(NamedKey::Space))).toggle_play);
        assert!(a(&mut c, ch(".")).step);
        assert!(a(&mut c, ch("r")).reset);
        assert!(a(&mut c, ch("R")).reset);
        assert!(a(&mut c, ch("f")).frame);
        assert!(a(&mut c, ch("F")).frame);
        assert_eq!(a(&mut c, ch("x")), Actions::default());
        // Held keys: `.` keeps stepping, the others fire once.
        let held = |k| Input::Key {
            key: k,
            pressed: true,
            repeat: true,
        };
        assert!(a(&mut c, held(Key::Character(".".into()))).step);
        assert_eq!(
            a(&mut c, held(Key::Named(NamedKey::Space))),
            Actions::default()
        );
        assert_eq!(
            a(&mut c, held(Key::Character("r".into()))),
            Actions::default()
        );
        // Releases, and keys typed into a panel field, do nothing.
        let release = Input::Key {
            key: Key::Character("r".into()),
            pressed: false,
            repeat: false,
        };
        assert_eq!(a(&mut c, release), Actions::default());
        let typing = UiFocus {
            wants_keyboard: true,
            ..Default::default()
        };
        assert_eq!(c.handle(ch("r"), typing).actions, Actions::default());
    }

    #[test]
    fn space_dot_r_f_play_step_reset_and_frame() {
        let mut s = sim();
        let mut c = controls();
        let ui = UiFocus::default();
        let press = |s: &mut Sim<Riser>, c: &mut ViewControls, i| {
            let actions = c.handle(i, ui).actions;
            apply(s, c, actions).unwrap();
        };
        assert!(!s.playing, "--paused");
        press(&mut s, &mut c, key(Key::Named(NamedKey::Space)));
        assert!(s.playing);
        press(&mut s, &mut c, key(Key::Named(NamedKey::Space)));
        assert!(!s.playing);

        // `.` steps once and pauses.
        s.playing = true;
        press(&mut s, &mut c, ch("."));
        press(&mut s, &mut c, ch("."));
        assert!(!s.playing);
        assert_eq!(s.steps, 2);
        assert_eq!(s.app.z, 4.0);
        assert!((s.time - 2.0 * s.settings.dt as f64).abs() < 1e-9);

        // `f` frames the scene where it is now: the particle at z = 4.
        press(&mut s, &mut c, ch("f"));
        let cam = c.camera.unwrap();
        assert_eq!(cam.target, Vec3::new(0.0, 0.0, 4.0));
        let (w, h) = (c.viewport.width, c.viewport.height);
        for dz in [-0.5, 0.5] {
            let px = cam.project(Vec3::new(0.0, 0.0, 4.0 + dz), w, h).unwrap();
            assert!(px.y > 0.0 && px.y < h, "framed sphere's pole at {px}");
        }

        // `r` resets the app and the clock.
        press(&mut s, &mut c, ch("r"));
        assert_eq!((s.steps, s.time, s.app.z), (0, 0.0, 2.0));
    }

    #[test]
    fn resizing_changes_the_surface_viewport_and_aspect() {
        let mut c = controls();
        assert_eq!(c.viewport.x, 290.0);
        let aspect0 = c.aspect();
        let out = c.handle(
            Input::Resized {
                width: 1600,
                height: 400,
            },
            UiFocus::default(),
        );
        assert_eq!(out.resize, Some([1600, 400]));
        assert!(out.redraw);
        assert_eq!(c.surface, [1600, 400]);
        // The panel keeps its width; the scene gets the rest.
        assert_eq!(
            (c.viewport.x, c.viewport.width, c.viewport.height),
            (290.0, 1310.0, 400.0)
        );
        assert!((c.aspect() - 1310.0 / 400.0).abs() < 1e-6 && c.aspect() > aspect0);
        // Framing uses the new shape: a wide sphere row fits the wide view.
        let row =
            Bounds::from_points(&[Vec3::new(-3.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0)]).unwrap();
        c.frame(row);
        let wide = c.camera.unwrap().distance;
        c.handle(
            Input::Resized {
                width: 500,
                height: 900,
            },
            UiFocus::default(),
        );
        c.frame(row);
        assert!(c.camera.unwrap().distance > wide, "a tall view backs off");
        // Minimised windows report 0x0: the surface stays valid.
        let out = c.handle(
            Input::Resized {
                width: 0,
                height: 0,
            },
            UiFocus::default(),
        );
        assert_eq!(out.resize, Some([1, 1]));
        assert!(c.viewport.width >= 1.0 && c.viewport.height >= 1.0);
    }

    #[test]
    fn the_first_frame_frames_the_scene_unless_the_app_chose_a_camera() {
        let b = Bounds::sphere(Vec3::new(5.0, 0.0, 1.0), 1.0);
        let mut c = ViewControls::new(None, [800, 600]);
        assert_eq!(c.camera_or_frame(Some(b)).target, b.center());
        let chosen = OrbitCamera::look_at(Vec3::ONE, Vec3::ZERO);
        let mut c = ViewControls::new(Some(chosen), [800, 600]);
        assert_eq!(c.camera_or_frame(Some(b)), chosen);
    }
}
