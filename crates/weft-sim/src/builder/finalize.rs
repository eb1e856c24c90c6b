//! Checking the builder's inputs and turning them into a [`Model`].

use glam::{Mat2, Vec2, Vec3, Vec4};
use weft::geom::DeviceMesh;
use weft::{Array, Device, IVec2, IVec3, IVec4, Transform};

use super::{ModelBuilder, Shape};
use crate::error::{Result, SimError};
use crate::{Model, SHAPE_BOX, SHAPE_CAPSULE, SHAPE_PLANE, SHAPE_SPHERE};

fn bad(what: &'static str, index: usize, message: impl Into<String>) -> SimError {
    SimError::InvalidInput {
        what,
        index,
        message: message.into(),
    }
}

fn param(name: &'static str, message: impl Into<String>) -> SimError {
    SimError::InvalidParameter {
        name,
        message: message.into(),
    }
}

/// A value that must be finite and ≥ 0.
fn non_negative(what: &'static str, index: usize, name: &str, v: f32) -> Result<()> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(bad(
            what,
            index,
            format!("{name} must be finite and ≥ 0, got {v}"),
        ))
    }
}

/// Particle indices of one item: in range and distinct.
fn check_indices(what: &'static str, index: usize, ids: &[usize], n: usize) -> Result<()> {
    for (a, &i) in ids.iter().enumerate() {
        if i >= n {
            return Err(bad(
                what,
                index,
                format!("particle index {i} out of range ({n} particles)"),
            ));
        }
        if ids[..a].contains(&i) {
            return Err(bad(what, index, format!("particle {i} appears twice")));
        }
    }
    Ok(())
}

/// The inverse rest shape of a triangle in its own 2-D frame and its area, or
/// `None` when it is degenerate.
pub(crate) fn triangle_pose(p: Vec3, q: Vec3, r: Vec3) -> Option<(Mat2, f32)> {
    let (qp, rp) = (q - p, r - p);
    let n = qp.cross(rp).try_normalize()?;
    let e1 = qp.try_normalize()?;
    let e2 = n.cross(e1).normalize();
    // Rows: the frame's axes; columns: the edges.
    let d = Mat2::from_cols(
        Vec2::new(e1.dot(qp), e2.dot(qp)),
        Vec2::new(e1.dot(rp), e2.dot(rp)),
    );
    let area = 0.5 * d.determinant();
    (area > 1e-12 && area.is_finite()).then(|| (d.inverse(), area))
}

/// The signed dihedral angle of a bending edge, as the bending kernel measures it.
pub(crate) fn dihedral_angle(x1: Vec3, x2: Vec3, x3: Vec3, x4: Vec3) -> Option<f32> {
    let n1 = (x3 - x1).cross(x4 - x1);
    let n2 = (x4 - x2).cross(x3 - x2);
    let e = (x4 - x3).try_normalize()?;
    if n1.length() < 1e-6 || n2.length() < 1e-6 {
        return None;
    }
    Some(n2.cross(n1).dot(e).atan2(n1.dot(n2)))
}

fn check_pose(what: &'static str, index: usize, pose: &(Vec3, glam::Quat)) -> Result<Transform> {
    let (p, q) = *pose;
    if !p.is_finite() || !q.is_finite() || q.length_squared() < 1e-12 {
        return Err(bad(
            what,
            index,
            format!("pose must be finite with a non-zero rotation, got {p:?} {q:?}"),
        ));
    }
    Ok(Transform::new(p, q.normalize()))
}

impl ModelBuilder {
    /// Checks every input and copies the model to `device`. Errors name the first
    /// bad item: `particle 3: mass must be finite and ≥ 0, got -1`.
    pub fn finalize(&self, device: Device) -> Result<Model> {
        let n = self.particles.len();
        if n > i32::MAX as usize {
            return Err(param(
                "particles",
                format!("at most {} particles, got {n}", i32::MAX),
            ));
        }
        let g = self.gravity;
        if !g.is_finite() {
            return Err(param("gravity", format!("must be finite, got {g:?}")));
        }

        let mut q = Vec::with_capacity(n);
        let mut qd = Vec::with_capacity(n);
        let mut mass = Vec::with_capacity(n);
        let mut inv_mass = Vec::with_capacity(n);
        let mut radius = Vec::with_capacity(n);
        let mut flags = Vec::with_capacity(n);
        for (i, p) in self.particles.iter().enumerate() {
            if !p.q.is_finite() {
                return Err(bad(
                    "particle",
                    i,
                    format!("position must be finite, got {:?}", p.q),
                ));
            }
            if !p.qd.is_finite() {
                return Err(bad(
                    "particle",
                    i,
                    format!("velocity must be finite, got {:?}", p.qd),
                ));
            }
            non_negative("particle", i, "mass", p.mass)?;
            non_negative("particle", i, "radius", p.radius)?;
            q.push(p.q);
            qd.push(p.qd);
            mass.push(p.mass);
            inv_mass.push(if p.mass > 0.0 { 1.0 / p.mass } else { 0.0 });
            radius.push(p.radius);
            flags.push(p.flags);
        }

        let ns = self.springs.len();
        let (mut s_ids, mut s_rest, mut s_ke, mut s_kd) = (
            Vec::with_capacity(ns),
            Vec::with_capacity(ns),
            Vec::with_capacity(ns),
            Vec::with_capacity(ns),
        );
        for (k, s) in self.springs.iter().enumerate() {
            check_indices("spring", k, &[s.i, s.j], n)?;
            non_negative("spring", k, "stiffness", s.ke)?;
            non_negative("spring", k, "damping", s.kd)?;
            let rest = s.rest.unwrap_or_else(|| (q[s.i] - q[s.j]).length());
            non_negative("spring", k, "rest length", rest)?;
            s_ids.push(IVec2::new(s.i as i32, s.j as i32));
            s_rest.push(rest);
            s_ke.push(s.ke);
            s_kd.push(s.kd);
        }

        let nt = self.triangles.len();
        let (mut t_ids, mut t_pose, mut t_area, mut t_mat) = (
            Vec::with_capacity(nt),
            Vec::with_capacity(nt),
            Vec::with_capacity(nt),
            Vec::with_capacity(nt),
        );
        for (k, t) in self.triangles.iter().enumerate() {
            check_indices("triangle", k, &[t.i, t.j, t.k], n)?;
            let m = t.material;
            for (name, v) in [
                ("k_mu", m.k_mu),
                ("k_lambda", m.k_lambda),
                ("k_damp", m.k_damp),
                ("k_drag", m.k_drag),
                ("k_lift", m.k_lift),
            ] {
                non_negative("triangle", k, name, v)?;
            }
            let (pose, area) = triangle_pose(q[t.i], q[t.j], q[t.k])
                .ok_or_else(|| bad("triangle", k, "degenerate: its rest area is zero"))?;
            t_ids.push(IVec3::new(t.i as i32, t.j as i32, t.k as i32));
            t_pose.push(pose);
            t_area.push(area);
            t_mat.push(m);
        }

        let ne = self.edges.len();
        let (mut e_ids, mut e_rest, mut e_bend) = (
            Vec::with_capacity(ne),
            Vec::with_capacity(ne),
            Vec::with_capacity(ne),
        );
        for (k, e) in self.edges.iter().enumerate() {
            check_indices("bending edge", k, &[e.o0, e.o1, e.v0, e.v1], n)?;
            non_negative("bending edge", k, "stiffness", e.ke)?;
            non_negative("bending edge", k, "damping", e.kd)?;
            let rest = dihedral_angle(q[e.o0], q[e.o1], q[e.v0], q[e.v1]).ok_or_else(|| {
                bad(
                    "bending edge",
                    k,
                    "degenerate: a face or the edge has zero size",
                )
            })?;
            e_ids.push(IVec4::new(
                e.o0 as i32,
                e.o1 as i32,
                e.v0 as i32,
                e.v1 as i32,
            ));
            e_rest.push(rest);
            e_bend.push((e.ke, e.kd));
        }

        let (mut kind, mut xf, mut scale, mut mu) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut mesh_points, mut mesh_faces) = (Vec::new(), Vec::<[u32; 3]>::new());
        for (k, s) in self.shapes.iter().enumerate() {
            let positive = |name: &str, v: f32| {
                if v.is_finite() && v > 0.0 {
                    Ok(())
                } else {
                    Err(bad(
                        "shape",
                        k,
                        format!("{} {name} must be finite and > 0, got {v}", s.kind_name()),
                    ))
                }
            };
            let (kd, t, sc, m) = match s {
                Shape::Plane {
                    pose,
                    half_extents,
                    mu,
                } => {
                    non_negative("shape", k, "plane half extent", half_extents[0])?;
                    non_negative("shape", k, "plane half extent", half_extents[1])?;
                    (
                        SHAPE_PLANE,
                        check_pose("shape", k, pose)?,
                        Vec3::new(half_extents[0], half_extents[1], 0.0),
                        *mu,
                    )
                }
                Shape::Sphere { center, radius, mu } => {
                    positive("radius", *radius)?;
                    (
                        SHAPE_SPHERE,
                        check_pose("shape", k, &(*center, glam::Quat::IDENTITY))?,
                        Vec3::new(*radius, 0.0, 0.0),
                        *mu,
                    )
                }
                Shape::Box {
                    pose,
                    half_extents,
                    mu,
                } => {
                    for h in half_extents.to_array() {
                        positive("half extent", h)?;
                    }
                    (SHAPE_BOX, check_pose("shape", k, pose)?, *half_extents, *mu)
                }
                Shape::Capsule {
                    pose,
                    radius,
                    half_height,
                    mu,
                } => {
                    positive("radius", *radius)?;
                    non_negative("shape", k, "capsule half height", *half_height)?;
                    (
                        SHAPE_CAPSULE,
                        check_pose("shape", k, pose)?,
                        Vec3::new(*radius, *half_height, 0.0),
                        *mu,
                    )
                }
                Shape::Mesh {
                    pose,
                    scale: s_scale,
                    mesh,
                } => {
                    check_pose("shape", k, pose)?;
                    if !s_scale.is_finite() || s_scale.min_element() <= 0.0 {
                        return Err(bad(
                            "shape",
                            k,
                            format!("mesh scale must be finite and > 0, got {s_scale:?}"),
                        ));
                    }
                    let base = mesh_points.len() as u32;
                    mesh_points.extend(s.world_points().expect("a mesh"));
                    mesh_faces.extend(mesh.indices().iter().map(|f| f.map(|i| i + base)));
                    continue;
                }
            };
            non_negative("shape", k, "friction coefficient", m)?;
            kind.push(kd);
            xf.push(t);
            scale.push(sc);
            mu.push(m);
        }

        let c = self.contact;
        for (name, v) in [
            ("contact.ke", c.ke),
            ("contact.kd", c.kd),
            ("contact.kf", c.kf),
            ("contact.margin", c.margin),
            ("mesh_thickness", self.mesh_thickness),
            ("mesh_mu", self.mesh_mu),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(param(name, format!("must be finite and ≥ 0, got {v}")));
            }
        }
        let pc = self.particle_contact;
        for (name, v) in [
            ("particle_contact.ke", pc.ke),
            ("particle_contact.kd", pc.kd),
            ("particle_contact.kf", pc.kf),
            ("particle_contact.mu", pc.mu),
            ("particle_contact.cohesion", pc.cohesion),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(param(name, format!("must be finite and ≥ 0, got {v}")));
            }
        }
        let (ground, ground_plane, ground_mu) = match self.ground {
            Some(gr) => {
                let nrm = gr
                    .normal
                    .try_normalize()
                    .filter(|_| gr.offset.is_finite())
                    .ok_or_else(|| {
                        param(
                            "ground",
                            format!(
                                "normal must be finite and non-zero and offset finite, got {:?} {}",
                                gr.normal, gr.offset
                            ),
                        )
                    })?;
                if !(gr.mu.is_finite() && gr.mu >= 0.0) {
                    return Err(param(
                        "ground.mu",
                        format!("must be finite and ≥ 0, got {}", gr.mu),
                    ));
                }
                (true, nrm.extend(gr.offset), gr.mu)
            }
            None => (false, Vec4::new(0.0, 0.0, 1.0, 0.0), 0.0),
        };

        // Rigid bodies, and their shapes plus the ground as a static plane.
        let bodies = self.body_arrays()?;
        let mut rigid_shapes = self.rigid_shapes.clone();
        if self.filter_parent_contacts && !self.joints.is_empty() {
            let parent = self.parent_links(&bodies.mass);
            for s in rigid_shapes
                .iter_mut()
                .filter(|s| s.body >= 0 && s.skip_body < 0)
            {
                s.skip_body = parent[s.body as usize];
            }
        }
        if ground && !self.bodies.is_empty() {
            let nrm = Vec3::new(ground_plane.x, ground_plane.y, ground_plane.z);
            let pose = Transform::new(
                -nrm * ground_plane.w,
                glam::Quat::from_rotation_arc(Vec3::Z, nrm),
            );
            let mut plane = weft_collide::ShapeDesc::new(
                -1,
                pose,
                weft_collide::Geometry::Plane {
                    half_extents: glam::Vec2::ZERO,
                },
            );
            plane.material.mu = ground_mu;
            plane.material.mu_static = ground_mu;
            plane.world = -1;
            rigid_shapes.push(plane);
        }
        let rigid_shapes = weft_collide::ShapeSet::new(device, &rigid_shapes, self.bodies.len())
            .map_err(|e| match e {
                weft_collide::CollideError::InvalidShape { index, message } => {
                    SimError::InvalidInput {
                        what: "rigid shape",
                        index,
                        message,
                    }
                }
                weft_collide::CollideError::Runtime(e) => SimError::Runtime(e),
                other => SimError::Mismatch(other.to_string()),
            })?;

        let mesh = if mesh_faces.is_empty() {
            DeviceMesh {
                points: Array::try_zeros(device, [0])?,
                velocities: Array::try_zeros(device, [0])?,
                faces: Array::try_zeros(device, [0])?,
                nodes: Array::try_zeros(device, [0])?,
                prims: Array::try_zeros(device, [0])?,
                parents: Array::try_zeros(device, [0])?,
                tris: Array::try_zeros(device, [0])?,
                winding: Array::try_zeros(device, [0])?,
            }
        } else {
            DeviceMesh::new(device, &weft_geom::Mesh::new(mesh_points, mesh_faces)?)?
        };

        let arr = |v: Vec<f32>| Array::try_from_slice(device, &v);
        let joints = self.joint_arrays();
        let ints = |v: Vec<i32>| Array::try_from_slice(device, &v);
        Ok(Model {
            particle_q: Array::try_from_slice(device, &q)?,
            particle_qd: Array::try_from_slice(device, &qd)?,
            particle_mass: arr(mass)?,
            particle_inv_mass: arr(inv_mass)?,
            particle_radius: arr(radius.clone())?,
            particle_flags: Array::try_from_slice(device, &flags)?,
            spring_indices: Array::try_from_slice(device, &s_ids)?,
            spring_rest_length: arr(s_rest)?,
            spring_stiffness: arr(s_ke)?,
            spring_damping: arr(s_kd)?,
            tri_indices: Array::try_from_slice(device, &t_ids)?,
            tri_poses: Array::try_from_slice(device, &t_pose)?,
            tri_areas: arr(t_area)?,
            tri_k_mu: arr(t_mat.iter().map(|m| m.k_mu).collect())?,
            tri_k_lambda: arr(t_mat.iter().map(|m| m.k_lambda).collect())?,
            tri_k_damp: arr(t_mat.iter().map(|m| m.k_damp).collect())?,
            tri_k_drag: arr(t_mat.iter().map(|m| m.k_drag).collect())?,
            tri_k_lift: arr(t_mat.iter().map(|m| m.k_lift).collect())?,
            tri_activations: arr(vec![0.0; nt])?,
            edge_indices: Array::try_from_slice(device, &e_ids)?,
            edge_rest_angle: arr(e_rest)?,
            edge_ke: arr(e_bend.iter().map(|b| b.0).collect())?,
            edge_kd: arr(e_bend.iter().map(|b| b.1).collect())?,
            shape_kind: Array::try_from_slice(device, &kind)?,
            shape_transform: Array::try_from_slice(device, &xf)?,
            shape_scale: Array::try_from_slice(device, &scale)?,
            shape_mu: arr(mu)?,
            mesh,
            mesh_mu: self.mesh_mu,
            mesh_thickness: self.mesh_thickness,
            ground,
            ground_plane,
            ground_mu,
            soft_contact_ke: c.ke,
            soft_contact_kd: c.kd,
            soft_contact_kf: c.kf,
            soft_contact_margin: c.margin,
            particle_ke: pc.ke,
            particle_kd: pc.kd,
            particle_kf: pc.kf,
            particle_mu: pc.mu,
            particle_cohesion: pc.cohesion,
            particle_max_radius: radius.iter().cloned().fold(0.0, f32::max),
            gravity: g,
            body_q: Array::try_from_slice(device, &bodies.q)?,
            body_qd: Array::try_from_slice(device, &bodies.qd)?,
            body_com: Array::try_from_slice(device, &bodies.com)?,
            body_mass: arr(bodies.mass)?,
            body_inv_mass: arr(bodies.inv_mass)?,
            body_inertia: Array::try_from_slice(device, &bodies.inertia)?,
            body_inv_inertia: Array::try_from_slice(device, &bodies.inv_inertia)?,
            body_world: Array::try_from_slice(device, &bodies.world)?,
            rigid_shapes,
            joint_type: ints(joints.kind)?,
            joint_parent: ints(joints.parent)?,
            joint_child: ints(joints.child)?,
            joint_ancestor: ints(joints.ancestor)?,
            joint_articulation: ints(joints.articulation)?,
            joint_parent_frame: Array::try_from_slice(device, &joints.parent_frame)?,
            joint_child_frame: Array::try_from_slice(device, &joints.child_frame)?,
            joint_dof_dim: Array::try_from_slice(device, &joints.dof_dim)?,
            joint_q_start: ints(joints.q_start)?,
            joint_qd_start: ints(joints.qd_start)?,
            joint_q: arr(joints.q)?,
            joint_qd: arr(joints.qd)?,
            joint_axis: Array::try_from_slice(device, &joints.axis)?,
            joint_armature: arr(joints.armature)?,
            joint_damping: arr(joints.damping)?,
            joint_friction: arr(joints.friction)?,
            joint_limit_lower: arr(joints.lower)?,
            joint_limit_upper: arr(joints.upper)?,
            joint_limit_ke: arr(joints.limit_ke)?,
            joint_limit_kd: arr(joints.limit_kd)?,
            joint_target_ke: arr(joints.target_ke)?,
            joint_target_kd: arr(joints.target_kd)?,
            joint_effort_limit: arr(joints.effort_limit)?,
            joint_target_pos: arr(joints.target_pos)?,
            joint_target_vel: arr(joints.target_vel)?,
            joint_f: arr(joints.effort)?,
            articulation_start: ints(joints.articulation_start)?,
            loop_joints: self.loop_joint_arrays(device)?,
        })
    }
}

impl ModelBuilder {
    /// Per body: the link its shapes skip — its parent joint's parent body,
    /// or past massless links the nearest ancestor with mass (-1: none).
    fn parent_links(&self, mass: &[f32]) -> Vec<i32> {
        let n = self.bodies.len();
        let mut direct = vec![-1i32; n];
        for j in &self.joints {
            if j.child >= 0 && (j.child as usize) < n {
                direct[j.child as usize] = j.parent;
            }
        }
        (0..n)
            .map(|b| {
                let mut p = direct[b];
                let mut guard = 0;
                while p >= 0 && mass[p as usize] <= 0.0 && guard < n {
                    p = direct[p as usize];
                    guard += 1;
                }
                p
            })
            .collect()
    }
}
