//! MJCF `<geom>`: shape from `type` and `size` (or `fromto`), frame, mass data.

use super::defaults::Attrs;
use super::orientation::z_to;
use super::{Cx, Out};
use crate::description::{Geom, GeomRole, Pose, Shape};
use crate::error::{ImportError, Location};
use glam::DVec3;

/// An `<asset><mesh>`: loaded when a geom first uses it.
#[derive(Clone, Debug)]
pub(super) struct MeshAsset {
    /// File name as written (relative to meshdir).
    pub(super) file: String,
    /// Vertex scale.
    pub(super) scale: DVec3,
    /// Where it is declared.
    pub(super) location: Location,
}

impl Out<'_> {
    /// A geom of `body` (`None` = world); `None` with a warning for a shape kind
    /// that is not supported (ellipsoid, hfield, sdf) or a mesh format that is not.
    pub(super) fn geom(
        &mut self,
        cx: Cx,
        a: &Attrs,
        body: Option<usize>,
    ) -> Result<Option<Geom>, ImportError> {
        let kind = a.get("type").unwrap_or("sphere");
        let size = a.floats_between("size", 0, 3)?.unwrap_or_default();
        let fromto = a.floats("fromto", Some(6))?;
        let mut pose = cx.setup.angles.pose(a)?;
        let need = |n: usize| -> Result<(), ImportError> {
            if size.len() < n {
                return Err(ImportError::Missing {
                    location: cx.src.at(a.node),
                    element: crate::xml::describe(a.node),
                    what: format!("a 'size' of at least {n} numbers for type {kind}"),
                });
            }
            if size.iter().take(n).any(|&s| s <= 0.0) && kind != "plane" {
                return Err(a.bad_value("size", "sizes must be positive"));
            }
            Ok(())
        };
        // fromto: the shape's Z axis runs from the first point to the second.
        let mut half_length = size.get(1).copied();
        if let Some(ft) = &fromto {
            if !matches!(kind, "capsule" | "cylinder" | "box") {
                return Err(a.bad_value(
                    "fromto",
                    "fromto applies to capsule, cylinder and box geoms",
                ));
            }
            let (p, q) = (
                DVec3::new(ft[0], ft[1], ft[2]),
                DVec3::new(ft[3], ft[4], ft[5]),
            );
            let d = q - p;
            let len = d.length();
            if len < 1e-12 {
                return Err(a.bad_value("fromto", "the two end points coincide"));
            }
            pose = Pose::new((p + q) * 0.5, z_to(d / len));
            half_length = Some(len * 0.5);
        }
        let shape = match kind {
            "sphere" => {
                need(1)?;
                Shape::Sphere { radius: size[0] }
            }
            "capsule" | "cylinder" => {
                need(if fromto.is_some() { 1 } else { 2 })?;
                let (radius, half_length) = (size[0], half_length.unwrap_or_default());
                if kind == "capsule" {
                    Shape::Capsule {
                        radius,
                        half_length,
                    }
                } else {
                    Shape::Cylinder {
                        radius,
                        half_length,
                    }
                }
            }
            "box" => {
                if fromto.is_some() {
                    need(2)?;
                    Shape::Box {
                        half_extents: DVec3::new(size[0], size[1], half_length.unwrap_or_default()),
                    }
                } else {
                    need(3)?;
                    Shape::Box {
                        half_extents: DVec3::new(size[0], size[1], size[2]),
                    }
                }
            }
            "plane" => {
                need(2)?;
                if size[0] < 0.0 || size[1] < 0.0 {
                    return Err(a.bad_value(
                        "size",
                        "plane half sizes must not be negative (0 = infinite)",
                    ));
                }
                Shape::Plane {
                    half_size: [size[0], size[1]],
                }
            }
            "mesh" => {
                let name = a.get("mesh").ok_or_else(|| a.missing("mesh"))?;
                let asset = cx.setup.mesh_assets.get(name).ok_or_else(|| {
                    ImportError::UnknownReference {
                        location: cx.src.at(a.node),
                        element: crate::xml::describe(a.node),
                        kind: "mesh",
                        name: name.to_owned(),
                    }
                })?;
                let element = format!("mesh name=\"{name}\"");
                let Some(mesh) =
                    self.meshes
                        .get(&asset.file, Some(name), &asset.location, &element)?
                else {
                    return Ok(None);
                };
                Shape::Mesh {
                    mesh,
                    scale: asset.scale,
                }
            }
            "ellipsoid" | "hfield" | "sdf" => {
                self.desc.warnings.push(format!(
                    "{}: <{}> of type {kind} is not supported; the geom is skipped",
                    cx.src.at(a.node),
                    crate::xml::describe(a.node)
                ));
                return Ok(None);
            }
            _ => {
                return Err(a.bad_value(
                    "type",
                    "unknown geom type (plane, sphere, capsule, cylinder, box, mesh are supported)",
                ));
            }
        };
        let mass = a.floats("mass", Some(1))?.map(|m| m[0]);
        if mass.is_some_and(|m| m < 0.0) {
            return Err(a.bad_value("mass", "mass must not be negative"));
        }
        let density = a.float_or("density", 1000.0)?;
        if density < 0.0 {
            return Err(a.bad_value("density", "density must not be negative"));
        }
        let friction = a.floats_between("friction", 1, 3)?.map_or(1.0, |f| f[0]);
        let rgba = a
            .floats("rgba", Some(4))?
            .map_or([0.5, 0.5, 0.5, 1.0], |c| [c[0], c[1], c[2], c[3]]);
        let visual_only =
            a.float_or("contype", 1.0)? == 0.0 && a.float_or("conaffinity", 1.0)? == 0.0;
        Ok(Some(Geom {
            name: a.node.attribute("name").map(str::to_owned),
            body,
            pose,
            shape,
            role: if visual_only {
                GeomRole::Visual
            } else {
                GeomRole::Both
            },
            mass,
            density,
            friction,
            rgba,
        }))
    }
}
