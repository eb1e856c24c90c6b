//! The app's pointer events: who gets a press, a drag's moves and its release, and
//! the rays they carry.

use glam::{Vec2, Vec3};
use winit::event::MouseButton;

use super::{Input, UiFocus, ViewControls, handle};
use crate::sim::Sim;
use crate::{
    App, AppResult, Options, OrbitCamera, PointerButton, PointerEvent, PointerKind,
    PointerResponse, Points, Scene,
};

/// A ball that captures left presses whose ray passes within `radius` of it, and
/// records every event it hears.
struct Grabber {
    ball: Vec3,
    radius: f32,
    holding: bool,
    events: Vec<PointerEvent>,
    draws: usize,
}

impl Grabber {
    fn new() -> Self {
        Grabber {
            ball: Vec3::new(0.3, 0.2, 0.1),
            radius: 0.1,
            holding: false,
            events: Vec::new(),
            draws: 0,
        }
    }
}

impl App for Grabber {
    fn reset(&mut self) -> AppResult {
        Ok(())
    }
    fn step(&mut self, _dt: f32) -> AppResult {
        Ok(())
    }
    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        self.draws += 1;
        scene.log_points("ball", Points::new(&[self.ball]).radius(self.radius))?;
        Ok(())
    }
    fn pointer(&mut self, e: &PointerEvent) -> PointerResponse {
        self.events.push(*e);
        let used = match e.kind {
            PointerKind::Press => {
                self.holding = e.is_press(PointerButton::Left)
                    && e.ray.hit_sphere(self.ball, self.radius).is_some();
                self.holding
            }
            PointerKind::Move => self.holding,
            PointerKind::Release => std::mem::take(&mut self.holding),
        };
        PointerResponse::captured_if(used)
    }
}

/// A 960 × 540 window with the panel's right edge at 290 px.
fn controls() -> ViewControls {
    let mut c = ViewControls::new(Some(OrbitCamera::default()), [960, 540]);
    c.layout(290.0);
    c
}

/// Window pixel (panel included) where world point `p` is drawn.
fn window_px(c: &ViewControls, p: Vec3) -> (f64, f64) {
    let v = c.viewport;
    let px = c.camera.unwrap().project(p, v.width, v.height).unwrap();
    ((px.x + v.x) as f64, (px.y + v.y) as f64)
}

fn send(c: &mut ViewControls, app: &mut Grabber, input: Input, ui: UiFocus) -> super::Outcome {
    c.handle_with(input, ui, &mut |e| app.pointer(e))
}

fn moved((x, y): (f64, f64)) -> Input {
    Input::CursorMoved { x, y }
}

fn button(button: MouseButton, pressed: bool) -> Input {
    Input::Button { button, pressed }
}

/// Distance from `p` to the line of `e`'s ray.
fn miss(e: &PointerEvent, p: Vec3) -> f32 {
    let d = p - e.ray.origin;
    (d - d.dot(e.ray.dir) * e.ray.dir).length()
}

const VIEW: UiFocus = UiFocus {
    consumed: false,
    pointer_over_ui: false,
    wants_keyboard: false,
};
const PANEL: UiFocus = UiFocus {
    consumed: false,
    pointer_over_ui: true,
    wants_keyboard: false,
};

#[test]
fn an_app_that_captures_a_press_gets_the_drag_and_the_camera_stays_still() {
    let mut c = controls();
    let mut app = Grabber::new();
    let camera = c.camera.unwrap();
    let (p, normal) = (app.ball, camera.forward());
    // Points in the plane through the ball facing the camera.
    let q = p + 0.4 * camera.right() + 0.2 * camera.up();
    let r = p - 0.3 * camera.right() - 0.1 * camera.up();
    let (p_px, q_px, r_px) = (window_px(&c, p), window_px(&c, q), window_px(&c, r));

    send(&mut c, &mut app, moved(p_px), VIEW);
    assert_eq!(app.events.len(), 1, "a hover move reaches the app");
    assert_eq!(
        (app.events[0].kind, app.events[0].button),
        (PointerKind::Move, None)
    );
    let out = send(&mut c, &mut app, button(MouseButton::Left, true), VIEW);
    assert!(out.redraw && out.app_changed, "a captured press redraws");
    let press = *app.events.last().unwrap();
    assert_eq!(
        (press.kind, press.button),
        (PointerKind::Press, Some(PointerButton::Left))
    );
    // The position is in the 3D view's pixels, the ray from the eye through the ball.
    let expected = camera
        .project(p, c.viewport.width, c.viewport.height)
        .unwrap();
    assert!(
        (press.position - expected).length() < 1e-3,
        "{}",
        press.position
    );
    assert_eq!(press.viewport, Vec2::new(670.0, 540.0));
    assert_eq!(press.ray.origin, camera.eye());
    assert!(
        miss(&press, p) < 1e-4,
        "the press ray misses the ball by {}",
        miss(&press, p)
    );

    // Moves: the app's, with rays through the points under the cursor, even over
    // the panel; the camera does not move.
    for (target, px, ui) in [(q, q_px, VIEW), (r, r_px, PANEL), (q, q_px, VIEW)] {
        let out = send(&mut c, &mut app, moved(px), ui);
        assert!(out.redraw && out.app_changed);
        let e = *app.events.last().unwrap();
        assert_eq!(
            (e.kind, e.button),
            (PointerKind::Move, Some(PointerButton::Left))
        );
        let hit = e.ray.at(e.ray.hit_plane(p, normal).unwrap());
        assert!((hit - target).length() < 1e-4, "{hit} != {target}");
        assert_eq!(
            c.camera.unwrap(),
            camera,
            "the camera moved during the app's drag"
        );
    }
    // Another button during the drag: neither the app's nor the camera's.
    let n = app.events.len();
    send(&mut c, &mut app, button(MouseButton::Right, true), VIEW);
    send(&mut c, &mut app, moved(r_px), VIEW);
    send(&mut c, &mut app, button(MouseButton::Right, false), VIEW);
    assert_eq!(app.events.len(), n + 1, "only the move reached the app");
    assert_eq!(c.camera.unwrap(), camera);
    assert!(app.holding);

    // The release goes to the app, over the panel too; then the drag is over.
    let out = send(&mut c, &mut app, button(MouseButton::Left, false), PANEL);
    assert!(out.app_changed);
    let release = *app.events.last().unwrap();
    assert_eq!(
        (release.kind, release.button),
        (PointerKind::Release, Some(PointerButton::Left))
    );
    assert!(miss(&release, r) < 1e-4);
    let out = send(&mut c, &mut app, moved(q_px), VIEW);
    assert!(
        !out.redraw && !out.app_changed,
        "a hover the app ignores draws nothing"
    );
    assert_eq!(app.events.last().unwrap().button, None);
    assert_eq!(c.camera.unwrap(), camera);
}

#[test]
fn a_press_the_app_declines_orbits_the_camera_as_before() {
    let mut c = controls();
    let mut app = Grabber::new();
    let before = c.camera.unwrap();
    // Far from the ball: the app hears the press, declines, and hears nothing more
    // until the camera's drag ends.
    send(&mut c, &mut app, moved((600.0, 60.0)), VIEW);
    send(&mut c, &mut app, button(MouseButton::Left, true), VIEW);
    assert_eq!(app.events.len(), 2);
    assert_eq!(app.events[1].kind, PointerKind::Press);
    assert!(miss(&app.events[1], app.ball) > 0.5);
    for k in 1..=4 {
        let out = send(
            &mut c,
            &mut app,
            moved((600.0 + 25.0 * k as f64, 60.0 - 10.0 * k as f64)),
            VIEW,
        );
        assert!(out.redraw && !out.app_changed);
    }
    send(&mut c, &mut app, button(MouseButton::Left, false), VIEW);
    assert_eq!(app.events.len(), 2, "the camera's drag is not the app's");
    let after = c.camera.unwrap();
    assert_eq!(
        (after.target, after.distance),
        (before.target, before.distance)
    );
    assert!((after.yaw - (before.yaw - 100.0 * 0.006)).abs() < 1e-5);
    assert!((after.pitch - (before.pitch - 40.0 * 0.006)).abs() < 1e-5);
    // Right-drags on the ball pan: the grabber only takes the left button.
    let ball = window_px(&c, app.ball);
    send(&mut c, &mut app, moved(ball), VIEW);
    send(&mut c, &mut app, button(MouseButton::Right, true), VIEW);
    send(&mut c, &mut app, moved((ball.0 + 30.0, ball.1)), VIEW);
    send(&mut c, &mut app, button(MouseButton::Right, false), VIEW);
    assert_ne!(c.camera.unwrap().target, after.target, "panned");
    assert!(!app.holding);
}

#[test]
fn events_over_the_panel_reach_neither_the_app_nor_the_camera() {
    let mut c = controls();
    let mut app = Grabber::new();
    let before = c.camera.unwrap();
    let ball = window_px(&c, app.ball);
    // As if the ball were under the panel: egui has the pointer.
    for ui in [
        PANEL,
        UiFocus {
            consumed: true,
            ..VIEW
        },
    ] {
        send(&mut c, &mut app, moved(ball), ui);
        let out = send(&mut c, &mut app, button(MouseButton::Left, true), ui);
        assert!(!out.redraw && !out.app_changed);
        send(&mut c, &mut app, moved((ball.0 + 50.0, ball.1)), ui);
        send(
            &mut c,
            &mut app,
            moved((ball.0 + 80.0, ball.1 + 20.0)),
            VIEW,
        );
        send(&mut c, &mut app, button(MouseButton::Left, false), ui);
        assert!(
            app.events
                .iter()
                .all(|e| e.kind == PointerKind::Move && e.button.is_none()),
            "only hovers over the view: {:?}",
            app.events
        );
        assert!(!app.holding);
        assert_eq!(c.camera.unwrap(), before);
        app.events.clear();
    }
}

#[test]
fn no_camera_yet_no_pointer_events() {
    // Before the first frame frames the scene there is no ray to give.
    let mut c = ViewControls::new(None, [800, 600]);
    let mut app = Grabber::new();
    send(&mut c, &mut app, moved((400.0, 300.0)), VIEW);
    send(&mut c, &mut app, button(MouseButton::Left, true), VIEW);
    send(&mut c, &mut app, button(MouseButton::Left, false), VIEW);
    assert!(app.events.is_empty());
}

#[test]
fn captured_events_redraw_a_paused_app() {
    let options = Options::parse_from(["test", "--paused"]).unwrap();
    let mut sim = Sim::new(Grabber::new(), &options);
    sim.reset().unwrap();
    assert!(sim.redraw().unwrap());
    assert!(!sim.redraw().unwrap(), "nothing changed");
    let mut c = controls();
    let ball = window_px(&c, sim.app.ball);
    // A hover the app ignores: no draw.
    handle(&mut c, &mut sim, moved(ball), VIEW);
    assert!(!sim.redraw().unwrap());
    // The grab and each move of the drag: a draw each, paused as it is.
    let draws = sim.app.draws;
    let out = handle(&mut c, &mut sim, button(MouseButton::Left, true), VIEW);
    assert!(out.redraw);
    assert!(sim.redraw().unwrap());
    let out = handle(&mut c, &mut sim, moved((ball.0 + 5.0, ball.1)), VIEW);
    assert!(out.redraw);
    assert!(sim.redraw().unwrap());
    handle(&mut c, &mut sim, button(MouseButton::Left, false), VIEW);
    assert!(sim.redraw().unwrap());
    assert_eq!(sim.app.draws, draws + 3);
    assert!(!sim.playing && sim.steps == 0);
}
