//! MJCF `<compiler>` angle settings and the five ways MJCF writes an orientation.

use super::defaults::Attrs;
use crate::description::Pose;
use crate::error::ImportError;
use glam::{DMat3, DQuat, DVec3};

/// Angle unit and Euler sequence from `<compiler>`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Angles {
    /// `angle="degree"` (MuJoCo's default) rather than radians.
    pub(super) degrees: bool,
    /// `eulerseq`: lowercase = intrinsic (rotating axes), uppercase = extrinsic.
    pub(super) euler_seq: [u8; 3],
}

impl Default for Angles {
    fn default() -> Self {
        Self {
            degrees: true,
            euler_seq: *b"xyz",
        }
    }
}

impl Angles {
    /// An angle from the file in radians.
    pub(super) fn to_radians(self, a: f64) -> f64 {
        if self.degrees { a.to_radians() } else { a }
    }

    /// Orientation from `quat` (w x y z), `axisangle`, `euler`, `xyaxes` or `zaxis`;
    /// identity when none is given; an error when several are.
    pub(super) fn orientation(self, attrs: &Attrs) -> Result<DQuat, ImportError> {
        let given: Vec<&str> = ["quat", "axisangle", "euler", "xyaxes", "zaxis"]
            .into_iter()
            .filter(|a| attrs.node.attribute(*a).is_some())
            .collect();
        // The element's own orientation wins over its class's.
        let source = match given.as_slice() {
            [] => ["quat", "axisangle", "euler", "xyaxes", "zaxis"]
                .into_iter()
                .find(|a| attrs.has(a)),
            [one] => Some(*one),
            [first, second, ..] => {
                return Err(attrs.bad_value(
                    second,
                    &format!("{first} is also given: use one orientation attribute"),
                ));
            }
        };
        let Some(source) = source else {
            return Ok(DQuat::IDENTITY);
        };
        let degenerate = |what: &str| attrs.bad_value(source, what);
        match source {
            "quat" => {
                let v = attrs.floats(source, Some(4))?.unwrap_or_default();
                let q = DQuat::from_xyzw(v[1], v[2], v[3], v[0]);
                if q.length() < 1e-12 {
                    return Err(degenerate("the quaternion is zero"));
                }
                Ok(q.normalize())
            }
            "axisangle" => {
                let v = attrs.floats(source, Some(4))?.unwrap_or_default();
                let axis = DVec3::new(v[0], v[1], v[2]);
                if axis.length() < 1e-12 {
                    return Err(degenerate("the axis is zero"));
                }
                Ok(DQuat::from_axis_angle(
                    axis.normalize(),
                    self.to_radians(v[3]),
                ))
            }
            "euler" => {
                let v = attrs.floats(source, Some(3))?.unwrap_or_default();
                let mut q = DQuat::IDENTITY;
                for (axis, angle) in self.euler_seq.iter().zip(v) {
                    let r = DQuat::from_axis_angle(unit(*axis), self.to_radians(angle));
                    q = if axis.is_ascii_lowercase() {
                        q * r
                    } else {
                        r * q
                    };
                }
                Ok(q.normalize())
            }
            "xyaxes" => {
                let v = attrs.floats(source, Some(6))?.unwrap_or_default();
                let x = DVec3::new(v[0], v[1], v[2]);
                let y = DVec3::new(v[3], v[4], v[5]);
                let x = x
                    .try_normalize()
                    .ok_or_else(|| degenerate("the x axis is zero"))?;
                let y = (y - x * x.dot(y))
                    .try_normalize()
                    .ok_or_else(|| degenerate("the y axis is zero or parallel to x"))?;
                Ok(DQuat::from_mat3(&DMat3::from_cols(x, y, x.cross(y))).normalize())
            }
            _ => {
                let z = attrs.vec3_or(source, DVec3::Z)?;
                let z = z
                    .try_normalize()
                    .ok_or_else(|| degenerate("the z axis is zero"))?;
                Ok(z_to(z))
            }
        }
    }

    /// `pos` and orientation of an element.
    pub(super) fn pose(self, attrs: &Attrs) -> Result<Pose, ImportError> {
        Ok(Pose::new(
            attrs.vec3_or("pos", DVec3::ZERO)?,
            self.orientation(attrs)?,
        ))
    }
}

fn unit(axis: u8) -> DVec3 {
    match axis.to_ascii_lowercase() {
        b'x' => DVec3::X,
        b'y' => DVec3::Y,
        _ => DVec3::Z,
    }
}

/// The smallest rotation taking +Z to the unit vector `z` (MuJoCo's `z2quat`: a
/// half turn about X when `z` is -Z).
pub(super) fn z_to(z: DVec3) -> DQuat {
    let axis = DVec3::Z.cross(z);
    let s = axis.length();
    if s < 1e-10 {
        return if z.z < 0.0 {
            DQuat::from_rotation_x(std::f64::consts::PI)
        } else {
            DQuat::IDENTITY
        };
    }
    DQuat::from_axis_angle(axis / s, s.atan2(z.z))
}

/// Parses `eulerseq`: three letters from xyzXYZ.
pub(super) fn euler_seq(attrs: &Attrs) -> Result<Option<[u8; 3]>, ImportError> {
    let Some(s) = attrs.get("eulerseq") else {
        return Ok(None);
    };
    match s.as_bytes() {
        [a, b, c] if s.bytes().all(|x| b"xyzXYZ".contains(&x)) => Ok(Some([*a, *b, *c])),
        _ => Err(attrs.bad_value(
            "eulerseq",
            "expected three letters from xyzXYZ, e.g. xyz or ZYX",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_to_maps_z_onto_the_target() {
        for z in [
            DVec3::X,
            DVec3::Y,
            DVec3::Z,
            -DVec3::Z,
            DVec3::new(1.0, -2.0, 0.5).normalize(),
        ] {
            assert!((z_to(z) * DVec3::Z - z).length() < 1e-12, "{z}");
        }
    }
}
