//! The one interface every example implements to get a window and a headless mode.

use crate::{AppResult, OrbitCamera, Params, PointerEvent, PointerResponse, Scene};

/// A simulation the viewer can run: build it, step it, draw it, expose its knobs.
///
/// Implement this and call [`run`](crate::run): the app gets a window with an orbit
/// camera and a panel (play/pause/step/reset, timings, its parameters, screenshots),
/// and `--headless --frames N --out DIR` rendering PNG frames with the same renderer.
/// Drawing goes through [`Scene`]'s logging calls, so an app never touches wgpu.
///
/// ```no_run
/// use weft_viewer::{App, AppResult, Params, Points, Scene, Settings};
/// use glam::Vec3;
///
/// struct Fall { x: Vec<Vec3>, v: Vec<Vec3>, g: f32 }
///
/// impl App for Fall {
///     fn settings(&self) -> Settings {
///         Settings { title: "fall".into(), ..Default::default() }
///     }
///     fn reset(&mut self) -> AppResult {
///         self.x = (0..100).map(|i| Vec3::new(i as f32 * 0.05, 0.0, 1.0)).collect();
///         self.v = vec![Vec3::ZERO; 100];
///         Ok(())
///     }
///     fn step(&mut self, dt: f32) -> AppResult {
///         for (x, v) in self.x.iter_mut().zip(&mut self.v) {
///             v.z -= self.g * dt;
///             *x += *v * dt;
///             if x.z < 0.02 { x.z = 0.02; v.z = -0.5 * v.z; }
///         }
///         Ok(())
///     }
///     fn draw(&mut self, scene: &mut Scene) -> AppResult {
///         scene.log_points("balls", Points::new(&self.x).radius(0.02))?;
///         Ok(())
///     }
///     fn params(&mut self, p: &mut Params) {
///         p.slider("gravity", &mut self.g, 0.0..=20.0);
///     }
/// }
///
/// fn main() -> Result<(), weft_viewer::Error> {
///     weft_viewer::run(Fall { x: vec![], v: vec![], g: 9.81 })
/// }
/// ```
pub trait App {
    /// Title, time step and initial view. Called once, before [`reset`](Self::reset).
    fn settings(&self) -> Settings {
        Settings::default()
    }

    /// Builds (or rebuilds) the simulation state: called before the first frame and
    /// on reset (`r`, the Reset button).
    fn reset(&mut self) -> AppResult;

    /// Advances the simulation by `dt` seconds (the settings' `dt`).
    fn step(&mut self, dt: f32) -> AppResult;

    /// Logs what to draw into `scene` (called after steps, resets and parameter changes).
    fn draw(&mut self, scene: &mut Scene) -> AppResult;

    /// Declares the app's parameters (sliders, checkboxes, …); called every frame in
    /// the window, once per frame headless. Return values say what changed.
    fn params(&mut self, params: &mut Params) {
        let _ = params;
    }

    /// Hears the mouse over the 3D view (window only; never headless). Each event
    /// carries the world ray through the cursor. Return
    /// [`Captured`](PointerResponse::Captured) to use it: `draw` runs again (even
    /// when paused), and a captured press makes the drag the app's: its moves and
    /// its release come here and the camera stays still until the release. Presses
    /// the app ignores orbit or pan the camera as usual; events over the panel never
    /// come here. The default ignores everything.
    ///
    /// ```
    /// use weft_viewer::{App, AppResult, PointerButton, PointerEvent, PointerKind,
    ///     PointerResponse, Scene, Shape, Transform};
    /// use glam::Vec3;
    ///
    /// /// A ball dragged in the plane facing the camera.
    /// struct Ball { at: Vec3, grab: Option<(Vec3, Vec3)> }
    ///
    /// impl App for Ball {
    ///     fn reset(&mut self) -> AppResult { Ok(()) }
    ///     fn step(&mut self, _dt: f32) -> AppResult { Ok(()) }
    ///     fn draw(&mut self, scene: &mut Scene) -> AppResult {
    ///         let at = Transform::from_translation(self.at);
    ///         scene.log_shapes("ball", &[Shape::sphere(0.1).at(at)])?;
    ///         Ok(())
    ///     }
    ///     fn pointer(&mut self, e: &PointerEvent) -> PointerResponse {
    ///         match e.kind {
    ///             PointerKind::Press if e.is_press(PointerButton::Left) => {
    ///                 let hit = e.ray.hit_sphere(self.at, 0.1).is_some();
    ///                 if hit { self.grab = Some((self.at, e.camera.forward())); }
    ///                 PointerResponse::captured_if(hit)
    ///             }
    ///             PointerKind::Move => match self.grab {
    ///                 Some((p, n)) => {
    ///                     if let Some(t) = e.ray.hit_plane(p, n) { self.at = e.ray.at(t); }
    ///                     PointerResponse::Captured
    ///                 }
    ///                 None => PointerResponse::Ignored,
    ///             },
    ///             _ => PointerResponse::captured_if(self.grab.take().is_some()),
    ///         }
    ///     }
    /// }
    /// ```
    fn pointer(&mut self, event: &PointerEvent) -> PointerResponse {
        let _ = event;
        PointerResponse::Ignored
    }
}

/// How an app wants to be run; every field has a sensible default.
///
/// ```
/// use weft_viewer::Settings;
/// let s = Settings { title: "cloth".into(), dt: 1.0 / 240.0, steps_per_frame: 4, ..Default::default() };
/// assert_eq!(s.ground, Some(0.0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Window title and default output folder name.
    pub title: String,
    /// Simulated seconds per step.
    pub dt: f32,
    /// Steps per rendered frame.
    pub steps_per_frame: u32,
    /// Initial camera (`None`: framed on the scene after the first draw).
    pub camera: Option<OrbitCamera>,
    /// Ground plane height (`None`: no ground).
    pub ground: Option<f32>,
    /// Window or image size in pixels.
    pub size: [u32; 2],
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            title: "weft".into(),
            dt: 1.0 / 60.0,
            steps_per_frame: 1,
            camera: None,
            ground: Some(0.0),
            size: [1280, 720],
        }
    }
}
