//! # Weft's viewer
//!
//! Shows what a simulation hands it: particles as shaded spheres (millions of them),
//! triangle meshes with smooth normals, rigid boxes, spheres, capsules and cylinders, and lines,
//! over a ground grid, with a directional light, soft shadows, hemisphere ambient
//! light and 4× MSAA.
//!
//! An example implements [`App`] (reset, step, draw, parameters) and calls [`run`]:
//!
//! - **window** (winit + wgpu + egui): orbit / pan / zoom with the mouse, `Space`
//!   play/pause, `.` step, `r` reset, `f` frame the scene, a panel with time, step
//!   count, frame and step timings with a rolling plot, the app's parameters, logged
//!   scalars and a screenshot button; [`App::pointer`] hears the mouse over the 3D
//!   view with the world [`Ray`] under the cursor, to pick and drag objects;
//! - **headless** (`--headless --frames N --out DIR`, and automatically when there is
//!   no display): the same renderer writes PNG frames, on a GPU or on the CPU through
//!   Mesa's lavapipe, so CI images and README pictures come from one code path;
//! - **null** (`--null`): steps and draws without rendering, for tests.
//!
//! Drawing is logging: each frame the app calls [`Scene::log_points`],
//! [`Scene::log_mesh`], [`Scene::log_shapes`], [`Scene::log_lines`] and
//! [`Scene::log_scalar`] with host slices (`array.as_slice()` of a Weft array, or any
//! `&[Vec3]`), and never touches wgpu.
//!
//! ```
//! use weft_viewer::{Color, Colormap, Lines, Points, Scene, Shape, Transform};
//! use glam::Vec3;
//!
//! let x: Vec<Vec3> = (0..100).map(|i| Vec3::new(i as f32 * 0.1, 0.0, 1.0)).collect();
//! let speed: Vec<f32> = (0..100).map(|i| i as f32).collect();
//! let mut scene = Scene::new();
//! scene.log_points("particles", Points::new(&x).radius(0.03).scalars(&speed, Colormap::Viridis))?;
//! scene.log_shapes("ball", &[Shape::sphere(0.5).at(Transform::from_translation(Vec3::Z)).color(Color::CORAL)])?;
//! scene.log_lines("path", Lines::strip(&x))?;
//! scene.log_scalar("energy", 12.5);
//! assert!(scene.bounds().is_some());
//! # Ok::<(), weft_viewer::Error>(())
//! ```
//!
//! [`Offscreen`] renders a [`Scene`] to an image directly (tests, figures).

#![warn(missing_docs)]

mod app;
mod camera;
mod color;
mod colormap;
mod error;
mod gpu;
mod headless;
mod input;
mod options;
mod panel;
mod params;
mod pointer;
mod renderer;
mod run;
mod scene;
mod screenshot;
mod sim;
mod stats;
mod window;

pub use app::{App, Settings};
pub use camera::OrbitCamera;
pub use color::Color;
pub use colormap::Colormap;
pub use error::{AppError, AppResult, Error};
pub use gpu::Gpu;
pub use headless::Offscreen;
pub use options::{Mode, Options, has_display};
pub use params::{Number, ParamInfo, Params};
pub use pointer::{Modifiers, PointerButton, PointerEvent, PointerKind, PointerResponse, Ray};
pub use renderer::RenderSettings;
pub use run::{run, run_with};
pub use scene::{
    Bounds, Coloring, Geometry, LineSet, Lines, Mesh, PointCloud, Points, Scene, Shape, TriMesh,
    smooth_normals,
};

/// Rigid transform (translation `p`, rotation `q`), the same type as `weft::Transform`.
pub use weft_types::Transform;

/// The `image` crate, whose `RgbaImage` [`Offscreen::render`] returns.
pub use image;

/// The WGSL sources of the renderer (`shaders/*.wgsl`), for validation and reuse.
pub mod shaders {
    pub use crate::renderer::shaders::{COMMON, SHADERS, compose};
}
