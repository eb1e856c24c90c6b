//! Command-line options shared by every app: window or headless, frames, output.

use std::path::PathBuf;

use clap::Parser;

/// How an app runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A window with the panel.
    Window,
    /// Offscreen rendering to PNG files.
    Headless,
    /// Step and draw without rendering (no GPU needed): for tests.
    Null,
}

/// Options of [`run`](crate::run), parsed from the command line.
///
/// ```
/// use weft_viewer::{Mode, Options};
/// let o = Options::parse_from(["demo", "--headless", "--frames", "3", "--set", "gravity=-3"]).unwrap();
/// assert_eq!(o.mode(), Mode::Headless);
/// assert_eq!(o.frames, Some(3));
/// assert_eq!(o.set, vec!["gravity=-3".to_string()]);
/// ```
#[derive(Clone, Debug, Parser)]
#[command(about = "A Weft example: runs in a window, or headless writing PNG frames")]
pub struct Options {
    /// Render offscreen and write PNG frames (the default when no display is available).
    #[arg(long, conflicts_with_all = ["window", "null"])]
    pub headless: bool,
    /// Open a window even when no DISPLAY / WAYLAND_DISPLAY is set.
    #[arg(long, conflicts_with = "null")]
    pub window: bool,
    /// Step and draw without rendering (needs no GPU).
    #[arg(long)]
    pub null: bool,
    /// Number of frames (headless default 60; in a window, exit after this many,
    /// saving the window as window.png and a screenshot of the view to --out if given).
    #[arg(long, value_name = "N")]
    pub frames: Option<u64>,
    /// Directory for PNG frames and scalars.csv (default: out/TITLE, from the app).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Save every K-th frame (headless; the last frame is always saved).
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub every: u64,
    /// Image or window size, WIDTHxHEIGHT (default: the app's).
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: Option<[u32; 2]>,
    /// Simulation steps per rendered frame (default: the app's).
    #[arg(long, value_name = "N")]
    pub steps_per_frame: Option<u32>,
    /// Set an app parameter, e.g. `--set gravity=-3` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Turn shadows off.
    #[arg(long)]
    pub no_shadows: bool,
    /// MSAA samples (1 or 4).
    #[arg(long, default_value_t = 4, value_parser = parse_msaa)]
    pub msaa: u32,
    /// Start paused (window).
    #[arg(long)]
    pub paused: bool,
}

impl Default for Options {
    /// No flags: the mode follows the display, the app's own sizes and steps.
    fn default() -> Self {
        <Self as Parser>::try_parse_from(["weft"]).expect("no arguments always parse")
    }
}

fn parse_msaa(s: &str) -> Result<u32, String> {
    match s.trim() {
        "1" => Ok(1),
        "4" => Ok(4),
        _ => Err(format!("`{s}`: MSAA samples must be 1 or 4")),
    }
}

fn parse_size(s: &str) -> Result<[u32; 2], String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{s}`: expected WIDTHxHEIGHT, e.g. 1280x720"))?;
    let p = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|&n| (16..=16384).contains(&n))
    };
    match (p(w), p(h)) {
        (Some(w), Some(h)) => Ok([w, h]),
        _ => Err(format!(
            "`{s}`: width and height must be whole numbers from 16 to 16384"
        )),
    }
}

impl Options {
    /// Parses the process's arguments; prints help or the error and exits on a bad command line.
    pub fn from_env() -> Self {
        <Self as Parser>::parse()
    }

    /// Parses `args` (the first is the program name).
    pub fn parse_from<I, T>(args: I) -> Result<Self, crate::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        <Self as Parser>::try_parse_from(args).map_err(|e| crate::Error::Param(e.to_string()))
    }

    /// The mode these options ask for: explicit flags first, else a window when a
    /// display is available and headless otherwise.
    pub fn mode(&self) -> Mode {
        if self.null {
            Mode::Null
        } else if self.headless {
            Mode::Headless
        } else if self.window || has_display() {
            Mode::Window
        } else {
            Mode::Headless
        }
    }

    /// `--set` pairs split at the first `=`.
    pub fn overrides(&self) -> Result<Vec<(String, String)>, crate::Error> {
        self.set
            .iter()
            .map(|kv| {
                kv.split_once('=')
                    .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                    .ok_or_else(|| {
                        crate::Error::Param(format!("`--set {kv}`: expected NAME=VALUE"))
                    })
            })
            .collect()
    }
}

/// Whether a window can be opened: on Linux and the BSDs, a `DISPLAY` or
/// `WAYLAND_DISPLAY`; elsewhere always.
pub fn has_display() -> bool {
    if cfg!(any(
        target_os = "linux",
        target_os = "freebsd",
        target_os = "openbsd",
        target_os = "netbsd",
        target_os = "dragonfly"
    )) {
        ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_bad_ones_explain() {
        assert_eq!(parse_size("1280x720"), Ok([1280, 720]));
        assert!(parse_size("1280").unwrap_err().contains("WIDTHxHEIGHT"));
        assert!(parse_size("0x10").unwrap_err().contains("16 to 16384"));
    }

    #[test]
    fn flags_conflict_and_overrides_split() {
        assert!(Options::parse_from(["x", "--headless", "--window"]).is_err());
        let o = Options::parse_from(["x", "--null", "--set", "a=1", "--set", "b = two"]).unwrap();
        assert_eq!(o.mode(), Mode::Null);
        assert_eq!(
            o.overrides().unwrap(),
            vec![("a".into(), "1".into()), ("b".into(), "two".into())]
        );
        let o = Options::parse_from(["x", "--set", "novalue"]).unwrap();
        assert!(
            o.overrides()
                .unwrap_err()
                .to_string()
                .contains("NAME=VALUE")
        );
        assert!(Options::parse_from(["x", "--msaa", "8"]).is_err());
    }
}
