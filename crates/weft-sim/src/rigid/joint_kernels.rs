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
        // Both branches of the middle angle, in a loop (one copy of
        // `angles3` in a kernel): the one nearer 0.
        let mut s = Vec3::ZERO;
        let mut branch = 1.0;
        for i in 0..2 {
            let t3 = angles3(r, a0, a1, a2, branch);
            if i == 0 || abs(wrap_pi(t3.y)) < abs(wrap_pi(s.y)) {
                s = t3;
            }
            branch = -1.0;
        }
        t = Vec3::new(wrap_pi(s.x), wrap_pi(s.y), wrap_pi(s.z));
    }
    t
}

/// Axis `i` of joint `e` (tree joints `0..nj`, then loop joint `e − nj` as
/// `e`; its linear axes first, then its angular ones), zero where `i ≥ n`.
#[weft::func]
pub fn joint_axis(model: &Model, e: i32, i: i32, n: i32) -> Vec3 {
    let nj = model.joint_type.len() as i32;
    let mut a = Vec3::ZERO;
    if i < n {
        if e < nj {
            a = model.joint_axis[model.joint_qd_start[e] + i];
        } else {
            let l = e - nj;
            a = model.loop_joints.axis[model.loop_joints.dof_start[l] + i];
        }
    }
    a
}

/// Joint `e`'s frames in its parent and child and its numbers of linear and
/// angular axes: `(parent frame, child frame, dim)`.
#[weft::func]
pub fn joint_frames(model: &Model, e: i32) -> (Transform, Transform, IVec2) {
    let nj = model.joint_type.len() as i32;
    let mut pf = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    let mut cf = pf;
    let mut dim = IVec2::new(0, 0);
    if e < nj {
        pf = model.joint_parent_frame[e];
        cf = model.joint_child_frame[e];
        dim = model.joint_dof_dim[e];
    } else {
        let l = e - nj;
        pf = model.loop_joints.parent_frame[l];
        cf = model.loop_joints.child_frame[l];
        dim = model.loop_joints.dof_dim[l];
    }
    (pf, cf, dim)
}

/// Degree of freedom `k` of joint `e` (`dim` linear and angular axes, see
/// [`joint_axis`]) whose frames sit at `pj` (on the parent) and `cj` (on
/// the child), world: `(its coordinate, its world axis)`. An angular axis
/// is turned by the rotations before it.
#[weft::func]
pub fn dof_coordinate(
    model: &Model,
    e: i32,
    dim: IVec2,
    pj: Transform,
    cj: Transform,
    k: i32,
) -> (f32, Vec3) {
    let nl = dim.x;
    let na = dim.y;
    let n = nl + na;
    let mut x = 0.0;
    let mut axis = Vec3::ZERO;
    if k < nl {
        let dl = quat_rotate_inv(pj.q, cj.p - pj.p);
        let c = solve_axes(
            nl,
            joint_axis(model, e, 0, nl),
            joint_axis(model, e, 1, nl),
            joint_axis(model, e, 2, nl),
            dl,
        );
        x = component(c, k);
        axis = quat_rotate(pj.q, joint_axis(model, e, k, n));
    } else {
        let i = k - nl;
        let r = quat_inverse(pj.q) * cj.q;
        let a0 = joint_axis(model, e, nl, n);
        let a1 = joint_axis(model, e, nl + 1, n);
        let a2 = joint_axis(model, e, nl + 2, n);
        let t = rotation_angles(r, na, a0, a1, a2);
        x = component(t, i);
        let mut f = pj.q;
        for m in 0..i {
            f = f * quat_from_axis_angle(joint_axis(model, e, nl + m, n), component(t, m));
        }
        axis = quat_rotate(f, joint_axis(model, e, k, n));
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
/// its numbers of linear and angular axes, [`joint_axis`]): first the
/// rotations (all three for 0 angular axes; for a hinge, the turn about the
/// two directions across its axis; for a universal joint, its two axes —
/// the first on the parent, the second on the child — kept at the angle
/// they make at rest), then the translations (all three, or across the one
/// or two linear axes). Each lock is one block ([`correct_block`]), in a
/// loop of two passes so a kernel holds one copy of it.
#[weft::func]
pub fn lock_joint(
    model: &Model,
    e: i32,
    a: i32,
    b: i32,
    xa: Transform,
    xb: Transform,
    pf: Transform,
    cf: Transform,
    dim: IVec2,
) -> (Transform, Transform) {
    let nl = dim.x;
    let na = dim.y;
    let nd = nl + na;
    let mut oa = xa;
    let mut ob = xb;
    for pass in 0..2 {
        let angular = pass == 0;
        let pj = oa * pf;
        let cj = ob * cf;
        let mut on = false;
        let mut corr = Vec3::ZERO;
        let mut free = Mat3::ZERO;
        let mut pa = pj.p;
        if angular {
            if na == 0 {
                on = true;
                corr = rotation_vector(pj.q, cj.q);
            } else if na < 3 {
                // The turn taking the child's axis uc onto the parent's up
                // (minus the rest angle `phi0` of a universal joint's two
                // axes), `c (θ − phi0) / sin θ`; for a hinge near alignment
                // `c` (its limit), with no cut-off: a tape differentiates
                // the lock at an exactly held hinge too. A universal joint's
                // axes are never parallel: its one row is about `c / |c|`.
                let ap = joint_axis(model, e, nl, nd);
                let mut ac = ap;
                let mut phi0 = 0.0;
                if na == 2 {
                    ac = joint_axis(model, e, nl + 1, nd);
                    phi0 = acos(clamp(dot(ap, ac), -1.0, 1.0));
                }
                let up = quat_rotate(pj.q, ap);
                let uc = quat_rotate(cj.q, ac);
                let c = cross(uc, up);
                let s = length(c);
                let mut f = 1.0;
                if s > 1e-9 {
                    f = (atan2(s, dot(uc, up)) - phi0) / s;
                }
                corr = c * f;
                if na == 1 {
                    on = true;
                    free = outer(up, up);
                } else if s > 1e-9 {
                    on = true;
                    let n = c / s;
                    free = Mat3::IDENTITY - outer(n, n);
                }
            }
        } else if nl < 3 {
            on = true;
            let dl = quat_rotate_inv(pj.q, cj.p - pj.p);
            let mut err = dl;
            if nl == 1 {
                let l0 = joint_axis(model, e, 0, nd);
                err = dl - l0 * dot(dl, l0);
                let lw = quat_rotate(pj.q, l0);
                free = outer(lw, lw);
            } else if nl == 2 {
                let n = normalize(cross(
                    joint_axis(model, e, 0, nd),
                    joint_axis(model, e, 1, nd),
                ));
                err = n * dot(dl, n);
                let nw = quat_rotate(pj.q, n);
                free = Mat3::IDENTITY - outer(nw, nw);
            }
            corr = -quat_rotate(pj.q, err);
            pa = cj.p + corr;
        }
        if on {
            let (ra, rb) = correct_block(model, a, b, oa, ob, pa, cj.p, corr, free, angular);
            oa = ra;
            ob = rb;
        }
    }
    (oa, ob)
}

/// Degree of freedom `k` of joint `e`'s row `r` — 0: its hard limits
/// `limits.x ≤ x ≤ limits.y`; 1: its drive; 2: its dry friction — on
/// bodies `ab` at `xa`, `xb` (joint frames `pf`, `cf` in them; `dim`: its
/// numbers of linear and angular axes; `x0`: its coordinate at the substep's
/// start, [`eval_dof_start`]). `drive`: position target, velocity target, feed-forward
/// effort, substep `h`; `gains`: stiffness, damping (the drive's plus the
/// joint's), effort limit, friction ([`dof_params`]); `l`: the drive's (x)
/// and the friction's (y) accumulated corrections. A limit moves the
/// coordinate onto its range; the drive moves it by `(h²f − k̃ C − d̃ Ċh −
/// λ) / (1 + w (k̃ + d̃))` (`k̃ = ke h²`, `d̃ = kd h`: the implicit
/// spring–damper of the substep), clamped to the effort limit; friction
/// takes back the substep's motion up to `friction h²`. Returns the poses
/// and `l` after.
///
/// One func for the three rows, called in a loop, so a kernel holds one
/// copy of the coordinate's trigonometry (PTX inlines every func: six
/// copies, and the start's coordinate recomputed in every row, made the
/// joint kernels' adjoint too large for `ptxas`).
#[weft::func]
pub fn dof_row(
    model: &Model,
    e: i32,
    ab: IVec2,
    xa: Transform,
    xb: Transform,
    pf: Transform,
    cf: Transform,
    dim: IVec2,
    k: i32,
    r: i32,
    x0: f32,
    drive: Vec4,
    gains: Vec4,
    limits: Vec2,
    l: Vec4,
) -> (Transform, Transform, Vec4) {
    let a = ab.x;
    let b = ab.y;
    let angular = k >= dim.x;
    let h = drive.w;
    let kp = gains.x * h * h;
    let kv = gains.y * h;
    let fr = gains.w * h * h;
    let mut on = fr > 0.0;
    if r == 0 {
        on = limits.x > -3.0e38 || limits.y < 3.0e38;
    } else if r == 1 {
        on = kp > 0.0 || kv > 0.0 || drive.z != 0.0;
    }
    let mut oa = xa;
    let mut ob = xb;
    let mut lo = l;
    if on {
        let pj = xa * pf;
        let cj = xb * cf;
        let (x, n) = dof_coordinate(model, e, dim, pj, cj, k);
        let mut moved = x - x0;
        if angular {
            moved = wrap_pi(moved);
        }
        let w = pivot_inv_mass(model, a, xa, cj.p, n, angular)
            + pivot_inv_mass(model, b, xb, cj.p, n, angular);
        let mut go = false;
        let mut dl = 0.0;
        if w > 0.0 {
            if r == 0 {
                let target = clamp(x, limits.x, limits.y);
                if target != x {
                    go = true;
                    dl = (target - x) / w;
                }
            } else if r == 1 {
                let mut c = x - drive.x;
                if angular {
                    c = wrap_pi(c);
                }
                let rate = moved - drive.y * h;
                let lim = gains.z * h * h;
                let want = (h * h * drive.z - kp * c - kv * rate - lo.x) / (1.0 + w * (kp + kv));
                let total = clamp(lo.x + want, -lim, lim);
                go = true;
                dl = total - lo.x;
                lo = Vec4::new(total, lo.y, lo.z, lo.w);
            } else {
                let total = clamp(lo.y - moved / w, -fr, fr);
                go = true;
                dl = total - lo.y;
                lo = Vec4::new(lo.x, total, lo.z, lo.w);
            }
        }
        if go {
            let (ra, rb) = apply_dof(model, a, b, xa, xb, cj.p, n, angular, dl);
            oa = ra;
            ob = rb;
        }
    }
    (oa, ob, lo)
}

/// Degree of freedom `k` of joint `e`'s parameters for [`dof_row`]:
/// `(drive, gains, limits)`, the drive from the targets and efforts of
/// `target_pos`, `target_vel`, `effort` and the substep `h`. Loop joints
/// have limits only (their drive and gains are 0).
#[weft::func]
pub fn dof_params(
    model: &Model,
    e: i32,
    k: i32,
    target_pos: &Array<f32>,
    target_vel: &Array<f32>,
    effort: &Array<f32>,
    h: f32,
) -> (Vec4, Vec4, Vec2) {
    let nj = model.joint_type.len() as i32;
    let mut drive = Vec4::new(0.0, 0.0, 0.0, h);
    let mut gains = Vec4::ZERO;
    let mut limits = Vec2::ZERO;
    if e < nj {
        let d = model.joint_qd_start[e] + k;
        drive = Vec4::new(target_pos[d], target_vel[d], effort[d], h);
        gains = Vec4::new(
            model.joint_target_ke[d],
            model.joint_target_kd[d] + model.joint_damping[d],
            model.joint_effort_limit[d],
            model.joint_friction[d],
        );
        limits = Vec2::new(model.joint_limit_lower[d], model.joint_limit_upper[d]);
    } else {
        let l = e - nj;
        let d = model.loop_joints.dof_start[l] + k;
        limits = Vec2::new(model.loop_joints.lower[d], model.loop_joints.upper[d]);
    }
    (drive, gains, limits)
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

/// How many rows ([`dof_row`]) each degree of freedom of joint `e` has:
/// 3 (limits, drive, friction) for a tree joint of every kind but ball and
/// free, 1 (limits) for a loop joint of every kind but ball, else 0.
#[weft::func]
pub fn dof_rows(model: &Model, e: i32) -> i32 {
    let nj = model.joint_type.len() as i32;
    let mut rows = 0;
    if e < nj {
        let kind = model.joint_type[e];
        if kind != 2 && kind != 4 {
            rows = 3;
        }
    } else if model.loop_joints.kind[e - nj] != 2 {
        rows = 1;
    }
    rows
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

/// The coordinate of every degree of freedom of tree joint `tid()` (of
/// the kinds with rows, [`dof_rows`]) at the poses `q0` — the substep's
/// start, from which drives and friction measure the substep's motion —
/// into `x0` (indexed like the joints' degrees of freedom; loop joints
/// have limits only and need none). Once per substep, before the passes.
#[weft::kernel]
pub fn eval_dof_start(model: &Model, q0: &Array<Transform>, x0: &mut Array<f32>) {
    let e = tid();
    if dof_rows(model, e) > 0 {
        let (pf, cf, dim) = joint_frames(model, e);
        let pj0 = pose_or_world(q0, model.joint_parent[e]) * pf;
        let cj0 = pose_or_world(q0, model.joint_child[e]) * cf;
        let ds = model.joint_qd_start[e];
        for k in 0..dim.x + dim.y {
            let (x, _) = dof_coordinate(model, e, dim, pj0, cj0, k);
            x0[ds + k] = x;
        }
    }
}

/// The joint solve of the colours `colors.x .. colors.y`, in place in `q`,
/// one colour after another (colour `c`'s joints are `list[start[c]..][..
/// count[c]]`: tree joints `0..nj`, then loop joint `e − nj` as `e`), a
/// thread taking every `stride`-th joint of each. `x0`: the tree joints'
/// coordinates at the substep's start ([`eval_dof_start`]); `lam`: the drives' and frictions' accumulated corrections
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
    x0: &Array<f32>,
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
            let (pf, cf, dim) = joint_frames(model, e);
            let (la, lb) = lock_joint(model, e, a, b, oa, ob, pf, cf, dim);
            oa = la;
            ob = lb;
            let rows = dof_rows(model, e);
            if rows > 0 {
                for k in 0..dim.x + dim.y {
                    let mut d = -1;
                    let mut lk = Vec4::ZERO;
                    let mut xk = 0.0;
                    if e < nj {
                        d = model.joint_qd_start[e] + k;
                        xk = x0[d];
                        if !first {
                            lk = lam[d];
                        }
                    }
                    let (drive, gains, limits) =
                        dof_params(model, e, k, target_pos, target_vel, effort, h);
                    for r in 0..rows {
                        let (ra, rb, lr) = dof_row(
                            model, e, ab, oa, ob, pf, cf, dim, k, r, xk, drive, gains, limits, lk,
                        );
                        oa = ra;
                        ob = rb;
                        lk = lr;
                    }
                    if d >= 0 {
                        lam[d] = lk;
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
