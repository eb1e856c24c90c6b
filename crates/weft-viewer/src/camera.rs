//! The orbit camera: turns around a target point, Z up.

use glam::{Mat4, Vec2, Vec3};

use crate::{Bounds, Ray};

/// A perspective camera orbiting `target` at `distance`, with `yaw` around +Z and
/// `pitch` above the horizontal (radians). Z is up.
///
/// The projection has reversed depth and no far plane, so huge and tiny scenes keep
/// their depth precision.
///
/// ```
/// use weft_viewer::{Bounds, OrbitCamera};
/// use glam::Vec3;
/// let mut cam = OrbitCamera::default();
/// cam.frame(Bounds::sphere(Vec3::new(0.0, 0.0, 1.0), 1.0), 16.0 / 9.0);
/// assert_eq!(cam.target, Vec3::new(0.0, 0.0, 1.0));
/// // The target projects to the middle of the image.
/// let px = cam.project(cam.target, 1600.0, 900.0).unwrap();
/// assert!((px - glam::Vec2::new(800.0, 450.0)).length() < 1e-2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point looked at and orbited around.
    pub target: Vec3,
    /// Distance from the eye to the target.
    pub distance: f32,
    /// Angle around +Z of the eye as seen from the target (0: the eye is on +X).
    pub yaw: f32,
    /// Angle of the eye above the target's horizontal plane.
    pub pitch: f32,
    /// Vertical field of view.
    pub fov_y: f32,
}

impl Default for OrbitCamera {
    /// Looking at the origin from 5 m, from the front-right and a little above.
    fn default() -> Self {
        OrbitCamera {
            target: Vec3::ZERO,
            distance: 5.0,
            yaw: -60f32.to_radians(),
            pitch: 25f32.to_radians(),
            fov_y: 45f32.to_radians(),
        }
    }
}

const MAX_PITCH: f32 = 1.55;

impl OrbitCamera {
    /// A camera at `eye` looking at `target`.
    pub fn look_at(eye: Vec3, target: Vec3) -> Self {
        let d = eye - target;
        let distance = d.length().max(1e-6);
        OrbitCamera {
            target,
            distance,
            yaw: d.y.atan2(d.x),
            pitch: (d.z / distance)
                .clamp(-1.0, 1.0)
                .asin()
                .clamp(-MAX_PITCH, MAX_PITCH),
            ..Default::default()
        }
    }

    /// The eye position.
    pub fn eye(&self) -> Vec3 {
        let (sp, cp) = self.pitch.sin_cos();
        let (sy, cy) = self.yaw.sin_cos();
        self.target + self.distance * Vec3::new(cp * cy, cp * sy, sp)
    }

    /// Unit vector from the eye towards the target.
    pub fn forward(&self) -> Vec3 {
        (self.target - self.eye()).normalize_or(Vec3::X)
    }

    /// Unit vector to the right of the view.
    pub fn right(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        Vec3::new(-sy, cy, 0.0)
    }

    /// Unit vector up in the view.
    pub fn up(&self) -> Vec3 {
        self.right().cross(self.forward())
    }

    /// World-to-view matrix.
    pub fn view(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Z)
    }

    /// Near plane distance (proportional to the orbit distance).
    pub fn near(&self) -> f32 {
        (self.distance * 1e-3).max(1e-5)
    }

    /// View-to-clip matrix for an image of `aspect` = width / height (reversed depth, infinite far).
    pub fn projection(&self, aspect: f32) -> Mat4 {
        glam::camera::rh::proj::directx::perspective_infinite_reverse(
            self.fov_y,
            aspect.max(1e-6),
            self.near(),
        )
    }

    /// World-to-clip matrix.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// Pixel position (origin top left) of world point `p` in a `width × height`
    /// image, or `None` when it is behind the camera.
    pub fn project(&self, p: Vec3, width: f32, height: f32) -> Option<Vec2> {
        let c = self.view_proj(width / height) * p.extend(1.0);
        (c.w > 0.0).then(|| {
            let ndc = c.truncate() / c.w;
            Vec2::new((ndc.x * 0.5 + 0.5) * width, (0.5 - ndc.y * 0.5) * height)
        })
    }

    /// The ray from the eye through pixel `cursor` (origin top left) of a `width ×
    /// height` image: the inverse of [`project`](Self::project), whose points
    /// `ray.at(t)` all land on `cursor`.
    ///
    /// ```
    /// use weft_viewer::OrbitCamera;
    /// use glam::Vec2;
    /// let cam = OrbitCamera::default();
    /// let cursor = Vec2::new(200.0, 150.0);
    /// let ray = cam.ray(cursor, 800.0, 600.0);
    /// assert_eq!(ray.origin, cam.eye());
    /// let px = cam.project(ray.at(3.0), 800.0, 600.0).unwrap();
    /// assert!((px - cursor).length() < 1e-2);
    /// ```
    pub fn ray(&self, cursor: Vec2, width: f32, height: f32) -> Ray {
        let (width, height) = (width.max(1e-6), height.max(1e-6));
        let ndc_x = 2.0 * cursor.x / width - 1.0;
        let ndc_y = 1.0 - 2.0 * cursor.y / height;
        let tan_y = (self.fov_y * 0.5).tan();
        let tan_x = tan_y * width / height;
        let dir = self.forward() + self.right() * (ndc_x * tan_x) + self.up() * (ndc_y * tan_y);
        Ray::new(self.eye(), dir)
    }

    /// World length that one pixel of an image `height` pixels tall covers at the
    /// depth of `p` (for tolerances given in pixels).
    ///
    /// ```
    /// use weft_viewer::OrbitCamera;
    /// let cam = OrbitCamera::default();
    /// // At the target, the image's height spans 2 d tan(fov / 2).
    /// let h = 2.0 * cam.distance * (cam.fov_y / 2.0).tan();
    /// assert!((cam.pixel_size(cam.target, 500.0) * 500.0 - h).abs() < 1e-4);
    /// ```
    pub fn pixel_size(&self, p: Vec3, height: f32) -> f32 {
        let depth = (p - self.eye()).dot(self.forward()).max(self.near());
        2.0 * depth * (self.fov_y * 0.5).tan() / height.max(1.0)
    }

    /// Turns around the target by a mouse drag of `(dx, dy)` pixels.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.006;
        self.pitch = (self.pitch + dy * 0.006).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Moves the target (and the eye) by a drag of `(dx, dy)` pixels in a viewport
    /// `height` pixels tall, so the point under the cursor follows it.
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let per_pixel = 2.0 * self.distance * (self.fov_y * 0.5).tan() / height.max(1.0);
        self.target += (-self.right() * dx + self.up() * dy) * per_pixel;
    }

    /// Moves towards the target by `steps` wheel notches (negative: away).
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.88f32.powf(steps)).clamp(1e-4, 1e7);
    }

    /// Looks at `bounds` from the current direction, from just far enough to see all
    /// of it in an image of `aspect` = width / height.
    pub fn frame(&mut self, bounds: Bounds, aspect: f32) {
        let radius = bounds.radius().max(1e-3);
        let half_fov_x = ((self.fov_y * 0.5).tan() * aspect).atan();
        let half = half_fov_x.min(self.fov_y * 0.5);
        self.target = bounds.center();
        self.distance = radius / half.sin() * 1.05;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_at_round_trips() {
        let eye = Vec3::new(3.0, -4.0, 2.0);
        let cam = OrbitCamera::look_at(eye, Vec3::new(0.0, 0.0, 0.5));
        assert!((cam.eye() - eye).length() < 1e-5);
    }

    #[test]
    fn basis_is_orthonormal_and_z_up() {
        let cam = OrbitCamera::default();
        let (f, r, u) = (cam.forward(), cam.right(), cam.up());
        assert!(f.dot(r).abs() < 1e-6 && f.dot(u).abs() < 1e-6 && r.dot(u).abs() < 1e-6);
        assert!(u.z > 0.0 && r.z.abs() < 1e-6);
    }

    #[test]
    fn orbit_keeps_distance_and_clamps_pitch() {
        let mut cam = OrbitCamera::default();
        cam.orbit(100.0, 1e6);
        assert!(cam.pitch <= MAX_PITCH);
        assert!(((cam.eye() - cam.target).length() - cam.distance).abs() < 1e-4);
    }

    #[test]
    fn pan_moves_target_with_the_cursor() {
        let mut cam = OrbitCamera::default();
        let before = cam.project(Vec3::ZERO, 800.0, 600.0).unwrap();
        cam.pan(40.0, -30.0, 600.0);
        // The world origin follows the drag: it moves by (40, -30) on screen.
        let after = cam.project(Vec3::ZERO, 800.0, 600.0).unwrap();
        assert!(
            (after - before - Vec2::new(40.0, -30.0)).length() < 0.5,
            "{before} -> {after}"
        );
    }

    #[test]
    fn rays_project_back_onto_their_cursor() {
        let cams = [
            OrbitCamera::default(),
            OrbitCamera::look_at(Vec3::new(1.5, -0.95, 0.95), Vec3::new(0.28, 0.0, 0.45)),
            OrbitCamera {
                pitch: -1.2,
                yaw: 2.5,
                distance: 40.0,
                ..Default::default()
            },
        ];
        for cam in cams {
            for (w, h) in [(800.0, 600.0), (670.0, 720.0), (1920.0, 400.0)] {
                for cursor in [
                    Vec2::new(0.0, 0.0),
                    Vec2::new(w / 2.0, h / 2.0),
                    Vec2::new(w * 0.9, h * 0.2),
                    Vec2::new(13.0, h - 1.0),
                ] {
                    let ray = cam.ray(cursor, w, h);
                    assert!((ray.origin - cam.eye()).length() < 1e-5);
                    assert!((ray.dir.length() - 1.0).abs() < 1e-5);
                    for t in [0.5, 1.0, 3.0, 50.0] {
                        let px = cam.project(ray.at(t * cam.distance), w, h).unwrap();
                        assert!(
                            (px - cursor).length() < 0.05,
                            "{cam:?} {w}x{h}: {cursor} -> {px} at t = {t}"
                        );
                    }
                }
            }
            // The middle of the image looks straight ahead.
            let mid = cam.ray(Vec2::new(400.0, 300.0), 800.0, 600.0);
            assert!((mid.dir - cam.forward()).length() < 1e-5);
        }
    }

    #[test]
    fn zoom_and_frame() {
        let mut cam = OrbitCamera::default();
        let d = cam.distance;
        cam.zoom(1.0);
        assert!(cam.distance < d);
        cam.frame(Bounds::sphere(Vec3::ONE, 2.0), 1.0);
        for k in 0..8 {
            let corner = Vec3::ONE
                + 2.0
                    * Vec3::new(
                        (k & 1) as f32 * 2.0 - 1.0,
                        (k >> 1 & 1) as f32 * 2.0 - 1.0,
                        (k >> 2) as f32 * 2.0 - 1.0,
                    )
                    / 3f32.sqrt();
            let px = cam.project(corner, 100.0, 100.0).unwrap();
            assert!(
                px.min_element() >= 0.0 && px.max_element() <= 100.0,
                "corner {k} at {px}"
            );
        }
    }
}
