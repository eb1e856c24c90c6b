//! The shapes of a scene in flat arrays on one device ([`ShapeSet`]) and their
//! host description ([`ShapeDesc`]).

#[allow(unused_imports)] // named by the generated code
use weft::geom::BvhNode;
use weft::prelude::*;

use crate::error::{CollideError, Result};
use crate::hull_tables::HullTables;
use crate::mesh_tables::MeshTables;
use crate::{Geometry, kinds};

/// Contact material of a shape. A pair of shapes uses the mean of their
/// friction coefficients and restitutions (Rapier's default rule) and the
/// series combination of their stiffnesses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Material {
    /// Dynamic (sliding) friction coefficient.
    pub mu: f32,
    /// Static friction coefficient (XPBD; ≥ `mu` in nature).
    pub mu_static: f32,
    /// Restitution: the ratio of separating to approaching normal speed.
    pub restitution: f32,
    /// Penalty normal stiffness (N/m), for the semi-implicit solver.
    pub ke: f32,
    /// Penalty normal damping (N·s/m).
    pub kd: f32,
    /// Penalty friction stiffness (N·s/m): regularises Coulomb friction.
    pub kf: f32,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            mu: 0.5,
            mu_static: 0.5,
            restitution: 0.0,
            ke: 1.0e5,
            kd: 1.0e3,
            kf: 1.0e3,
        }
    }
}

/// Which shapes may touch: two shapes collide when each one's `group` shares a
/// bit with the other's `mask` (Rapier's interaction groups). Shapes of one body
/// never collide with each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Filter {
    /// The groups this shape belongs to.
    pub group: u32,
    /// The groups it collides with.
    pub mask: u32,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            group: 1,
            mask: u32::MAX,
        }
    }
}

/// One shape on the host.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeDesc {
    /// The body it is attached to, or -1 for static geometry (its transform is
    /// then in world space).
    pub body: i32,
    /// Pose of the shape in its body's frame.
    pub transform: Transform,
    /// The shape.
    pub geometry: Geometry,
    /// Contact material.
    pub material: Material,
    /// Collision groups.
    pub filter: Filter,
    /// The world it belongs to (-1: every world, for shared static geometry).
    pub world: i32,
    /// A body whose shapes this one never touches (-1: none, the default):
    /// an articulated link's parent link, which `weft_sim::ModelBuilder`
    /// fills in from the joints.
    pub skip_body: i32,
}

impl ShapeDesc {
    /// A shape of default material and filter on `body`, at `transform`, in world 0.
    pub fn new(body: i32, transform: Transform, geometry: Geometry) -> Self {
        ShapeDesc {
            body,
            transform,
            geometry,
            material: Material::default(),
            filter: Filter::default(),
            world: 0,
            skip_body: -1,
        }
    }
}

/// Every shape of a scene, in flat arrays on one device (a structure: kernels
/// take `&ShapeSet`). Index `i` of each array describes shape `i`.
#[weft::structure]
pub struct ShapeSet {
    /// Body of each shape (-1: static, transform in world space).
    pub body: Array<i32>,
    /// Pose in the body's frame.
    pub transform: Array<Transform>,
    /// Kind code ([`kinds`]).
    pub kind: Array<i32>,
    /// Packed size (see [`kinds`]).
    pub size: Array<Vec3>,
    /// Radius of a bounding sphere around the shape's origin (1e30 for an
    /// infinite plane).
    pub radius: Array<f32>,
    /// Dynamic friction coefficient.
    pub mu: Array<f32>,
    /// Static friction coefficient.
    pub mu_static: Array<f32>,
    /// Restitution.
    pub restitution: Array<f32>,
    /// Penalty normal stiffness.
    pub ke: Array<f32>,
    /// Penalty normal damping.
    pub kd: Array<f32>,
    /// Penalty friction stiffness.
    pub kf: Array<f32>,
    /// Collision groups the shape is in.
    pub group: Array<u32>,
    /// Collision groups it collides with.
    pub mask: Array<u32>,
    /// World index (-1: all worlds).
    pub world: Array<i32>,
    /// A body whose shapes this one never touches (-1: none).
    pub skip_body: Array<i32>,
    /// Index of the shape's hull, mesh or height field in the tables below
    /// (by its kind; -1 for the other kinds).
    pub source: Array<i32>,
    /// Per hull: its first vertex in `hull_points` and its vertex count.
    pub hull_vertices: Array<IVec2>,
    /// Per hull: its first face in `face_planes`/`face_ranges` and its face count.
    pub hull_faces: Array<IVec2>,
    /// The hulls' vertices, concatenated (hull frame, unscaled).
    pub hull_points: Array<Vec3>,
    /// Per face: outward unit normal `xyz` and offset `w` (`n · x = w` on the
    /// face, `<= w` inside), hull frame, unscaled.
    pub face_planes: Array<Vec4>,
    /// Per face: its first corner in `face_indices` and its corner count.
    pub face_ranges: Array<IVec2>,
    /// The faces' corners as indices into `hull_points`, counter-clockwise seen
    /// from outside.
    pub face_indices: Array<i32>,
    /// Per mesh: its BVH's root in `tri_nodes`, its node count, its first
    /// triangle slot and its triangle count (see the `mesh_tables` module).
    pub mesh_info: Array<IVec4>,
    /// The meshes' BVH nodes (mesh frame, unscaled), concatenated, with child
    /// and leaf indices rebased to the concatenation (a leaf's
    /// `left_or_first` is its first triangle slot).
    pub tri_nodes: Array<BvhNode>,
    /// Parent of each node in `tri_nodes` (`u32::MAX` for a root).
    pub tri_parents: Array<u32>,
    /// Corners of triangle slot `t` at `3 t..3 t + 3` (mesh frame, unscaled,
    /// counter-clockwise from the front), in BVH leaf order.
    pub tri_points: Array<Vec3>,
    /// At `3 t + k`: the far corner of the triangle across edge `k` (corner
    /// `k` to `k + 1`) of slot `t`, where that edge is shared.
    pub tri_opposite: Array<Vec3>,
    /// Per triangle slot: which edges and corners are real and owned (bits of
    /// `mesh_tables::flags`).
    pub tri_flags: Array<i32>,
    /// Per height field: its first sample in `field_heights`, and its sample
    /// counts along x and y (spacing: the shape's `size.xy`).
    pub field_info: Array<IVec4>,
    /// The fields' heights, concatenated (`heights[j * nx + i]` each).
    pub field_heights: Array<f32>,
    /// Per height field: its lowest and highest sample.
    pub field_range: Array<Vec2>,
}

impl ShapeSet {
    /// Checks `shapes` (see [`CollideError`]) and copies them to `device`.
    /// `body_count` is the number of bodies the `body` indices refer to.
    pub fn new(device: Device, shapes: &[ShapeDesc], body_count: usize) -> Result<ShapeSet> {
        for (i, s) in shapes.iter().enumerate() {
            validate(i, s, body_count)?;
        }
        let col = |f: &dyn Fn(&ShapeDesc) -> f32| -> Result<Array<f32>> {
            let v: Vec<f32> = shapes.iter().map(f).collect();
            Ok(Array::try_from_slice(device, &v)?)
        };
        let body: Vec<i32> = shapes.iter().map(|s| s.body).collect();
        let transform: Vec<Transform> = shapes.iter().map(|s| s.transform).collect();
        let kind: Vec<i32> = shapes.iter().map(|s| s.geometry.kind()).collect();
        let size: Vec<Vec3> = shapes.iter().map(|s| s.geometry.size()).collect();
        let group: Vec<u32> = shapes.iter().map(|s| s.filter.group).collect();
        let mask: Vec<u32> = shapes.iter().map(|s| s.filter.mask).collect();
        let world: Vec<i32> = shapes.iter().map(|s| s.world).collect();
        let skip_body: Vec<i32> = shapes.iter().map(|s| s.skip_body).collect();
        let hulls = HullTables::new(shapes);
        let meshes = MeshTables::new(shapes);
        let source: Vec<i32> = hulls
            .source
            .iter()
            .zip(&meshes.source)
            .map(|(&h, &m)| h.max(m))
            .collect();
        Ok(ShapeSet {
            body: Array::try_from_slice(device, &body)?,
            transform: Array::try_from_slice(device, &transform)?,
            kind: Array::try_from_slice(device, &kind)?,
            size: Array::try_from_slice(device, &size)?,
            radius: col(&|s| s.geometry.bounding_radius().min(1.0e30))?,
            mu: col(&|s| s.material.mu)?,
            mu_static: col(&|s| s.material.mu_static)?,
            restitution: col(&|s| s.material.restitution)?,
            ke: col(&|s| s.material.ke)?,
            kd: col(&|s| s.material.kd)?,
            kf: col(&|s| s.material.kf)?,
            group: Array::try_from_slice(device, &group)?,
            mask: Array::try_from_slice(device, &mask)?,
            world: Array::try_from_slice(device, &world)?,
            skip_body: Array::try_from_slice(device, &skip_body)?,
            source: Array::try_from_slice(device, &source)?,
            hull_vertices: Array::try_from_slice(device, &hulls.hull_vertices)?,
            hull_faces: Array::try_from_slice(device, &hulls.hull_faces)?,
            hull_points: Array::try_from_slice(device, &hulls.hull_points)?,
            face_planes: Array::try_from_slice(device, &hulls.face_planes)?,
            face_ranges: Array::try_from_slice(device, &hulls.face_ranges)?,
            face_indices: Array::try_from_slice(device, &hulls.face_indices)?,
            mesh_info: Array::try_from_slice(device, &meshes.mesh_info)?,
            tri_nodes: Array::try_from_slice(device, &meshes.tri_nodes)?,
            tri_parents: Array::try_from_slice(device, &meshes.tri_parents)?,
            tri_points: Array::try_from_slice(device, &meshes.tri_points)?,
            tri_opposite: Array::try_from_slice(device, &meshes.tri_opposite)?,
            tri_flags: Array::try_from_slice(device, &meshes.tri_flags)?,
            field_info: Array::try_from_slice(device, &meshes.field_info)?,
            field_heights: Array::try_from_slice(device, &meshes.field_heights)?,
            field_range: Array::try_from_slice(device, &meshes.field_range)?,
        })
    }

    /// Number of shapes.
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    /// Whether there are no shapes.
    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    /// The device the arrays live on.
    pub fn device(&self) -> Device {
        self.kind.device()
    }

    /// Another handle on the same arrays (and their gradients).
    pub fn share(&self) -> ShapeSet {
        ShapeSet {
            body: self.body.share(),
            transform: self.transform.share(),
            kind: self.kind.share(),
            size: self.size.share(),
            radius: self.radius.share(),
            mu: self.mu.share(),
            mu_static: self.mu_static.share(),
            restitution: self.restitution.share(),
            ke: self.ke.share(),
            kd: self.kd.share(),
            kf: self.kf.share(),
            group: self.group.share(),
            mask: self.mask.share(),
            world: self.world.share(),
            skip_body: self.skip_body.share(),
            source: self.source.share(),
            hull_vertices: self.hull_vertices.share(),
            hull_faces: self.hull_faces.share(),
            hull_points: self.hull_points.share(),
            face_planes: self.face_planes.share(),
            face_ranges: self.face_ranges.share(),
            face_indices: self.face_indices.share(),
            mesh_info: self.mesh_info.share(),
            tri_nodes: self.tri_nodes.share(),
            tri_parents: self.tri_parents.share(),
            tri_points: self.tri_points.share(),
            tri_opposite: self.tri_opposite.share(),
            tri_flags: self.tri_flags.share(),
            field_info: self.field_info.share(),
            field_heights: self.field_heights.share(),
            field_range: self.field_range.share(),
        }
    }
}

/// The first problem with shape `i`, if any.
fn validate(i: usize, s: &ShapeDesc, body_count: usize) -> Result<()> {
    let bad = |message: String| CollideError::InvalidShape { index: i, message };
    if s.body < -1 || s.body >= body_count as i32 {
        return Err(bad(format!(
            "is attached to body {}, but there are {body_count} bodies (-1: static)",
            s.body
        )));
    }
    if s.skip_body < -1 || s.skip_body >= body_count as i32 {
        return Err(bad(format!(
            "skips body {}, but there are {body_count} bodies (-1: none)",
            s.skip_body
        )));
    }
    s.geometry.validate().map_err(bad)?;
    if s.body >= 0 && s.geometry.kind() == kinds::PLANE {
        return Err(bad("a plane must be static (body -1)".into()));
    }
    let t = s.transform;
    if !(t.p.is_finite() && t.q.is_finite()) {
        return Err(bad(format!("transform is not finite: {t:?}")));
    }
    if (t.q.length() - 1.0).abs() > 1.0e-3 {
        return Err(bad(format!(
            "transform rotation is not a unit quaternion (length {})",
            t.q.length()
        )));
    }
    let m = s.material;
    let nonneg = |x: f32| x.is_finite() && x >= 0.0;
    if !(nonneg(m.mu) && nonneg(m.mu_static) && nonneg(m.ke) && nonneg(m.kd) && nonneg(m.kf)) {
        return Err(bad(format!(
            "material coefficients must be finite and >= 0: {m:?}"
        )));
    }
    if !(m.restitution.is_finite() && (0.0..=1.0).contains(&m.restitution)) {
        return Err(bad(format!(
            "restitution must be in [0, 1], got {}",
            m.restitution
        )));
    }
    if s.world < -1 {
        return Err(bad(format!("world must be >= -1, got {}", s.world)));
    }
    Ok(())
}
