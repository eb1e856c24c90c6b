//! The articulated-body algorithm as one thread per articulation: from
//! `(q, q̇)` in one launch ([`aba_tree`], for a call), or from kinematics
//! already evaluated ([`aba_kinematics_tree`], for the solver's step, which
//! has them for its contacts). Both share the walks from the leaves
//! ([`aba_inward`]) and from the roots ([`aba_outward`]).

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::Model;

use super::{body_inertia_local, walk_joint};
use crate::Result;
use crate::aba::{
    blocks_in_body, blocks_times, blocks_to_parent, dof_step, project_joint, wrench_in_body,
};
use crate::contacts::damping_blocks;
use crate::dynamics::Kinematics;
use crate::joint_math::{force_to_parent, inertia_times, motion_to_child};
use crate::kinematics::velocity_product;
use crate::scratch::{self, Pooled};

/// Forward dynamics of articulation `tid()` by the articulated-body
/// algorithm: `q̈` at `(q, qd)` under gravity, efforts `tau` and external
/// wrenches `body_f` (per body, world, at the centre of mass; or empty), the
/// pivots raised by `diag_d` (and the ball joints' by `w wᵀ`, see
/// [`crate::aba::project_ball`]; `w` may be empty), each body's implicit damping `damp` (three
/// blocks per body, see [`crate::aba::eval_local_loads`]; or empty) added to
/// its inertia. The other arrays are per-joint scratch (`inertia` three per
/// joint, `vc` the twists and the accelerations at `q̈ = 0`, two per joint,
/// `c` the velocity products, `s`, `dof_u` per degree of freedom, `dof_db`
/// two per degree of freedom), overwritten; `x_local` and `s` hold the
/// kinematics afterwards, `world` the child bodies' world poses (per joint;
/// written only when `damp` or `body_f` is given, which need them: otherwise
/// it may be empty), and `vc`'s first half the children's accelerations.
#[weft::kernel(forward_only)]
pub fn aba_tree(
    model: &Model,
    q: &Array<f32>,
    qd: &Array<f32>,
    tau: &Array<f32>,
    diag_d: &Array<f32>,
    w: &Array<f32>,
    body_f: &Array<SpatialVector>,
    damp: &Array<Vec3>,
    x_local: &mut Array<Transform>,
    world: &mut Array<Transform>,
    s: &mut Array<SpatialVector>,
    vc: &mut Array<SpatialVector>,
    c: &mut Array<SpatialVector>,
    inertia: &mut Array<Mat3>,
    bias: &mut Array<SpatialVector>,
    dof_u: &mut Array<SpatialVector>,
    dof_db: &mut Array<f32>,
    qdd: &mut Array<f32>,
) {
    let first = model.articulation_start[tid()];
    let end = model.articulation_start[tid() + 1];
    let nj = model.joint_type.len() as i32;
    let loads = damp.len() > 0 || body_f.len() > 0;
    // Roots to leaves: transforms, subspaces, twists, each child body's own
    // inertia and bias force.
    for j in first..end {
        let k = model.joint_ancestor[j];
        let mut twist = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
        if k >= 0 {
            twist = vc[k];
        }
        let (x, vp, vj) = walk_joint(model, q, qd, j, k, twist, x_local, s);
        // The world pose, for the loads only.
        let mut wp = x;
        if loads {
            if k >= 0 {
                wp = world[k] * x;
            }
            world[j] = wp;
        }
        let vt = vp + vj;
        vc[j] = vp + vj;
        let cj = velocity_product(model, s, qd, j, vp, vj);
        c[j] = cj;
        // The child's acceleration at q̈ = 0 (gravity as the base's `−g`).
        let mut a0 = SpatialVector::new(-model.gravity, Vec3::ZERO);
        if k >= 0 {
            a0 = vc[nj + k];
        }
        a0 = motion_to_child(x, a0) + cj;
        vc[nj + j] = a0;
        body_terms(model, j, vt, a0, wp.q, body_f, damp, inertia, bias);
    }
    aba_inward(
        model, first, end, x_local, s, c, tau, diag_d, w, dof_u, dof_db, inertia, bias,
    );
    aba_outward(model, first, end, x_local, s, c, dof_u, dof_db, vc, qdd);
}

/// [`aba_tree`] from the kinematics at `(q, q̇)` (as [`super::kinematics_tree`]
/// writes them: `x_local`, `body_q` per body, `s`, the twists `v` and the
/// velocity products `c`), which it reads instead of evaluating them again:
/// the same operations on the same values, so the same `q̈`. `acc` (one per
/// joint) holds the accelerations at `q̈ = 0`, then the children's
/// accelerations; the other scratch as [`aba_tree`]'s.
#[weft::kernel(forward_only)]
pub fn aba_kinematics_tree(
    model: &Model,
    x_local: &Array<Transform>,
    body_q: &Array<Transform>,
    s: &Array<SpatialVector>,
    v: &Array<SpatialVector>,
    c: &Array<SpatialVector>,
    tau: &Array<f32>,
    diag_d: &Array<f32>,
    w: &Array<f32>,
    body_f: &Array<SpatialVector>,
    damp: &Array<Vec3>,
    acc: &mut Array<SpatialVector>,
    inertia: &mut Array<Mat3>,
    bias: &mut Array<SpatialVector>,
    dof_u: &mut Array<SpatialVector>,
    dof_db: &mut Array<f32>,
    qdd: &mut Array<f32>,
) {
    let first = model.articulation_start[tid()];
    let end = model.articulation_start[tid() + 1];
    for j in first..end {
        let k = model.joint_ancestor[j];
        let b = model.joint_child[j];
        let mut a0 = SpatialVector::new(-model.gravity, Vec3::ZERO);
        if k >= 0 {
            a0 = acc[k];
        }
        a0 = motion_to_child(x_local[j], a0) + c[j];
        acc[j] = a0;
        body_terms(model, j, v[j], a0, body_q[b].q, body_f, damp, inertia, bias);
    }
    aba_inward(
        model, first, end, x_local, s, c, tau, diag_d, w, dof_u, dof_db, inertia, bias,
    );
    aba_outward(model, first, end, x_local, s, c, dof_u, dof_db, acc, qdd);
}

/// Joint `j`'s child body's own articulated inertia (three blocks into
/// `inertia`) and bias force (into `bias`), at twist `vt` and acceleration
/// at `q̈ = 0` `a0` (child frame), its world orientation `r` (read only
/// with `damp` or `body_f`): the implicit damping `damp` (or empty) added to
/// the inertia, resisting only the velocity that the joints' accelerations
/// give, and the external wrench `body_f` (or empty) taken from the bias.
#[weft::func]
pub fn body_terms(
    model: &Model,
    j: i32,
    vt: SpatialVector,
    a0: SpatialVector,
    r: Quat,
    body_f: &Array<SpatialVector>,
    damp: &Array<Vec3>,
    inertia: &mut Array<Mat3>,
    bias: &mut Array<SpatialVector>,
) {
    let b = model.joint_child[j];
    let (m, h, i) = body_inertia_local(model, b);
    let ia = diag(Vec3::splat(m));
    let ib = -skew(h);
    let mut p = spatial_cross_dual(vt, inertia_times(m, h, i, vt));
    if damp.len() > 0 {
        let (d0, d1, d2) = damping_blocks(damp, b);
        let (da, db, dc) = blocks_in_body(r, d0, d1, d2);
        inertia[3 * j] = ia + da;
        inertia[3 * j + 1] = ib + db;
        inertia[3 * j + 2] = i + dc;
        // The damping resists the velocity the joints' accelerations
        // give (`J q̈`), as CRBA's `M + h D` does: not the part of `a`
        // that gravity (as a base acceleration) and `c` make.
        p -= blocks_times(da, db, dc, a0);
    } else {
        inertia[3 * j] = ia;
        inertia[3 * j + 1] = ib;
        inertia[3 * j + 2] = i;
    }
    if body_f.len() > 0 {
        p -= wrench_in_body(model, b, r, body_f[b]);
    }
    bias[j] = p;
}

/// Leaves to roots over joints `first..end`: project each joint's
/// articulated inertia and bias (`c` its velocity product) through its
/// degrees of freedom and add them to its parent's.
#[weft::func]
pub fn aba_inward(
    model: &Model,
    first: i32,
    end: i32,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    c: &Array<SpatialVector>,
    tau: &Array<f32>,
    diag_d: &Array<f32>,
    w: &Array<f32>,
    dof_u: &mut Array<SpatialVector>,
    dof_db: &mut Array<f32>,
    inertia: &mut Array<Mat3>,
    bias: &mut Array<SpatialVector>,
) {
    for step in 0..end - first {
        let j = end - 1 - step;
        // The projected inertia and bias replace the joint's own.
        project_joint(
            model,
            j,
            s,
            tau,
            diag_d,
            w,
            inertia[3 * j],
            inertia[3 * j + 1],
            inertia[3 * j + 2],
            bias[j],
            c[j],
            dof_u,
            dof_db,
            inertia,
            bias,
        );
        let k = model.joint_ancestor[j];
        if k >= 0 {
            let x = x_local[j];
            let (xa, xb, xc) =
                blocks_to_parent(x, inertia[3 * j], inertia[3 * j + 1], inertia[3 * j + 2]);
            inertia[3 * k] = inertia[3 * k] + xa;
            inertia[3 * k + 1] = inertia[3 * k + 1] + xb;
            inertia[3 * k + 2] = inertia[3 * k + 2] + xc;
            bias[k] = bias[k] + force_to_parent(x, bias[j]);
        }
    }
}

/// Roots to leaves over joints `first..end`: `q̈` and each child's
/// acceleration into `acc` (a parent's slot holds its acceleration by the
/// time its children read it; the children's slots are only written).
#[weft::func]
pub fn aba_outward(
    model: &Model,
    first: i32,
    end: i32,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    c: &Array<SpatialVector>,
    dof_u: &Array<SpatialVector>,
    dof_db: &Array<f32>,
    acc: &mut Array<SpatialVector>,
    qdd: &mut Array<f32>,
) {
    for j in first..end {
        let k = model.joint_ancestor[j];
        let mut a = SpatialVector::new(-model.gravity, Vec3::ZERO);
        if k >= 0 {
            a = acc[k];
        }
        a = motion_to_child(x_local[j], a) + c[j];
        let ball = model.joint_type[j] == 2;
        let before = a;
        for d in model.joint_qd_start[j]..model.joint_qd_start[j + 1] {
            let (x, next) = dof_step(s[d], dof_u[d], dof_db, d, a, before, ball);
            qdd[d] = x;
            a = next;
        }
        acc[j] = a;
    }
}

/// The scratch both kernels share: articulated inertias, biases, and the
/// projections per degree of freedom.
struct Projections {
    inertia: Pooled<Mat3>,
    bias: Pooled<SpatialVector>,
    dof_u: Pooled<SpatialVector>,
    dof_db: Pooled<f32>,
}

impl Projections {
    /// Written before they are read: no fill needed.
    fn new(model: &Model) -> Result<Projections> {
        let (nj, nd) = (model.joint_count(), model.joint_dof_count());
        Ok(Projections {
            inertia: Pooled::scratch(model, 3 * nj)?,
            bias: Pooled::scratch(model, nj)?,
            dof_u: Pooled::scratch(model, nd)?,
            dof_db: Pooled::scratch(model, 2 * nd)?,
        })
    }
}

/// `q̈` by [`aba_tree`] (see [`crate::aba::accelerations`] for the
/// arguments); not for a recording tape.
#[allow(clippy::too_many_arguments)] // the solver's terms, each an array
pub(crate) fn accelerations(
    model: &Model,
    q: &Array<f32>,
    qd: &Array<f32>,
    tau: &Array<f32>,
    diag: &Array<f32>,
    w: &Array<f32>,
    body_f: &Array<SpatialVector>,
    damp: &Array<Vec3>,
) -> Result<Array<f32>> {
    debug_assert!(!Tape::is_recording());
    let (nj, nd) = (model.joint_count(), model.joint_dof_count());
    let mut qdd = scratch::floats(model, nd)?;
    if nj == 0 {
        return Ok(qdd);
    }
    // Scratch that `aba_tree` writes before reading (no fill needed); the
    // world poses only where loads need them.
    let loads = !body_f.is_empty() || !damp.is_empty();
    let mut x_local = Pooled::<Transform>::scratch(model, nj)?;
    let mut world = Pooled::<Transform>::scratch(model, if loads { nj } else { 0 })?;
    let mut s = Pooled::<SpatialVector>::scratch(model, nd)?;
    let mut vc = Pooled::<SpatialVector>::scratch(model, 2 * nj)?;
    let mut c = Pooled::<SpatialVector>::scratch(model, nj)?;
    let mut p = Projections::new(model)?;
    weft::cpu::with_grain(1, || {
        aba_tree::launch(
            model.articulation_count(),
            model,
            q,
            qd,
            tau,
            diag,
            w,
            body_f,
            damp,
            &mut x_local,
            &mut world,
            &mut s,
            &mut vc,
            &mut c,
            &mut p.inertia,
            &mut p.bias,
            &mut p.dof_u,
            &mut p.dof_db,
            &mut qdd,
        )
    })?;
    Ok(qdd)
}

/// `q̈` by [`aba_kinematics_tree`] from evaluated kinematics `kin` (the
/// other arguments as [`accelerations`]'); not for a recording tape.
#[allow(clippy::too_many_arguments)] // the solver's terms, each an array
pub(crate) fn accelerations_from(
    model: &Model,
    kin: &Kinematics,
    tau: &Array<f32>,
    diag: &Array<f32>,
    w: &Array<f32>,
    body_f: &Array<SpatialVector>,
    damp: &Array<Vec3>,
) -> Result<Array<f32>> {
    debug_assert!(!Tape::is_recording());
    let (nj, nd) = (model.joint_count(), model.joint_dof_count());
    let mut qdd = scratch::floats(model, nd)?;
    if nj == 0 {
        return Ok(qdd);
    }
    let mut acc = Pooled::<SpatialVector>::scratch(model, nj)?;
    let mut p = Projections::new(model)?;
    weft::cpu::with_grain(1, || {
        aba_kinematics_tree::launch(
            model.articulation_count(),
            model,
            &kin.x_local,
            &kin.body_q,
            &kin.s,
            &kin.v,
            &kin.c,
            tau,
            diag,
            w,
            body_f,
            damp,
            &mut acc,
            &mut p.inertia,
            &mut p.bias,
            &mut p.dof_u,
            &mut p.dof_db,
            &mut qdd,
        )
    })?;
    Ok(qdd)
}
