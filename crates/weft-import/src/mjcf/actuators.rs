//! MJCF `<actuator>`: `motor`, `position` and `velocity` on a joint.

use super::{Cx, Out, supported};
use crate::description::{Actuator, ActuatorKind};
use crate::error::ImportError;
use crate::xml::describe;
use roxmltree::Node;

/// Transmissions other than a joint: the actuator is skipped with a warning.
const OTHER_TRANSMISSIONS: [&str; 5] = ["tendon", "site", "body", "jointinparent", "cranksite"];

impl Out<'_> {
    /// Every actuator in an `<actuator>` section.
    pub(super) fn actuators(&mut self, cx: Cx, section: Node) -> Result<(), ImportError> {
        for node in section.children().filter(Node::is_element) {
            match node.tag_name().name() {
                "motor" | "position" | "velocity" => {
                    self.warn(cx, node);
                    if let Some(act) = self.actuator(cx, node)? {
                        self.claim(cx, node, "actuator", &act.name)?;
                        self.desc.actuators.push(act);
                    }
                }
                "include" => self.include(cx, node, &mut |out, cx, r| out.actuators(cx, r))?,
                _ => supported::unsupported(cx.src, node, &mut self.desc.warnings),
            }
        }
        Ok(())
    }

    fn actuator(&mut self, cx: Cx, node: Node) -> Result<Option<Actuator>, ImportError> {
        let a = cx.attrs(node, None)?;
        let Some(joint_name) = a.get("joint") else {
            if OTHER_TRANSMISSIONS.iter().any(|t| a.has(t)) {
                self.desc.warnings.push(format!(
                    "{}: <{}> drives something other than a joint; only joint transmissions are supported, the actuator is skipped",
                    cx.src.at(node),
                    describe(node)
                ));
                return Ok(None);
            }
            return Err(a.missing("joint"));
        };
        let joint =
            self.desc
                .joint_index(joint_name)
                .ok_or_else(|| ImportError::UnknownReference {
                    location: cx.src.at(node),
                    element: describe(node),
                    kind: "joint",
                    name: joint_name.to_owned(),
                })?;
        let gear = a.floats_between("gear", 1, 6)?.unwrap_or(vec![1.0]);
        if gear[1..].iter().any(|&g| g != 0.0) {
            self.desc.warnings.push(format!(
                "{}: <{}> gear components after the first only apply to free/ball joints' other axes and are ignored",
                cx.src.at(node),
                describe(node)
            ));
        }
        let ctrl_range = self.limited_range(cx, &a, "ctrlrange", "ctrllimited")?;
        let force_range = self.limited_range(cx, &a, "forcerange", "forcelimited")?;
        let kind = match node.tag_name().name() {
            "motor" => ActuatorKind::Motor,
            "position" => ActuatorKind::Position {
                kp: a.float_or("kp", 1.0)?,
                kv: a.float_or("kv", 0.0)?,
            },
            _ => ActuatorKind::Velocity {
                kv: a.float_or("kv", 1.0)?,
            },
        };
        let name = a
            .node
            .attribute("name")
            .map_or_else(|| format!("{joint_name}_actuator"), str::to_owned);
        Ok(Some(Actuator {
            name,
            joint,
            kind,
            gear: gear[0],
            ctrl_range,
            force_range,
        }))
    }

    /// A range that applies when its `*limited` flag (auto: when given) says so.
    fn limited_range(
        &self,
        cx: Cx,
        a: &super::defaults::Attrs,
        range: &str,
        flag: &str,
    ) -> Result<Option<(f64, f64)>, ImportError> {
        let r = a.range(range)?;
        match (a.tristate(flag, cx.setup.autolimits && r.is_some())?, r) {
            (false, _) => Ok(None),
            (true, Some(r)) => Ok(Some(r)),
            (true, None) => Err(a.missing(&format!("{range} ({flag} is true)"))),
        }
    }
}
