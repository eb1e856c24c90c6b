//! Per-example parameters: sliders, checkboxes, choices and buttons that an app
//! declares each frame, shown in the panel or set from the command line.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

/// A number a slider can edit.
pub trait Number:
    Copy + PartialOrd + std::fmt::Display + std::str::FromStr + egui::emath::Numeric
{
}
impl<T: Copy + PartialOrd + std::fmt::Display + std::str::FromStr + egui::emath::Numeric> Number
    for T
{
}

/// A declared parameter, as recorded by a headless run.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    /// Its name (the `--set` key).
    pub name: String,
    /// Its value when declared, as text.
    pub value: String,
    /// What it accepts (`0..=1`, `true|false`, `a|b|c`, `button`).
    pub accepts: String,
}

enum Backend<'a> {
    Ui(&'a mut egui::Ui),
    Record(Record),
}

/// What a recording [`Params`] saw.
#[derive(Default)]
struct Record {
    overrides: BTreeMap<String, String>,
    declared: Vec<ParamInfo>,
    errors: Vec<String>,
}

/// Where an app declares its parameters (in [`App::params`](crate::App::params)).
///
/// Immediate mode: the app passes its own fields each frame; the panel edits them
/// in the window, and headless runs apply `--set name=value` once. The methods
/// return `true` when they changed the value, so an app can react (e.g. rebuild).
///
/// ```
/// use weft_viewer::Params;
/// let (mut restitution, mut wind) = (0.5f32, false);
/// let mut p = Params::with_overrides(&[("restitution", "0.8")]);
/// p.slider("restitution", &mut restitution, 0.0..=1.0);
/// p.checkbox("wind", &mut wind);
/// assert_eq!(restitution, 0.8);
/// assert_eq!(p.declared().len(), 2);
/// p.finish().unwrap(); // every override was used
/// ```
pub struct Params<'a> {
    backend: Backend<'a>,
    changed: bool,
}

impl<'a> Params<'a> {
    /// Parameters drawn as egui widgets into `ui`.
    pub(crate) fn ui(ui: &'a mut egui::Ui) -> Self {
        Params {
            backend: Backend::Ui(ui),
            changed: false,
        }
    }

    /// Recording parameters (no window) with `name = value` overrides, applied as the
    /// parameters are declared: what a headless run uses, and tests.
    pub fn with_overrides<K: AsRef<str>, V: AsRef<str>>(overrides: &[(K, V)]) -> Params<'static> {
        let overrides = overrides
            .iter()
            .map(|(k, v)| (k.as_ref().to_string(), v.as_ref().to_string()))
            .collect();
        Params {
            backend: Backend::Record(Record {
                overrides,
                ..Default::default()
            }),
            changed: false,
        }
    }

    /// Whether any parameter changed (or a button was clicked) through this `Params`.
    pub fn changed(&self) -> bool {
        self.changed
    }

    fn note(&mut self, changed: bool) -> bool {
        self.changed |= changed;
        changed
    }

    /// The parameters declared so far (recording mode; empty in the window).
    pub fn declared(&self) -> &[ParamInfo] {
        match &self.backend {
            Backend::Record(r) => &r.declared,
            Backend::Ui(_) => &[],
        }
    }

    /// Checks that every override named a declared parameter and parsed; returns
    /// what was declared.
    pub fn finish(self) -> Result<Vec<ParamInfo>, crate::Error> {
        match self.backend {
            Backend::Record(r) => {
                let mut problems = r.errors;
                for name in r.overrides.keys() {
                    let known: Vec<&str> = r.declared.iter().map(|p| p.name.as_str()).collect();
                    problems.push(if known.is_empty() {
                        format!("unknown parameter `{name}`: this app declares none")
                    } else {
                        format!("unknown parameter `{name}`; declared: {}", known.join(", "))
                    });
                }
                if problems.is_empty() {
                    Ok(r.declared)
                } else {
                    Err(crate::Error::Param(problems.join("; ")))
                }
            }
            Backend::Ui(_) => Ok(Vec::new()),
        }
    }

    /// A slider over `range` for a number.
    pub fn slider<T: Number>(
        &mut self,
        name: &str,
        value: &mut T,
        range: RangeInclusive<T>,
    ) -> bool {
        let c = self.slider_inner(name, value, range);
        self.note(c)
    }

    fn slider_inner<T: Number>(
        &mut self,
        name: &str,
        value: &mut T,
        range: RangeInclusive<T>,
    ) -> bool {
        match &mut self.backend {
            Backend::Ui(ui) => ui.add(egui::Slider::new(value, range).text(name)).changed(),
            Backend::Record(Record {
                overrides,
                declared,
                errors,
            }) => {
                declared.push(ParamInfo {
                    name: name.into(),
                    value: value.to_string(),
                    accepts: format!("{}..={}", range.start(), range.end()),
                });
                let Some(text) = overrides.remove(name) else {
                    return false;
                };
                match text.trim().parse::<T>() {
                    Ok(v) => {
                        *value = v;
                        true
                    }
                    Err(_) => {
                        errors.push(format!(
                            "`{name}={text}`: not a number (accepts {}..={})",
                            range.start(),
                            range.end()
                        ));
                        false
                    }
                }
            }
        }
    }

    /// A checkbox.
    pub fn checkbox(&mut self, name: &str, value: &mut bool) -> bool {
        let c = self.checkbox_inner(name, value);
        self.note(c)
    }

    fn checkbox_inner(&mut self, name: &str, value: &mut bool) -> bool {
        match &mut self.backend {
            Backend::Ui(ui) => ui.checkbox(value, name).changed(),
            Backend::Record(Record {
                overrides,
                declared,
                errors,
            }) => {
                declared.push(ParamInfo {
                    name: name.into(),
                    value: value.to_string(),
                    accepts: "true|false".into(),
                });
                let Some(text) = overrides.remove(name) else {
                    return false;
                };
                match text.trim() {
                    "true" | "1" | "on" | "yes" => *value = true,
                    "false" | "0" | "off" | "no" => *value = false,
                    _ => {
                        errors.push(format!("`{name}={text}`: expected true or false"));
                        return false;
                    }
                }
                true
            }
        }
    }

    /// One of `options` (a drop-down), by index.
    pub fn choice(&mut self, name: &str, selected: &mut usize, options: &[&str]) -> bool {
        let c = self.choice_inner(name, selected, options);
        self.note(c)
    }

    fn choice_inner(&mut self, name: &str, selected: &mut usize, options: &[&str]) -> bool {
        match &mut self.backend {
            Backend::Ui(ui) => {
                let before = *selected;
                let current = options.get(*selected).copied().unwrap_or("?");
                egui::ComboBox::from_label(name)
                    .selected_text(current)
                    .show_ui(ui, |ui| {
                        for (i, o) in options.iter().enumerate() {
                            ui.selectable_value(selected, i, *o);
                        }
                    });
                *selected != before
            }
            Backend::Record(Record {
                overrides,
                declared,
                errors,
            }) => {
                declared.push(ParamInfo {
                    name: name.into(),
                    value: options.get(*selected).copied().unwrap_or("?").into(),
                    accepts: options.join("|"),
                });
                let Some(text) = overrides.remove(name) else {
                    return false;
                };
                match options.iter().position(|o| *o == text.trim()) {
                    Some(i) => {
                        *selected = i;
                        true
                    }
                    None => {
                        errors.push(format!(
                            "`{name}={text}`: expected one of {}",
                            options.join(", ")
                        ));
                        false
                    }
                }
            }
        }
    }

    /// A button; `true` on the frame it is clicked (or when `--set name=1` is given).
    pub fn button(&mut self, name: &str) -> bool {
        let c = self.button_inner(name);
        self.note(c)
    }

    fn button_inner(&mut self, name: &str) -> bool {
        match &mut self.backend {
            Backend::Ui(ui) => ui.button(name).clicked(),
            Backend::Record(Record {
                overrides,
                declared,
                ..
            }) => {
                declared.push(ParamInfo {
                    name: name.into(),
                    value: String::new(),
                    accepts: "button".into(),
                });
                overrides.remove(name).is_some()
            }
        }
    }

    /// A line of text (a hint, a measured value).
    pub fn label(&mut self, text: &str) {
        if let Backend::Ui(ui) = &mut self.backend {
            ui.label(text);
        }
    }
}
