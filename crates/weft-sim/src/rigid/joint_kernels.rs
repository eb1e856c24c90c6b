//! The joint constraints of [`XpbdRigid`](super::XpbdRigid), as in Müller et
//! al., "Detailed Rigid Body Simulation with Extended Position Based
//! Dynamics" (2020): one thread per joint, joints of one colour (no shared
//! dynamic body) in parallel and the colours in turn.
//!
//! Each joint's relative motion is that of its kind (`child pose = parent pose
//! ∘ parent_frame ∘ X_J(q) ∘ child_frame⁻¹`); per pass its thread
//! 1. locks the rotations the joint does not have (a hinge's axis kept
//!    aligned, a universal joint's two axes kept at their angle, all three for
//!    fixed and prismatic joints),
//! 2. locks the translations it does not have (the anchors kept together, or
//!    on the prismatic/D6 axes) — each lock of steps 1–2 solved as one block
//!    ([`correct_block`]: the impulse through the lock's 3 × 3 effective
//!    inverse mass, restricted to the locked directions), which is linear in
//!    the error, so a tape's derivative stays bounded where a joint holds
//!    (a projection along the error's own direction turns with rounding
//!    there, and its derivative grew ~10⁴× per step on a four-bar linkage),
//! 3. per degree of freedom, reads its coordinate off the poses (the angles
//!    about the joint's own axes in the order they compose, the offsets along
//!    the linear axes) and applies its hard limits, then its drive (an
//!    implicit spring–damper toward the position and velocity targets plus the
//!    feed-forward effort, clamped to the effort limit; viscous damping joins
//!    the drive's), then its dry friction (static up to the friction effort).
//!    These rows turn each body about the joint's axis through its anchor
//!    (or move it along a linear axis) by the impulse over its inertia about
//!    that axis (or its mass) — the motion the joint allows — so they do not
//!    undo the locks of steps 1–2 (a torque about the centre of mass would,
//!    and a hinge's friction would never hold).
//!
//! Drives, damping and friction act on tree joints' degrees of freedom (the
//! [`Control`](crate::Control)'s targets and efforts); loop joints have only
//! limits. Ball and free joints get none of these here: no cone limit, drive,
//! damping or friction (`XpbdRigid::new` refuses models that give them some).

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;

use super::contact_math::body_com_world;
use super::integrate::rotate_by;
use super::xpbd_kernels::{body_inverse_mass, corrected, rotation_vector};
use crate::Model;
use crate::joint_angles::{angle_about, angles3, component, solve_axes, twist_angle};
#[allow(unused_imports)] // named by the generated code
use crate::model::LoopJoints;

/// `x` wrapped into `(−π, π]`.
#[weft::func]
pub fn wrap_pi(x: f32) -> f32 {
    x - 6.2831855 * round(x / 6.2831855)
}

/// Axis `i` of a joint (`axes[ds + i]`), zero where `i ≥ n`.
#[weft::func]
pub fn axis_or_zero(axes: &Array<Vec3>, ds: i32, n: i32, i: i32) -> Vec3 {
    let mut a = Vec3::ZERO;
    if i < n {
        a = axes[ds + i];
    }
    a
}

/// Inverse mass of bodies `a`, `b` (poses `xa`, `xb`) seen by a row along
/// unit `n`: a translation of b's point `pb` against a's point `pa`, or
/// (`angular`) a rotation of b against a about `n`.
#[weft::func]
pub fn row_inv_mass(
    model: &Model,
    a: i32,
    b: i32,
    xa: Transform,
    xb: Transform,
    pa: Vec3,
    pb: Vec3,
    n: Vec3,
    angular: bool,
) -> f32 {
    let (wa, ia) = body_inverse_mass(model, a, xa);
    let (wb, ib) = body_inverse_mass(model, b, xb);
    let mut w = dot(n, ia * n) + dot(n, ib * n);
    if !angular {
        let ta = cross(pa - body_com_world(model, a, xa), n);
        let tb = cross(pb - body_com_world(model, b, xb), n);
        w = wa + wb + dot(ta, ia * ta) + dot(tb, ib * tb);
    }
    w
}

/// The poses after a row's correction `dl` (a positional impulse times the
/// substep squared): `+dl n` on b at `pb`, `−dl n` on a at `pa`, or
/// (`angular`) as angular impulses about `n`.
#[weft::func]
pub fn apply_row(
    model: &Model,
    a: i32,
    b: i32,
    xa: Transform,
    xb: Transform,
    pa: Vec3,
    pb: Vec3,
    n: Vec3,
    angular: bool,
    dl: f32,
) -> (Transform, Transform) {
    let (wa, ia) = body_inverse_mass(model, a, xa);
    let (wb, ib) = body_inverse_mass(model, b, xb);
    let mut p = n * dl;
    let mut tau = Vec3::ZERO;
    if angular {
        tau = p;
        p = Vec3::ZERO;
    }
    let ra = pa - body_com_world(model, a, xa);
    let rb = pb - body_com_world(model, b, xb);
    let oa = corrected(model, a, xa, wa, ia, ra, -p, -tau);
    let ob = corrected(model, b, xb, wb, ib, rb, p, tau);
    (oa, ob)
}

/// Inverse of body `b`'s inertia about the axis `n` through `p` (`nᵀ I n +
/// m |n × r|²`, `r` from `p` to its centre of mass), or of its mass for a
/// translation along `n` (`!angular`); 0 for the world and bodies that do
/// not move.
#[weft::func]
pub fn pivot_inv_mass(model: &Model, b: i32, x: Transform, p: Vec3, n: Vec3, angular: bool) -> f32 {
    let mut w = 0.0;
    if b >= 0 {
        let wm = model.body_inv_mass[b];
        if wm > 0.0 {
            w = wm;
            if angular {
                let r = body_com_world(model, b, x) - p;
                let nb = quat_rotate_inv(x.q, n);
                let rn = cross(n, r);
                w = 1.0 / (dot(nb, model.body_inertia[b] * nb) + dot(rn, rn) / wm);
            }
        }
    }
    w
}

/// Body `b`'s pose after turning by `phi` about the axis `n` through `p`
/// (first order), or (`!angular`) moving by `phi` along `n`.
#[weft::func]
pub fn moved_about(
    model: &Model,
    b: i32,
    x: Transform,
    p: Vec3,
    n: Vec3,
    angular: bool,
    phi: f32,
) -> Transform {
    let mut out = x;
    if b >= 0 {
        if model.body_inv_mass[b] > 0.0 {
            if angular {
                let c = body_com_world(model, b, x);
                let c1 = c + cross(n, c - p) * phi;
                let q1 = rotate_by(x.q, n * phi, 1.0);
                out = Transform::new(c1 - quat_rotate(q1, model.body_com[b]), q1);
            } else {
                out = Transform::new(x.p + n * phi, x.q);
            }
        }
    }
    out
}

/// The poses after a degree of freedom's correction `dl` (generalised
/// impulse times the substep squared): each body turned about the axis `n`
/// through the joint's anchor `p` (or moved along `n`) by `dl` over its
/// inertia about that axis (or its mass), b forward and a back — the
/// motion the joint allows, so the locked parts stay put to first order.
#[weft::func]
pub fn apply_dof(
    model: &Model,
    a: i32,
    b: i32,
    xa: Transform,
    xb: Transform,
    p: Vec3,
    n: Vec3,
    angular: bool,
    dl: f32,
) -> (Transform, Transform) {
    let wa = pivot_inv_mass(model, a, xa, p, n, angular);
    let wb = pivot_inv_mass(model, b, xb, p, n, angular);
    (
        moved_about(model, a, xa, p, n, angular, -dl * wa),
        moved_about(model, b, xb, p, n, angular, dl * wb),
    )
}

/// The angles of the relative rotation `r` about the joint's `na` angular
/// axes `a0, a1, a2` in the order they compose (`r = R(a0, θ0) R(a1, θ1) …`),
/// each in `(−π, π]` (of three, the middle angle's solution nearer 0).
#[weft::func]
pub fn rotation_angles(r: Quat, na: i32, a0: Vec3, a1: Vec3, a2: Vec3) -> Vec3 {
    let mut t = Vec3::ZERO;
    if na == 1 {
        t = Vec3::new(wrap_pi(twist_angle(r, a0)), 0.0, 0.0);
    } else if na == 2 {
        let t0 = angle_about(a0, a1, quat_rotate(r, a1));
        let t1 = twist_angle(quat_inverse(quat_from_axis_angle(a0, t0)) * r, a1);
        t = Vec3::new(t0, wrap_pi(t1), 0.0);
    } else if na == 3 {
        let up = angles3(r, a0, a1, a2, 1.0);
        let down = angles3(r, a0, a1, a2, -1.0);
        let mut s = up;
        if abs(wrap_pi(down.y)) < abs(wrap_pi(up.y)) {
            s = down;
        }
        t = Vec3::new(wrap_pi(s.x), wrap_pi(s.y), wrap_pi(s.z));
    }
    t
}

/// Degree of freedom `k` of a joint (axes `axes[ds..]`, `dim` linear and
/// angular axes) whose frames sit at `pj` (on the parent) and `cj` (on the
/// child), world: `(its coordinate, its world axis)`. An angular axis is
/// turned by the rotations before it.
#[weft::func]
pub fn dof_coordinate(
    axes: &Array<Vec3>,
    ds: i32,
    dim: IVec2,
    pj: Transform,
    cj: Transform,
    k: i32,
) -> (f32, Vec3) {
    let nl = dim.x;
    let na = dim.y;
    let mut x = 0.0;
    let mut axis = Vec3::ZERO;
    if k < nl {
        let dl = quat_rotate_inv(pj.q, cj.p - pj.p);
        let c = solve_axes(
            nl,
            axis_or_zero(axes, ds, nl, 0),
            axis_or_zero(axes, ds, nl, 1),
            axis_or_zero(axes, ds, nl, 2),
            dl,
        );
        x = component(c, k);
        axis = quat_rotate(pj.q, axes[ds + k]);
    } else {
        let i = k - nl;
        let r = quat_inverse(pj.q) * cj.q;
        let a0 = axis_or_zero(axes, ds + nl, na, 0);
        let a1 = axis_or_zero(axes, ds + nl, na, 1);
        let a2 = axis_or_zero(axes, ds + nl, na, 2);
        let t = rotation_angles(r, na, a0, a1, a2);
        x = component(t, i);
        let mut f = pj.q;
        for m in 0..i {
            f = f * quat_from_axis_angle(axes[ds + nl + m], component(t, m));
        }
        axis = quat_rotate(f, axes[ds + nl + i]);
    }
    (x, axis)
}

/// The impulse `p` whose response `k p` (`k`: the effective inverse mass
/// of a lock, 3 × 3, positive definite) equals `e` outside the directions
/// the projector `free` lets move: `p = S (Sᵀ k S)⁻¹ Sᵀ e` over the
/// constrained directions `S` (`free` 0: `k⁻¹ e`). Linear in `e`, so a lock
/// solved as one block is smooth where the error is tiny (a projection along
/// the error's own direction, weighted by the inverse mass along it, is not:
/// that direction turns with rounding, and a tape's derivative through it
/// grows without bound over a rollout).
#[weft::func]
pub fn block_impulse(k: Mat3, e: Vec3, free: Mat3) -> Vec3 {
    let held = Mat3::IDENTITY - free;
    let s = trace(k);
    let m = inverse(held * k * held + free * s);
    held * (m * (held * e))
}

/// The poses of bodies `a`, `b` (at `xa`, `xb`) after a lock's block
/// correction: b's point `pb` moved by `e` against a's point `pa` (or
/// (`angular`) b turned by the rotation vector `e` against a), in the
/// directions the projector `free` does not let move, as one block
/// ([`block_impulse`]) split by the bodies' inverse masses and inertias.
#[weft::func]
pub fn correct_block(
    model: &Model,
    a: i32,
    b: i32,
    xa: Transform,
    xb: Transform,
    pa: Vec3,
    pb: Vec3,
    e: Vec3,
    free: Mat3,
    angular: bool,
) -> (Transform, Transform) {
    let (wa, ia) = body_inverse_mass(model, a, xa);
    let (wb, ib) = body_inverse_mass(model, b, xb);
    let mut oa = xa;
    let mut ob = xb;
    if wa + wb > 0.0 {
        let ra = pa - body_com_world(model, a, xa);
        let rb = pb - body_com_world(model, b, xb);
        let mut k = ia + ib;
        if !angular {
            let sa = skew(ra);
            let sb = skew(rb);
            k = Mat3::IDENTITY * (wa + wb) - sa * ia * sa - sb * ib * sb;
        }
        let p = block_impulse(k, e, free);
        let mut lin = p;
        let mut tau = Vec3::ZERO;
        if angular {
            lin = Vec3::ZERO;
            tau = p;
        }
        oa = corrected(model, a, xa, wa, ia, ra, -lin, -tau);
        ob = corrected(model, b, xb, wb, ib, rb, lin, tau);
    }
    (oa, ob)
}

/// The poses of a joint's bodies `a`, `b` (frames `pf`, `cf` in them) after
/// locking the rotations and translations the joint does not have (`dim`:
/// its numbers of linear and angular axes `axes[ds..]`). Full and hinge
/// rotation locks and the translation locks are solved as blocks
/// ([`correct_block`]); a universal joint's one angular row is a scalar
/// projection.
#[weft::func]
pub fn lock_joint(
    model: &Model,
    a: i32,
    b: i32,
    xa: Transform,
    xb: Transform,
    pf: Transform,
    cf: Transform,
    axes: &Array<Vec3>,
    ds: i32,
    dim: IVec2,
) -> (Transform, Transform) {
    let nl = dim.x;
    let na = dim.y;
    let mut oa = xa;
    let mut ob = xb;
    if na < 2 {
        let pj = oa * pf;
        let cj = ob * cf;
        let mut corr = Vec3::ZERO;
        let mut free = Mat3::ZERO;
        if na == 0 {
            corr = rotation_vector(pj.q, cj.q);
        } else {
            let up = quat_rotate(pj.q, axes[ds + nl]);
            let uc = quat_rotate(cj.q, axes[ds + nl]);
            // The turn taking uc onto up, `c θ / sin θ`; near alignment
            // `c` (its limit), with no cut-off: a tape differentiates the
            // lock at an exactly held hinge too.
            let c = cross(uc, up);
            let s = length(c);
            let mut f = 1.0;
            if s > 1e-9 {
                f = atan2(s, dot(uc, up)) / s;
            }
            corr = c * f;
            free = outer(up, up);
        }
        let (ra, rb) = correct_block(model, a, b, oa, ob, pj.p, cj.p, corr, free, true);
        oa = ra;
        ob = rb;
    } else if na == 2 {
        // A universal joint keeps its first axis (on the parent) and its
        // second (on the child) at the angle they make at rest.
        let pj = oa * pf;
        let cj = ob * cf;
        let a0 = axes[ds + nl];
        let a1 = axes[ds + nl + 1];
        let u0 = quat_rotate(pj.q, a0);
        let u1 = quat_rotate(cj.q, a1);
        // One row about n = u1 × u0 / |u1 × u0| (the axes are never
        // parallel for a universal joint), with no cut-off on the error.
        let c = cross(u1, u0);
        let s = length(c);
        if s > 1e-9 {
            let n = c / s;
            let phi = atan2(s, dot(u1, u0));
            let phi0 = acos(clamp(dot(a0, a1), -1.0, 1.0));
            let w = row_inv_mass(model, a, b, oa, ob, pj.p, cj.p, n, true);
            if w > 0.0 {
                let (ra, rb) =
                    apply_row(model, a, b, oa, ob, pj.p, cj.p, n, true, (phi - phi0) / w);
                oa = ra;
                ob = rb;
            }
        }
    }
    if nl < 3 {
        let pj = oa * pf;
        let cj = ob * cf;
        let dl = quat_rotate_inv(pj.q, cj.p - pj.p);
        let mut e = dl;
        let mut free = Mat3::ZERO;
        if nl == 1 {
            let l0 = axes[ds];
            e = dl - l0 * dot(dl, l0);
            let lw = quat_rotate(pj.q, l0);
            free = outer(lw, lw);
        } else if nl == 2 {
            let n = normalize(cross(axes[ds], axes[ds + 1]));
            e = n * dot(dl, n);
            let nw = quat_rotate(pj.q, n);
            free = Mat3::IDENTITY - outer(nw, nw);
        }
        let corr = -quat_rotate(pj.q, e);
        let (ra, rb) = correct_block(model, a, b, oa, ob, cj.p + corr, cj.p, corr, free, false);
        oa = ra;
        ob = rb;
    }
    (oa, ob)
}

/// Degree of freedom `k`'s hard limits `lower[ds + k] ≤ x ≤ upper[ds + k]`
/// (joint frames `pf`, `cf` in bodies `a`, `b` at `xa`, `xb`; axes
/// `axes[ds..]`, `dim` of them linear and angular): the poses after.
#[weft::func]
pub fn limit_dof(
    model: &Model,
    a: i32,
    b: i32,
    xa: Transform,
    xb: Transform,
    pf: Transform,
    cf: Transform,
    axes: &Array<Vec3>,
    lower: &Array<f32>,
    upper: &Array<f32>,
    ds: i32,
    dim: IVec2,
    k: i32,
) -> (Transform, Transform) {
    let mut oa = xa;
    let mut ob = xb;
    let lo = lower[ds + k];
    let hi = upper[ds + k];
    if lo > -3.0e38 || hi < 3.0e38 {
        let angular = k >= dim.x;
        let pj = xa * pf;
        let cj = xb * cf;
        let (x, n) = dof_coordinate(axes, ds, dim, pj, cj, k);
        let target = clamp(x, lo, hi);
        if target != x {
            let w = pivot_inv_mass(model, a, xa, cj.p, n, angular)
                + pivot_inv_mass(model, b, xb, cj.p, n, angular);
            if w > 0.0 {
                let (ra, rb) = apply_dof(model, a, b, xa, xb, cj.p, n, angular, (target - x) / w);
                oa = ra;
                ob = rb;
            }
        }
    }
    (oa, ob)
}

/// Degree of freedom `k`'s drive and dry friction (see [`limit_dof`] for
/// the joint's arguments; `pj0`, `cj0`: its frames at the substep's start).
/// `drive`: position target, velocity target, feed-forward effort, substep
/// `h`; `gains`: stiffness, damping (the drive's plus the joint's), effort
/// limit, friction; `l`: the drive's (x) and the friction's (y) accumulated
/// corrections. The drive moves by `(h²f − k̃ C − d̃ Ċh − λ) / (1 + w (k̃ +
/// d̃))` (`k̃ = ke h²`, `d̃ = kd h`): the implicit spring–damper of the
/// substep; friction takes back the substep's motion up to `friction h²`.
/// Returns the poses and `l` after.
#[weft::func]
pub fn drive_dof(
    model: &Model,
    a: i32,
    b: i32,
    xa: Transform,
    xb: Transform,
    pj0: Transform,
    cj0: Transform,
    pf: Transform,
    cf: Transform,
    axes: &Array<Vec3>,
    ds: i32,
    dim: IVec2,
    k: i32,
    drive: Vec4,
    gains: Vec4,
    l: Vec4,
) -> (Transform, Transform, Vec4) {
    let angular = k >= dim.x;
    let h = drive.w;
    let kp = gains.x * h * h;
    let kv = gains.y * h;
    let mut oa = xa;
    let mut ob = xb;
    let mut lo = l;
    if kp > 0.0 || kv > 0.0 || drive.z != 0.0 {
        let pj = oa * pf;
        let cj = ob * cf;
        let (x, n) = dof_coordinate(axes, ds, dim, pj, cj, k);
        let (x0, _) = dof_coordinate(axes, ds, dim, pj0, cj0, k);
        let mut c = x - drive.x;
        let mut moved = x - x0;
        if angular {
            c = wrap_pi(c);
            moved = wrap_pi(moved);
        }
        let rate = moved - drive.y * h;
        let w = pivot_inv_mass(model, a, oa, cj.p, n, angular)
            + pivot_inv_mass(model, b, ob, cj.p, n, angular);
        if w > 0.0 {
            let lim = gains.z * h * h;
            let want = (h * h * drive.z - kp * c - kv * rate - lo.x) / (1.0 + w * (kp + kv));
            let total = clamp(lo.x + want, -lim, lim);
            let (ra, rb) = apply_dof(model, a, b, oa, ob, cj.p, n, angular, total - lo.x);
            oa = ra;
            ob = rb;
            lo = Vec4::new(total, lo.y, lo.z, lo.w);
        }
    }
    let fr = gains.w * h * h;
    if fr > 0.0 {
        let pj = oa * pf;
        let cj = ob * cf;
        let (x, n) = dof_coordinate(axes, ds, dim, pj, cj, k);
        let (x0, _) = dof_coordinate(axes, ds, dim, pj0, cj0, k);
        let mut moved = x - x0;
        if angular {
            moved = wrap_pi(moved);
        }
        let w = pivot_inv_mass(model, a, oa, cj.p, n, angular)
            + pivot_inv_mass(model, b, ob, cj.p, n, angular);
        if w > 0.0 {
            let total = clamp(lo.y - moved / w, -fr, fr);
            let (ra, rb) = apply_dof(model, a, b, oa, ob, cj.p, n, angular, total - lo.y);
            oa = ra;
            ob = rb;
            lo = Vec4::new(lo.x, total, lo.z, lo.w);
        }
    }
    (oa, ob, lo)
}

/// The bodies of joint `e` (tree joints `0..nj`, then loop joint `e − nj`
/// as `e`): `(parent, child)`, -1 for the world.
#[weft::func]
pub fn joint_bodies(model: &Model, e: i32) -> IVec2 {
    let nj = model.joint_type.len() as i32;
    let mut ab = IVec2::new(-1, -1);
    if e < nj {
        ab = IVec2::new(model.joint_parent[e], model.joint_child[e]);
    } else {
        let l = e - nj;
        ab = IVec2::new(model.loop_joints.parent[l], model.loop_joints.child[l]);
    }
    ab
}

/// Joint `e`'s locks (see [`lock_joint`]; bodies `a`, `b` at `xa`, `xb`)
/// and, for a loop joint, its limits: the poses after. A tree joint's
/// degrees of freedom are [`tree_dof`]'s.
#[weft::func]
pub fn lock_and_loop_limits(
    model: &Model,
    e: i32,
    a: i32,
    b: i32,
    xa: Transform,
    xb: Transform,
) -> (Transform, Transform) {
    let nj = model.joint_type.len() as i32;
    let mut oa = xa;
    let mut ob = xb;
    if e < nj {
        let pf = model.joint_parent_frame[e];
        let cf = model.joint_child_frame[e];
        let ds = model.joint_qd_start[e];
        let dim = model.joint_dof_dim[e];
        let (la, lb) = lock_joint(model, a, b, oa, ob, pf, cf, model.joint_axis, ds, dim);
        oa = la;
        ob = lb;
    } else {
        let l = e - nj;
        let pf = model.loop_joints.parent_frame[l];
        let cf = model.loop_joints.child_frame[l];
        let ds = model.loop_joints.dof_start[l];
        let dim = model.loop_joints.dof_dim[l];
        let (la, lb) = lock_joint(model, a, b, oa, ob, pf, cf, model.loop_joints.axis, ds, dim);
        oa = la;
        ob = lb;
        if model.loop_joints.kind[l] != 2 {
            for k in 0..dim.x + dim.y {
                let (ma, mb) = limit_dof(
                    model,
                    a,
                    b,
                    oa,
                    ob,
                    pf,
                    cf,
                    model.loop_joints.axis,
                    model.loop_joints.lower,
                    model.loop_joints.upper,
                    ds,
                    dim,
                    k,
                );
                oa = ma;
                ob = mb;
            }
        }
    }
    (oa, ob)
}

/// Whether tree joint `e` has per-degree-of-freedom rows ([`tree_dof`]):
/// every kind but ball and free.
#[weft::func]
pub fn has_dof_rows(model: &Model, e: i32) -> bool {
    let kind = model.joint_type[e];
    kind != 2 && kind != 4
}

/// Degree of freedom `k` of tree joint `e` (bodies `a`, `b` at `xa`, `xb`;
/// `pj0`, `cj0`: its frames at the substep's start): its hard limits
/// ([`limit_dof`]), then its drive and dry friction ([`drive_dof`]) from the
/// targets and efforts of `target_pos`, `target_vel`, `effort` and the
/// model's gains. `lk`: the degree of freedom's accumulated corrections
/// (drive, friction). Returns the poses and `lk` after.
#[weft::func]
pub fn tree_dof(
    model: &Model,
    e: i32,
    a: i32,
    b: i32,
    xa: Transform,
    xb: Transform,
    pj0: Transform,
    cj0: Transform,
    k: i32,
    lk: Vec4,
    target_pos: &Array<f32>,
    target_vel: &Array<f32>,
    effort: &Array<f32>,
    h: f32,
) -> (Transform, Transform, Vec4) {
    let pf = model.joint_parent_frame[e];
    let cf = model.joint_child_frame[e];
    let ds = model.joint_qd_start[e];
    let dim = model.joint_dof_dim[e];
    let (ma, mb) = limit_dof(
        model,
        a,
        b,
        xa,
        xb,
        pf,
        cf,
        model.joint_axis,
        model.joint_limit_lower,
        model.joint_limit_upper,
        ds,
        dim,
        k,
    );
    let d = ds + k;
    let drive = Vec4::new(target_pos[d], target_vel[d], effort[d], h);
    let gains = Vec4::new(
        model.joint_target_ke[d],
        model.joint_target_kd[d] + model.joint_damping[d],
        model.joint_effort_limit[d],
        model.joint_friction[d],
    );
    drive_dof(
        model,
        a,
        b,
        ma,
        mb,
        pj0,
        cj0,
        pf,
        cf,
        model.joint_axis,
        ds,
        dim,
        k,
        drive,
        gains,
        lk,
    )
}

/// Pose of body `b` in `q` (identity for -1, the world).
#[weft::func]
pub fn pose_or_world(q: &Array<Transform>, b: i32) -> Transform {
    let mut x = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    if b >= 0 {
        x = q[b];
    }
    x
}

/// The joint solve of the colours `colors.x .. colors.y`, in place in `q`,
/// one colour after another (colour `c`'s joints are `list[start[c]..][..
/// count[c]]`: tree joints `0..nj`, then loop joint `e − nj` as `e`), a
/// thread taking every `stride`-th joint of each. `q0`: the poses at the
/// substep's start; `lam`: the drives' and frictions' accumulated corrections
/// per degree of freedom (tree joints' first, then loop joints'). In place,
/// so `forward_only` (no adjoint): a taped step runs
/// [`solve_joints_by_body`](super::joint_taped_kernels::solve_joints_by_body).
#[weft::kernel(forward_only)]
pub fn solve_joints(
    model: &Model,
    list: &Array<i32>,
    start: &Array<i32>,
    count: &Array<i32>,
    colors: IVec2,
    stride: i32,
    target_pos: &Array<f32>,
    target_vel: &Array<f32>,
    effort: &Array<f32>,
    h: f32,
    first: bool,
    q: &mut Array<Transform>,
    q0: &Array<Transform>,
    lam: &mut Array<Vec4>,
) {
    let nj = model.joint_type.len() as i32;
    for color in colors.x..colors.y {
        let n = count[color];
        let base = start[color];
        let mut i = tid();
        while i < n {
            let e = list[base + i];
            let ab = joint_bodies(model, e);
            let a = ab.x;
            let b = ab.y;
            let mut oa = Transform::new(Vec3::ZERO, Quat::IDENTITY);
            let mut ob = oa;
            if a >= 0 {
                oa = q[a];
            }
            if b >= 0 {
                ob = q[b];
            }
            let (la, lb) = lock_and_loop_limits(model, e, a, b, oa, ob);
            oa = la;
            ob = lb;
            if e < nj {
                if has_dof_rows(model, e) {
                    let pj0 = pose_or_world(q0, a) * model.joint_parent_frame[e];
                    let cj0 = pose_or_world(q0, b) * model.joint_child_frame[e];
                    let ds = model.joint_qd_start[e];
                    let dim = model.joint_dof_dim[e];
                    for k in 0..dim.x + dim.y {
                        let d = ds + k;
                        let mut lk = Vec4::ZERO;
                        if !first {
                            lk = lam[d];
                        }
                        let (da, db, lnew) = tree_dof(
                            model, e, a, b, oa, ob, pj0, cj0, k, lk, target_pos, target_vel,
                            effort, h,
                        );
                        lam[d] = lnew;
                        oa = da;
                        ob = db;
                    }
                }
            }
            if a >= 0 {
                if model.body_inv_mass[a] > 0.0 {
                    q[a] = oa;
                }
            }
            if b >= 0 {
                if model.body_inv_mass[b] > 0.0 {
                    q[b] = ob;
                }
            }
            i += stride;
        }
    }
}
