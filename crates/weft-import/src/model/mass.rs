//! Mass properties of a description's bodies as Weft's [`MassProperties`].

use weft_collide::Geometry;
use weft_geom::MassProperties;

use super::error::{RobotModelError, unsupported};
use super::shapes::{MeshCache, geometry, to_transform};
use crate::{MassSource, RobotDescription};

/// The mass properties of body `b` in its frame: the file's inertial, the sum
/// of its geoms' solids (each at its `mass` or `density`, as MuJoCo's
/// `inertiafromgeom`; visual-only geoms count, as in MuJoCo), or none.
pub(crate) fn body_mass(
    robot: &RobotDescription,
    b: usize,
    meshes: &mut MeshCache,
) -> Result<MassProperties, RobotModelError> {
    match &robot.bodies[b].mass {
        MassSource::Explicit(i) => Ok(MassProperties {
            mass: i.mass as f32,
            com: i.frame.pos.as_vec3(),
            inertia: i.inertia_in_body_frame().as_mat3(),
        }),
        MassSource::Massless => Ok(MassProperties::ZERO),
        MassSource::FromGeoms => {
            let mut total = MassProperties::ZERO;
            for g in robot.geoms.iter().filter(|g| g.body == Some(b)) {
                let shape = geometry(robot, &g.shape, meshes, false)?;
                total = total + geom_mass(robot, b, g, &shape)?;
            }
            Ok(total)
        }
    }
}

fn geom_mass(
    robot: &RobotDescription,
    b: usize,
    g: &crate::Geom,
    shape: &Geometry,
) -> Result<MassProperties, RobotModelError> {
    let element = || {
        format!(
            "geom {}of body `{}`",
            g.name.as_ref().map_or(String::new(), |n| format!("`{n}` ")),
            robot.bodies[b].name
        )
    };
    if matches!(shape, Geometry::Plane { .. }) {
        return Err(unsupported(
            element(),
            "a plane on a body has no mass; give the body an <inertial>",
        ));
    }
    let unit = shape
        .solid_mass_properties(1.0)
        .map_err(|why| unsupported(element(), format!("no mass from geometry: {why}")))?;
    let scale = match g.mass {
        Some(m) if unit.mass > 0.0 => m as f32 / unit.mass,
        Some(_) => 0.0,
        None => g.density as f32,
    };
    let t = to_transform(&g.pose);
    let scaled = MassProperties {
        mass: unit.mass * scale,
        com: unit.com,
        inertia: unit.inertia * scale,
    };
    Ok(scaled.transformed(t.q, t.p))
}

/// Mass of each body's subtree (the body and its descendants).
pub(crate) fn subtree_masses(robot: &RobotDescription, mass: &[MassProperties]) -> Vec<f32> {
    let mut total: Vec<f32> = mass.iter().map(|m| m.mass).collect();
    for b in (0..robot.bodies.len()).rev() {
        if let Some(p) = robot.bodies[b].parent {
            total[p] += total[b];
        }
    }
    total
}
