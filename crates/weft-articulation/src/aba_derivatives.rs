//! Analytic derivatives of forward dynamics: the Jacobians of
//! `q̈ = FD(q, q̇, τ)` with respect to `q` (along the joints' tangent
//! spaces), `q̇` and `τ`, as Carpentier and Mansard compute them
//! ("Analytical Derivatives of Rigid Body Dynamics Algorithms", RSS 2018;
//! Pinocchio's `computeABADerivatives`): the derivatives of inverse
//! dynamics `∂τ/∂q`, `∂τ/∂q̇` at `(q, q̇, q̈ = FD(q, q̇, τ))`, then
//! `∂q̈/∂q = −H⁻¹ ∂τ/∂q`, `∂q̈/∂q̇ = −H⁻¹ ∂τ/∂q̇` and `∂q̈/∂τ = H⁻¹`, `H` the
//! mass matrix plus armature (from `q̈ = H⁻¹ (τ − C)` differentiated with
//! `τ = H q̈ + C` held).
//!
//! The function differentiated is exactly [`forward_dynamics`]'s (and
//! [`forward_dynamics_aba`]'s): gravity, efforts, armature; no damping,
//! friction, drives or limits (those belong to the
//! [`FeatherstoneSolver`](crate::FeatherstoneSolver)'s step, not to `q̈`).
//!
//! **Tangent convention**: column `l` of `∂q̈/∂q` is the derivative along
//! the `l`-th velocity coordinate, `q ⊕ ε e_l` as [`advance_coordinates`]
//! moves coordinates: hinge and slide coordinates directly; a free joint's
//! position along its parent joint frame's axes (the world's for a root
//! with identity frames); ball and free rotations by a rotation vector `δ`
//! in the child joint frame, quaternion `r ⊗ exp(δ/2)` — MuJoCo's and the
//! Pinocchio references' convention (`∂r/∂δ_k = ½ r ⊗ (e_k, 0)`).
//!
//! **How** (where this differs from Pinocchio): Pinocchio works in the world
//! frame; here, as in the rest of the crate, every joint's quantities are in
//! its child body's frame, which keeps f32 rounding at the scale of a link.
//! Moving coordinate `l` of joint `J` turns `J`'s subtree rigidly by the
//! twist `s_l` (its motion subspace column); in the subtree's own frames
//! only `J`'s child twist and acceleration change, by `u` and `δa`, so every
//! descendant's wrench change is a closed form of `J`'s subtree's composite
//! quantities: with `e = δa − u × v_J`,
//! `δF_m = I_m X e + B_m X u + (X u) ×* h_m` (`X` from `J`'s frame to joint
//! `m`'s, `I_m` the composite inertia, `h_m` the composite momentum and
//! `B_m = Σ v_k ×* I_k − I_k (v_k ×)` over the subtree of `m`; of `B` only
//! its angular block is summed, the others follow from `h`). Rows below
//! `J` read it as `(X* I_m s_d)·e + (X* (B_mᵀ s_d − s_d ×* h_m))·u`, a
//! wrench and a torque per row carried up the ancestors; rows at and above
//! `J` read `δF_J` (plus `s_l ×* F_J`, the turn of the transmitted wrench,
//! for `q`) carried up the ancestors: `O(n d)` work for `n` degrees of
//! freedom of depth `d`. A joint of several degrees of freedom is a chain
//! of axes each fixed in the frame before its own motion (universal, D6; a
//! free joint's translations before its rotations), or all fixed in the
//! child (a ball joint's rotations), as
//! [`crate::kinematics::velocity_product`] reads them. `H` is factored as
//! `Lᵀ L` with the tree's sparsity (Featherstone's LTL, in f64) and applied
//! to `[∂τ/∂q | ∂τ/∂q̇ | 1]` a row operation (a degree of freedom and an
//! ancestor) at a time over all columns, in local arrays of the thread
//! (`O(n² d)`).
//!
//! One thread per articulation walks its joints in place ([`crate::tree`]),
//! one launch for all articulations and worlds, on the CPU or CUDA. Not
//! differentiable: it refuses to run while a tape records.
//!
//! [`forward_dynamics`]: crate::forward_dynamics
//! [`forward_dynamics_aba`]: crate::forward_dynamics_aba
//! [`advance_coordinates`]: crate::advance_coordinates

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::{Model, SimError};

use crate::joint_math::{
    force_to_parent, inertia_times, joint_local, joint_twist, motion_to_child,
};
use crate::kinematics::{velocity_product, write_motion_subspace};
use crate::scratch::Pooled;
use crate::{Result, layout::ArticulationLayout};

/// Whether degree of freedom `il` of a joint of kind `kind` (indices within
/// the joint) moves the frame that degree of freedom `ie`'s axis is fixed
/// in, relative to the child: in a chain (revolute, prismatic, universal,
/// D6) every later axis; in a free joint the rotations move the
/// translations' axes; in a ball joint none (all fixed in the child).
#[weft::func]
pub fn moves_axis(kind: i32, ie: i32, il: i32) -> bool {
    let mut r = ie < il;
    if kind == 2 {
        r = false;
    }
    if kind == 4 {
        r = ie < 3 && il >= 3;
    }
    r
}

/// Body `b`'s spatial inertia about its own frame's origin, as
/// [`body_inertia`](crate::joint_math::body_inertia) with the identity pose: mass, first moment `m c`,
/// `I_c + m (|c|² 1 − c cᵀ)`.
#[weft::func]
pub fn own_inertia(model: &Model, b: i32) -> (f32, Vec3, Mat3) {
    let m = model.body_mass[b];
    let c = model.body_com[b];
    let mc = c * m;
    (
        m,
        mc,
        model.body_inertia[b] + diag(Vec3::splat(dot(c, mc))) - outer(mc, c),
    )
}

/// The angular block `S` of a body's `B = v ×* I − I (v ×)` for its spatial
/// inertia `(m, h, i)` ([`body_inertia`](crate::joint_math::body_inertia)) and twist `v = (v, ω)`:
/// `[v]× B + B [v]× + [ω]× i − i [ω]×` with `B = −[h]×`. The other blocks
/// follow from the momentum `(p, L) = I v`: `B (u, ω_u) = (p × ω_u, ... )`,
/// see [`coriolis_times`].
#[weft::func]
pub fn coriolis_block(h: Vec3, i: Mat3, v: SpatialVector) -> Mat3 {
    let w = skew(v.bottom);
    let vh = dot(v.top, h);
    diag(Vec3::splat(2.0 * vh)) - outer(h, v.top) - outer(v.top, h) + w * i - i * w
}

/// `B u + u ×* h` for a subtree's `B = Σ v ×* I − I (v ×)` (its angular
/// block `s`, [`coriolis_block`] summed) and momentum `h = Σ I v`: with `B`'s
/// linear–linear block zero and its off-diagonal blocks `∓[p]×` (`p` the
/// linear momentum), `(2 ω_u × p, s ω_u + ω_u × L)`.
#[weft::func]
pub fn coriolis_times(s: Mat3, h: SpatialVector, u: SpatialVector) -> SpatialVector {
    SpatialVector::new(
        cross(u.bottom, h.top) * 2.0,
        s * u.bottom + cross(u.bottom, h.bottom),
    )
}

/// `Bᵀ m − m ×* h` for `B`, `h` as in [`coriolis_times`]: a pure torque
/// `(0, 2 p × m_v + sᵀ m_ω − m_ω × L)`, returned as its torque.
#[weft::func]
pub fn coriolis_transpose_times(s: Mat3, h: SpatialVector, m: SpatialVector) -> Vec3 {
    cross(h.top, m.top) * 2.0 + transpose(s) * m.bottom - cross(m.bottom, h.bottom)
}

/// A rigid-body (or composite) inertia `(m, h, i)` about a child's origin
/// (first moment `h`, rotational inertia `i`) in the frame of its parent,
/// the child's pose there `(r, p)` (rotation as a matrix): `h' = r h + m
/// p`, `i' = r i rᵀ + m (|p|² 1 − p pᵀ) + 2 (p · r h) 1 − p (r h)ᵀ − (r h)
/// pᵀ`.
#[weft::func]
pub fn rigid_to_parent(r: Mat3, p: Vec3, m: f32, h: Vec3, i: Mat3) -> (Vec3, Mat3) {
    let g = r * h;
    (
        g + p * m,
        r * i * transpose(r) + diag(Vec3::splat(m * dot(p, p) + 2.0 * dot(p, g)))
            - outer(p, p * m + g)
            - outer(g, p),
    )
}

/// The angular block `s` of a subtree's `B` ([`coriolis_block`]) in the
/// frame of its parent (the child's pose there `(r, p)`; `lin` the
/// subtree's linear momentum in the child's frame): `r s rᵀ + 2 (p · a) 1 −
/// a pᵀ − p aᵀ` with `a = r lin` (the off-diagonal blocks `∓[p]×` moving
/// with the momentum).
#[weft::func]
pub fn coriolis_to_parent(r: Mat3, p: Vec3, s: Mat3, lin: Vec3) -> Mat3 {
    let a = r * lin;
    r * s * transpose(r) + diag(Vec3::splat(2.0 * dot(p, a))) - outer(a, p) - outer(p, a)
}

/// A wrench `f` in the frame of a child whose pose in its parent is
/// `(rot, p)` (rotation as a matrix), in the parent's frame.
#[weft::func]
pub fn wrench_up(rot: Mat3, p: Vec3, f: SpatialVector) -> SpatialVector {
    let lin = rot * f.top;
    SpatialVector::new(lin, rot * f.bottom + cross(p, lin))
}

/// Inverse dynamics of articulation `a` at `(q, q̇)` and `q̈ = 0` with
/// what its derivatives need, in each joint's child frame. Roots to
/// leaves: writes `x_local`, the subspaces `s`, per joint at `jv[6j..6j +
/// 6]` the parent's twist `vp`, the child's twist `v`, the velocity product
/// `c`, then (for [`force_walk`]) the parent's and the child's
/// accelerations; each child body's mass `cm[j]`, first moment
/// (`force[3j + 2]`'s linear part), rotational inertia (`comp[2j]`),
/// angular block of `v ×* I − I v×` ([`coriolis_block`], `comp[2j + 1]`),
/// momentum `I v` (`force[3j]`) and wrench `I a + v ×* I v` (`force[3j +
/// 1]`). Leaves to roots: each of these summed over the joint's subtree
/// (the composite inertia, `B`, momentum, and the wrench `F` the joint
/// transmits, whose `s_dᵀ F` is the bias `C`).
#[weft::func]
pub fn composite_walk(
    model: &Model,
    a: i32,
    q: &Array<f32>,
    qd: &Array<f32>,
    x_local: &mut Array<Transform>,
    s: &mut Array<SpatialVector>,
    jv: &mut Array<SpatialVector>,
    cm: &mut Array<f32>,
    comp: &mut Array<Mat3>,
    force: &mut Array<SpatialVector>,
) {
    let first = model.articulation_start[a];
    let end = model.articulation_start[a + 1];
    for j in first..end {
        let k = model.joint_ancestor[j];
        let x = joint_local(model, q, j);
        x_local[j] = x;
        write_motion_subspace(model, q, 0, j, s, 0);
        let mut vp = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
        let mut ap = SpatialVector::new(-model.gravity, Vec3::ZERO);
        if k >= 0 {
            vp = motion_to_child(x, jv[6 * k + 1]);
            ap = jv[6 * k + 4];
        }
        ap = motion_to_child(x, ap);
        let vj = joint_twist(model, s, qd, j);
        let v = vp + vj;
        let c = velocity_product(model, s, qd, j, vp, vj);
        let acc = ap + c;
        jv[6 * j] = vp;
        jv[6 * j + 1] = v;
        jv[6 * j + 2] = c;
        jv[6 * j + 4] = acc;
        let (m, h, i) = own_inertia(model, model.joint_child[j]);
        let iv = inertia_times(m, h, i, v);
        force[3 * j] = iv;
        force[3 * j + 1] = inertia_times(m, h, i, acc) + spatial_cross_dual(v, iv);
        force[3 * j + 2] = SpatialVector::new(h, Vec3::ZERO);
        cm[j] = m;
        comp[2 * j] = i;
        comp[2 * j + 1] = coriolis_block(h, i, v);
    }
    for step in 0..end - first {
        let j = end - 1 - step;
        let k = model.joint_ancestor[j];
        if k >= 0 {
            let x = x_local[j];
            let r = quat_to_matrix(x.q);
            let hc = force[3 * j];
            force[3 * k] = force[3 * k] + wrench_up(r, x.p, hc);
            force[3 * k + 1] = force[3 * k + 1] + wrench_up(r, x.p, force[3 * j + 1]);
            let (h2, i2) = rigid_to_parent(r, x.p, cm[j], force[3 * j + 2].top, comp[2 * j]);
            cm[k] = cm[k] + cm[j];
            force[3 * k + 2] = force[3 * k + 2] + SpatialVector::new(h2, Vec3::ZERO);
            comp[2 * k] = comp[2 * k] + i2;
            comp[2 * k + 1] = comp[2 * k + 1] + coriolis_to_parent(r, x.p, comp[2 * j + 1], hc.top);
        }
    }
}

/// Inverse dynamics of articulation `a` at `q̈ = qdd` from the kinematics
/// of [`composite_walk`]: per joint the parent's acceleration `ap` and the
/// child's `a` (at `jv[6j + 3]`, `jv[6j + 4]`, child frame) and the wrench
/// `F` each joint transmits (`force[3j + 1]`, its subtree's `I a + v ×* I
/// v`).
#[weft::func]
pub fn force_walk(
    model: &Model,
    a: i32,
    qdd: &Array<f32>,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    jv: &mut Array<SpatialVector>,
    force: &mut Array<SpatialVector>,
) {
    let first = model.articulation_start[a];
    let end = model.articulation_start[a + 1];
    for j in first..end {
        let k = model.joint_ancestor[j];
        let mut ap = SpatialVector::new(-model.gravity, Vec3::ZERO);
        if k >= 0 {
            ap = jv[6 * k + 4];
        }
        ap = motion_to_child(x_local[j], ap);
        let acc = ap + jv[6 * j + 2] + joint_twist(model, s, qdd, j);
        jv[6 * j + 3] = ap;
        jv[6 * j + 4] = acc;
        let v = jv[6 * j + 1];
        let (m, h, i) = own_inertia(model, model.joint_child[j]);
        force[3 * j + 1] =
            inertia_times(m, h, i, acc) + spatial_cross_dual(v, inertia_times(m, h, i, v));
    }
    for step in 0..end - first {
        let j = end - 1 - step;
        let k = model.joint_ancestor[j];
        if k >= 0 {
            force[3 * k + 1] = force[3 * k + 1] + force_to_parent(x_local[j], force[3 * j + 1]);
        }
    }
}

/// Factors `H` (articulation `a`'s `n × n` block at `base` of `fac`, f64,
/// row-major; only the entries of a degree of freedom and its ancestors
/// are read) in place as `Lᵀ L` with `L` lower triangular and the tree's
/// sparsity (Featherstone's LTL: `L`'s row `i` is non-zero at `i`'s
/// ancestors only; `dof_parent[i]` the previous degree of freedom up the
/// tree, global indices, −1 at a root). A pivot that is not positive is
/// clamped to 1e-30, as [`crate::solve::factor_and_invert`] does.
#[weft::func]
pub fn ltl_factor(dof_parent: &Array<i32>, d0: i32, n: i32, base: i32, fac: &mut Array<f64>) {
    for step in 0..n {
        let k = n - 1 - step;
        let row = base + k * n;
        let lkk = sqrt(max(fac[row + k], 1e-30));
        fac[row + k] = lkk;
        let mut i = dof_parent[d0 + k];
        while i >= 0 {
            fac[row + i - d0] = fac[row + i - d0] / lkk;
            i = dof_parent[i];
        }
        i = dof_parent[d0 + k];
        while i >= 0 {
            let lki = fac[row + i - d0];
            let irow = base + (i - d0) * n - d0;
            let mut j = i;
            while j >= 0 {
                fac[irow + j] = fac[irow + j] - lki * fac[row + j - d0];
                j = dof_parent[j];
            }
            i = dof_parent[i];
        }
    }
}

/// `ν_d`, the twist of the frame that degree of freedom `ds + d` of a joint
/// of kind `kind` (degrees of freedom `ds..ds + n`) has its axis fixed in:
/// the parent's twist `vp` plus the motion of the joint's axes that move it
/// ([`moves_axis`]).
#[weft::func]
pub fn axis_frame_twist(
    kind: i32,
    ds: i32,
    n: i32,
    d: i32,
    s: &Array<SpatialVector>,
    qd: &Array<f32>,
    vp: SpatialVector,
) -> SpatialVector {
    let mut x = vp;
    for e in 0..n {
        if moves_axis(kind, e, d) {
            x += s[ds + e] * qd[ds + e];
        }
    }
    x
}

/// The changes of joint `j`'s child twist and acceleration (its frame)
/// per unit tangent motion `q_l` and per unit `q̇_l` of each of its degrees
/// of freedom `l`, as `e = δa − u × v` and `u = δv` (see the module docs):
/// `dir[4l..4l + 4] = (u_q, e_q, u_q̇, e_q̇)`. The child's acceleration is
/// `a = ap + Σ s_d q̈_d + Σ ν_d × s_d q̇_d`, `ν_d` the twist of the frame
/// `d`'s axis is fixed in ([`axis_frame_twist`]); the axes `l` moves share
/// `ν_{min(d, l)}` with it.
#[weft::func]
pub fn joint_directions(
    model: &Model,
    j: i32,
    s: &Array<SpatialVector>,
    qd: &Array<f32>,
    qdd: &Array<f32>,
    jv: &Array<SpatialVector>,
    dir: &mut Array<SpatialVector>,
) {
    let kind = model.joint_type[j];
    let ds = model.joint_qd_start[j];
    let n = model.joint_qd_start[j + 1] - ds;
    let vp = jv[6 * j];
    let v = jv[6 * j + 1];
    let ap = jv[6 * j + 3];
    for l in 0..n {
        let xi = s[ds + l];
        let nu_l = axis_frame_twist(kind, ds, n, l, s, qd, vp);
        // Along q_l the child turns by ξ = s_l: everything it sees from
        // frames before l's motion (the parent, the axes l moves) turns by
        // −ξ× in its coordinates.
        let uq = spatial_cross(nu_l, xi);
        let mut da = spatial_cross(ap, xi);
        // Along q̇_l: `v` gains s_l, the products `ν_d × s_d q̇_d` with it.
        let mut dav = spatial_cross(nu_l, xi);
        for d in 0..n {
            let sd = s[ds + d];
            let md = sd * qd[ds + d];
            let w = axis_frame_twist(kind, ds, n, min(d, l), s, qd, vp);
            da += spatial_cross(spatial_cross(w, xi), md);
            if moves_axis(kind, d, l) {
                let nu_d = axis_frame_twist(kind, ds, n, d, s, qd, vp);
                da += spatial_cross(sd, xi) * qdd[ds + d]
                    + spatial_cross(nu_d, spatial_cross(md, xi));
            }
            if moves_axis(kind, l, d) {
                dav += spatial_cross(xi, md);
            }
        }
        dir[4 * (ds + l)] = uq;
        dir[4 * (ds + l) + 1] = da - spatial_cross(uq, v);
        dir[4 * (ds + l) + 2] = xi;
        dir[4 * (ds + l) + 3] = dav - spatial_cross(xi, v);
    }
}

/// `∂τ/∂q` and `∂τ/∂q̇` of articulation `a` into the `n × 3n` block at
/// `base` of `x` (row-major, row = τ entry; `∂τ/∂q` in columns `0..n`,
/// `∂τ/∂q̇` in `n..2n`; entries of unrelated degrees of freedom are left as
/// they are, zero), from [`composite_walk`]'s composites, [`force_walk`]'s
/// wrenches and [`joint_directions`]' `dir`. Per degree of freedom `l` of
/// joint `j`, one walk up `j`'s ancestors carries four vectors: for column
/// `l`, `δF` of `q_l` (plus `s_l ×* F`, the turn of the wrench `j`
/// transmits) and of `q̇_l`, whose products with an ancestor's `s_d` are
/// `∂τ_d/∂q_l`, `∂τ_d/∂q̇_l`; for row `l`, `I s_l` and the torque `Bᵀ s_l −
/// s_l ×* h`, whose products with an ancestor's `(e, u)` are `∂τ_l/∂q_d`,
/// `∂τ_l/∂q̇_d`.
#[weft::func]
pub fn effort_derivatives(
    model: &Model,
    a: i32,
    base: i32,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    cm: &Array<f32>,
    comp: &Array<Mat3>,
    force: &Array<SpatialVector>,
    dir: &Array<SpatialVector>,
    x: &mut Array<f64>,
) {
    let first = model.articulation_start[a];
    let end = model.articulation_start[a + 1];
    let d0 = model.joint_qd_start[first];
    let n = model.joint_qd_start[end] - d0;
    let w = 3 * n;
    for j in first..end {
        let kind = model.joint_type[j];
        let ds = model.joint_qd_start[j];
        let nj = model.joint_qd_start[j + 1] - ds;
        let m = cm[j];
        let ic = comp[2 * j];
        let sc = comp[2 * j + 1];
        let hc = force[3 * j];
        let fj = force[3 * j + 1];
        let h = force[3 * j + 2].top;
        for l in 0..nj {
            let dof = ds + l;
            let sl = s[dof];
            let uq = dir[4 * dof];
            let uv = dir[4 * dof + 2];
            let dfq = inertia_times(m, h, ic, dir[4 * dof + 1]) + coriolis_times(sc, hc, uq);
            let mut gq = dfq + spatial_cross_dual(sl, fj);
            let mut gv = inertia_times(m, h, ic, dir[4 * dof + 3]) + coriolis_times(sc, hc, uv);
            // Rows of j's own degrees of freedom: those whose axis l turns
            // see the turned wrench.
            for d in 0..nj {
                let at = base + (ds + d - d0) * w + dof - d0;
                let sd = s[ds + d];
                if moves_axis(kind, d, l) {
                    x[at] = dot(sd, gq) as f64;
                } else {
                    x[at] = dot(sd, dfq) as f64;
                }
                x[at + n] = dot(sd, gv) as f64;
            }
            let mut f1 = inertia_times(m, h, ic, sl);
            let mut f2 = coriolis_transpose_times(sc, hc, sl);
            let mut cur = j;
            let mut k = model.joint_ancestor[j];
            while k >= 0 {
                let t = x_local[cur];
                let rot = quat_to_matrix(t.q);
                gq = wrench_up(rot, t.p, gq);
                gv = wrench_up(rot, t.p, gv);
                f1 = wrench_up(rot, t.p, f1);
                f2 = rot * f2;
                for p in model.joint_qd_start[k]..model.joint_qd_start[k + 1] {
                    let sp = s[p];
                    let col = base + (p - d0) * w + dof - d0;
                    x[col] = dot(sp, gq) as f64;
                    x[col + n] = dot(sp, gv) as f64;
                    let row = base + (dof - d0) * w + p - d0;
                    x[row] = (dot(f1, dir[4 * p + 1]) + dot(f2, dir[4 * p].bottom)) as f64;
                    x[row + n] = (dot(f1, dir[4 * p + 3]) + dot(f2, dir[4 * p + 2].bottom)) as f64;
                }
                cur = k;
                k = model.joint_ancestor[k];
            }
        }
    }
}

/// The ABA derivatives of articulation `tid()`: inverse dynamics at `q̈ =
/// 0` (the bias `C`) with the composites ([`composite_walk`]), the mass
/// matrix, `H = M + armature` factored ([`factor_mass`]), `q̈ = H⁻¹ (τ −
/// C)` into `qdd`, inverse dynamics at `q̈` ([`force_walk`]), the effort
/// derivatives ([`effort_derivatives`]) into `xm` beside an identity, all
/// solved at once ([`ltl_solve`]), and per articulation block at
/// `m_start` (row-major, row = `q̈` entry): `dq = −H⁻¹ ∂τ/∂q`, `dqd = −H⁻¹
/// ∂τ/∂q̇`, `dtau = H⁻¹`. The other arrays are scratch, zeroed: `x_local`
/// per joint, `s` per degree of freedom, `jv` six per joint, `cm` one,
/// `comp` two and `force` three per joint, `dir` four per degree of freedom,
/// `dof_parent` and `work` one per degree of freedom, `fac` as the blocks,
/// `xm` three times the blocks.
#[weft::kernel(forward_only)]
pub fn aba_derivatives_tree(
    model: &Model,
    m_start: &Array<i32>,
    q: &Array<f32>,
    qd: &Array<f32>,
    tau: &Array<f32>,
    x_local: &mut Array<Transform>,
    s: &mut Array<SpatialVector>,
    jv: &mut Array<SpatialVector>,
    cm: &mut Array<f32>,
    comp: &mut Array<Mat3>,
    force: &mut Array<SpatialVector>,
    dir: &mut Array<SpatialVector>,
    dof_parent: &mut Array<i32>,
    work: &mut Array<f64>,
    fac: &mut Array<f64>,
    xm: &mut Array<f64>,
    qdd: &mut Array<f32>,
    dq: &mut Array<f32>,
    dqd: &mut Array<f32>,
    dtau: &mut Array<f32>,
) {
    let a = tid();
    let first = model.articulation_start[a];
    let end = model.articulation_start[a + 1];
    let d0 = model.joint_qd_start[first];
    let n = model.joint_qd_start[end] - d0;
    let base = m_start[a];
    // The bias C (inverse dynamics at q̈ = 0) with the composites.
    composite_walk(model, a, q, qd, x_local, s, jv, cm, comp, force);
    bias_and_parents(model, a, tau, s, force, work, dof_parent);
    // H = M + armature factored in `fac`; q̈ = H⁻¹ (τ − C).
    factor_mass(model, a, base, x_local, s, cm, comp, force, dof_parent, fac);
    ltl_solve(dof_parent, d0, n, base, fac, work, d0, 1, 1);
    to_floats(work, d0, n, qdd);
    // Inverse dynamics at q̈ (τ again): the wrenches the derivatives read.
    force_walk(model, a, qdd, x_local, s, jv, force);
    for j in first..end {
        joint_directions(model, j, s, qd, qdd, jv, dir);
    }
    // [∂τ/∂q | ∂τ/∂q̇ | 1] ← H⁻¹ [∂τ/∂q | ∂τ/∂q̇ | 1].
    effort_derivatives(model, a, 3 * base, x_local, s, cm, comp, force, dir, xm);
    if n <= 1024 {
        solve_into_outputs(dof_parent, d0, n, base, fac, xm, dq, dqd, dtau);
    } else {
        // Too many degrees of freedom for a local column chunk: in place.
        for i in 0..n {
            xm[3 * base + i * 3 * n + 2 * n + i] = 1.0;
        }
        ltl_solve(dof_parent, d0, n, base, fac, xm, 3 * base, 3 * n, 2 * n);
        for i in 0..n {
            let row = 3 * base + i * 3 * n;
            for c in 0..n {
                let at = base + i * n + c;
                dq[at] = -(xm[row + c] as f32);
                dqd[at] = -(xm[row + n + c] as f32);
                dtau[at] = xm[row + 2 * n + c] as f32;
            }
        }
    }
}

/// [`ltl_solve`] of articulation `a`'s `[∂τ/∂q | ∂τ/∂q̇ | 1]` (the
/// first two `n × n` blocks in `xm` at `3 base`, rows `3n` apart), a chunk
/// of columns of each of the three at a time in local arrays (plain memory:
/// the kernel's arrays are accessed atomically; one row operation serves
/// the three), written out as `dq = −H⁻¹ ∂τ/∂q`, `dqd = −H⁻¹ ∂τ/∂q̇`, `dtau
/// = H⁻¹` (the `n × n` blocks at `base`). Needs `n ≤ 1024`.
#[weft::func]
pub fn solve_into_outputs(
    dof_parent: &Array<i32>,
    d0: i32,
    n: i32,
    base: i32,
    fac: &Array<f64>,
    xm: &Array<f64>,
    dq: &mut Array<f32>,
    dqd: &mut Array<f32>,
    dtau: &mut Array<f32>,
) {
    let mut ba = [0.0f64; 1024];
    let mut bb = [0.0f64; 1024];
    let mut bc = [0.0f64; 1024];
    let mut ra = [0.0f64; 256];
    let mut rb = [0.0f64; 256];
    let mut rc = [0.0f64; 256];
    // Chunks `cw` columns wide, rows `cp` apart: `cw` rounded up to a
    // multiple of 4 with zero columns (rustc's vectorized loops then run
    // without a scalar tail).
    let mut cmax = min(1024 / n, 256);
    if cmax >= 4 {
        cmax -= cmax % 4;
    }
    // `sub[i]`: one past the last degree of freedom of i's subtree. Parents
    // come first, so the subtree lies in `i..sub[i]`: exactly in depth-first
    // order, with other branches' degrees of freedom in between otherwise.
    let mut sub = [0i32; 1024];
    for i in 0..n {
        sub[i] = i + 1;
    }
    for step in 0..n {
        let i = n - 1 - step;
        let p = dof_parent[d0 + i];
        if p >= 0 {
            sub[p - d0] = max(sub[p - d0], sub[i]);
        }
    }
    let mut c0 = 0;
    while c0 < n {
        let cw = min(cmax, n - c0);
        let mut cp = cw;
        if cmax % 4 == 0 {
            cp = cw + (4 - cw % 4) % 4;
        }
        for i in 0..n {
            let src = 3 * base + i * 3 * n + c0;
            let dst = i * cp;
            for c in 0..cw {
                ba[dst + c] = xm[src + c];
                bb[dst + c] = xm[src + n + c];
                bc[dst + c] = 0.0;
            }
            for c in cw..cp {
                ba[dst + c] = 0.0;
                bb[dst + c] = 0.0;
                bc[dst + c] = 0.0;
            }
        }
        // The identity's columns c0..c0 + cw.
        for c in 0..cw {
            bc[(c0 + c) * cp + c] = 1.0;
        }
        // Lᵀ Y = X from the leaves: row i scaled, then taken from its
        // ancestors' rows (row i copied first: updates that read another
        // array than they write are vectorized by rustc). Row i of
        // `L⁻ᵀ ∂τ` is zero from `sub[i]` on (∂τ couples only related degrees
        // of freedom), and row i of `L⁻ᵀ` outside `i..sub[i]`.
        for step in 0..n {
            let i = n - 1 - step;
            let ri = i * cp;
            let inv = 1.0 / fac[base + i * n + i];
            for c in 0..cp {
                let ya = ba[ri + c] * inv;
                let yb = bb[ri + c] * inv;
                let yc = bc[ri + c] * inv;
                ba[ri + c] = ya;
                bb[ri + c] = yb;
                bc[ri + c] = yc;
                ra[c] = ya;
                rb[c] = yb;
                rc[c] = yc;
            }
            let hi = min(sub[i] - c0, cw);
            let lo = max(i - c0, 0);
            let mut p = dof_parent[d0 + i];
            while p >= 0 {
                let lip = fac[base + i * n + p - d0];
                let rp = (p - d0) * cp;
                for c in 0..hi {
                    ba[rp + c] = ba[rp + c] - lip * ra[c];
                    bb[rp + c] = bb[rp + c] - lip * rb[c];
                }
                for c in lo..hi {
                    bc[rp + c] = bc[rp + c] - lip * rc[c];
                }
                p = dof_parent[p];
            }
        }
        // L X = Y from the roots.
        for i in 0..n {
            let ri = i * cp;
            let mut p = dof_parent[d0 + i];
            while p >= 0 {
                let lip = fac[base + i * n + p - d0];
                let rp = (p - d0) * cp;
                for c in 0..cp {
                    ba[ri + c] = ba[ri + c] - lip * ba[rp + c];
                    bb[ri + c] = bb[ri + c] - lip * bb[rp + c];
                    bc[ri + c] = bc[ri + c] - lip * bc[rp + c];
                }
                p = dof_parent[p];
            }
            let inv = 1.0 / fac[base + i * n + i];
            for c in 0..cp {
                ba[ri + c] = ba[ri + c] * inv;
                bb[ri + c] = bb[ri + c] * inv;
                bc[ri + c] = bc[ri + c] * inv;
            }
        }
        for i in 0..n {
            let dst = base + i * n + c0;
            let src = i * cp;
            for c in 0..cw {
                dq[dst + c] = -(ba[src + c] as f32);
                dqd[dst + c] = -(bb[src + c] as f32);
                dtau[dst + c] = bc[src + c] as f32;
            }
        }
        c0 += cw;
    }
}

/// `H⁻¹ X` in place for the `n × w` block at `xb` of `x` (row-major,
/// rows `w` apart; one row per degree of freedom of the articulation
/// `d0..d0 + n`), with `H`'s factor at `base` of `fac` ([`ltl_factor`]):
/// `Lᵀ Y = X` from the leaves, then `L X = Y` from the roots, each a row
/// operation per pair of a degree of freedom and an ancestor, over all
/// columns at once (`w = 1`: a vector). Columns from `split` on must hold
/// an upper triangular matrix (the identity, for `H⁻¹` itself): the first
/// pass skips their zeros.
#[weft::func]
pub fn ltl_solve(
    dof_parent: &Array<i32>,
    d0: i32,
    n: i32,
    base: i32,
    fac: &Array<f64>,
    x: &mut Array<f64>,
    xb: i32,
    w: i32,
    split: i32,
) {
    for step in 0..n {
        let i = n - 1 - step;
        let ri = xb + i * w;
        let inv = 1.0 / fac[base + i * n + i];
        for c in 0..split {
            x[ri + c] = x[ri + c] * inv;
        }
        for c in split + i..w {
            x[ri + c] = x[ri + c] * inv;
        }
        let mut p = dof_parent[d0 + i];
        while p >= 0 {
            let lip = fac[base + i * n + p - d0];
            let rp = xb + (p - d0) * w;
            for c in 0..split {
                x[rp + c] = x[rp + c] - lip * x[ri + c];
            }
            for c in split + i..w {
                x[rp + c] = x[rp + c] - lip * x[ri + c];
            }
            p = dof_parent[p];
        }
    }
    for i in 0..n {
        let ri = xb + i * w;
        let mut p = dof_parent[d0 + i];
        while p >= 0 {
            let lip = fac[base + i * n + p - d0];
            let rp = xb + (p - d0) * w;
            for c in 0..w {
                x[ri + c] = x[ri + c] - lip * x[rp + c];
            }
            p = dof_parent[p];
        }
        let inv = 1.0 / fac[base + i * n + i];
        for c in 0..w {
            x[ri + c] = x[ri + c] * inv;
        }
    }
}

/// `out[d0..d0 + n] = x[d0..d0 + n]` as f32.
#[weft::func]
pub fn to_floats(x: &Array<f64>, d0: i32, n: i32, out: &mut Array<f32>) {
    for i in 0..n {
        out[d0 + i] = x[d0 + i] as f32;
    }
}

/// After [`composite_walk`] (at `q̈ = 0`): `τ − C` into `work` per degree of
/// freedom of articulation `a` (`C_d = s_d · F_j`), and each one's parent
/// degree of freedom `dof_parent` (the joint's previous one, or the last
/// one of the nearest ancestor joint that has any; −1 at a root).
#[weft::func]
pub fn bias_and_parents(
    model: &Model,
    a: i32,
    tau: &Array<f32>,
    s: &Array<SpatialVector>,
    force: &Array<SpatialVector>,
    work: &mut Array<f64>,
    dof_parent: &mut Array<i32>,
) {
    let first = model.articulation_start[a];
    let end = model.articulation_start[a + 1];
    for j in first..end {
        let fj = force[3 * j + 1];
        let mut up = -1;
        let mut k = model.joint_ancestor[j];
        while k >= 0 && up < 0 {
            if model.joint_qd_start[k + 1] > model.joint_qd_start[k] {
                up = model.joint_qd_start[k + 1] - 1;
            }
            k = model.joint_ancestor[k];
        }
        for d in model.joint_qd_start[j]..model.joint_qd_start[j + 1] {
            work[d] = (tau[d] as f64) - (dot(s[d], fj) as f64);
            dof_parent[d] = up;
            up = d;
        }
    }
}

/// `H = M + armature` of articulation `a` (the entries of each degree of
/// freedom and its ancestors, row-major at `base` of `fac`, in f64) from
/// the composite inertias of [`composite_walk`] (`M[i][p] = s_p · X* I_c
/// s_i` for `p` at or above `i`'s joint), then factored by [`ltl_factor`].
#[weft::func]
pub fn factor_mass(
    model: &Model,
    a: i32,
    base: i32,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    cm: &Array<f32>,
    comp: &Array<Mat3>,
    force: &Array<SpatialVector>,
    dof_parent: &Array<i32>,
    fac: &mut Array<f64>,
) {
    let first = model.articulation_start[a];
    let end = model.articulation_start[a + 1];
    let d0 = model.joint_qd_start[first];
    let n = model.joint_qd_start[end] - d0;
    for j in first..end {
        let m = cm[j];
        let h = force[3 * j + 2].top;
        let ic = comp[2 * j];
        let ds = model.joint_qd_start[j];
        for col in ds..model.joint_qd_start[j + 1] {
            let row = base + (col - d0) * n - d0;
            let sc = s[col];
            let mut f = inertia_times(m, h, ic, sc);
            fac[row + col] = (dot(sc, f) as f64) + (model.joint_armature[col] as f64);
            for p in ds..col {
                fac[row + p] = dot(s[p], f) as f64;
            }
            let mut cur = j;
            let mut k = model.joint_ancestor[j];
            while k >= 0 {
                let t = x_local[cur];
                f = wrench_up(quat_to_matrix(t.q), t.p, f);
                for p in model.joint_qd_start[k]..model.joint_qd_start[k + 1] {
                    fac[row + p] = dot(s[p], f) as f64;
                }
                cur = k;
                k = model.joint_ancestor[k];
            }
        }
    }
    ltl_factor(dof_parent, d0, n, base, fac);
}

/// The derivatives of forward dynamics at one state, for every
/// articulation: `q̈` and three Jacobians, each articulation's `n × n`
/// block row-major at [`ArticulationLayout::mass_range`] (row `i` = `q̈_i`,
/// column `c` = the `c`-th coordinate of the articulation; see the module
/// docs for the tangent convention of `q`).
pub struct AbaDerivatives {
    /// `q̈ = FD(q, q̇, τ)`, one per degree of freedom (as
    /// [`forward_dynamics`](crate::forward_dynamics) gives it, to rounding).
    pub qdd: Array<f32>,
    /// `∂q̈/∂q` along the tangent directions (`−H⁻¹ ∂τ/∂q`).
    pub dqdd_dq: Array<f32>,
    /// `∂q̈/∂q̇` (`−H⁻¹ ∂τ/∂q̇`).
    pub dqdd_dqd: Array<f32>,
    /// `∂q̈/∂τ = H⁻¹`, `H` the mass matrix plus armature.
    pub dqdd_dtau: Array<f32>,
}

/// The analytic derivatives of forward dynamics `q̈(q, q̇, τ)` (gravity,
/// efforts, armature: the function of [`forward_dynamics`] and
/// [`forward_dynamics_aba`]) at `(q, qd, tau)`, every articulation in one
/// launch (one thread each), laid out by `layout` (made from this model).
/// `Err` for arrays of the wrong length, a layout of another model, or a
/// recording tape (these derivatives are not themselves differentiable).
///
/// ```
/// use glam::Vec3;
/// use weft::{Array, Device, Transform};
/// use weft_sim::{BodyDesc, BodyMass, JointDesc, ModelBuilder};
/// use weft_articulation::{ArticulationLayout, aba_derivatives};
///
/// // A pendulum: a 1 kg point-like bob 1 m below a hinge about Y.
/// let mut b = ModelBuilder::new();
/// b.ground = None;
/// let mut desc = BodyDesc::new(Transform::IDENTITY);
/// desc.mass = BodyMass::Given(weft_geom::MassProperties::sphere(1000.0, 0.01));
/// let bob = b.add_body(desc);
/// let hang = Transform::from_translation(Vec3::new(0.0, 0.0, 1.0));
/// b.add_joint(JointDesc::revolute(-1, bob, Vec3::Y).with_frames(Transform::IDENTITY, hang))?;
/// let model = b.finalize(Device::Cpu)?;
/// let layout = ArticulationLayout::new(&model)?;
/// let at = |x: f32| Array::from_vec(Device::Cpu, vec![x]);
/// let d = aba_derivatives(&model, &layout, &at(0.0), &at(0.0), &at(0.0))?;
/// // θ̈ = −(g / l) sin θ: ∂θ̈/∂θ = −g at θ = 0 (l = 1 m).
/// let g = model.gravity.length();
/// assert!((d.dqdd_dq.to_vec()[0] + g).abs() < 1e-3 * g);
/// # Ok::<(), weft_sim::SimError>(())
/// ```
///
/// [`forward_dynamics`]: crate::forward_dynamics
/// [`forward_dynamics_aba`]: crate::forward_dynamics_aba
pub fn aba_derivatives(
    model: &Model,
    layout: &ArticulationLayout,
    q: &Array<f32>,
    qd: &Array<f32>,
    tau: &Array<f32>,
) -> Result<AbaDerivatives> {
    if Tape::is_recording() {
        return Err(SimError::Mismatch(
            "aba_derivatives runs off the tape (its results are derivatives, not \
             differentiable themselves): call it outside `Tape::record`, or inside \
             `Tape::pause`"
                .into(),
        ));
    }
    crate::check_coords(model, q, qd)?;
    let (nj, nd) = (model.joint_count(), model.joint_dof_count());
    crate::check_len("tau", tau.len(), nd)?;
    layout.check(model)?;
    let device = model.device();
    let len = layout.mass_len();
    let mut out = AbaDerivatives {
        qdd: Array::try_zeros(device, [nd])?,
        dqdd_dq: Array::try_zeros(device, [len])?,
        dqdd_dqd: Array::try_zeros(device, [len])?,
        dqdd_dtau: Array::try_zeros(device, [len])?,
    };
    if nj == 0 {
        return Ok(out);
    }
    let mut x_local = Pooled::<Transform>::zeros(model, nj)?;
    let mut s = Pooled::<SpatialVector>::zeros(model, nd)?;
    let mut jv = Pooled::<SpatialVector>::zeros(model, 6 * nj)?;
    let mut cm = Pooled::<f32>::zeros(model, nj)?;
    let mut comp = Pooled::<Mat3>::zeros(model, 2 * nj)?;
    let mut force = Pooled::<SpatialVector>::zeros(model, 3 * nj)?;
    let mut dir = Pooled::<SpatialVector>::zeros(model, 4 * nd)?;
    let mut dof_parent = Pooled::<i32>::zeros(model, nd)?;
    let mut work = Pooled::<f64>::zeros(model, nd)?;
    let mut fac = Pooled::<f64>::zeros(model, len)?;
    let mut xm = Pooled::<f64>::zeros(model, 3 * len)?;
    weft::cpu::with_grain(1, || {
        aba_derivatives_tree::launch(
            layout.articulation_count(),
            model,
            &layout.m_start,
            q,
            qd,
            tau,
            &mut x_local,
            &mut s,
            &mut jv,
            &mut cm,
            &mut comp,
            &mut force,
            &mut dir,
            &mut dof_parent,
            &mut work,
            &mut fac,
            &mut xm,
            &mut out.qdd,
            &mut out.dqdd_dq,
            &mut out.dqdd_dqd,
            &mut out.dqdd_dtau,
        )
    })?;
    Ok(out)
}
