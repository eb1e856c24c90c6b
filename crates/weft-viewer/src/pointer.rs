//! What an [`App`](crate::App) hears of the mouse: presses, moves and releases over
//! the 3D view, each with the world-space ray through the cursor, so an app can pick
//! and drag its objects (MuJoCo's perturb, a draggable target).

use glam::{Vec2, Vec3};

use crate::OrbitCamera;

/// A half-line: `origin + t · dir` for `t ≥ 0`, `dir` of unit length.
///
/// ```
/// use weft_viewer::Ray;
/// use glam::Vec3;
/// let ray = Ray::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0));
/// assert_eq!(ray.dir, Vec3::Z);
/// assert_eq!(ray.at(3.0), Vec3::new(0.0, 0.0, 3.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where the ray starts (for a pointer: the camera's eye).
    pub origin: Vec3,
    /// Unit direction.
    pub dir: Vec3,
}

impl Ray {
    /// A ray from `origin` along `dir` (normalised; `+X` if `dir` is zero).
    ///
    /// ```
    /// use weft_viewer::Ray;
    /// use glam::Vec3;
    /// assert_eq!(Ray::new(Vec3::ONE, Vec3::new(0.0, -5.0, 0.0)).dir, -Vec3::Y);
    /// ```
    pub fn new(origin: Vec3, dir: Vec3) -> Self {
        Ray {
            origin,
            dir: dir.normalize_or(Vec3::X),
        }
    }

    /// The point `t` along the ray (`t` is a distance: `dir` is a unit vector).
    ///
    /// ```
    /// use weft_viewer::Ray;
    /// use glam::Vec3;
    /// assert_eq!(Ray::new(Vec3::X, Vec3::Y).at(2.0), Vec3::new(1.0, 2.0, 0.0));
    /// ```
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + t * self.dir
    }

    /// Distance along the ray to the first point of the sphere at `center` of
    /// `radius` (0 when the origin is inside it), or `None` when the ray misses it.
    ///
    /// ```
    /// use weft_viewer::Ray;
    /// use glam::Vec3;
    /// let ray = Ray::new(Vec3::ZERO, Vec3::X);
    /// assert_eq!(ray.hit_sphere(Vec3::new(5.0, 0.0, 0.0), 1.0), Some(4.0));
    /// assert_eq!(ray.hit_sphere(Vec3::new(5.0, 2.0, 0.0), 1.0), None);
    /// assert_eq!(ray.hit_sphere(Vec3::new(-5.0, 0.0, 0.0), 1.0), None, "behind");
    /// ```
    pub fn hit_sphere(&self, center: Vec3, radius: f32) -> Option<f32> {
        let to_center = center - self.origin;
        let along = to_center.dot(self.dir);
        let miss2 = to_center.length_squared() - along * along;
        let r2 = radius * radius;
        if miss2 > r2 {
            return None;
        }
        let half_chord = (r2 - miss2).sqrt();
        let (near, far) = (along - half_chord, along + half_chord);
        (far >= 0.0).then_some(near.max(0.0))
    }

    /// Distance along the ray to the plane through `point` with normal `normal`, or
    /// `None` when the ray is parallel to it (within 1e-6) or points away from it.
    ///
    /// ```
    /// use weft_viewer::Ray;
    /// use glam::Vec3;
    /// let ray = Ray::new(Vec3::new(0.0, 0.0, 3.0), Vec3::new(1.0, 0.0, -1.0));
    /// let t = ray.hit_plane(Vec3::ZERO, Vec3::Z).unwrap();
    /// assert!((ray.at(t) - Vec3::new(3.0, 0.0, 0.0)).length() < 1e-5);
    /// assert_eq!(ray.hit_plane(Vec3::new(0.0, 0.0, 5.0), Vec3::Z), None, "behind");
    /// assert_eq!(Ray::new(Vec3::Z, Vec3::X).hit_plane(Vec3::ZERO, Vec3::Z), None, "parallel");
    /// ```
    pub fn hit_plane(&self, point: Vec3, normal: Vec3) -> Option<f32> {
        let normal = normal.normalize_or_zero();
        let denom = self.dir.dot(normal);
        if denom.abs() < 1e-6 {
            return None;
        }
        let t = (point - self.origin).dot(normal) / denom;
        (t >= 0.0).then_some(t)
    }
}

/// What the pointer did.
///
/// ```
/// use weft_viewer::PointerKind;
/// assert_ne!(PointerKind::Press, PointerKind::Release);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointerKind {
    /// A button went down over the 3D view.
    Press,
    /// The cursor moved: with a button during the app's drag, or hovering (no button).
    Move,
    /// The button of the app's drag went up (wherever the cursor is).
    Release,
}

/// A mouse button.
///
/// ```
/// use weft_viewer::PointerButton;
/// assert_eq!(PointerButton::Left, PointerButton::Left);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointerButton {
    /// The primary button.
    Left,
    /// The secondary button.
    Right,
    /// The wheel button.
    Middle,
    /// Back, forward and any other button.
    Other,
}

/// The modifier keys held during a pointer event.
///
/// ```
/// use weft_viewer::Modifiers;
/// let m = Modifiers { shift: true, ..Default::default() };
/// assert!(m.shift && !m.ctrl && !m.any_but_shift());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Modifiers {
    /// Shift.
    pub shift: bool,
    /// Control.
    pub ctrl: bool,
    /// Alt (Option).
    pub alt: bool,
    /// The Windows / Command / Super key.
    pub logo: bool,
}

impl Modifiers {
    /// Whether Ctrl, Alt or the logo key is held.
    ///
    /// ```
    /// use weft_viewer::Modifiers;
    /// assert!(Modifiers { alt: true, ..Default::default() }.any_but_shift());
    /// assert!(!Modifiers::default().any_but_shift());
    /// ```
    pub fn any_but_shift(&self) -> bool {
        self.ctrl || self.alt || self.logo
    }
}

/// One pointer event over the 3D view, as [`App::pointer`](crate::App::pointer) gets it.
///
/// `position` is in physical pixels from the top left of the 3D view (right of the
/// panel), the frame `camera.project(p, viewport.x, viewport.y)` uses, and `ray`
/// goes from the eye through that pixel.
///
/// ```
/// use weft_viewer::{OrbitCamera, PointerEvent, PointerKind, PointerButton, Modifiers};
/// use glam::{Vec2, Vec3};
/// let camera = OrbitCamera::look_at(Vec3::new(4.0, 0.0, 0.0), Vec3::ZERO);
/// let e = PointerEvent::new(PointerKind::Press, Some(PointerButton::Left),
///     Vec2::new(400.0, 300.0), Modifiers::default(), camera, Vec2::new(800.0, 600.0));
/// // The middle of the view looks at the camera's target.
/// assert!(e.ray.hit_sphere(Vec3::ZERO, 0.01).is_some());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointerEvent {
    /// Press, move or release.
    pub kind: PointerKind,
    /// The button pressed or released; for a move, the button of the drag the app
    /// holds, `None` when the pointer only hovers.
    pub button: Option<PointerButton>,
    /// Cursor position in physical pixels from the 3D view's top left corner.
    pub position: Vec2,
    /// The modifier keys held.
    pub modifiers: Modifiers,
    /// The world-space ray from the eye through the cursor.
    pub ray: Ray,
    /// The camera the ray comes from (for pixel-sized tolerances: [`OrbitCamera::pixel_size`]).
    pub camera: OrbitCamera,
    /// Width and height of the 3D view in physical pixels.
    pub viewport: Vec2,
}

impl PointerEvent {
    /// An event at `position` in a view of `viewport` pixels seen through `camera`
    /// (computes the ray with [`OrbitCamera::ray`]).
    ///
    /// ```
    /// use weft_viewer::{OrbitCamera, PointerEvent, PointerKind, Modifiers};
    /// use glam::Vec2;
    /// let cam = OrbitCamera::default();
    /// let e = PointerEvent::new(PointerKind::Move, None, Vec2::new(10.0, 20.0),
    ///     Modifiers::default(), cam, Vec2::new(640.0, 480.0));
    /// assert_eq!(e.ray.origin, cam.eye());
    /// ```
    pub fn new(
        kind: PointerKind,
        button: Option<PointerButton>,
        position: Vec2,
        modifiers: Modifiers,
        camera: OrbitCamera,
        viewport: Vec2,
    ) -> Self {
        PointerEvent {
            kind,
            button,
            position,
            modifiers,
            ray: camera.ray(position, viewport.x, viewport.y),
            camera,
            viewport,
        }
    }

    /// Whether this is a press of `button`.
    ///
    /// ```
    /// use weft_viewer::{OrbitCamera, PointerEvent, PointerKind, PointerButton, Modifiers};
    /// use glam::Vec2;
    /// let e = PointerEvent::new(PointerKind::Press, Some(PointerButton::Right), Vec2::ZERO,
    ///     Modifiers::default(), OrbitCamera::default(), Vec2::ONE);
    /// assert!(e.is_press(PointerButton::Right) && !e.is_press(PointerButton::Left));
    /// ```
    pub fn is_press(&self, button: PointerButton) -> bool {
        self.kind == PointerKind::Press && self.button == Some(button)
    }

    /// World length of one pixel at the depth of `point` (for tolerances in pixels).
    ///
    /// ```
    /// use weft_viewer::{OrbitCamera, PointerEvent, PointerKind, Modifiers};
    /// use glam::Vec2;
    /// let cam = OrbitCamera::default();
    /// let e = PointerEvent::new(PointerKind::Move, None, Vec2::ZERO,
    ///     Modifiers::default(), cam, Vec2::new(800.0, 600.0));
    /// assert_eq!(e.pixel_size(cam.target), cam.pixel_size(cam.target, 600.0));
    /// ```
    pub fn pixel_size(&self, point: Vec3) -> f32 {
        self.camera.pixel_size(point, self.viewport.y)
    }
}

/// An app's answer to a [`PointerEvent`].
///
/// ```
/// use weft_viewer::PointerResponse;
/// assert_eq!(PointerResponse::default(), PointerResponse::Ignored);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PointerResponse {
    /// Not the app's: a press then drives the camera (orbit, pan) as usual.
    #[default]
    Ignored,
    /// The app used it: the viewer calls `draw` again (even when paused), and after
    /// a press the app holds the drag: its moves and its release go to the app, and
    /// the camera stays still until the release.
    Captured,
}

impl PointerResponse {
    /// [`Captured`](Self::Captured) when `used`.
    ///
    /// ```
    /// use weft_viewer::PointerResponse;
    /// assert_eq!(PointerResponse::captured_if(true), PointerResponse::Captured);
    /// ```
    pub fn captured_if(used: bool) -> Self {
        if used {
            PointerResponse::Captured
        } else {
            PointerResponse::Ignored
        }
    }
}
