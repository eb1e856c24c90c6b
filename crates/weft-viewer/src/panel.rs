//! The egui side panel: transport controls, time, timings with a rolling plot, the
//! app's parameters, logged scalars, view options and screenshots.

use egui::{Color32, RichText};

use crate::renderer::RenderSettings;
use crate::sim::{HISTORY, Sim};
use crate::stats::Rolling;
use crate::{App, Params};

/// What the user asked for this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Actions {
    pub(crate) toggle_play: bool,
    pub(crate) step: bool,
    pub(crate) reset: bool,
    pub(crate) frame: bool,
    pub(crate) screenshot: bool,
}

/// Panel state that outlives a frame.
pub(crate) struct PanelState {
    /// Wall time between frames (ms).
    pub(crate) frame_ms: Rolling,
    /// Simulation time spent per frame (ms).
    pub(crate) sim_ms: Rolling,
    /// CPU time to prepare and submit the frame (ms).
    pub(crate) render_ms: Rolling,
    pub(crate) message: Option<(String, bool)>,
    pub(crate) adapter: String,
}

impl PanelState {
    pub(crate) fn new(adapter: String) -> Self {
        PanelState {
            frame_ms: Rolling::new(HISTORY),
            sim_ms: Rolling::new(HISTORY),
            render_ms: Rolling::new(HISTORY),
            message: None,
            adapter,
        }
    }
}

const BLUE: Color32 = Color32::from_rgb(90, 160, 235);
const ORANGE: Color32 = Color32::from_rgb(240, 150, 60);

/// Draws the panel on the left of `ui` and returns the user's actions.
pub(crate) fn show<A: App>(
    ui: &mut egui::Ui,
    sim: &mut Sim<A>,
    state: &mut PanelState,
    view: &mut RenderSettings,
) -> Actions {
    let mut actions = Actions::default();
    egui::Panel::left("weft-panel")
        .default_size(290.0)
        .resizable(true)
        .show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                ui.add_space(4.0);
                ui.heading(&sim.settings.title);
                ui.add_space(2.0);
                ui.horizontal(|ui| {
                    let play = if sim.playing { "Pause" } else { "Play" };
                    actions.toggle_play |= ui.button(play).on_hover_text("Space").clicked();
                    actions.step |= ui.button("Step").on_hover_text(". (period)").clicked();
                    actions.reset |= ui.button("Reset").on_hover_text("R").clicked();
                    actions.frame |= ui
                        .button("Frame")
                        .on_hover_text("F: fit the camera to the scene")
                        .clicked();
                });
                ui.label(format!("t = {:.3} s   ·   {} steps", sim.time, sim.steps));
                ui.horizontal(|ui| {
                    ui.add(
                        egui::Slider::new(&mut sim.steps_per_frame, 1..=64)
                            .logarithmic(true)
                            .text("steps / frame"),
                    );
                });
                ui.label(RichText::new(format!("dt = {} s", sim.settings.dt)).weak());

                ui.separator();
                timings(ui, sim, state);

                egui::CollapsingHeader::new("Parameters")
                    .default_open(true)
                    .show(ui, |ui| {
                        let mut params = Params::ui(ui);
                        sim.app.params(&mut params);
                        if params.changed() {
                            sim.mark_dirty();
                        }
                    });

                if !sim.scalars.is_empty() {
                    egui::CollapsingHeader::new("Scalars")
                        .default_open(true)
                        .show(ui, |ui| {
                            for (name, series) in &sim.scalars {
                                let last = series.last().unwrap_or(f32::NAN);
                                ui.label(
                                    RichText::new(format!("{name} = {}", fmt_value(last)))
                                        .monospace(),
                                );
                                plot(ui, &[(series, BLUE)], 36.0);
                            }
                        });
                }

                egui::CollapsingHeader::new("View")
                    .default_open(false)
                    .show(ui, |ui| {
                        ui.checkbox(&mut view.shadows, "shadows");
                        let mut ground = view.ground.is_some();
                        if ui.checkbox(&mut ground, "ground and grid").changed() {
                            view.ground = if ground {
                                Some(sim.settings.ground.unwrap_or(0.0))
                            } else {
                                None
                            };
                        }
                        ui.add(
                            egui::Slider::new(&mut view.point_scale, 0.1..=10.0)
                                .logarithmic(true)
                                .text("point size"),
                        );
                        let [p, t, s, l] = sim.scene.counts();
                        ui.label(
                            RichText::new(format!(
                                "{p} particles · {t} triangles · {s} shapes · {l} segments"
                            ))
                            .small(),
                        );
                        ui.label(RichText::new(&state.adapter).small().weak());
                    });

                ui.separator();
                actions.screenshot |= ui
                    .button("Screenshot")
                    .on_hover_text("Save the 3D view as a PNG")
                    .clicked();
                if let Some((text, error)) = &state.message {
                    let color = if *error {
                        Color32::from_rgb(230, 80, 70)
                    } else {
                        ui.visuals().weak_text_color()
                    };
                    ui.label(RichText::new(text).color(color).small());
                }
                ui.separator();
                ui.label(
                    RichText::new(
                        "Left drag: orbit · right/middle drag or Shift+left: pan · wheel: zoom\n\
                     Space: play/pause · . : step · R: reset · F: frame the scene",
                    )
                    .small()
                    .weak(),
                );
            });
        });
    actions
}

fn timings<A: App>(ui: &mut egui::Ui, sim: &Sim<A>, state: &PanelState) {
    let frame = state.frame_ms.mean_last(30).unwrap_or(0.0);
    let fps = if frame > 0.0 { 1000.0 / frame } else { 0.0 };
    ui.label(
        RichText::new(format!("frame   {frame:7.2} ms  ({fps:.0} fps)"))
            .monospace()
            .color(BLUE),
    );
    let step = sim.step_ms.mean_last(60).unwrap_or(0.0);
    ui.label(
        RichText::new(format!("sim     {step:7.3} ms / step"))
            .monospace()
            .color(ORANGE),
    );
    let render = state.render_ms.mean_last(30).unwrap_or(0.0);
    ui.label(
        RichText::new(format!("render  {render:7.2} ms + present"))
            .monospace()
            .weak(),
    );
    plot(
        ui,
        &[(&state.frame_ms, BLUE), (&state.sim_ms, ORANGE)],
        56.0,
    );
}

/// A small line plot of a few series sharing one vertical scale (0 to the max).
fn plot(ui: &mut egui::Ui, series: &[(&Rolling, Color32)], height: f32) {
    let width = ui.available_width().max(60.0);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, height), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, ui.visuals().extreme_bg_color);
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for (s, _) in series {
        for v in s.values().filter(|v| v.is_finite()) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if lo > hi {
        return;
    }
    // Timings start at zero; signed scalars use their own range.
    if lo > 0.0 {
        lo = 0.0;
    }
    let span = if hi - lo > 0.0 { hi - lo } else { 1.0 };
    for (s, color) in series {
        let n = s.values().len();
        if n < 2 {
            continue;
        }
        let points: Vec<egui::Pos2> = s
            .values()
            .enumerate()
            .map(|(i, v)| {
                let x =
                    rect.left() + rect.width() * (i + HISTORY - n) as f32 / (HISTORY - 1) as f32;
                let y =
                    rect.bottom() - 2.0 - (rect.height() - 4.0) * ((v - lo) / span).clamp(0.0, 1.0);
                egui::pos2(x, y)
            })
            .collect();
        painter.add(egui::Shape::line(points, egui::Stroke::new(1.5, *color)));
    }
    painter.text(
        rect.left_top() + egui::vec2(4.0, 2.0),
        egui::Align2::LEFT_TOP,
        fmt_value(hi),
        egui::FontId::monospace(10.0),
        ui.visuals().weak_text_color(),
    );
}

fn fmt_value(v: f32) -> String {
    if v == 0.0 || (1e-3..1e5).contains(&v.abs()) {
        format!("{v:.4}")
    } else {
        format!("{v:.3e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AppResult, Options, Scene};

    struct Idle;

    impl App for Idle {
        fn reset(&mut self) -> AppResult {
            Ok(())
        }
        fn step(&mut self, _dt: f32) -> AppResult {
            Ok(())
        }
        fn draw(&mut self, _scene: &mut Scene) -> AppResult {
            Ok(())
        }
    }

    /// Centre of the first text shape reading `label`, in points.
    fn find_text(shapes: &[egui::epaint::ClippedShape], label: &str) -> Option<egui::Pos2> {
        fn walk(shape: &egui::Shape, label: &str) -> Option<egui::Pos2> {
            match shape {
                egui::Shape::Text(t) if t.galley.text() == label => {
                    Some(t.pos + t.galley.rect.center().to_vec2())
                }
                egui::Shape::Vec(v) => v.iter().find_map(|s| walk(s, label)),
                _ => None,
            }
        }
        shapes.iter().find_map(|c| walk(&c.shape, label))
    }

    /// Clicks each panel button with synthetic pointer events (no window, no GPU)
    /// and returns the actions the panel reported.
    fn click(label: &str) -> Actions {
        let options = Options::parse_from(["test", "--paused"]).unwrap();
        let mut sim = Sim::new(Idle, &options);
        let mut state = PanelState::new("test adapter".into());
        let mut view = RenderSettings::default();
        let ctx = egui::Context::default();
        let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(960.0, 540.0));
        let mut frame = |events: Vec<egui::Event>| {
            let raw = egui::RawInput {
                screen_rect: Some(screen),
                events,
                ..Default::default()
            };
            let mut actions = Actions::default();
            let mut out = ctx.run_ui(raw, |ui| {
                actions = show(ui, &mut sim, &mut state, &mut view)
            });
            out.textures_delta.clear(); // no renderer to hand the font atlas to
            (actions, out.shapes)
        };
        // Two frames to lay the panel out, then press and release on the label.
        frame(vec![]);
        let (_, shapes) = frame(vec![]);
        let pos = find_text(&shapes, label).unwrap_or_else(|| panic!("no `{label}` button"));
        let button = |pressed| egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        };
        let (a, _) = frame(vec![egui::Event::PointerMoved(pos), button(true)]);
        let (b, _) = frame(vec![button(false)]);
        Actions {
            toggle_play: a.toggle_play || b.toggle_play,
            step: a.step || b.step,
            reset: a.reset || b.reset,
            frame: a.frame || b.frame,
            screenshot: a.screenshot || b.screenshot,
        }
    }

    #[test]
    fn panel_buttons_report_their_actions() {
        let only = |f: fn(&mut Actions)| {
            let mut a = Actions::default();
            f(&mut a);
            a
        };
        // `--paused`: the play/pause button reads "Play".
        assert_eq!(click("Play"), only(|a| a.toggle_play = true));
        assert_eq!(click("Step"), only(|a| a.step = true));
        assert_eq!(click("Reset"), only(|a| a.reset = true));
        assert_eq!(click("Frame"), only(|a| a.frame = true));
        assert_eq!(click("Screenshot"), only(|a| a.screenshot = true));
    }

    #[test]
    fn egui_has_its_fonts() {
        // Without egui's `default_fonts` feature every glyph is drawn as a box.
        assert!(
            !egui::FontDefinitions::default().font_data.is_empty(),
            "enable egui's default_fonts feature"
        );
    }

    #[test]
    fn values_format_compactly() {
        assert_eq!(super::fmt_value(1.5), "1.5000");
        assert_eq!(super::fmt_value(1.5e-7), "1.500e-7");
    }
}
