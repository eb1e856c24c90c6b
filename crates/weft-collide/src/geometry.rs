//! [`Geometry`]: what a shape is, on the host — its kind code, packed size,
//! bounds, mass properties and validation.

use std::sync::Arc;

use glam::Mat3;
use weft::prelude::*;
use weft_geom::{ConvexHull, HeightField, MassProperties, Mesh};

use crate::{kinds, mesh_tables};

/// What a shape is, in its own frame (see [`kinds`] for the conventions).
#[derive(Debug, Clone, PartialEq)]
pub enum Geometry {
    /// A plane through the origin with normal +Z; `half_extents` bound it to a
    /// rectangle (zero: infinite). Only on static shapes (body -1).
    Plane {
        /// Half extents along X and Y; `Vec2::ZERO` for an infinite plane.
        half_extents: Vec2,
    },
    /// A sphere around the origin.
    Sphere {
        /// Radius (m).
        radius: f32,
    },
    /// A box centred on the origin.
    Box {
        /// Half extents along X, Y, Z (m).
        half_extents: Vec3,
    },
    /// A capsule: the segment `(0, 0, ±half_height)` thickened by `radius`.
    Capsule {
        /// Radius (m).
        radius: f32,
        /// Half length of the segment (m).
        half_height: f32,
    },
    /// A solid cylinder along Z, centred on the origin.
    Cylinder {
        /// Radius (m).
        radius: f32,
        /// Half length along Z (m).
        half_height: f32,
    },
    /// A convex hull, its vertices scaled per axis by `scale` in the shape's
    /// frame. Shapes sharing one `Arc` share one copy of the hull on the device.
    Convex {
        /// The hull (see [`weft_geom::ConvexHull`]).
        hull: Arc<ConvexHull>,
        /// Scale along the shape's X, Y, Z (each finite and > 0).
        scale: Vec3,
    },
    /// A triangle mesh, its vertices scaled per axis by `scale` in the shape's
    /// frame; front faces counter-clockwise seen from outside. Triangles are
    /// one-sided: shapes behind a face get no contact from it. Static (body -1),
    /// kinematic, or on a dynamic body: a dynamic body needs a *closed* mesh
    /// (its mass comes from the enclosed volume, [`MassProperties::mesh`]) or
    /// other solid shapes or a given mass; an open mesh is a surface without
    /// mass. Meshes collide with every primitive and convex hull (per triangle,
    /// through a BVH), not with other meshes or height fields. Shapes sharing
    /// one `Arc` share one copy (and BVH) on the device.
    Mesh {
        /// The triangles (see [`weft_geom::Mesh`]).
        mesh: Arc<Mesh>,
        /// Scale along the shape's X, Y, Z (each finite and > 0).
        scale: Vec3,
    },
    /// A height field (terrain: see [`weft_geom::HeightField`]) in the shape's
    /// frame, facing +Z. A surface without volume: static, or on a body that
    /// has a mass from other shapes or a given one. It collides with every
    /// primitive and convex hull (per triangle of the cells under the shape's
    /// box), not with meshes or other height fields.
    HeightField {
        /// The field.
        field: Arc<HeightField>,
    },
}

impl Geometry {
    /// The kind code ([`kinds`]).
    pub fn kind(&self) -> i32 {
        match self {
            Geometry::Plane { .. } => kinds::PLANE,
            Geometry::Sphere { .. } => kinds::SPHERE,
            Geometry::Box { .. } => kinds::BOX,
            Geometry::Capsule { .. } => kinds::CAPSULE,
            Geometry::Cylinder { .. } => kinds::CYLINDER,
            Geometry::Convex { .. } => kinds::CONVEX,
            Geometry::Mesh { .. } => kinds::MESH,
            Geometry::HeightField { .. } => kinds::HEIGHTFIELD,
        }
    }

    /// The packed size parameters (see [`kinds`]).
    pub fn size(&self) -> Vec3 {
        match *self {
            Geometry::Plane { half_extents } => half_extents.extend(0.0),
            Geometry::Sphere { radius } => Vec3::new(radius, 0.0, 0.0),
            Geometry::Box { half_extents } => half_extents,
            Geometry::Capsule {
                radius,
                half_height,
            }
            | Geometry::Cylinder {
                radius,
                half_height,
            } => Vec3::new(radius, half_height, 0.0),
            Geometry::Convex { scale, .. } | Geometry::Mesh { scale, .. } => scale,
            Geometry::HeightField { ref field } => field.spacing().extend(0.0),
        }
    }

    /// Radius of a sphere around the shape's origin that holds it (infinite for
    /// an unbounded plane).
    pub fn bounding_radius(&self) -> f32 {
        match self {
            Geometry::Plane { half_extents } if *half_extents == Vec2::ZERO => f32::INFINITY,
            Geometry::Plane { half_extents } => half_extents.length(),
            Geometry::Sphere { radius } => *radius,
            Geometry::Box { half_extents } => half_extents.length(),
            Geometry::Capsule {
                radius,
                half_height,
            } => radius + half_height,
            Geometry::Cylinder {
                radius,
                half_height,
            } => Vec2::new(*radius, *half_height).length(),
            Geometry::Convex { hull, scale } => hull
                .vertices()
                .iter()
                .map(|v| (*v * *scale).length())
                .fold(0.0, f32::max),
            Geometry::Mesh { mesh, scale } => mesh
                .points()
                .iter()
                .map(|v| (*v * *scale).length())
                .fold(0.0, f32::max),
            Geometry::HeightField { field } => {
                let b = field.aabb();
                b.lower.abs().max(b.upper.abs()).length()
            }
        }
    }

    /// Mass, centre of mass and inertia (shape frame) of the solid at uniform
    /// `density` (kg/m³); a plane, an open mesh and a height field have none
    /// ([`MassProperties::ZERO`]; [`Geometry::solid_mass_properties`] says why).
    ///
    /// ```
    /// use weft::prelude::*;
    /// use weft_collide::Geometry;
    ///
    /// let cyl = Geometry::Cylinder { radius: 0.5, half_height: 1.0 };
    /// let m = cyl.mass_properties(1000.0);
    /// assert!((m.mass - 1000.0 * std::f32::consts::PI * 0.25 * 2.0).abs() < 1e-2);
    /// ```
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        match self {
            Geometry::Plane { .. } => MassProperties::ZERO,
            Geometry::Sphere { radius } => MassProperties::sphere(density, *radius),
            Geometry::Box { half_extents } => MassProperties::cuboid(density, *half_extents),
            Geometry::Capsule {
                radius,
                half_height,
            } => MassProperties::capsule(density, *radius, *half_height),
            Geometry::Cylinder {
                radius,
                half_height,
            } => MassProperties::cylinder(density, *radius, *half_height),
            Geometry::Convex { hull, scale } => {
                scaled_mass(MassProperties::convex(density, hull), *scale)
            }
            Geometry::Mesh { .. } | Geometry::HeightField { .. } => self
                .solid_mass_properties(density)
                .unwrap_or(MassProperties::ZERO),
        }
    }

    /// [`Geometry::mass_properties`] of a shape that encloses a volume, or why
    /// it has no mass: a plane, an open mesh (an edge without its reverse in
    /// another triangle) or an inside-out one, and a height field are surfaces.
    /// Surfaces are for static geometry, or for bodies whose mass comes from
    /// other shapes or is given.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use weft::prelude::*;
    /// use weft_collide::Geometry;
    ///
    /// let cube = Arc::new(weft_geom::generate::cuboid(Vec3::splat(0.5)));
    /// let m = Geometry::Mesh { mesh: cube, scale: Vec3::new(2.0, 1.0, 1.0) }
    ///     .solid_mass_properties(1000.0)
    ///     .unwrap();
    /// assert!((m.mass - 2000.0).abs() < 1e-2);
    /// ```
    pub fn solid_mass_properties(
        &self,
        density: f32,
    ) -> std::result::Result<MassProperties, String> {
        match self {
            Geometry::Plane { .. } => Err("a plane encloses no volume".into()),
            Geometry::HeightField { .. } => {
                Err("a height field is a surface and encloses no volume".into())
            }
            Geometry::Mesh { mesh, scale } => {
                if let Some((face, edge)) = mesh_tables::open_edge(mesh) {
                    return Err(format!(
                        "the mesh is open (edge {edge} of triangle {face} is not matched by exactly one reversed edge of another triangle), so it encloses no volume"
                    ));
                }
                MassProperties::mesh(density, mesh)
                    .map(|m| scaled_mass(m, *scale))
                    .map_err(|e| format!("the closed mesh encloses no positive volume: {e}"))
            }
            _ => Ok(self.mass_properties(density)),
        }
    }

    /// Checks the sizes: finite and positive (a plane's half extents both zero
    /// or both positive; a hull's scale finite and > 0 on every axis).
    pub fn validate(&self) -> std::result::Result<(), String> {
        let ok = |x: f32| x.is_finite() && x > 0.0;
        match *self {
            Geometry::Plane { half_extents: h } => {
                if h == Vec2::ZERO || (ok(h.x) && ok(h.y)) {
                    Ok(())
                } else {
                    Err(format!(
                        "plane half extents must be both 0 (infinite) or both finite and > 0, got {h}"
                    ))
                }
            }
            Geometry::Sphere { radius } if ok(radius) => Ok(()),
            Geometry::Sphere { radius } => Err(format!(
                "sphere radius must be finite and > 0, got {radius}"
            )),
            Geometry::Box { half_extents: h } if ok(h.x) && ok(h.y) && ok(h.z) => Ok(()),
            Geometry::Box { half_extents: h } => {
                Err(format!("box half extents must be finite and > 0, got {h}"))
            }
            Geometry::Capsule {
                radius,
                half_height,
            } if ok(radius) && half_height.is_finite() && half_height >= 0.0 => Ok(()),
            Geometry::Capsule {
                radius,
                half_height,
            } => Err(format!(
                "capsule radius must be finite and > 0 and half height finite and >= 0, got {radius} and {half_height}"
            )),
            Geometry::Cylinder {
                radius,
                half_height,
            } if ok(radius) && ok(half_height) => Ok(()),
            Geometry::Cylinder {
                radius,
                half_height,
            } => Err(format!(
                "cylinder radius and half height must be finite and > 0, got {radius} and {half_height}"
            )),
            Geometry::Convex { scale: s, .. } if ok(s.x) && ok(s.y) && ok(s.z) => Ok(()),
            Geometry::Convex { scale: s, .. } => Err(format!(
                "convex hull scale must be finite and > 0 on every axis, got {s}"
            )),
            Geometry::Mesh { ref mesh, scale: s } => {
                if !(ok(s.x) && ok(s.y) && ok(s.z)) {
                    return Err(format!(
                        "mesh scale must be finite and > 0 on every axis, got {s}"
                    ));
                }
                validate_mesh(mesh)
            }
            Geometry::HeightField { ref field } => {
                match field.heights().iter().position(|h| !h.is_finite()) {
                    Some(k) => Err(format!("height field sample {k} is not finite")),
                    None => Ok(()),
                }
            }
        }
    }
}

/// The first problem of a mesh for collision: no triangles, a corner index out
/// of range, a vertex that is not finite.
fn validate_mesh(mesh: &Mesh) -> std::result::Result<(), String> {
    if mesh.num_faces() == 0 {
        return Err("the mesh has no triangles".into());
    }
    let n = mesh.num_points();
    for (f, tri) in mesh.indices().iter().enumerate() {
        if let Some(&i) = tri.iter().find(|&&i| i as usize >= n) {
            return Err(format!(
                "triangle {f} of the mesh refers to vertex {i}, but there are {n} vertices"
            ));
        }
    }
    if let Some(v) = mesh.points().iter().position(|p| !p.is_finite()) {
        return Err(format!(
            "vertex {v} of the mesh is not finite: {}",
            mesh.points()[v]
        ));
    }
    Ok(())
}

/// The mass properties of a solid stretched by `scale` along its frame's axes:
/// mass by the volume ratio, the centre of mass by `scale`, and the second
/// moment `C = ∫ x xᵀ` (from `I = tr(C) 1 − C`) to `det(S) S C S`.
fn scaled_mass(m: MassProperties, scale: Vec3) -> MassProperties {
    if scale == Vec3::ONE {
        return m;
    }
    let det = scale.x * scale.y * scale.z;
    let s = Mat3::from_diagonal(scale);
    let trace_c = 0.5 * (m.inertia.x_axis.x + m.inertia.y_axis.y + m.inertia.z_axis.z);
    let c = Mat3::from_diagonal(Vec3::splat(trace_c)) - m.inertia;
    let c2 = s * c * s * det;
    let trace_c2 = c2.x_axis.x + c2.y_axis.y + c2.z_axis.z;
    MassProperties {
        mass: m.mass * det,
        com: m.com * scale,
        inertia: Mat3::from_diagonal(Vec3::splat(trace_c2)) - c2,
    }
}
