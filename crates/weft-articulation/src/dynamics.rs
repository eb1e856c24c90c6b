//! Inverse dynamics (recursive Newton–Euler) and the joint-space mass matrix
//! (composite rigid bodies), as kernels over joints, and their host calls.
//!
//! The recursions of Featherstone's algorithms become sums over a joint's
//! ancestors (accelerations) or descendants (forces, composite inertias), each
//! joint's thread summing on its own (see [`crate::kinematics`] for why).

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::Model;

use crate::aba::{BodyLoads, blocks_times, blocks_to_parent, eval_local_loads};
use crate::joint_math::{
    body_inertia, force_to_parent, is_ancestor_or_self, motion_to_child, pose_in_ancestor,
};
use crate::kinematics::{
    eval_body_poses, eval_joint_transforms, eval_joint_velocities, eval_motion_subspace,
};
use crate::scratch::{self, Pooled};
use crate::{Result, layout::ArticulationLayout};

/// The net wrench each joint's child body needs (in its own frame, about its
/// origin), Newton–Euler with classical accelerations: `(m a − h × α −
/// ω × (h × ω), I α + ω × I ω + h × a) − f_ext`, where `a` is the classical
/// acceleration of the body frame's origin (from the base's `−g`, gravity as
/// a base acceleration) and `α` the angular acceleration, summed over the
/// ancestors' degrees of freedom (brought over along the tree). Each degree
/// of freedom `d`, a twist `s_d` fixed in a frame `F` (the parent side of its
/// joint, or the child for ball joints and free joints' rotations), adds
/// `s_d q̈_d` and the velocity product `q̇_d (W_F × s_d + ω_d × v_F)` (`W_F`
/// the angular velocity of `F`, summed from the root down from `w_parent`;
/// `v_F` the origin's velocity relative to `F`) to `(a, α)`: no term of a
/// frame's translation velocity appears, so the products that the spatial
/// form `I c + v ×* I v` forms and cancels (a cart's `ẋ` times its pole's
/// `θ̇`) are never formed and f32 keeps the small Coriolis terms, in the
/// values and in their adjoints. `body_f` holds external wrenches per body
/// (force at the centre of mass, torque; world), or nothing.
#[weft::kernel]
pub fn eval_body_forces(
    model: &Model,
    body_q: &Array<Transform>,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    v: &Array<SpatialVector>,
    w_parent: &Array<Vec3>,
    qd: &Array<f32>,
    qdd: &Array<f32>,
    body_f: &Array<SpatialVector>,
    f: &mut Array<SpatialVector>,
) {
    let j = tid();
    let b = model.joint_child[j];
    let rw = body_q[b].q;
    let w = v[j].bottom;
    let mut a = quat_rotate_inv(rw, -model.gravity);
    let mut alpha = Vec3::ZERO;
    // The origin's velocity relative to the frames passed so far.
    let mut v_rel = Vec3::ZERO;
    // The pose of j's child in the child body of joint k.
    let mut t = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    let mut k = j;
    while k >= 0 {
        // The angular velocity of joint k's parent body, in j's frame.
        let wl = quat_rotate_inv(t.q, w_parent[k]);
        let kind = model.joint_type[k];
        let ds = model.joint_qd_start[k];
        let n = model.joint_qd_start[k + 1] - ds;
        if kind == 2 || kind == 4 {
            let mut nl = 0;
            if kind == 4 {
                nl = 3;
            }
            // Angular axes fixed in the child: its angular velocity, and the
            // origin's velocity relative to it.
            let mut wk = wl;
            for d in ds + nl..ds + n {
                wk += motion_to_child(t, s[d]).bottom * qd[d];
            }
            let v_child = v_rel;
            for d in ds + nl..ds + n {
                let sd = motion_to_child(t, s[d]);
                a += sd.top * qdd[d] + (cross(wk, sd.top) + cross(sd.bottom, v_child)) * qd[d];
                alpha += sd.bottom * qdd[d] + cross(wk, sd.bottom) * qd[d];
                v_rel += sd.top * qd[d];
            }
            // Free joints' linear axes are fixed in the parent.
            for d in ds..ds + nl {
                let sd = motion_to_child(t, s[d]);
                a += sd.top * qdd[d] + cross(wl, sd.top) * qd[d];
                v_rel += sd.top * qd[d];
            }
        } else {
            // A chain: each axis fixed in the frame before its own motion,
            // which turns with the parent and the joint's earlier axes.
            for step in 0..n {
                let d = ds + n - 1 - step;
                let sd = motion_to_child(t, s[d]);
                v_rel += sd.top * qd[d];
                let mut wf = wl;
                for e in ds..d {
                    wf += motion_to_child(t, s[e]).bottom * qd[e];
                }
                a += sd.top * qdd[d] + (cross(wf, sd.top) + cross(sd.bottom, v_rel)) * qd[d];
                alpha += sd.bottom * qdd[d] + cross(wf, sd.bottom) * qd[d];
            }
        }
        t = x_local[k] * t;
        k = model.joint_ancestor[k];
    }
    let (m, h, i) = body_inertia(model, b, Transform::new(Vec3::ZERO, Quat::IDENTITY));
    let mut fj = SpatialVector::new(
        a * m - cross(h, alpha) - cross(w, cross(h, w)),
        i * alpha + cross(w, i * w) + cross(h, a),
    );
    if body_f.len() > 0 {
        let fe = body_f[b];
        let lin = quat_rotate_inv(rw, fe.top);
        let ang = quat_rotate_inv(rw, fe.bottom) + cross(model.body_com[b], lin);
        fj -= SpatialVector::new(lin, ang);
    }
    f[j] = fj;
}

/// Joint efforts `τ_d = S_dᵀ Σ f` (the wrenches of the joint's subtree,
/// brought into its child body's frame) plus the armature's
/// `armature_d q̈_d`.
#[weft::kernel]
pub fn eval_joint_torques(
    model: &Model,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    f: &Array<SpatialVector>,
    qdd: &Array<f32>,
    tau: &mut Array<f32>,
) {
    let j = tid();
    let end = model.articulation_start[model.joint_articulation[j] + 1];
    let mut total = f[j];
    for m in j + 1..end {
        if is_ancestor_or_self(model, j, m) {
            total += force_to_parent(pose_in_ancestor(model, x_local, m, j), f[m]);
        }
    }
    for d in model.joint_qd_start[j]..model.joint_qd_start[j + 1] {
        tau[d] = dot(s[d], total) + model.joint_armature[d] * qdd[d];
    }
}

/// The composite inertia of each joint's subtree in its child body's frame,
/// about that frame's origin, as blocks `(A, B, C)` (see
/// [`crate::aba::blocks_times`]; a rigid body's are `(m 1, −[h]×, I)` of
/// [`body_inertia`]), at `3j..3j + 3` of
/// `ic`, each body's implicit damping `damp` (per joint, its child's, three
/// blocks in the child's frame; or empty) included.
#[weft::kernel]
pub fn eval_composite_inertia(
    model: &Model,
    x_local: &Array<Transform>,
    damp: &Array<Mat3>,
    ic: &mut Array<Mat3>,
) {
    let j = tid();
    let end = model.articulation_start[model.joint_articulation[j] + 1];
    let (mut a, mut b, mut c) =
        body_blocks(model, damp, j, Transform::new(Vec3::ZERO, Quat::IDENTITY));
    for k in j + 1..end {
        if is_ancestor_or_self(model, j, k) {
            let x = pose_in_ancestor(model, x_local, k, j);
            let (ak, bk, ck) = body_blocks(model, damp, k, x);
            a += ak;
            b += bk;
            c += ck;
        }
    }
    ic[3 * j] = a;
    ic[3 * j + 1] = b;
    ic[3 * j + 2] = c;
}

/// Joint `k`'s child body's spatial inertia plus its implicit damping
/// (`damp`, three blocks per joint in the child's frame, or empty), as blocks
/// in a frame in which the child's frame has pose `x`.
#[weft::func]
pub fn body_blocks(model: &Model, damp: &Array<Mat3>, k: i32, x: Transform) -> (Mat3, Mat3, Mat3) {
    let (m, h, i) = body_inertia(model, model.joint_child[k], x);
    let mut a = diag(Vec3::splat(m));
    let mut b = -skew(h);
    let mut c = i;
    if damp.len() > 0 {
        let (da, db, dc) = blocks_to_parent(x, damp[3 * k], damp[3 * k + 1], damp[3 * k + 2]);
        a += da;
        b += db;
        c += dc;
    }
    (a, b, c)
}

/// The mass matrix's entries of each joint's columns: `M[r][c] = S_rᵀ I_c(j)
/// S_c` for the degrees of freedom `r` of the joint and its ancestors (the
/// momentum `I_c(j) S_c` brought into each ancestor's frame), and the
/// symmetric entries. Stored densely, row-major, per articulation at
/// `m_start`; entries of unrelated joints are left as they are (zero).
#[weft::kernel]
pub fn eval_mass_matrix(
    model: &Model,
    m_start: &Array<i32>,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    ic: &Array<Mat3>,
    mass: &mut Array<f32>,
) {
    let j = tid();
    write_mass_columns(
        model,
        m_start,
        x_local,
        s,
        ic[3 * j],
        ic[3 * j + 1],
        ic[3 * j + 2],
        j,
        mass,
    );
}

/// Writes the mass matrix entries of joint `j`'s columns (see
/// [`eval_mass_matrix`]) from the composite inertia blocks `(a, b, c)` of
/// its subtree.
#[weft::func]
pub fn write_mass_columns(
    model: &Model,
    m_start: &Array<i32>,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    a: Mat3,
    b: Mat3,
    c: Mat3,
    j: i32,
    mass: &mut Array<f32>,
) {
    let art = model.joint_articulation[j];
    let d0 = model.joint_qd_start[model.articulation_start[art]];
    let n = model.joint_qd_start[model.articulation_start[art + 1]] - d0;
    let base = m_start[art];
    for col in model.joint_qd_start[j]..model.joint_qd_start[j + 1] {
        let fc = blocks_times(a, b, c, s[col]);
        // The pose of j's child in the child body of joint k.
        let mut t = Transform::new(Vec3::ZERO, Quat::IDENTITY);
        let mut k = j;
        while k >= 0 {
            let fk = force_to_parent(t, fc);
            for row in model.joint_qd_start[k]..model.joint_qd_start[k + 1] {
                let x = dot(s[row], fk);
                mass[base + (row - d0) * n + col - d0] = x;
                mass[base + (col - d0) * n + row - d0] = x;
            }
            t = x_local[k] * t;
            k = model.joint_ancestor[k];
        }
    }
}

/// The arrays of one evaluation of the kinematics at `(q, q̇)` (off the
/// tape, from this thread's pool).
pub(crate) struct Kinematics {
    pub qd: Array<f32>,
    pub x_local: Pooled<Transform>,
    pub body_q: Pooled<Transform>,
    pub s: Pooled<SpatialVector>,
    pub v: Pooled<SpatialVector>,
    pub c: Pooled<SpatialVector>,
    pub w_parent: Pooled<Vec3>,
}

impl Kinematics {
    /// Poses, motion subspaces, twists and velocity products at `(q, qd)`.
    pub fn eval(model: &Model, q: &Array<f32>, qd: &Array<f32>) -> Result<Kinematics> {
        let nj = model.joint_count();
        // Every joint's entries are written before they are read; the poses
        // of bodies without a joint stay zero.
        let nb = model.body_count();
        let mut k = Kinematics {
            qd: qd.share(),
            x_local: Pooled::scratch(model, nj)?,
            body_q: if nb > nj {
                Pooled::zeros(model, nb)?
            } else {
                Pooled::scratch(model, nb)?
            },
            s: Pooled::scratch(model, model.joint_dof_count())?,
            v: Pooled::scratch(model, nj)?,
            c: Pooled::scratch(model, nj)?,
            w_parent: Pooled::scratch(model, nj)?,
        };
        if nj > 0 && !Tape::is_recording() {
            let mut none = scratch::vectors(model, 0)?;
            crate::tree::kinematics(
                model,
                q,
                qd,
                &mut k.x_local,
                &mut k.body_q,
                &mut k.s,
                &mut k.v,
                &mut k.c,
                &mut k.w_parent,
                &mut none,
            )?;
        } else if nj > 0 {
            eval_joint_transforms::launch(nj, model, q, &mut k.x_local)?;
            eval_body_poses::launch(nj, model, &k.x_local, &mut k.body_q)?;
            eval_motion_subspace::launch(nj, model, q, &mut k.s)?;
            eval_joint_velocities::launch(
                nj,
                model,
                &k.x_local,
                qd,
                &k.s,
                &mut k.v,
                &mut k.c,
                &mut k.w_parent,
            )?;
        }
        Ok(k)
    }

    /// Joint efforts for accelerations `qdd` and external wrenches `body_f`
    /// (per body, or empty), gravity included.
    pub fn efforts(
        &self,
        model: &Model,
        qdd: &Array<f32>,
        body_f: &Array<SpatialVector>,
    ) -> Result<Array<f32>> {
        let nj = model.joint_count();
        let mut tau = scratch::floats(model, model.joint_dof_count())?;
        if nj > 0 && !Tape::is_recording() {
            crate::tree::efforts(model, self, qdd, body_f, &mut tau)?;
        } else if nj > 0 {
            let mut f = scratch::joint_vectors(model)?;
            eval_body_forces::launch(
                nj,
                model,
                &self.body_q,
                &self.x_local,
                &self.s,
                &self.v,
                &self.w_parent,
                &self.qd,
                qdd,
                body_f,
                &mut f,
            )?;
            eval_joint_torques::launch(nj, model, &self.x_local, &self.s, &f, qdd, &mut tau)?;
        }
        Ok(tau)
    }

    /// The mass matrices (without armature), laid out by `layout`, plus
    /// the bodies' implicit contact damping times the step `damp` (nine
    /// columns per body, see [`crate::contacts::add_point_damping`]; or
    /// empty).
    pub fn mass_matrix(
        &self,
        model: &Model,
        layout: &ArticulationLayout,
        damp: &Array<Vec3>,
    ) -> Result<Array<f32>> {
        let nj = model.joint_count();
        let mut mass = scratch::floats(model, layout.mass_len())?;
        if nj > 0 && !Tape::is_recording() {
            crate::tree::mass_matrix(model, layout, self, damp, &mut mass)?;
        } else if nj > 0 {
            let none = scratch::vectors(model, 0)?;
            let mut loads = BodyLoads {
                fext: scratch::vectors(model, 0)?,
                damp: scratch::mat3s(model, 0)?,
            };
            if !damp.is_empty() {
                loads.damp = scratch::mat3s(model, 3 * nj)?;
                eval_local_loads::launch(
                    nj,
                    model,
                    &self.body_q,
                    &none,
                    damp,
                    &self.x_local,
                    &self.c,
                    &mut loads,
                )?;
            }
            let mut ic = scratch::mat3s(model, 3 * nj)?;
            eval_composite_inertia::launch(nj, model, &self.x_local, &loads.damp, &mut ic)?;
            eval_mass_matrix::launch(
                nj,
                model,
                &layout.m_start,
                &self.x_local,
                &self.s,
                &ic,
                &mut mass,
            )?;
        }
        Ok(mass)
    }
}

/// Inverse dynamics (recursive Newton–Euler): the joint efforts `τ` that give
/// accelerations `qdd` at `(q, qd)` under gravity, `τ = M(q) q̈ + C(q, q̇)`
/// (armature included in `M`). One value per degree of freedom, as a new
/// array. Differentiable through the tape.
pub fn inverse_dynamics(
    model: &Model,
    q: &Array<f32>,
    qd: &Array<f32>,
    qdd: &Array<f32>,
) -> Result<Array<f32>> {
    crate::check_coords(model, q, qd)?;
    crate::check_len("qdd", qdd.len(), model.joint_dof_count())?;
    if model.joint_count() > 0 && !Tape::is_recording() {
        // Kinematics and the recursion in one launch.
        let none = Pooled::<SpatialVector>::scratch(model, 0)?;
        let mut tau = scratch::floats(model, model.joint_dof_count())?;
        crate::tree::inverse_dynamics(model, q, qd, qdd, &none, &mut tau)?;
        return Ok(tau);
    }
    let none = Array::try_zeros(model.device(), [0])?;
    Kinematics::eval(model, q, qd)?.efforts(model, qdd, &none)
}

/// The bias forces `C(q, q̇)` (Coriolis, centrifugal and gravity): the
/// efforts that hold the joints at zero acceleration.
pub fn bias_forces(model: &Model, q: &Array<f32>, qd: &Array<f32>) -> Result<Array<f32>> {
    let zero = Array::try_zeros(model.device(), [model.joint_dof_count()])?;
    inverse_dynamics(model, q, qd, &zero)
}

/// The joint-space mass matrix `M(q)` of every articulation (composite rigid
/// bodies, without armature), dense and row-major at
/// [`ArticulationLayout::mass_range`]. Symmetric positive definite for bodies
/// with mass.
pub fn mass_matrix(
    model: &Model,
    layout: &ArticulationLayout,
    q: &Array<f32>,
) -> Result<Array<f32>> {
    crate::check_len("joint_q", q.len(), model.joint_coord_count())?;
    layout.check(model)?;
    if model.joint_count() > 0 && !Tape::is_recording() {
        // Poses and the composite inertias in one launch.
        let mut mass = scratch::floats(model, layout.mass_len())?;
        crate::tree::mass_matrix_at(model, layout, q, &mut mass)?;
        return Ok(mass);
    }
    let qd = Array::try_zeros(model.device(), [model.joint_dof_count()])?;
    let none = scratch::vec3s(model, 0)?;
    Kinematics::eval(model, q, &qd)?.mass_matrix(model, layout, &none)
}
