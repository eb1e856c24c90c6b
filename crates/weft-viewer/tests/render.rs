//! Headless rendering of a known scene, checked on real pixels: not blank, the red
//! sphere where the camera puts it, the ground grid visible, and stable against a
//! committed reference image within a tolerance.
//!
//! `WEFT_BLESS=1 cargo test -p weft-viewer --test render` rewrites the reference.

use std::path::PathBuf;

use glam::Vec3;
use image::{Rgba, RgbaImage};
use weft_viewer::{Color, Offscreen, OrbitCamera, Points, Scene, Shape, Transform};

const W: u32 = 240;
const H: u32 = 160;

/// An offscreen renderer, or `None` with a printed reason when there is no adapter
/// (outside CI; in CI — `CI` set — a missing adapter is a failure).
fn offscreen() -> Option<Offscreen> {
    match Offscreen::new(W, H) {
        Ok(o) => Some(o),
        Err(e) if std::env::var_os("CI").is_none() => {
            println!("SKIPPED: no graphics adapter: {e}");
            None
        }
        Err(e) => panic!("CI must render (install mesa-vulkan-drivers): {e}"),
    }
}

fn red_sphere_scene() -> (Scene, OrbitCamera) {
    let mut scene = Scene::new();
    scene
        .log_shapes(
            "sphere",
            &[Shape::sphere(0.5)
                .at(Transform::from_translation(Vec3::new(0.0, 0.0, 0.5)))
                .color(Color::rgb(220, 30, 30))],
        )
        .unwrap();
    let camera = OrbitCamera::look_at(Vec3::new(2.2, -2.6, 1.6), Vec3::new(0.0, 0.0, 0.45));
    (scene, camera)
}

fn reference_path() -> PathBuf {
    // Relative to the crate (cargo's working directory for tests), so a copied test
    // binary run from the crate directory finds it too.
    let rel = PathBuf::from("tests/reference/red_sphere.png");
    if rel.exists() {
        rel
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
    }
}

fn is_red(p: &Rgba<u8>) -> bool {
    p[0] as i32 > 90 && p[0] as i32 > 2 * p[1] as i32 && p[0] as i32 > 2 * p[2] as i32
}

#[test]
fn red_sphere_on_a_grid() {
    let Some(mut off) = offscreen() else { return };
    println!("adapter: {}", off.gpu().describe());
    let (scene, camera) = red_sphere_scene();
    let image = off.render(&scene, &camera).unwrap();
    assert_eq!(image.dimensions(), (W, H));

    // Not blank: many distinct colours.
    let mut distinct: Vec<[u8; 4]> = image.pixels().map(|p| p.0).collect();
    distinct.sort();
    distinct.dedup();
    assert!(
        distinct.len() > 200,
        "image looks blank: {} colours",
        distinct.len()
    );

    // The sphere is where the camera projects it, and only there.
    let c = camera
        .project(Vec3::new(0.0, 0.0, 0.5), W as f32, H as f32)
        .unwrap();
    let center = image.get_pixel(c.x as u32, c.y as u32);
    assert!(
        is_red(center),
        "sphere centre at {c} is {center:?}, not red"
    );
    let red: Vec<(u32, u32)> = image
        .enumerate_pixels()
        .filter(|(_, _, p)| is_red(p))
        .map(|(x, y, _)| (x, y))
        .collect();
    // Projected radius: 0.5 m at the camera distance, in pixels.
    let edge = camera
        .project(
            Vec3::new(0.0, 0.0, 0.5) + camera.right() * 0.5,
            W as f32,
            H as f32,
        )
        .unwrap();
    let r_px = (edge - c).length();
    let expected_area = std::f32::consts::PI * r_px * r_px;
    assert!(
        (red.len() as f32) > 0.6 * expected_area && (red.len() as f32) < 1.3 * expected_area,
        "{} red pixels, expected about {expected_area:.0} (radius {r_px:.1} px)",
        red.len()
    );
    for &(x, y) in &red {
        let d = (glam::Vec2::new(x as f32 + 0.5, y as f32 + 0.5) - c).length();
        assert!(
            d < r_px + 2.0,
            "red pixel at ({x}, {y}) is {d:.1} px from the sphere centre (radius {r_px:.1})"
        );
    }
    // The sky is above, the lit ground below: the top row is bluish, the bottom row grey.
    let top = image.get_pixel(W / 2, 2);
    assert!(top[2] > top[0], "top of the image should be sky: {top:?}");
    let bottom = image.get_pixel(4, H - 3);
    assert!(
        (bottom[0] as i32 - bottom[2] as i32).abs() < 40 && bottom[0] > 60,
        "bottom should be grey ground: {bottom:?}"
    );
    // The sphere casts a shadow: ground it hides from the light is darker than lit
    // ground nearby (see `shadow_and_lit_levels`).
    let (shadow, lit) = shadow_and_lit_levels(&image, &camera, r_px);
    println!("ground level in the sphere's shadow {shadow:.1}, lit {lit:.1}");
    assert!(
        shadow < 0.75 * lit,
        "no shadow: ground the sphere hides from the light has level {shadow:.1}, lit ground {lit:.1}"
    );
    compare_with_reference(&image);
}

/// The same scene without shadows: the levels `shadow_and_lit_levels` compares are
/// then about equal, so the shadow check above measures the shadow and not the ground
/// grid or the shading of the plane.
#[test]
fn without_shadows_the_shadow_region_is_as_bright_as_lit_ground() {
    let Some(mut off) = offscreen() else { return };
    off.settings.shadows = false;
    let (scene, camera) = red_sphere_scene();
    let image = off.render(&scene, &camera).unwrap();
    let c = camera
        .project(Vec3::new(0.0, 0.0, 0.5), W as f32, H as f32)
        .unwrap();
    let edge = camera
        .project(
            Vec3::new(0.0, 0.0, 0.5) + camera.right() * 0.5,
            W as f32,
            H as f32,
        )
        .unwrap();
    let (shadow, lit) = shadow_and_lit_levels(&image, &camera, (edge - c).length());
    println!("shadows off: level where the shadow would be {shadow:.1}, lit {lit:.1}");
    assert!(
        shadow > 0.9 * lit,
        "shadows are off, yet the shadow region has level {shadow:.1} against {lit:.1}"
    );
}

/// Mean pixel level (R + G + B) of the ground points within 1.5 m of the sphere that
/// the sphere (radius 0.5 at (0, 0, 0.5)) hides from the default light — the umbra
/// only: the ray towards the light passes within 0.35 m of the centre, so soft edges
/// do not count — and of those it does not (the ray misses it by 0.3 m or more), as
/// `(shadow, lit)`. Points drawn within 3 px of the sphere's disk (radius `r_px`)
/// are left out: the sphere hides them from the camera.
fn shadow_and_lit_levels(image: &RgbaImage, camera: &OrbitCamera, r_px: f32) -> (f32, f32) {
    let light = weft_viewer::RenderSettings::default().light_dir.normalize();
    let centre = Vec3::new(0.0, 0.0, 0.5);
    let c_px = camera.project(centre, W as f32, H as f32).unwrap();
    let (mut shadow, mut lit) = (Vec::new(), Vec::new());
    for i in -75..=75 {
        for j in -75..=75 {
            let p = Vec3::new(i as f32 * 0.02, j as f32 * 0.02, 0.0);
            let Some(px) = camera.project(p, W as f32, H as f32) else {
                continue;
            };
            if p.length() > 1.5
                || (px - c_px).length() < r_px + 3.0
                || !(0.0..W as f32).contains(&px.x)
                || !(0.0..H as f32).contains(&px.y)
            {
                continue;
            }
            let pixel = image.get_pixel(px.x as u32, px.y as u32);
            let level = pixel.0[..3].iter().map(|&v| v as f32).sum::<f32>();
            // Distance from the sphere's centre to the ray from p towards the light.
            let to_c = centre - p;
            let miss = (to_c - light * to_c.dot(light)).length();
            if miss < 0.35 {
                shadow.push(level);
            } else if miss > 0.8 {
                lit.push(level);
            }
        }
    }
    assert!(
        shadow.len() >= 30 && lit.len() >= 30,
        "too few visible ground samples: {} in the shadow, {} lit",
        shadow.len(),
        lit.len()
    );
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len() as f32;
    (mean(&shadow), mean(&lit))
}

fn compare_with_reference(image: &RgbaImage) {
    let path = reference_path();
    if std::env::var_os("WEFT_BLESS").is_some() {
        image.save(&path).unwrap();
        println!("wrote {}", path.display());
        return;
    }
    let reference = image::open(&path)
        .unwrap_or_else(|e| {
            panic!(
                "cannot read {} ({e}); create it with WEFT_BLESS=1",
                path.display()
            )
        })
        .to_rgba8();
    assert_eq!(reference.dimensions(), image.dimensions());
    // Tolerance: GPUs and lavapipe differ by 1-2 levels per channel, and edges of
    // anti-aliased shapes by more on a few pixels.
    let mut sum = 0u64;
    let mut far = 0usize;
    for (a, b) in image.pixels().zip(reference.pixels()) {
        let d = (0..3)
            .map(|k| (a[k] as i32 - b[k] as i32).unsigned_abs())
            .max()
            .unwrap();
        sum += d as u64;
        if d > 24 {
            far += 1;
        }
    }
    let n = (W * H) as f64;
    let mean = sum as f64 / n;
    let far_frac = far as f64 / n;
    if mean > 1.5 || far_frac > 0.005 {
        let out = std::env::temp_dir().join("weft_red_sphere_actual.png");
        image.save(&out).unwrap();
        panic!(
            "differs from {}: mean difference {mean:.2} levels, {:.2}% of pixels off by more than 24 (actual saved to {})",
            path.display(),
            far_frac * 100.0,
            out.display()
        );
    }
}

/// Regression: the renderer keyed its uploads on `Scene::version`, a per-scene
/// count of changes, so a second scene logged as many times as the first was drawn
/// as the first (the 20k-particle rows of the render bench showed 1M particles).
#[test]
fn a_second_scene_changed_as_often_as_the_first_is_drawn() {
    let Some(mut off) = offscreen() else { return };
    let sphere = |color| {
        let mut scene = Scene::new();
        scene
            .log_shapes(
                "sphere",
                &[Shape::sphere(0.5)
                    .at(Transform::from_translation(Vec3::new(0.0, 0.0, 0.5)))
                    .color(color)],
            )
            .unwrap();
        scene
    };
    let (red, blue) = (
        sphere(Color::rgb(220, 30, 30)),
        sphere(Color::rgb(30, 30, 220)),
    );
    let (_, camera) = red_sphere_scene();
    let c = camera
        .project(Vec3::new(0.0, 0.0, 0.5), W as f32, H as f32)
        .unwrap();
    let a = off.render(&red, &camera).unwrap();
    let b = off.render(&blue, &camera).unwrap();
    let (pa, pb) = (
        a.get_pixel(c.x as u32, c.y as u32),
        b.get_pixel(c.x as u32, c.y as u32),
    );
    assert!(is_red(pa), "first scene's sphere should be red: {pa:?}");
    assert!(
        pb[2] as i32 > 2 * pb[0] as i32,
        "second scene's sphere should be blue, not the first scene again: {pb:?}"
    );
}

/// Frames without shadows use pipelines built without the shadow-map lookup: the
/// picture must be the shadowed one minus the shadow (only ever brighter, and only
/// where the sphere's shadow falls on the ground).
#[test]
fn turning_shadows_off_removes_only_the_shadow() {
    let Some(mut off) = offscreen() else { return };
    let (scene, camera) = red_sphere_scene();
    let lit = off.render(&scene, &camera).unwrap();
    off.settings.shadows = false;
    let plain = off.render(&scene, &camera).unwrap();
    let luma = |p: &Rgba<u8>| 0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32;
    let (mut lighter, mut darker) = (Vec::new(), 0usize);
    for (x, y, p) in plain.enumerate_pixels() {
        let d = luma(p) - luma(lit.get_pixel(x, y));
        if d > 3.0 {
            lighter.push((x, y));
        } else if d < -3.0 {
            darker += 1;
        }
    }
    assert_eq!(darker, 0, "without shadows, {darker} pixels got darker");
    // The shadow falls away from the light (towards +x, +y), on the ground below
    // the sphere's centre in the image.
    let c = camera
        .project(Vec3::new(0.0, 0.0, 0.5), W as f32, H as f32)
        .unwrap();
    assert!(
        lighter.len() > 150,
        "only {} pixels brighten without shadows: where is the sphere's shadow?",
        lighter.len()
    );
    let below = lighter.iter().filter(|&&(_, y)| y as f32 > c.y).count();
    assert!(
        below * 10 > lighter.len() * 9,
        "the shadow should be on the ground below the sphere's centre ({below} of {})",
        lighter.len()
    );
}

#[test]
fn every_kind_of_entity_renders() {
    let Some(mut off) = offscreen() else { return };
    let mut scene = Scene::new();
    let x: Vec<Vec3> = (0..400)
        .map(|i| {
            Vec3::new(
                (i % 20) as f32 * 0.1 - 1.0,
                (i / 20) as f32 * 0.1 - 1.0,
                0.3,
            )
        })
        .collect();
    let s: Vec<f32> = (0..400).map(|i| i as f32).collect();
    scene
        .log_points(
            "p",
            Points::new(&x)
                .radius(0.04)
                .scalars(&s, weft_viewer::Colormap::Viridis),
        )
        .unwrap();
    let quad = [
        Vec3::new(-1.0, -1.0, 1.0),
        Vec3::new(1.0, -1.0, 1.0),
        Vec3::new(1.0, 1.0, 1.2),
        Vec3::new(-1.0, 1.0, 1.2),
    ];
    scene
        .log_mesh(
            "m",
            weft_viewer::Mesh::from_triangles(&quad, &[[0, 1, 2], [0, 2, 3]]),
        )
        .unwrap();
    scene
        .log_shapes(
            "s",
            &[
                Shape::capsule(0.1, 0.3),
                Shape::cuboid(Vec3::splat(0.2)).at(Transform::from_translation(Vec3::X)),
            ],
        )
        .unwrap();
    scene
        .log_lines("l", weft_viewer::Lines::strip(&x[..20]).width(3.0))
        .unwrap();
    let mut cam = OrbitCamera::default();
    cam.frame(scene.bounds().unwrap(), W as f32 / H as f32);
    let a = off.render(&scene, &cam).unwrap();
    // Rendering the same scene twice gives the same image (deterministic).
    let b = off.render(&scene, &cam).unwrap();
    assert_eq!(a.as_raw(), b.as_raw());
    // Changing settings changes pixels: without shadows and ground, the image differs.
    off.settings.shadows = false;
    off.settings.ground = None;
    let c = off.render(&scene, &cam).unwrap();
    assert_ne!(a.as_raw(), c.as_raw());
}
