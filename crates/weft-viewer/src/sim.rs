//! Drives an [`App`]: steps, time, play/pause, redraws, timings. Shared by the
//! window, headless and null modes.

use std::time::Instant;

use crate::stats::Rolling;
use crate::{App, Error, Options, Scene, Settings};

/// Samples kept for plots.
pub(crate) const HISTORY: usize = 240;

pub(crate) struct Sim<A: App> {
    pub(crate) app: A,
    pub(crate) settings: Settings,
    pub(crate) scene: Scene,
    /// Simulated seconds since the last reset.
    pub(crate) time: f64,
    /// Steps since the last reset.
    pub(crate) steps: u64,
    pub(crate) playing: bool,
    pub(crate) steps_per_frame: u32,
    /// Wall time per step (ms).
    pub(crate) step_ms: Rolling,
    /// History of each logged scalar, in first-logged order.
    pub(crate) scalars: Vec<(String, Rolling)>,
    dirty: bool,
}

impl<A: App> Sim<A> {
    pub(crate) fn new(app: A, options: &Options) -> Self {
        let settings = app.settings();
        let steps_per_frame = options
            .steps_per_frame
            .unwrap_or(settings.steps_per_frame)
            .max(1);
        Sim {
            app,
            settings,
            scene: Scene::new(),
            time: 0.0,
            steps: 0,
            playing: !options.paused,
            steps_per_frame,
            step_ms: Rolling::new(HISTORY),
            scalars: Vec::new(),
            dirty: true,
        }
    }

    /// Rebuilds the app's state and clears time, steps and histories.
    pub(crate) fn reset(&mut self) -> Result<(), Error> {
        self.app.reset().map_err(Error::App)?;
        self.time = 0.0;
        self.steps = 0;
        self.step_ms.clear();
        self.scalars.clear();
        self.dirty = true;
        Ok(())
    }

    /// Runs `n` steps, timing each.
    pub(crate) fn advance(&mut self, n: u32) -> Result<(), Error> {
        let dt = self.settings.dt;
        for _ in 0..n {
            let t0 = Instant::now();
            self.app.step(dt).map_err(Error::App)?;
            self.step_ms.push(t0.elapsed().as_secs_f32() * 1e3);
            self.time += dt as f64;
            self.steps += 1;
        }
        if n > 0 {
            self.dirty = true;
        }
        Ok(())
    }

    /// Asks for a redraw at the next [`redraw`](Self::redraw) (e.g. a parameter changed).
    pub(crate) fn mark_dirty(&mut self) {
        self.dirty = true;
    }

    /// Calls the app's `draw` if anything changed since the last one; records scalars.
    /// Returns whether it drew.
    pub(crate) fn redraw(&mut self) -> Result<bool, Error> {
        if !self.dirty {
            return Ok(false);
        }
        self.scene.begin_frame();
        self.app.draw(&mut self.scene).map_err(Error::App)?;
        self.scene.end_frame();
        for (name, value) in self.scene.scalars() {
            match self.scalars.iter_mut().find(|(n, _)| n == name) {
                Some((_, r)) => r.push(value as f32),
                None => {
                    let mut r = Rolling::new(HISTORY);
                    r.push(value as f32);
                    self.scalars.push((name.to_string(), r));
                }
            }
        }
        self.dirty = false;
        Ok(true)
    }
}

/// A file-system friendly version of a title (`"Viewer demo!"` → `viewer_demo`).
pub(crate) fn slug(title: &str) -> String {
    let s: String = title
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_matches('_').to_string();
    if s.is_empty() { "weft".into() } else { s }
}

#[cfg(test)]
mod tests {
    #[test]
    fn slugs() {
        assert_eq!(super::slug("Viewer demo!"), "viewer_demo");
        assert_eq!(super::slug("***"), "weft");
    }
}
