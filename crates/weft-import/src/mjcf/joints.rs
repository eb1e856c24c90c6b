//! MJCF `<joint>` and `<freejoint>`.

use super::defaults::Attrs;
use super::{Cx, Out};
use crate::description::{Joint, JointKind};
use crate::error::ImportError;
use crate::xml::describe;
use glam::DVec3;
use roxmltree::Node;

impl Out<'_> {
    /// A `<joint>` of body `body`. Hinge angles (`range`, `ref`, `springref`) follow
    /// `<compiler angle>`; so does a ball joint's `range`.
    pub(super) fn joint(&mut self, cx: Cx, a: &Attrs, body: usize) -> Result<Joint, ImportError> {
        let kind_text = a.get("type").unwrap_or("hinge");
        let kind = match kind_text {
            "hinge" => JointKind::Revolute,
            "slide" => JointKind::Prismatic,
            "ball" => JointKind::Ball,
            "free" => JointKind::Free,
            _ => {
                return Err(ImportError::UnknownJointType {
                    location: cx.src.at(a.node),
                    element: describe(a.node),
                    kind: kind_text.to_owned(),
                });
            }
        };
        let angular = matches!(kind, JointKind::Revolute | JointKind::Ball);
        let angle = |x: f64| {
            if angular {
                cx.setup.angles.to_radians(x)
            } else {
                x
            }
        };
        let axis = a.vec3_or("axis", DVec3::Z)?;
        let axis = axis
            .try_normalize()
            .ok_or_else(|| a.bad_value("axis", "the axis must not be zero"))?;
        let range = a.range("range")?;
        let limited = a.tristate("limited", cx.setup.autolimits && range.is_some())?;
        let limits = match range {
            _ if !limited || kind == JointKind::Free => None,
            Some((lo, hi)) => Some((angle(lo), angle(hi))),
            None => return Err(a.missing("range (the joint is limited)")),
        };
        let frc = a.range("actuatorfrcrange")?;
        let frc_limited = a.tristate("actuatorfrclimited", cx.setup.autolimits && frc.is_some())?;
        let effort_limit = match frc {
            Some((lo, hi)) if frc_limited => Some(hi.max(-lo)),
            _ => None,
        };
        let nonnegative = |name: &str| -> Result<f64, ImportError> {
            let v = a.float_or(name, 0.0)?;
            if v < 0.0 {
                return Err(a.bad_value(name, "must not be negative"));
            }
            Ok(v)
        };
        let body_name = &self.desc.bodies[body].name;
        let name = match a.node.attribute("name") {
            Some(n) => n.to_owned(),
            None => format!("{body_name}_joint{}", self.desc.bodies[body].joints.len()),
        };
        Ok(Joint {
            name,
            body,
            kind,
            anchor: a.vec3_or("pos", DVec3::ZERO)?,
            axis,
            limits,
            reference: angle(a.float_or("ref", 0.0)?),
            damping: nonnegative("damping")?,
            friction: nonnegative("frictionloss")?,
            armature: nonnegative("armature")?,
            stiffness: nonnegative("stiffness")?,
            spring_ref: angle(a.float_or("springref", 0.0)?),
            effort_limit,
            velocity_limit: None,
        })
    }

    /// A `<freejoint>` (no defaults apply to it).
    pub(super) fn free_joint(
        &mut self,
        cx: Cx,
        node: Node,
        body: usize,
    ) -> Result<Joint, ImportError> {
        let a = Attrs::plain(cx.src, node);
        let body_name = &self.desc.bodies[body].name;
        Ok(Joint {
            name: a
                .get("name")
                .map_or_else(|| format!("{body_name}_free"), str::to_owned),
            body,
            kind: JointKind::Free,
            anchor: DVec3::ZERO,
            axis: DVec3::Z,
            limits: None,
            reference: 0.0,
            damping: 0.0,
            friction: 0.0,
            armature: 0.0,
            stiffness: 0.0,
            spring_ref: 0.0,
            effort_limit: None,
            velocity_limit: None,
        })
    }
}
