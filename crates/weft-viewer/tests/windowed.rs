//! Windowed smoke test under Xvfb: opens the window (winit + wgpu surface + egui
//! panel), renders frames, saves the window's own pixels and a screenshot taken
//! through the panel's Screenshot button code path, checks both, and exits.
//!
//! `WEFT_SMOKE_KEEP=DIR` copies the two PNGs (`window.png`, `screenshot_000.png`)
//! to DIR to look at.
//!
//! Runs without the test harness (winit wants the main thread): the parent starts
//! Xvfb and re-runs this binary as a child on that display. Without Xvfb it prints
//! `SKIPPED: reason` — except in CI (`CI` set), where that is a failure.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use glam::Vec3;
use weft_viewer::{App, AppResult, Color, Options, Points, Scene, Settings, Shape, Transform};

const FRAMES: u64 = 12;

/// A few bouncing points and a sphere.
struct Smoke {
    z: Vec<f32>,
    t: f32,
}

impl App for Smoke {
    fn settings(&self) -> Settings {
        Settings {
            title: "smoke".into(),
            size: [960, 540],
            ..Default::default()
        }
    }
    fn reset(&mut self) -> AppResult {
        self.z = (0..50).map(|i| 0.2 + i as f32 * 0.02).collect();
        self.t = 0.0;
        Ok(())
    }
    fn step(&mut self, dt: f32) -> AppResult {
        self.t += dt;
        Ok(())
    }
    fn draw(&mut self, scene: &mut Scene) -> AppResult {
        let x: Vec<Vec3> = self
            .z
            .iter()
            .enumerate()
            .map(|(i, z)| Vec3::new((i as f32 * 0.7).cos(), (i as f32 * 0.7).sin(), *z + self.t))
            .collect();
        scene.log_points("points", Points::new(&x).radius(0.05))?;
        scene.log_shapes(
            "ball",
            &[Shape::sphere(0.3)
                .at(Transform::from_translation(Vec3::Z * 0.3))
                .color(Color::CORAL)],
        )?;
        scene.log_scalar("t", self.t as f64);
        Ok(())
    }
}

fn child(out: &Path) -> ExitCode {
    let args = [
        "smoke",
        "--window",
        "--frames",
        &FRAMES.to_string(),
        "--out",
        out.to_str().unwrap(),
    ];
    let options = Options::parse_from(args).unwrap();
    match weft_viewer::run_with(Smoke { z: vec![], t: 0.0 }, &options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("windowed run failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn find_xvfb() -> Option<PathBuf> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("Xvfb"))
        .find(|p| p.is_file())
}

fn skip_or_fail(reason: &str) -> ExitCode {
    if std::env::var_os("CI").is_some() {
        eprintln!("windowed smoke test FAILED: {reason} (CI must run it; .ci/run installs xvfb)");
        ExitCode::FAILURE
    } else {
        println!("SKIPPED: {reason}");
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let out = std::env::temp_dir().join(format!("weft-viewer-windowed-{}", std::process::id()));
    if std::env::var_os("WEFT_SMOKE_CHILD").is_some() {
        let dir = PathBuf::from(std::env::var_os("WEFT_SMOKE_OUT").unwrap());
        return child(&dir);
    }
    if std::env::args().any(|a| a == "--list") {
        // `cargo test -- --list` asks test binaries what they hold.
        println!("windowed_smoke: test");
        return ExitCode::SUCCESS;
    }
    let Some(xvfb) = find_xvfb() else {
        return skip_or_fail("Xvfb not found (apt-get install xvfb)");
    };

    // Xvfb picks a free display and writes its number to stdout.
    let mut server = match Command::new(&xvfb)
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1280x800x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(s) => s,
        Err(e) => return skip_or_fail(&format!("cannot start {}: {e}", xvfb.display())),
    };
    let mut line = String::new();
    let _ = BufReader::new(server.stdout.take().unwrap()).read_line(&mut line);
    let display = line.trim().to_string();
    if display.is_empty() {
        let _ = server.kill();
        let _ = server.wait();
        return skip_or_fail("Xvfb started but reported no display");
    }

    let runtime = out.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    let started = Instant::now();
    let mut run = Command::new(std::env::current_exe().unwrap())
        .env("WEFT_SMOKE_CHILD", "1")
        .env("WEFT_SMOKE_OUT", &out)
        .env("DISPLAY", format!(":{display}"))
        .env("XDG_RUNTIME_DIR", &runtime)
        .env_remove("WAYLAND_DISPLAY")
        .spawn()
        .expect("re-run this test binary");
    let status = loop {
        if let Some(s) = run.try_wait().unwrap() {
            break Some(s);
        }
        if started.elapsed() > Duration::from_secs(180) {
            let _ = run.kill();
            let _ = run.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = server.kill();
    let _ = server.wait();

    let result = check(status, &out);
    if let Some(keep) = std::env::var_os("WEFT_SMOKE_KEEP") {
        let keep = PathBuf::from(keep);
        let _ = std::fs::create_dir_all(&keep);
        for name in ["window.png", "screenshot_000.png"] {
            let _ = std::fs::copy(out.join(name), keep.join(name));
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    match result {
        Ok(msg) => {
            println!(
                "windowed smoke test: ok ({msg}, {:.1} s)",
                started.elapsed().as_secs_f32()
            );
            println!("test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out");
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("windowed smoke test FAILED: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn check(status: Option<std::process::ExitStatus>, out: &Path) -> Result<String, String> {
    match status {
        None => return Err("the window did not exit within 180 s".into()),
        Some(s) if !s.success() => return Err(format!("the windowed run exited with {s}")),
        Some(_) => {}
    }
    let window = check_window(&out.join("window.png"))?;
    let shot = check_screenshot(&out.join("screenshot_000.png"))?;
    Ok(format!("{window}; {shot}"))
}

/// Mean luma of columns `x0..x1` of `image`.
fn luma(image: &image::RgbaImage, x0: u32, x1: u32) -> f64 {
    let mut sum = 0.0;
    let mut n = 0.0;
    for y in 0..image.height() {
        for x in x0..x1 {
            let p = image.get_pixel(x, y);
            sum += 0.2126 * p[0] as f64 + 0.7152 * p[1] as f64 + 0.0722 * p[2] as f64;
            n += 1.0;
        }
    }
    sum / n
}

/// Pixels of the coral ball.
fn reddish(image: &image::RgbaImage) -> usize {
    image
        .pixels()
        .filter(|p| p[0] > 150 && (p[1] as u32) < 120 && (p[2] as u32) < 120)
        .count()
}

/// The window's own pixels: the dark panel on the left, the bright scene, the ball.
fn check_window(png: &Path) -> Result<String, String> {
    let image = image::open(png)
        .map_err(|e| format!("no window capture at {}: {e}", png.display()))?
        .to_rgba8();
    let (w, h) = image.dimensions();
    if (w, h) != (960, 540) {
        return Err(format!("window capture is {w}x{h}, expected 960x540"));
    }
    // The egui panel (dark theme) on the left; the bright 3D view on the right.
    let (panel, scene) = (luma(&image, 0, 150), luma(&image, w - 300, w));
    if !(panel < 80.0 && scene > 120.0) {
        return Err(format!(
            "expected a dark panel and a bright scene, got mean luma {panel:.0} and {scene:.0}"
        ));
    }
    let red = reddish(&image);
    if red < 200 {
        return Err(format!(
            "the coral ball is missing from the window ({red} reddish pixels)"
        ));
    }
    Ok(format!(
        "{FRAMES} frames, {w}x{h}, panel luma {panel:.0}, scene luma {scene:.0}"
    ))
}

/// The Screenshot button's PNG: the 3D view alone, as large as the part of the
/// window right of the panel, with the ball in it and no panel.
fn check_screenshot(png: &Path) -> Result<String, String> {
    let image = image::open(png)
        .map_err(|e| format!("no screenshot at {}: {e}", png.display()))?
        .to_rgba8();
    let (w, h) = image.dimensions();
    if h != 540 || !(400..960).contains(&w) {
        return Err(format!(
            "screenshot is {w}x{h}, expected the view right of the panel (under 960 wide, 540 tall)"
        ));
    }
    let left = luma(&image, 0, 150);
    if left < 120.0 {
        return Err(format!(
            "the screenshot's left edge is dark (mean luma {left:.0}): the panel is in it"
        ));
    }
    let red = reddish(&image);
    if red < 200 {
        return Err(format!(
            "the coral ball is missing from the screenshot ({red} reddish pixels)"
        ));
    }
    Ok(format!("screenshot {w}x{h}, left luma {left:.0}"))
}
