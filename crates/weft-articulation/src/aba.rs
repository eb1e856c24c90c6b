//! Forward dynamics by the articulated-body algorithm (Featherstone's ABA,
//! `O(n)`), as launches over the levels of the joint trees.
//!
//! ABA's passes are recursions: articulated inertias from the leaves to the
//! roots, then accelerations from the roots to the leaves. The tape refuses a
//! kernel that reads what it writes, so each pass runs one launch per tree
//! level (the joints at one depth, all articulations at once), each reading
//! the arrays the previous level's launch wrote and writing arrays of its own
//! (one set per level): every value is written once and the passes stay
//! differentiable, for `O(n)` work in `2 · depth` launches.
//!
//! A joint of several degrees of freedom is treated as a chain of one-axis
//! joints joined by massless links in the same frame (exactly equivalent: the
//! wrench through every link of the chain is the child's), so every pivot
//! `D = sᵀ I s + armature` is a scalar and no small matrix is inverted —
//! except at a ball joint, projected as one block with a 3 × 3 pivot
//! ([`project_ball`]) so that the implicit part of its cone limit, which
//! couples its axes, is exact. The velocity product `c = Ṡ q̇` of the joint
//! enters once, on the parent side.
//! Spatial quantities are in each joint's child body frame, as in
//! [`crate::dynamics`]; an articulated inertia is stored as three blocks
//! `(A, B, C)` with `I (v, ω) = (A v + B ω, Bᵀ v + C ω)`.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::{Model, SimError};

use crate::contacts::damping_blocks;
use crate::dynamics::Kinematics;
use crate::joint_math::{body_inertia, force_to_parent, motion_to_child};
use crate::{Result, scratch};

/// `(A, B, C) · m`: the product of an articulated inertia and a twist.
#[weft::func]
pub fn blocks_times(a: Mat3, b: Mat3, c: Mat3, m: SpatialVector) -> SpatialVector {
    SpatialVector::new(
        a * m.top + b * m.bottom,
        transpose(b) * m.top + c * m.bottom,
    )
}

/// An articulated inertia `(A, B, C)` in the frame of a child whose pose in
/// its parent is `t`, expressed in the parent's frame: `X* I X⁻¹` with
/// `A' = R A Rᵀ` (and `B'`, `C'`), `P = [p]×`: `(A', B' − A' P,
/// C' + P B' − B'ᵀ P − P A' P)`.
#[weft::func]
pub fn blocks_to_parent(t: Transform, a: Mat3, b: Mat3, c: Mat3) -> (Mat3, Mat3, Mat3) {
    let r = quat_to_matrix(t.q);
    let ra = r * a * transpose(r);
    let rb = r * b * transpose(r);
    let rc = r * c * transpose(r);
    let p = skew(t.p);
    (
        ra,
        rb - ra * p,
        rc + p * rb - transpose(rb) * p - p * ra * p,
    )
}

/// One step of ABA's projection through a degree of freedom with motion
/// subspace `sd`: from the articulated inertia `(a, b, c)` and bias force `p`
/// below it, the column `U = I s`, the pivot `D = sᵀ U + extra` (armature,
/// implicit terms), `u = τ − sᵀ p`, and the inertia and bias the next degree
/// of freedom up sees: `I − U Uᵀ / D`, `p + U u / D`.
#[weft::func]
pub fn project_dof(
    a: Mat3,
    b: Mat3,
    c: Mat3,
    p: SpatialVector,
    sd: SpatialVector,
    tau: f32,
    extra: f32,
) -> (SpatialVector, f32, f32, Mat3, Mat3, Mat3, SpatialVector) {
    let u = blocks_times(a, b, c, sd);
    let pivot = dot(sd, u) + extra;
    let bias = tau - dot(sd, p);
    (
        u,
        pivot,
        bias,
        a - outer(u.top, u.top) / pivot,
        b - outer(u.top, u.bottom) / pivot,
        c - outer(u.bottom, u.bottom) / pivot,
        p + u * (bias / pivot),
    )
}

/// One step of ABA's accelerations through a degree of freedom: from the
/// acceleration `a` before it, `q̈ = (u − Uᵀ a) / D` (`db = (D, u)` and `U`
/// of [`project_dof`]) and the acceleration after it, `a + s q̈`.
#[weft::func]
pub fn dof_acceleration(
    sd: SpatialVector,
    u: SpatialVector,
    pivot: f32,
    bias: f32,
    a: SpatialVector,
) -> (f32, SpatialVector) {
    let x = (bias - dot(u, a)) / pivot;
    (x, a + sd * x)
}

/// [`dof_acceleration`] of degree of freedom `d` (`u`, `dof_db` of the
/// leaf-to-root pass) from the acceleration `a` after the joint's earlier
/// axes — or, for a ball joint's block ([`project_ball`]), from `before`,
/// the acceleration before the joint; returns `q̈_d` and `a + s q̈_d`.
#[weft::func]
pub fn dof_step(
    sd: SpatialVector,
    u: SpatialVector,
    dof_db: &Array<f32>,
    d: i32,
    a: SpatialVector,
    before: SpatialVector,
    ball: bool,
) -> (f32, SpatialVector) {
    let mut from = a;
    if ball {
        from = before;
    }
    let (x, _next) = dof_acceleration(sd, u, dof_db[2 * d], dof_db[2 * d + 1], from);
    (x, a + sd * x)
}

/// The leaf-to-root pass for the joints `joints` of one tree level: each
/// joint's articulated inertia and bias force (its child body's, plus its
/// children's projected ones `next_*` from the level below, brought into its
/// frame), projected through its degrees of freedom from the last to the
/// first. Writes per degree of freedom `U = I s`, and `D = sᵀ U + diag`
/// (the armature, or the solver's implicit diagonal; `w` the ball joints'
/// rank-one implicit parts, see [`project_ball`]), `u = τ − sᵀ p` (at
/// `2d`, `2d + 1` of `dof_db`) and, per joint, the projected `(A, B, C)` (at
/// `3j..3j + 3` of `out_i`) and `p` that the parent's level reads. `fext`
/// holds each child body's external wrench in its frame (or nothing). The
/// children of `j` are `children[children[j]..children[j + 1]]`.
#[weft::kernel]
pub fn aba_backward_level(
    model: &Model,
    joints: &Array<i32>,
    children: &Array<i32>,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    v: &Array<SpatialVector>,
    c: &Array<SpatialVector>,
    tau: &Array<f32>,
    diag_d: &Array<f32>,
    w: &Array<f32>,
    loads: &BodyLoads,
    next_i: &Array<Mat3>,
    next_p: &Array<SpatialVector>,
    dof_u: &mut Array<SpatialVector>,
    dof_db: &mut Array<f32>,
    out_i: &mut Array<Mat3>,
    out_p: &mut Array<SpatialVector>,
) {
    let j = joints[tid()];
    let (m, h, i) = body_inertia(
        model,
        model.joint_child[j],
        Transform::new(Vec3::ZERO, Quat::IDENTITY),
    );
    let mut ia = diag(Vec3::splat(m));
    let mut ib = -skew(h);
    let mut ic = i;
    let vj = v[j];
    let mut p = spatial_cross_dual(vj, blocks_times(ia, ib, ic, vj));
    if loads.fext.len() > 0 {
        p -= loads.fext[j];
    }
    if loads.damp.len() > 0 {
        ia += loads.damp[3 * j];
        ib += loads.damp[3 * j + 1];
        ic += loads.damp[3 * j + 2];
    }
    for k in children[j]..children[j + 1] {
        let ch = children[k];
        let t = x_local[ch];
        let (xa, xb, xc) =
            blocks_to_parent(t, next_i[3 * ch], next_i[3 * ch + 1], next_i[3 * ch + 2]);
        ia += xa;
        ib += xb;
        ic += xc;
        p += force_to_parent(t, next_p[ch]);
    }
    project_joint(
        model, j, s, tau, diag_d, w, ia, ib, ic, p, c[j], dof_u, dof_db, out_i, out_p,
    );
}

/// Projects joint `j`'s articulated inertia `(a, b, c)` and bias force `p`
/// (its subtree's, in its child's frame) through its degrees of freedom
/// from the last to the first ([`project_dof`]; writes `dof_u`, `dof_db`),
/// and writes what its parent sees, in its child's frame: the projected
/// inertia at `3j..3j + 3` of `out_i` and bias plus `I cj` (the velocity
/// product `cj`) at `out_p[j]`.
#[weft::func]
pub fn project_joint(
    model: &Model,
    j: i32,
    s: &Array<SpatialVector>,
    tau: &Array<f32>,
    diag_d: &Array<f32>,
    w: &Array<f32>,
    a: Mat3,
    b: Mat3,
    c: Mat3,
    p: SpatialVector,
    cj: SpatialVector,
    dof_u: &mut Array<SpatialVector>,
    dof_db: &mut Array<f32>,
    out_i: &mut Array<Mat3>,
    out_p: &mut Array<SpatialVector>,
) {
    let mut ia = a;
    let mut ib = b;
    let mut ic = c;
    let mut pa = p;
    let ds = model.joint_qd_start[j];
    let n = model.joint_qd_start[j + 1] - ds;
    if model.joint_type[j] == 2 {
        let (a2, b2, c2, p2, ut, ub, x) = project_ball(ds, s, tau, diag_d, w, a, b, c, p);
        ia = a2;
        ib = b2;
        ic = c2;
        pa = p2;
        dof_u[ds] = SpatialVector::new(ut.x_axis, ub.x_axis);
        dof_u[ds + 1] = SpatialVector::new(ut.y_axis, ub.y_axis);
        dof_u[ds + 2] = SpatialVector::new(ut.z_axis, ub.z_axis);
        dof_db[2 * ds] = 1.0;
        dof_db[2 * ds + 1] = x.x;
        dof_db[2 * ds + 2] = 1.0;
        dof_db[2 * ds + 3] = x.y;
        dof_db[2 * ds + 4] = 1.0;
        dof_db[2 * ds + 5] = x.z;
    } else {
        for step in 0..n {
            let d = ds + n - 1 - step;
            let (u, pivot, bias, a2, b2, c2, p2) =
                project_dof(ia, ib, ic, pa, s[d], tau[d], diag_d[d]);
            dof_u[d] = u;
            dof_db[2 * d] = pivot;
            dof_db[2 * d + 1] = bias;
            ia = a2;
            ib = b2;
            ic = c2;
            pa = p2;
        }
    }
    out_i[3 * j] = ia;
    out_i[3 * j + 1] = ib;
    out_i[3 * j + 2] = ic;
    out_p[j] = pa + blocks_times(ia, ib, ic, cj);
}

/// The projection of a ball joint's three degrees of freedom `ds..ds + 3` as
/// one block: `U = I S` (`S` the three columns `s`), the 3 × 3 pivot `D = Sᵀ
/// U + diag(d) + w wᵀ` (`w = w[ds..ds + 3]`, the cone limit's implicit part,
/// or none where `w` is empty), `u = τ − Sᵀ p`; returns what the parent sees,
/// `I − U D⁻¹ Uᵀ` (three blocks) and `p + U D⁻¹ u`, then `U D⁻¹` (its
/// linear and angular rows as two matrices) and `D⁻¹ u`, which
/// [`project_joint`] stores for the root-to-leaf pass (per degree of freedom
/// `k`: the column `k` of `U D⁻¹`, the pivot 1 and `(D⁻¹ u)ₖ`), so that
/// `q̈ = D⁻¹ (u − Uᵀ a)` reads them as [`dof_acceleration`] does — every
/// axis from the acceleration `a` before the joint.
#[weft::func]
pub fn project_ball(
    ds: i32,
    s: &Array<SpatialVector>,
    tau: &Array<f32>,
    diag_d: &Array<f32>,
    w: &Array<f32>,
    a: Mat3,
    b: Mat3,
    c: Mat3,
    p: SpatialVector,
) -> (Mat3, Mat3, Mat3, SpatialVector, Mat3, Mat3, Vec3) {
    let s0 = s[ds];
    let s1 = s[ds + 1];
    let s2 = s[ds + 2];
    let u0 = blocks_times(a, b, c, s0);
    let u1 = blocks_times(a, b, c, s1);
    let u2 = blocks_times(a, b, c, s2);
    let mut dm = Mat3::from_cols(
        Vec3::new(dot(s0, u0), dot(s1, u0), dot(s2, u0)),
        Vec3::new(dot(s0, u1), dot(s1, u1), dot(s2, u1)),
        Vec3::new(dot(s0, u2), dot(s1, u2), dot(s2, u2)),
    ) + diag(Vec3::new(diag_d[ds], diag_d[ds + 1], diag_d[ds + 2]));
    if w.len() > 0 {
        let wv = Vec3::new(w[ds], w[ds + 1], w[ds + 2]);
        dm += outer(wv, wv);
    }
    let dinv = inverse(dm);
    let u = Vec3::new(
        tau[ds] - dot(s0, p),
        tau[ds + 1] - dot(s1, p),
        tau[ds + 2] - dot(s2, p),
    );
    let top = Mat3::from_cols(u0.top, u1.top, u2.top);
    let bot = Mat3::from_cols(u0.bottom, u1.bottom, u2.bottom);
    let ut = top * dinv;
    let ub = bot * dinv;
    (
        a - ut * transpose(top),
        b - ut * transpose(bot),
        c - ub * transpose(bot),
        p + SpatialVector::new(ut * u, ub * u),
        ut,
        ub,
        dinv * u,
    )
}

/// What acts on each joint's child body besides gravity, in the body's
/// frame about its origin, for ABA's leaf-to-root pass: external wrenches
/// and implicit damping. Either array may be empty (none).
#[weft::structure]
pub struct BodyLoads {
    /// Per joint: its child's external wrench.
    pub fext: Array<SpatialVector>,
    /// Per joint, three blocks `(A, B, C)` at `3j..3j + 3`: its child's
    /// implicit damping times the step (added to its spatial inertia).
    pub damp: Array<Mat3>,
}

/// Each joint's child body's external wrench `body_f` (force at the centre
/// of mass, torque; world) and implicit damping `damp` (nine columns per
/// body, world axes, about the body origin; see
/// [`crate::contacts::add_point_damping`]) in the body's frame, into
/// `loads` (an empty input leaves its output alone).
#[weft::kernel]
pub fn eval_local_loads(
    model: &Model,
    body_q: &Array<Transform>,
    body_f: &Array<SpatialVector>,
    damp: &Array<Vec3>,
    x_local: &Array<Transform>,
    c: &Array<SpatialVector>,
    loads: &mut BodyLoads,
) {
    let j = tid();
    let b = model.joint_child[j];
    let r = body_q[b].q;
    let mut fe = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
    if body_f.len() > 0 {
        fe = wrench_in_body(model, b, r, body_f[b]);
    }
    if damp.len() > 0 {
        let (da, db, dc) = damping_blocks(damp, b);
        let (a2, b2, c2) = blocks_in_body(r, da, db, dc);
        loads.damp[3 * j] = a2;
        loads.damp[3 * j + 1] = b2;
        loads.damp[3 * j + 2] = c2;
        if loads.fext.len() > 0 {
            // The damping resists `J q̈` only (see `tree::body_terms`): take
            // back what it would do to the child's acceleration at q̈ = 0.
            fe += blocks_times(a2, b2, c2, acceleration_at_rest(model, x_local, c, j));
        }
    }
    if loads.fext.len() > 0 {
        loads.fext[j] = fe;
    }
}

/// Joint `j`'s child's spatial acceleration at `q̈ = 0` in its frame:
/// the base's `−g` brought down the tree with each joint's velocity
/// product `c` added.
#[weft::func]
pub fn acceleration_at_rest(
    model: &Model,
    x_local: &Array<Transform>,
    c: &Array<SpatialVector>,
    j: i32,
) -> SpatialVector {
    let mut a = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
    // The pose of j's child in the child body of joint k.
    let mut t = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    let mut k = j;
    while k >= 0 {
        a += motion_to_child(t, c[k]);
        t = x_local[k] * t;
        k = model.joint_ancestor[k];
    }
    a + motion_to_child(t, SpatialVector::new(-model.gravity, Vec3::ZERO))
}

/// Blocks `(A, B, C)` of a 6 × 6 matrix in world axes in the axes of a body
/// turned by `r`: `Rᵀ X R` each.
#[weft::func]
pub fn blocks_in_body(r: Quat, a: Mat3, b: Mat3, c: Mat3) -> (Mat3, Mat3, Mat3) {
    let m = quat_to_matrix(r);
    let mt = transpose(m);
    (mt * a * m, mt * b * m, mt * c * m)
}

/// Body `b`'s external wrench `fe` (force at the centre of mass, torque;
/// world) in the body's frame (rotation `r` in the world) about its origin.
#[weft::func]
pub fn wrench_in_body(model: &Model, b: i32, r: Quat, fe: SpatialVector) -> SpatialVector {
    let lin = quat_rotate_inv(r, fe.top);
    SpatialVector::new(
        lin,
        quat_rotate_inv(r, fe.bottom) + cross(model.body_com[b], lin),
    )
}

/// The root-to-leaf pass for the joints `joints` of one tree level: the
/// child's acceleration from its parent's `prev_acc` (the level above; the
/// base's `−g` for a root) plus `c`, then each degree of freedom's
/// `q̈ = (u − Uᵀ a) / D` and `a += s q̈` in order. Writes `qdd` of the joint's
/// degrees of freedom and its child's acceleration `acc`.
#[weft::kernel]
pub fn aba_forward_level(
    model: &Model,
    joints: &Array<i32>,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    c: &Array<SpatialVector>,
    dof_u: &Array<SpatialVector>,
    dof_db: &Array<f32>,
    prev_acc: &Array<SpatialVector>,
    acc: &mut Array<SpatialVector>,
    qdd: &mut Array<f32>,
) {
    let j = joints[tid()];
    let k = model.joint_ancestor[j];
    let mut a = SpatialVector::new(-model.gravity, Vec3::ZERO);
    if k >= 0 {
        a = prev_acc[k];
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

/// The joints of every tree level and each joint's children: made once per
/// model for [`forward_dynamics_aba`].
pub struct AbaLayout {
    levels: Vec<Array<i32>>,
    children: Array<i32>,
    joints: usize,
    dofs: usize,
}

impl AbaLayout {
    /// The levels of `model`'s joint trees (roots first).
    pub fn new(model: &Model) -> Result<Self> {
        let ancestor = model.joint_ancestor.to_vec();
        let nj = ancestor.len();
        let mut depth = vec![0usize; nj];
        let mut children = vec![Vec::new(); nj];
        for j in 0..nj {
            // Parents come before children (weft-sim's order).
            if ancestor[j] >= 0 {
                let a = ancestor[j] as usize;
                depth[j] = depth[a] + 1;
                children[a].push(j as i32);
            }
        }
        let device = model.device();
        let count = depth.iter().max().map_or(0, |d| d + 1);
        let mut levels = Vec::with_capacity(count);
        for l in 0..count {
            let js: Vec<i32> = (0..nj)
                .filter(|&j| depth[j] == l)
                .map(|j| j as i32)
                .collect();
            levels.push(Array::try_from_slice(device, &js)?);
        }
        // Offsets of each joint's children (nj + 1 of them), then the lists.
        let mut flat = vec![0i32; nj + 1];
        for (j, ch) in children.iter().enumerate() {
            flat[j] = flat.len() as i32;
            flat.extend(ch);
        }
        flat[nj] = flat.len() as i32;
        Ok(AbaLayout {
            levels,
            children: Array::try_from_slice(device, &flat)?,
            joints: nj,
            dofs: model.joint_dof_count(),
        })
    }

    /// The number of tree levels (the deepest joint's depth plus one).
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }

    pub(crate) fn check(&self, model: &Model) -> Result<()> {
        if (self.joints, self.dofs) == (model.joint_count(), model.joint_dof_count()) {
            Ok(())
        } else {
            Err(SimError::Mismatch(format!(
                "the ABA layout was made for {} joints and {} degrees of freedom; the model has {} and {} (make it from this model)",
                self.joints,
                self.dofs,
                model.joint_count(),
                model.joint_dof_count()
            )))
        }
    }
}

/// Forward dynamics by the articulated-body algorithm: `q̈` at `(q, qd)` under
/// gravity and efforts `tau`, the same as
/// [`forward_dynamics`](crate::forward_dynamics) (armature included; no
/// drives, damping or limits) in `O(n)` work instead of `O(n³)`, as a new
/// array. Differentiable through the tape. `layout` comes from
/// [`AbaLayout::new`] for this model.
pub fn forward_dynamics_aba(
    model: &Model,
    layout: &AbaLayout,
    q: &Array<f32>,
    qd: &Array<f32>,
    tau: &Array<f32>,
) -> Result<Array<f32>> {
    crate::check_coords(model, q, qd)?;
    let nd = model.joint_dof_count();
    crate::check_len("tau", tau.len(), nd)?;
    layout.check(model)?;
    let none = scratch::vectors(model, 0)?;
    let no_damping = scratch::vec3s(model, 0)?;
    if !Tape::is_recording() {
        return crate::tree::accelerations(
            model,
            q,
            qd,
            tau,
            &model.joint_armature,
            &scratch::floats(model, 0)?,
            &none,
            &no_damping,
        );
    }
    let kin = Kinematics::eval(model, q, qd)?;
    accelerations(
        model,
        layout,
        &kin,
        tau,
        &model.joint_armature,
        &scratch::floats(model, 0)?,
        &none,
        &no_damping,
    )
}

/// `q̈` by ABA from evaluated kinematics: efforts `tau`, the diagonal `diag`
/// added to each pivot (armature and implicit terms), the ball joints'
/// rank-one implicit parts `w` (see [`project_ball`]; or empty), external wrenches
/// `body_f` per body (or empty). For [`forward_dynamics_aba`] and the
/// [`FeatherstoneSolver`](crate::FeatherstoneSolver).
#[allow(clippy::too_many_arguments)] // the solver's terms, each an array
pub(crate) fn accelerations(
    model: &Model,
    layout: &AbaLayout,
    kin: &Kinematics,
    tau: &Array<f32>,
    diag: &Array<f32>,
    w: &Array<f32>,
    body_f: &Array<SpatialVector>,
    damp: &Array<Vec3>,
) -> Result<Array<f32>> {
    let (nj, nd) = (model.joint_count(), model.joint_dof_count());
    let mut qdd = scratch::floats(model, nd)?;
    if nj == 0 {
        return Ok(qdd);
    }
    let mut loads = BodyLoads {
        fext: scratch::vectors(model, 0)?,
        damp: scratch::mat3s(model, 0)?,
    };
    if !body_f.is_empty() || !damp.is_empty() {
        loads.fext = scratch::joint_vectors(model)?;
        if !damp.is_empty() {
            loads.damp = scratch::mat3s(model, 3 * nj)?;
        }
        eval_local_loads::launch(
            nj,
            model,
            &kin.body_q,
            body_f,
            damp,
            &kin.x_local,
            &kin.c,
            &mut loads,
        )?;
    }
    let mut dof_u = scratch::dof_vectors(model)?;
    let mut dof_db = scratch::floats(model, 2 * nd)?;
    // Per level: the projected inertia blocks and bias the level above reads.
    let none = (scratch::mat3s(model, 0)?, scratch::vectors(model, 0)?);
    let mut below: Option<(Array<Mat3>, Array<SpatialVector>)> = None;
    for joints in layout.levels.iter().rev() {
        let mut out = (
            scratch::mat3s(model, 3 * nj)?,
            scratch::joint_vectors(model)?,
        );
        let next = below.as_ref().unwrap_or(&none);
        aba_backward_level::launch(
            joints.len(),
            model,
            joints,
            &layout.children,
            &kin.x_local,
            &kin.s,
            &kin.v,
            &kin.c,
            tau,
            diag,
            w,
            &loads,
            &next.0,
            &next.1,
            &mut dof_u,
            &mut dof_db,
            &mut out.0,
            &mut out.1,
        )?;
        below = Some(out);
    }
    let mut prev = scratch::vectors(model, 0)?;
    for joints in &layout.levels {
        let mut acc = scratch::joint_vectors(model)?;
        aba_forward_level::launch(
            joints.len(),
            model,
            joints,
            &kin.x_local,
            &kin.s,
            &kin.c,
            &dof_u,
            &dof_db,
            &prev,
            &mut acc,
            &mut qdd,
        )?;
        prev = acc;
    }
    Ok(qdd)
}
