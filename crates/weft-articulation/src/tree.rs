//! Featherstone's recursions as loops in one thread per articulation, for
//! work that needs no gradients.
//!
//! The kernels of [`crate::aba`], [`crate::dynamics`] and
//! [`crate::kinematics`] never read what their own launch writes, so the
//! tape can replay them; the price is a launch per tree level (ABA) or
//! sums over every joint's ancestors or descendants (`O(n d)`). Off the
//! tape nothing forbids updating arrays in place, so here one thread walks
//! its articulation's joints (stored parents first) root to leaves, leaves
//! to root and back, as Featherstone writes the algorithms and as Warp and
//! MuJoCo run them: `O(n)` work in a single launch, parallel over
//! articulations. The arithmetic is the same funcs in the same frames as the
//! differentiable path, so both give the same results up to the order of a
//! few additions; the mass matrix without damping ([`mass_matrix_tree`])
//! goes further from it, summing compact inertias and bringing each
//! column's momentum up the tree one joint at a time, and agrees with it to
//! f32 rounding. Callers choose this path when no tape records
//! ([`Tape::is_recording`]); the kernels are declared `forward_only`, so they
//! have no adjoint and a launch on a tape with gradients is an error.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::Model;

use crate::aba::{blocks_in_body, blocks_to_parent, wrench_in_body};
use crate::contacts::damping_blocks;
use crate::dynamics::{Kinematics, write_mass_columns};
use crate::joint_math::{
    force_to_parent, inertia_times, joint_motion, joint_twist, motion_to_child,
};
use crate::kinematics::{velocity_product, write_motion_subspace};
use crate::scratch::Pooled;
use crate::{Result, layout::ArticulationLayout};

mod aba;

pub use aba::{aba_inward, aba_kinematics_tree, aba_outward, aba_tree, body_terms};
pub(crate) use aba::{accelerations, accelerations_from};

/// One joint of a walk from the roots: writes joint `j`'s transform
/// `x_local[j]` and its motion subspace into `s`, and returns that transform
/// and the child's twist as the parent's part `vp` (in the child's frame)
/// and the joint's own `vj`, from the parent's twist `twist` (not read for a
/// root: `k`, the parent joint, is −1).
#[weft::func]
pub fn walk_joint(
    model: &Model,
    q: &Array<f32>,
    qd: &Array<f32>,
    j: i32,
    k: i32,
    twist: SpatialVector,
    x_local: &mut Array<Transform>,
    s: &mut Array<SpatialVector>,
) -> (Transform, SpatialVector, SpatialVector) {
    let x = joint_transform(model, q, j);
    x_local[j] = x;
    write_motion_subspace(model, q, 0, j, s, 0);
    let mut vp = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
    if k >= 0 {
        vp = motion_to_child(x, twist);
    }
    (x, vp, joint_twist(model, s, qd, j))
}

/// Joint `j`'s transform at `q`, as
/// [`joint_local`](crate::joint_math::joint_local): the parent frame, the
/// joint's motion and the inverse of the child frame composed. A joint that
/// only turns (revolute, ball) has no offset to rotate into the parent
/// frame, and skips that rotation (which changes nothing but the sign of a
/// zero).
#[weft::func]
pub fn joint_transform(model: &Model, q: &Array<f32>, j: i32) -> Transform {
    let m = joint_motion(model, q, j);
    let pf = model.joint_parent_frame[j];
    let kind = model.joint_type[j];
    let mut a = Transform::new(pf.p, pf.q * m.q);
    if kind != 0 && kind != 2 {
        a = pf * m;
    }
    a * transform_inverse(model.joint_child_frame[j])
}

/// Body `b`'s spatial inertia in its own frame, about its origin: mass `m`,
/// first moment `h = m c` and rotational inertia `I_c + m (|c|² 1 − c cᵀ)`
/// ([`body_inertia`](crate::joint_math::body_inertia) at the identity pose
/// without its rotations by the identity, which change nothing but the
/// sign of a zero).
#[weft::func]
pub fn body_inertia_local(model: &Model, b: i32) -> (f32, Vec3, Mat3) {
    let m = model.body_mass[b];
    let c = model.body_com[b];
    let mc = c * m;
    (
        m,
        mc,
        model.body_inertia[b] + diag(Vec3::splat(dot(c, mc))) - outer(mc, c),
    )
}

/// Forward kinematics of articulation `tid()`: each joint's transform
/// `x_local`, its child body's world pose `body_q` (at the body's index),
/// the motion subspaces `s`, the children's twists `v`, velocity products
/// `c` and parents' angular velocities `w_parent` (as
/// [`crate::kinematics::eval_joint_velocities`] writes them), and, unless
/// `body_qd` is empty, the child bodies' velocities (centre of mass, world).
#[weft::kernel(forward_only)]
pub fn kinematics_tree(
    model: &Model,
    q: &Array<f32>,
    qd: &Array<f32>,
    x_local: &mut Array<Transform>,
    body_q: &mut Array<Transform>,
    s: &mut Array<SpatialVector>,
    v: &mut Array<SpatialVector>,
    c: &mut Array<SpatialVector>,
    w_parent: &mut Array<Vec3>,
    body_qd: &mut Array<SpatialVector>,
) {
    kinematics_walk(
        model,
        tid(),
        q,
        qd,
        x_local,
        body_q,
        s,
        v,
        c,
        w_parent,
        body_qd,
    );
}

/// The walk of [`kinematics_tree`] over articulation `a`'s joints.
#[weft::func]
pub fn kinematics_walk(
    model: &Model,
    a: i32,
    q: &Array<f32>,
    qd: &Array<f32>,
    x_local: &mut Array<Transform>,
    body_q: &mut Array<Transform>,
    s: &mut Array<SpatialVector>,
    v: &mut Array<SpatialVector>,
    c: &mut Array<SpatialVector>,
    w_parent: &mut Array<Vec3>,
    body_qd: &mut Array<SpatialVector>,
) {
    let first = model.articulation_start[a];
    let end = model.articulation_start[a + 1];
    for j in first..end {
        let k = model.joint_ancestor[j];
        let mut twist = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
        if k >= 0 {
            twist = v[k];
        }
        let (x, vp, vj) = walk_joint(model, q, qd, j, k, twist, x_local, s);
        let mut w = x;
        if k >= 0 {
            w = body_q[model.joint_child[k]] * x;
        }
        let b = model.joint_child[j];
        body_q[b] = w;
        let vc = vp + vj;
        v[j] = vc;
        c[j] = velocity_product(model, s, qd, j, vp, vj);
        w_parent[j] = vp.bottom;
        if body_qd.len() > 0 {
            body_qd[b] = SpatialVector::new(
                quat_rotate(w.q, vc.top + cross(vc.bottom, model.body_com[b])),
                quat_rotate(w.q, vc.bottom),
            );
        }
    }
}

/// Launches [`kinematics_tree`] over `model`'s articulations (not for a
/// recording tape).
#[allow(clippy::too_many_arguments)]
pub(crate) fn kinematics(
    model: &Model,
    q: &Array<f32>,
    qd: &Array<f32>,
    x_local: &mut Array<Transform>,
    body_q: &mut Array<Transform>,
    s: &mut Array<SpatialVector>,
    v: &mut Array<SpatialVector>,
    c: &mut Array<SpatialVector>,
    w_parent: &mut Array<Vec3>,
    body_qd: &mut Array<SpatialVector>,
) -> Result<()> {
    debug_assert!(!Tape::is_recording());
    weft::cpu::with_grain(1, || {
        kinematics_tree::launch(
            model.articulation_count(),
            model,
            q,
            qd,
            x_local,
            body_q,
            s,
            v,
            c,
            w_parent,
            body_qd,
        )
    })?;
    Ok(())
}

/// Inverse dynamics of articulation `tid()` by recursive Newton–Euler in
/// spatial form, from the kinematics of [`kinematics_tree`]: each child's
/// acceleration `a = X a_parent + c + S q̈` (the base's `−g` for a root), its
/// net wrench `f = I a + v ×* I v − f_ext` (`body_f` per body, world, or
/// empty), then from the leaves `τ = Sᵀ f + armature · q̈` and each `f` added
/// to its parent's. `acc` and `f` are per-joint scratch.
#[weft::kernel(forward_only)]
pub fn rnea_tree(
    model: &Model,
    x_local: &Array<Transform>,
    body_q: &Array<Transform>,
    s: &Array<SpatialVector>,
    v: &Array<SpatialVector>,
    c: &Array<SpatialVector>,
    qdd: &Array<f32>,
    body_f: &Array<SpatialVector>,
    acc: &mut Array<SpatialVector>,
    f: &mut Array<SpatialVector>,
    tau: &mut Array<f32>,
) {
    rnea_walk(
        model,
        tid(),
        x_local,
        body_q,
        s,
        v,
        c,
        qdd,
        body_f,
        acc,
        f,
        tau,
    );
}

/// Inverse dynamics of articulation `tid()` from `(q, qd, qdd)` in one
/// launch: [`kinematics_walk`] and [`rnea_walk`] fused into one pass from
/// the roots (each joint's transform, subspace, twist, acceleration and net
/// wrench, the same operations in the same order, so the same values) and
/// one from the leaves (efforts, wrenches added to the parents'). `vaf`
/// holds three spatial vectors per joint (twist, acceleration, net wrench,
/// at `j`, `nj + j`, `2 nj + j`); it, `x_local` and `s` are scratch, written
/// before they are read. `body_q` (per body) receives the child bodies'
/// world poses when `body_f` is given (per body, world), and may be empty
/// otherwise.
#[weft::kernel(forward_only)]
pub fn inverse_dynamics_tree(
    model: &Model,
    q: &Array<f32>,
    qd: &Array<f32>,
    qdd: &Array<f32>,
    body_f: &Array<SpatialVector>,
    x_local: &mut Array<Transform>,
    body_q: &mut Array<Transform>,
    s: &mut Array<SpatialVector>,
    vaf: &mut Array<SpatialVector>,
    tau: &mut Array<f32>,
) {
    let first = model.articulation_start[tid()];
    let end = model.articulation_start[tid() + 1];
    let nj = model.joint_type.len() as i32;
    for j in first..end {
        let k = model.joint_ancestor[j];
        let mut twist = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
        let mut a = SpatialVector::new(-model.gravity, Vec3::ZERO);
        if k >= 0 {
            twist = vaf[k];
            a = vaf[nj + k];
        }
        let (x, vp, vj) = walk_joint(model, q, qd, j, k, twist, x_local, s);
        let vt = vp + vj;
        vaf[j] = vt;
        a = motion_to_child(x, a) + velocity_product(model, s, qd, j, vp, vj);
        for d in model.joint_qd_start[j]..model.joint_qd_start[j + 1] {
            a += s[d] * qdd[d];
        }
        vaf[nj + j] = a;
        let b = model.joint_child[j];
        let (m, h, i) = body_inertia_local(model, b);
        let mut fj = inertia_times(m, h, i, a) + spatial_cross_dual(vt, inertia_times(m, h, i, vt));
        if body_f.len() > 0 {
            let mut w = x;
            if k >= 0 {
                w = body_q[model.joint_child[k]] * x;
            }
            body_q[b] = w;
            fj -= wrench_in_body(model, b, w.q, body_f[b]);
        }
        vaf[2 * nj + j] = fj;
    }
    for step in 0..end - first {
        let j = end - 1 - step;
        let fj = vaf[2 * nj + j];
        for d in model.joint_qd_start[j]..model.joint_qd_start[j + 1] {
            tau[d] = dot(s[d], fj) + model.joint_armature[d] * qdd[d];
        }
        let k = model.joint_ancestor[j];
        if k >= 0 {
            vaf[2 * nj + k] = vaf[2 * nj + k] + force_to_parent(x_local[j], fj);
        }
    }
}

/// The recursion of [`rnea_tree`] over articulation `a`'s joints.
#[weft::func]
pub fn rnea_walk(
    model: &Model,
    a: i32,
    x_local: &Array<Transform>,
    body_q: &Array<Transform>,
    s: &Array<SpatialVector>,
    v: &Array<SpatialVector>,
    c: &Array<SpatialVector>,
    qdd: &Array<f32>,
    body_f: &Array<SpatialVector>,
    acc: &mut Array<SpatialVector>,
    f: &mut Array<SpatialVector>,
    tau: &mut Array<f32>,
) {
    let first = model.articulation_start[a];
    let end = model.articulation_start[a + 1];
    for j in first..end {
        let k = model.joint_ancestor[j];
        let mut a = SpatialVector::new(-model.gravity, Vec3::ZERO);
        if k >= 0 {
            a = acc[k];
        }
        a = motion_to_child(x_local[j], a) + c[j];
        for d in model.joint_qd_start[j]..model.joint_qd_start[j + 1] {
            a += s[d] * qdd[d];
        }
        acc[j] = a;
        let b = model.joint_child[j];
        let (m, h, i) = body_inertia_local(model, b);
        let vj = v[j];
        let mut fj = inertia_times(m, h, i, a) + spatial_cross_dual(vj, inertia_times(m, h, i, vj));
        if body_f.len() > 0 {
            fj -= wrench_in_body(model, b, body_q[b].q, body_f[b]);
        }
        f[j] = fj;
    }
    for step in 0..end - first {
        let j = end - 1 - step;
        let fj = f[j];
        for d in model.joint_qd_start[j]..model.joint_qd_start[j + 1] {
            tau[d] = dot(s[d], fj) + model.joint_armature[d] * qdd[d];
        }
        let k = model.joint_ancestor[j];
        if k >= 0 {
            f[k] = f[k] + force_to_parent(x_local[j], fj);
        }
    }
}

/// The mass matrix of articulation `tid()` by composite rigid bodies: each
/// subtree's composite inertia blocks (`ic`, three per joint, scratch)
/// summed from the leaves in place, each body's implicit damping `damp`
/// (nine columns per body, world; or empty) included, then each joint's
/// columns by [`write_mass_columns`] (layout as
/// [`crate::dynamics::eval_mass_matrix`]).
#[weft::kernel(forward_only)]
pub fn crba_tree(
    model: &Model,
    m_start: &Array<i32>,
    x_local: &Array<Transform>,
    body_q: &Array<Transform>,
    s: &Array<SpatialVector>,
    damp: &Array<Vec3>,
    ic: &mut Array<Mat3>,
    mass: &mut Array<f32>,
) {
    crba_walk(model, tid(), m_start, x_local, body_q, s, damp, ic, mass);
}

/// The mass matrix of articulation `tid()` at `q` by composite rigid
/// bodies, in one launch and without damping (layout as
/// [`crate::dynamics::eval_mass_matrix`]): from the roots, each joint's
/// transform (its rotation matrix `xr` and offset `xp`), subspace `s` and
/// child body's own inertia; from the leaves, each subtree's composite
/// inertia (compact: `hm` its first moment and mass, `ii` its rotational
/// inertia about the child's origin, one each per joint) added to its
/// parent's ([`inertia_to_parent`]), and, complete once its children's are
/// in, the joint's columns ([`write_mass_column`]). Every array but `mass`
/// is scratch, written before it is read.
#[weft::kernel(forward_only)]
pub fn mass_matrix_tree(
    model: &Model,
    m_start: &Array<i32>,
    q: &Array<f32>,
    xr: &mut Array<Mat3>,
    xp: &mut Array<Vec3>,
    s: &mut Array<SpatialVector>,
    hm: &mut Array<Vec4>,
    ii: &mut Array<Mat3>,
    mass: &mut Array<f32>,
) {
    let art = tid();
    let first = model.articulation_start[art];
    let end = model.articulation_start[art + 1];
    let d0 = model.joint_qd_start[first];
    let n = model.joint_qd_start[end] - d0;
    let base = m_start[art];
    for j in first..end {
        let x = joint_transform(model, q, j);
        xr[j] = quat_to_matrix(x.q);
        xp[j] = x.p;
        write_motion_subspace(model, q, 0, j, s, 0);
        let (m, h, i) = body_inertia_local(model, model.joint_child[j]);
        hm[j] = Vec4::new(h.x, h.y, h.z, m);
        ii[j] = i;
    }
    for step in 0..end - first {
        let j = end - 1 - step;
        let c = hm[j];
        let m = c.w;
        let h = Vec3::new(c.x, c.y, c.z);
        let i = ii[j];
        let k = model.joint_ancestor[j];
        if k >= 0 {
            let (hp, ip) = inertia_to_parent(xr[j], xp[j], m, h, i);
            hm[k] = hm[k] + Vec4::new(hp.x, hp.y, hp.z, m);
            ii[k] = ii[k] + ip;
        }
        for col in model.joint_qd_start[j]..model.joint_qd_start[j + 1] {
            let fc = inertia_times(m, h, i, s[col]);
            write_mass_column(model, xr, xp, s, fc, j, col - d0, d0, n, base, mass);
        }
    }
}

/// A spatial inertia (mass `m`, first moment `h`, rotational inertia `i`
/// about the origin, as [`body_inertia_local`]) of a frame whose pose in its
/// parent's is `(r, p)` (rotation matrix, offset), in the parent's frame
/// about its origin: the first moment `r h + m p` and the rotational inertia
/// `r i rᵀ + 2 (p · r h) 1 − p (r h)ᵀ − (r h) pᵀ + m (|p|² 1 − p pᵀ)` (the
/// mass is unchanged).
#[weft::func]
pub fn inertia_to_parent(r: Mat3, p: Vec3, m: f32, h: Vec3, i: Mat3) -> (Vec3, Mat3) {
    let hr = r * h;
    let pm = p * m;
    let shift = diag(Vec3::splat(2.0 * dot(p, hr) + dot(p, pm)));
    (
        hr + pm,
        r * i * transpose(r) + shift - outer(p, hr) - outer(hr, p) - outer(pm, p),
    )
}

/// Writes column `col` (relative to the articulation's first degree of
/// freedom `d0`; `n` degrees of freedom, the matrix at `base`) of the mass
/// matrix, a degree of freedom of joint `j`, and its symmetric entries:
/// `M[r][col] = S_rᵀ f` for the degrees of freedom `r` of `j` and of its
/// ancestors, `f` the momentum `fc = I_c(j) S_col` (in `j`'s child frame)
/// brought into each ancestor's frame one joint at a time (the joints'
/// rotations `xr` and offsets `xp`), as Featherstone's CRBA does.
#[weft::func]
pub fn write_mass_column(
    model: &Model,
    xr: &Array<Mat3>,
    xp: &Array<Vec3>,
    s: &Array<SpatialVector>,
    fc: SpatialVector,
    j: i32,
    col: i32,
    d0: i32,
    n: i32,
    base: i32,
    mass: &mut Array<f32>,
) {
    let mut f = fc;
    let mut k = j;
    while k >= 0 {
        for row in model.joint_qd_start[k]..model.joint_qd_start[k + 1] {
            let x = dot(s[row], f);
            mass[base + (row - d0) * n + col] = x;
            mass[base + col * n + row - d0] = x;
        }
        let parent = model.joint_ancestor[k];
        if parent >= 0 {
            // The wrench in the parent's frame: `(R f, R τ + p × R f)`.
            let r = xr[k];
            let lin = r * f.top;
            f = SpatialVector::new(lin, r * f.bottom + cross(xp[k], lin));
        }
        k = parent;
    }
}

/// The recursion of [`crba_tree`] over articulation `a`'s joints.
#[weft::func]
pub fn crba_walk(
    model: &Model,
    a: i32,
    m_start: &Array<i32>,
    x_local: &Array<Transform>,
    body_q: &Array<Transform>,
    s: &Array<SpatialVector>,
    damp: &Array<Vec3>,
    ic: &mut Array<Mat3>,
    mass: &mut Array<f32>,
) {
    let first = model.articulation_start[a];
    let end = model.articulation_start[a + 1];
    for j in first..end {
        let b = model.joint_child[j];
        let (m, h, i) = body_inertia_local(model, b);
        let mut ia = diag(Vec3::splat(m));
        let mut ib = -skew(h);
        let mut ii = i;
        if damp.len() > 0 {
            let (d0, d1, d2) = damping_blocks(damp, b);
            let (da, db, dc) = blocks_in_body(body_q[b].q, d0, d1, d2);
            ia += da;
            ib += db;
            ii += dc;
        }
        ic[3 * j] = ia;
        ic[3 * j + 1] = ib;
        ic[3 * j + 2] = ii;
    }
    for step in 0..end - first {
        let j = end - 1 - step;
        let k = model.joint_ancestor[j];
        if k >= 0 {
            let (xa, xb, xc) =
                blocks_to_parent(x_local[j], ic[3 * j], ic[3 * j + 1], ic[3 * j + 2]);
            ic[3 * k] = ic[3 * k] + xa;
            ic[3 * k + 1] = ic[3 * k + 1] + xb;
            ic[3 * k + 2] = ic[3 * k + 2] + xc;
        }
    }
    for j in first..end {
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
}

/// Joint efforts by [`rnea_tree`] from evaluated kinematics (see
/// [`Kinematics::efforts`]); not for a recording tape.
pub(crate) fn efforts(
    model: &Model,
    kin: &Kinematics,
    qdd: &Array<f32>,
    body_f: &Array<SpatialVector>,
    tau: &mut Array<f32>,
) -> Result<()> {
    debug_assert!(!Tape::is_recording());
    // Written before they are read: no fill needed.
    let mut acc = Pooled::<SpatialVector>::scratch(model, model.joint_count())?;
    let mut f = Pooled::<SpatialVector>::scratch(model, model.joint_count())?;
    weft::cpu::with_grain(1, || {
        rnea_tree::launch(
            model.articulation_count(),
            model,
            &kin.x_local,
            &kin.body_q,
            &kin.s,
            &kin.v,
            &kin.c,
            qdd,
            body_f,
            &mut acc,
            &mut f,
            tau,
        )
    })?;
    Ok(())
}

/// The mass matrices by [`crba_tree`] from evaluated kinematics (see
/// [`Kinematics::mass_matrix`]); not for a recording tape.
pub(crate) fn mass_matrix(
    model: &Model,
    layout: &ArticulationLayout,
    kin: &Kinematics,
    damp: &Array<Vec3>,
    mass: &mut Array<f32>,
) -> Result<()> {
    debug_assert!(!Tape::is_recording());
    let mut ic = Pooled::<Mat3>::scratch(model, 3 * model.joint_count())?;
    weft::cpu::with_grain(1, || {
        crba_tree::launch(
            model.articulation_count(),
            model,
            &layout.m_start,
            &kin.x_local,
            &kin.body_q,
            &kin.s,
            damp,
            &mut ic,
            mass,
        )
    })?;
    Ok(())
}

/// Inverse dynamics at `(q, qd, qdd)` by [`inverse_dynamics_tree`] (one
/// launch); not for a recording tape.
pub(crate) fn inverse_dynamics(
    model: &Model,
    q: &Array<f32>,
    qd: &Array<f32>,
    qdd: &Array<f32>,
    body_f: &Array<SpatialVector>,
    tau: &mut Array<f32>,
) -> Result<()> {
    debug_assert!(!Tape::is_recording());
    let nj = model.joint_count();
    // Scratch the kernel writes before it reads (no fill needed), the poses
    // only for external wrenches.
    let mut x_local = Pooled::<Transform>::scratch(model, nj)?;
    let poses = if body_f.is_empty() {
        0
    } else {
        model.body_count()
    };
    let mut body_q = Pooled::<Transform>::scratch(model, poses)?;
    let mut s = Pooled::<SpatialVector>::scratch(model, model.joint_dof_count())?;
    let mut vaf = Pooled::<SpatialVector>::scratch(model, 3 * nj)?;
    weft::cpu::with_grain(1, || {
        inverse_dynamics_tree::launch(
            model.articulation_count(),
            model,
            q,
            qd,
            qdd,
            body_f,
            &mut x_local,
            &mut body_q,
            &mut s,
            &mut vaf,
            tau,
        )
    })?;
    Ok(())
}

/// The mass matrices at `q` by [`mass_matrix_tree`] (one launch) into
/// `mass` (zero where two joints are not related: the kernel leaves those
/// entries as they are); not for a recording tape.
pub(crate) fn mass_matrix_at(
    model: &Model,
    layout: &ArticulationLayout,
    q: &Array<f32>,
    mass: &mut Array<f32>,
) -> Result<()> {
    debug_assert!(!Tape::is_recording());
    let nj = model.joint_count();
    // Scratch the kernel writes before it reads: no fill needed.
    let mut xr = Pooled::<Mat3>::scratch(model, nj)?;
    let mut xp = Pooled::<Vec3>::scratch(model, nj)?;
    let mut s = Pooled::<SpatialVector>::scratch(model, model.joint_dof_count())?;
    let mut hm = Pooled::<Vec4>::scratch(model, nj)?;
    let mut ii = Pooled::<Mat3>::scratch(model, nj)?;
    weft::cpu::with_grain(1, || {
        mass_matrix_tree::launch(
            model.articulation_count(),
            model,
            &layout.m_start,
            q,
            &mut xr,
            &mut xp,
            &mut s,
            &mut hm,
            &mut ii,
            mass,
        )
    })?;
    Ok(())
}
