//! The entry point: one call gives an app its window, headless and null modes.

use crate::headless::run_headless;
use crate::sim::Sim;
use crate::window::run_window;
use crate::{App, Error, Mode, Options};

/// Runs `app` as the command line says (see [`Options`]): in a window when a display
/// is available, else headless writing PNG frames to `out/<title>/`.
///
/// ```no_run
/// # use weft_viewer::{App, AppResult, Scene};
/// # struct Demo;
/// # impl App for Demo {
/// #     fn reset(&mut self) -> AppResult { Ok(()) }
/// #     fn step(&mut self, _dt: f32) -> AppResult { Ok(()) }
/// #     fn draw(&mut self, _scene: &mut Scene) -> AppResult { Ok(()) }
/// # }
/// fn main() -> Result<(), weft_viewer::Error> {
///     weft_viewer::run(Demo)
/// }
/// ```
pub fn run<A: App>(app: A) -> Result<(), Error> {
    run_with(app, &Options::from_env())
}

/// Runs `app` with explicit options.
pub fn run_with<A: App>(app: A, options: &Options) -> Result<(), Error> {
    let sim = Sim::new(app, options);
    let mode = options.mode();
    if mode == Mode::Headless && !options.headless {
        eprintln!(
            "weft-viewer: no display (DISPLAY / WAYLAND_DISPLAY unset): rendering headless to {} \
             (--window forces a window; --frames, --out, --size adjust the output)",
            crate::headless::out_dir(options, &sim.settings.title).display()
        );
    }
    match mode {
        Mode::Window => run_window(sim, options),
        Mode::Headless => run_headless(sim, options, false),
        Mode::Null => run_headless(sim, options, true),
    }
}
