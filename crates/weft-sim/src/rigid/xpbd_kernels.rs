//! The kernels of [`XpbdRigid`](super::XpbdRigid): one thread per contact
//! manifold, manifolds of one colour (no shared dynamic body, see
//! [`coloring`](super::coloring)) in parallel and the colours in turn
//! (Gauss–Seidel across manifolds). Inside a manifold, the normal constraints
//! are projected in symmetric Gauss–Seidel sweeps with the correction
//! accumulated per contact and kept non-negative (a later sweep may take back
//! what an earlier one pushed too far), so a box resting on four corners gets
//! the same correction whatever order its corners come in; friction acts once
//! per manifold, at the patch centroid.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::{Contacts, Manifolds, ShapeSet};

use super::contact_math::{body_com_world, body_pose, contact_at};
use super::integrate::{rotate_by, world_inv_inertia};
use crate::Model;

/// Pose `x` of body `b` (inverse mass `w`, world inverse inertia `iinv`)
/// after a positional impulse `p` at offset `r` from its centre of mass plus
/// a pure angular impulse `tau` (unchanged for static and kinematic bodies,
/// `w = 0`).
#[weft::func]
pub fn corrected(
    model: &Model,
    b: i32,
    x: Transform,
    w: f32,
    iinv: Mat3,
    r: Vec3,
    p: Vec3,
    tau: Vec3,
) -> Transform {
    let mut out = x;
    if w > 0.0 {
        let com = model.body_com[b];
        let c = transform_point(x, com) + p * w;
        let q1 = rotate_by(x.q, iinv * (cross(r, p) + tau), 1.0);
        out = Transform::new(c - quat_rotate(q1, com), q1);
    }
    out
}

/// The bodies of manifold `m`: `(a, b)` of its first contact's shapes (-1 for
/// static geometry).
#[weft::func]
pub fn manifold_bodies(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    m: i32,
) -> (i32, i32) {
    let c0 = manifolds.contacts[manifolds.start[m] as i32];
    (
        model.rigid_shapes.body[contacts.shape_a[c0]],
        model.rigid_shapes.body[contacts.shape_b[c0]],
    )
}

/// The inverse mass and world inverse inertia of body `b` at pose `x` (zero
/// for static geometry; kinematic bodies have zero inverse mass and inertia).
#[weft::func]
pub fn body_inverse_mass(model: &Model, b: i32, x: Transform) -> (f32, Mat3) {
    let mut w = 0.0;
    let mut i = Mat3::ZERO;
    if b >= 0 {
        w = model.body_inv_mass[b];
        i = world_inv_inertia(x.q, model.body_inv_inertia[b]);
    }
    (w, i)
}

/// The row of normal constraint `c` at poses `xa`, `xb` (centres of mass
/// `ca`, `cb`, inverse masses `wa`, `wb`, world inverse inertias `ia`, `ib`):
/// `(normal, ra × n, rb × n, I_a⁻¹ (ra × n), I_b⁻¹ (rb × n), the row's
/// inverse mass, the gap n · (pb − pa))`.
#[weft::func]
pub fn normal_row(
    contacts: &Contacts,
    c: i32,
    xa: Transform,
    xb: Transform,
    ca: Vec3,
    cb: Vec3,
    wa: f32,
    wb: f32,
    ia: Mat3,
    ib: Mat3,
) -> (Vec3, Vec3, Vec3, Vec3, Vec3, f32, f32) {
    let (pa, pb, n) = contact_at(contacts, c, xa, xb);
    let ta = cross(pa - ca, n);
    let tb = cross(pb - cb, n);
    let ua = ia * ta;
    let ub = ib * tb;
    let w = wa + wb + dot(ta, ua) + dot(tb, ub);
    (n, ta, tb, ua, ub, w, dot(n, pb - pa))
}

/// The normal constraints of manifold `m` (bodies `bodies` at `xa`, `xb`,
/// inverse masses `w`, world inverse inertias `ia`, `ib`), projected
/// as one block: `sweeps` symmetric Gauss–Seidel sweeps over the
/// contacts of the problem linearised at `xa`, `xb` (each contact's
/// accumulated correction λ moves to `max(λ − gap / w, 0)`, the gap
/// including the displacement the block has made so far), then the block's
/// net displacement applied once. Applying each contact's rotation as it
/// comes instead would compose small rotations about the corners in turn,
/// whose second-order remainder is a spin about the normal that always has
/// the same sign for the same corner order (it spins a tower of boxes).
/// A contact deeper than `max_push` is pushed out by at most that much per
/// pass (a corner that turned in during the last step leaves over several
/// substeps instead of at depth / substep, which threw tumbling boxes off a
/// mesh). Each λ starts at `lambda_in[c]` (0 when `first`, the substep's first
/// pass) and ends in `lambda_out[c]` when `store`; the first 32 are kept in
/// registers meanwhile (so a taped launch never reads what it wrote), more
/// (a mesh manifold) in `lambda_out`. The rows of the first 8 contacts are
/// computed once (the rest each sweep). Returns the new poses and the sum of
/// the manifold's λ.
#[weft::func]
pub fn normal_block(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    m: i32,
    bodies: IVec2,
    xa: Transform,
    xb: Transform,
    w: Vec2,
    ia: Mat3,
    ib: Mat3,
    sweeps: i32,
    max_push: f32,
    first: bool,
    store: bool,
    lambda_in: &Array<f32>,
    lambda_out: &mut Array<f32>,
) -> (Transform, Transform, f32) {
    let ba = bodies.x;
    let bb = bodies.y;
    let wa = w.x;
    let wb = w.y;
    let s = manifolds.start[m] as i32;
    let k = manifolds.len[m] as i32;
    let ca = body_com_world(model, ba, xa);
    let cb = body_com_world(model, bb, xb);
    // Rows of the first 8 contacts, 17 floats each: n, ta, tb, ua, ub, 1/w
    // (0 for a row nothing can move), gap; λ of the first 32 in `lams`.
    let mut rows = [0.0f32; 136];
    let mut lams = [0.0f32; 32];
    for j in 0..k {
        let c = manifolds.contacts[s + j];
        let mut l0 = 0.0;
        if !first {
            l0 = lambda_in[c];
        }
        if j < 32 {
            lams[j] = l0;
        } else {
            lambda_out[c] = l0;
        }
    }
    for j in 0..min(k, 8) {
        let c = manifolds.contacts[s + j];
        let (n, ta, tb, ua, ub, wr, gap) = normal_row(contacts, c, xa, xb, ca, cb, wa, wb, ia, ib);
        let o = j * 17;
        rows[o] = n.x;
        rows[o + 1] = n.y;
        rows[o + 2] = n.z;
        rows[o + 3] = ta.x;
        rows[o + 4] = ta.y;
        rows[o + 5] = ta.z;
        rows[o + 6] = tb.x;
        rows[o + 7] = tb.y;
        rows[o + 8] = tb.z;
        rows[o + 9] = ua.x;
        rows[o + 10] = ua.y;
        rows[o + 11] = ua.z;
        rows[o + 12] = ub.x;
        rows[o + 13] = ub.y;
        rows[o + 14] = ub.z;
        rows[o + 15] = 0.0;
        if wr > 0.0 {
            rows[o + 15] = 1.0 / wr;
        }
        rows[o + 16] = max(gap, -max_push);
    }
    let mut dxa = Vec3::ZERO;
    let mut dwa = Vec3::ZERO;
    let mut dxb = Vec3::ZERO;
    let mut dwb = Vec3::ZERO;
    let mut moved = false;
    for sweep in 0..sweeps {
        for i in 0..k {
            let mut j = i;
            if sweep % 2 == 1 {
                j = k - 1 - i;
            }
            let c = manifolds.contacts[s + j];
            let mut n = Vec3::ZERO;
            let mut ta = Vec3::ZERO;
            let mut tb = Vec3::ZERO;
            let mut ua = Vec3::ZERO;
            let mut ub = Vec3::ZERO;
            let mut iw = 0.0;
            let mut gap = 0.0;
            if j < 8 {
                let o = j * 17;
                n = Vec3::new(rows[o], rows[o + 1], rows[o + 2]);
                ta = Vec3::new(rows[o + 3], rows[o + 4], rows[o + 5]);
                tb = Vec3::new(rows[o + 6], rows[o + 7], rows[o + 8]);
                ua = Vec3::new(rows[o + 9], rows[o + 10], rows[o + 11]);
                ub = Vec3::new(rows[o + 12], rows[o + 13], rows[o + 14]);
                iw = rows[o + 15];
                gap = rows[o + 16];
            } else {
                let (n1, ta1, tb1, ua1, ub1, w1, gap1) =
                    normal_row(contacts, c, xa, xb, ca, cb, wa, wb, ia, ib);
                n = n1;
                ta = ta1;
                tb = tb1;
                ua = ua1;
                ub = ub1;
                if w1 > 0.0 {
                    iw = 1.0 / w1;
                }
                gap = max(gap1, -max_push);
            }
            if iw > 0.0 {
                let mut lam = 0.0;
                if j < 32 {
                    lam = lams[j];
                } else {
                    lam = lambda_out[c];
                }
                let d = gap + dot(n, dxb - dxa) + dot(tb, dwb) - dot(ta, dwa);
                let l1 = max(lam - d * iw, 0.0);
                let dl = l1 - lam;
                if dl != 0.0 {
                    dxb += n * (wb * dl);
                    dwb += ub * dl;
                    dxa -= n * (wa * dl);
                    dwa -= ua * dl;
                    if j < 32 {
                        lams[j] = l1;
                    } else {
                        lambda_out[c] = l1;
                    }
                    moved = true;
                }
            }
        }
    }
    let mut sum = 0.0;
    for j in 0..k {
        let c = manifolds.contacts[s + j];
        if j < 32 {
            sum += lams[j];
            if store {
                lambda_out[c] = lams[j];
            }
        } else {
            sum += lambda_out[c];
        }
    }
    let mut ya = xa;
    let mut yb = xb;
    if moved {
        if wa > 0.0 {
            let q1 = rotate_by(xa.q, dwa, 1.0);
            ya = Transform::new(ca + dxa - quat_rotate(q1, model.body_com[ba]), q1);
        }
        if wb > 0.0 {
            let q1 = rotate_by(xb.q, dwb, 1.0);
            yb = Transform::new(cb + dxb - quat_rotate(q1, model.body_com[bb]), q1);
        }
    }
    (ya, yb, sum)
}

/// The rotation vector of `q1 · q0⁻¹` (small angles): twice its vector part,
/// on the short way round.
#[weft::func]
pub fn rotation_vector(q1: Quat, q0: Quat) -> Vec3 {
    let d = q1 * quat_inverse(q0);
    let mut v = Vec3::new(d.x, d.y, d.z) * 2.0;
    if d.w < 0.0 {
        v = -v;
    }
    v
}

/// The friction patch of manifold `m` at poses `xa`, `xb`: `(centroid of its
/// contacts on a in a's frame, the same on b in b's frame, mean normal, patch
/// radius about the centroid)`.
#[weft::func]
pub fn friction_patch(
    contacts: &Contacts,
    manifolds: &Manifolds,
    m: i32,
    xa: Transform,
    xb: Transform,
) -> (Vec3, Vec3, Vec3, f32) {
    let s = manifolds.start[m] as i32;
    let k = manifolds.len[m] as i32;
    let mut la = Vec3::ZERO;
    let mut lb = Vec3::ZERO;
    let mut spread = 0.0;
    let mut nsum = Vec3::ZERO;
    for i in 0..k {
        let c = manifolds.contacts[s + i];
        let n = contacts.normal[c];
        // The surface points of `contact_at`, in the bodies' frames.
        let mut qa = contacts.point_a[c];
        let mut qb = contacts.point_b[c];
        let rad_a = contacts.radius_a[c];
        let rad_b = contacts.radius_b[c];
        if rad_a != 0.0 {
            qa += quat_rotate_inv(xa.q, n) * rad_a;
        }
        if rad_b != 0.0 {
            qb -= quat_rotate_inv(xb.q, n) * rad_b;
        }
        la += qa;
        lb += qb;
        spread += dot(qa, qa);
        nsum += n;
    }
    let active = max(k as f32, 1.0);
    la = la / active;
    lb = lb / active;
    let radius = sqrt(max(spread / active - dot(la, la), 0.0));
    (la, lb, normalize(nsum), radius)
}

/// The slip of a friction patch (centroids `la` on a, `lb` on b, normal `n`)
/// at poses `xa`, `xb` since the step began (`xa0`, `xb0`) plus the slip
/// `carry` left from earlier steps (xyz: tangential, w: twist about `n`):
/// `(tangential slip of b against a, twist of b against a about n)`.
#[weft::func]
pub fn patch_slip(
    xa: Transform,
    xb: Transform,
    xa0: Transform,
    xb0: Transform,
    la: Vec3,
    lb: Vec3,
    n: Vec3,
    carry: Vec4,
) -> (Vec3, f32) {
    let pa = transform_point(xa, la);
    let pb = transform_point(xb, lb);
    let slip = (pb - transform_point(xb0, lb)) - (pa - transform_point(xa0, la))
        + Vec3::new(carry.x, carry.y, carry.z);
    let twist = dot(
        n,
        rotation_vector(xb.q, xb0.q) - rotation_vector(xa.q, xa0.q),
    ) + carry.w;
    (slip - n * dot(n, slip), twist)
}

/// Friction of manifold `m` as one patch (as PhysX's patch friction), after
/// its normal sweeps: the tangential slip of the centroid of its contacts
/// since the step began (poses `q0`), plus what earlier steps left
/// (`carry[m]`, see [`anchors`](super::anchors)), is undone while that needs at
/// most `mu_static` times the manifold's normal correction this substep (`lam`,
/// the sum of its λ), else limited to `mu` times it (kinetic); the relative
/// twist about the normal likewise, with the limit scaled by the patch's
/// radius (a single point has none, so a sphere spins freely). Slip is
/// measured on the patch's current centroid, so a rolling body (whose contact
/// point does not move) is not held back. Returns the new poses and 1 when the
/// friction was kinetic.
#[weft::func]
pub fn patch_friction(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    m: i32,
    bodies: IVec2,
    xa: Transform,
    xb: Transform,
    w: Vec2,
    ia: Mat3,
    ib: Mat3,
    q0: &Array<Transform>,
    carry: &Array<Vec4>,
    lam: f32,
) -> (Transform, Transform, i32) {
    let ba = bodies.x;
    let bb = bodies.y;
    let wa = w.x;
    let wb = w.y;
    let xa0 = body_pose(q0, ba);
    let xb0 = body_pose(q0, bb);
    let (la, lb, n, radius) = friction_patch(contacts, manifolds, m, xa, xb);
    let s = manifolds.start[m] as i32;
    let mut ya = xa;
    let mut yb = xb;
    let mut kinetic = 0;
    if lam > 0.0 {
        let c0 = manifolds.contacts[s];
        let sa = contacts.shape_a[c0];
        let sb = contacts.shape_b[c0];
        let mu_s = 0.5 * (model.rigid_shapes.mu_static[sa] + model.rigid_shapes.mu_static[sb]);
        let mu_d = 0.5 * (model.rigid_shapes.mu[sa] + model.rigid_shapes.mu[sb]);
        let (st, twist) = patch_slip(xa, xb, xa0, xb0, la, lb, n, carry[m]);
        let ls = length(st);
        let ra = transform_point(xa, la) - body_com_world(model, ba, xa);
        let rb = transform_point(xb, lb) - body_com_world(model, bb, xb);
        let mut p = Vec3::ZERO;
        if ls > 1.0e-9 {
            let t = st / ls;
            let rta = cross(ra, t);
            let rtb = cross(rb, t);
            let wt = wa + wb + dot(rta, ia * rta) + dot(rtb, ib * rtb);
            if wt > 0.0 {
                let mut dlt = ls / wt;
                if dlt > mu_s * lam {
                    dlt = mu_d * lam;
                    kinetic = 1;
                }
                p = -t * dlt;
            }
        }
        let mut tau = Vec3::ZERO;
        if radius > 1.0e-6 {
            let wr = dot(n, ia * n) + dot(n, ib * n);
            if abs(twist) > 1.0e-9 && wr > 0.0 {
                let mut lt = abs(twist) / wr;
                if lt > mu_s * lam * radius {
                    lt = mu_d * lam * radius;
                    kinetic = 1;
                }
                tau = n * (-sign(twist) * lt);
            }
        }
        if length_sq(p) > 0.0 || length_sq(tau) > 0.0 {
            yb = corrected(model, bb, xb, wb, ib, rb, p, tau);
            ya = corrected(model, ba, xa, wa, ia, ra, -p, -tau);
        }
    }
    (ya, yb, kinetic)
}

/// The position solve of manifold `m` from poses `xa`, `xb` of its bodies:
/// `sweeps` normal sweeps ([`normal_block`], λ from `lambda_in` or 0 when
/// `first`, into `lambda_out` when `store`), then patch friction when
/// `friction`. Returns the new poses and 1 when the friction was kinetic.
#[weft::func]
pub fn manifold_positions(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    m: i32,
    xa: Transform,
    xb: Transform,
    sweeps: i32,
    max_push: f32,
    first: bool,
    friction: bool,
    store: bool,
    q0: &Array<Transform>,
    carry: &Array<Vec4>,
    lambda_in: &Array<f32>,
    lambda_out: &mut Array<f32>,
) -> (Transform, Transform, i32) {
    let (ba, bb) = manifold_bodies(model, contacts, manifolds, m);
    let bodies = IVec2::new(ba, bb);
    // The inverse inertias at the pass's start serve the whole manifold solve
    // (its corrections turn the bodies by a fraction of a degree).
    let (wa, ia) = body_inverse_mass(model, ba, xa);
    let (wb, ib) = body_inverse_mass(model, bb, xb);
    let w = Vec2::new(wa, wb);
    let (na, nb, lam) = normal_block(
        model, contacts, manifolds, m, bodies, xa, xb, w, ia, ib, sweeps, max_push, first, store,
        lambda_in, lambda_out,
    );
    let mut out = (na, nb, 0);
    if friction {
        out = patch_friction(
            model, contacts, manifolds, m, bodies, na, nb, w, ia, ib, q0, carry, lam,
        );
    }
    out
}

/// The position solve of the manifolds of colours `colors.x .. colors.y`, in
/// place in `q`, one colour after another (colour `c`'s manifolds are
/// `list[start[c]..][..count[c]]`), a thread taking every `stride`-th manifold
/// of each; λ from `lambda_in` (or 0 when `first`) into `lambda_out`, and
/// `slid[m]` set by friction passes. A GPU launches one colour at a time with
/// a thread per manifold; a CPU solving a small scene launches one thread for
/// every colour (the same Gauss–Seidel order, without a launch per colour).
/// In place, so `forward_only` (no adjoint): a taped step runs
/// [`solve_positions_by_body`](super::xpbd_taped_kernels::solve_positions_by_body).
#[weft::kernel(forward_only)]
pub fn solve_positions(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    list: &Array<i32>,
    start: &Array<u32>,
    count: &Array<u32>,
    colors: IVec2,
    stride: i32,
    sweeps: i32,
    max_push: f32,
    first: bool,
    friction: bool,
    q: &mut Array<Transform>,
    q0: &Array<Transform>,
    carry: &Array<Vec4>,
    slid: &mut Array<i32>,
    lambda_in: &Array<f32>,
    lambda_out: &mut Array<f32>,
) {
    for color in colors.x..colors.y {
        let n = count[color] as i32;
        let base = start[color] as i32;
        let mut i = tid();
        while i < n {
            let m = list[base + i];
            let (ba, bb) = manifold_bodies(model, contacts, manifolds, m);
            let mut xa = Transform::new(Vec3::ZERO, Quat::IDENTITY);
            let mut xb = xa;
            if ba >= 0 {
                xa = q[ba];
            }
            if bb >= 0 {
                xb = q[bb];
            }
            let (fa, fb, kinetic) = manifold_positions(
                model, contacts, manifolds, m, xa, xb, sweeps, max_push, first, friction, true, q0,
                carry, lambda_in, lambda_out,
            );
            if friction {
                slid[m] = kinetic;
            }
            if ba >= 0 {
                if model.body_inv_mass[ba] > 0.0 {
                    q[ba] = fa;
                }
            }
            if bb >= 0 {
                if model.body_inv_mass[bb] > 0.0 {
                    q[bb] = fb;
                }
            }
            i += stride;
        }
    }
}

/// The velocity row of contact `c` at poses `xa`, `xb` (centres of mass
/// `ca`, `cb`, inverse masses and world inverse inertias `wa`, `ia`, `wb`,
/// `ib`) with velocities `va0`, `vb0` at the substep's start: `(normal, ra,
/// rb, the row's inverse mass, the normal speed to reach)`. Restitution sets
/// the target to `e` times the approach speed (`e = 0` below `threshold`, so
/// resting contacts do not jitter).
#[weft::func]
pub fn velocity_row(
    model: &Model,
    contacts: &Contacts,
    c: i32,
    xa: Transform,
    xb: Transform,
    ca: Vec3,
    cb: Vec3,
    wa: f32,
    wb: f32,
    ia: Mat3,
    ib: Mat3,
    va0: SpatialVector,
    vb0: SpatialVector,
    threshold: f32,
) -> (Vec3, Vec3, Vec3, f32, f32) {
    let (pa, pb, n) = contact_at(contacts, c, xa, xb);
    let ra = pa - ca;
    let rb = pb - cb;
    let vn0 = dot(
        n,
        (vb0.top + cross(vb0.bottom, rb)) - (va0.top + cross(va0.bottom, ra)),
    );
    let sa = contacts.shape_a[c];
    let sb = contacts.shape_b[c];
    let mut e = 0.5 * (model.rigid_shapes.restitution[sa] + model.rigid_shapes.restitution[sb]);
    if abs(vn0) <= threshold {
        e = 0.0;
    }
    let ta = cross(ra, n);
    let tb = cross(rb, n);
    let wn = wa + wb + dot(ta, ia * ta) + dot(tb, ib * tb);
    (n, ra, rb, wn, max(-e * vn0, 0.0))
}

/// The velocity pass of manifold `m` (bodies at poses `q`, velocities `va`,
/// `vb` now and `qd_prev` at the substep's start) over its contacts that
/// pushed this substep (`lambda > 0`), in `sweeps` Gauss–Seidel sweeps with
/// each contact's impulse accumulated (the first 32 in registers, more — a
/// mesh manifold — in `impulse`; all stored there when `store`): each one's
/// normal speed goes to its [`velocity_row`] target.
/// The impulse may pull, but never by more than the contact's positional push
/// this substep as an impulse (`lambda / h`, substep `h`): so pushing a deep
/// penetration out (a corner that turned in during the last step) does not
/// become a separating speed of depth / h — which threw tumbling boxes off a
/// mesh at 10 m/s — while a contact can never pull bodies together harder
/// than it pushed them apart. The rows of the first 8 contacts are computed
/// once. Returns the new velocities.
#[weft::func]
pub fn manifold_velocities(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    m: i32,
    q: &Array<Transform>,
    va_in: SpatialVector,
    vb_in: SpatialVector,
    qd_prev: &Array<SpatialVector>,
    lambda: &Array<f32>,
    threshold: f32,
    h: f32,
    sweeps: i32,
    store: bool,
    impulse: &mut Array<f32>,
) -> (SpatialVector, SpatialVector) {
    let (ba, bb) = manifold_bodies(model, contacts, manifolds, m);
    let s = manifolds.start[m] as i32;
    let k = manifolds.len[m] as i32;
    let mut imps = [0.0f32; 32];
    for j in 32..k {
        impulse[manifolds.contacts[s + j]] = 0.0;
    }
    let xa = body_pose(q, ba);
    let xb = body_pose(q, bb);
    let zero = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
    let mut va = va_in;
    let mut vb = vb_in;
    let mut va0 = zero;
    let mut vb0 = zero;
    if ba >= 0 {
        va0 = qd_prev[ba];
    }
    if bb >= 0 {
        vb0 = qd_prev[bb];
    }
    let ca = body_com_world(model, ba, xa);
    let cb = body_com_world(model, bb, xb);
    let (wa, ia) = body_inverse_mass(model, ba, xa);
    let (wb, ib) = body_inverse_mass(model, bb, xb);
    // Rows of the first 8 contacts, 12 floats each: n, ra, rb, wn, target,
    // floor (wn = 0: the contact did not push).
    let mut rows = [0.0f32; 96];
    for j in 0..min(k, 8) {
        let c = manifolds.contacts[s + j];
        if lambda[c] > 0.0 {
            let (n, ra, rb, wn, target) = velocity_row(
                model, contacts, c, xa, xb, ca, cb, wa, wb, ia, ib, va0, vb0, threshold,
            );
            let o = j * 12;
            rows[o] = n.x;
            rows[o + 1] = n.y;
            rows[o + 2] = n.z;
            rows[o + 3] = ra.x;
            rows[o + 4] = ra.y;
            rows[o + 5] = ra.z;
            rows[o + 6] = rb.x;
            rows[o + 7] = rb.y;
            rows[o + 8] = rb.z;
            rows[o + 9] = wn;
            rows[o + 10] = target;
            rows[o + 11] = -lambda[c] / h;
        }
    }
    for sweep in 0..sweeps {
        for i in 0..k {
            let mut j = i;
            if sweep % 2 == 1 {
                j = k - 1 - i;
            }
            let c = manifolds.contacts[s + j];
            let mut n = Vec3::ZERO;
            let mut ra = Vec3::ZERO;
            let mut rb = Vec3::ZERO;
            let mut wn = 0.0;
            let mut target = 0.0;
            let mut floor = 0.0;
            if j < 8 {
                let o = j * 12;
                n = Vec3::new(rows[o], rows[o + 1], rows[o + 2]);
                ra = Vec3::new(rows[o + 3], rows[o + 4], rows[o + 5]);
                rb = Vec3::new(rows[o + 6], rows[o + 7], rows[o + 8]);
                wn = rows[o + 9];
                target = rows[o + 10];
                floor = rows[o + 11];
            } else if lambda[c] > 0.0 {
                let (n1, ra1, rb1, wn1, target1) = velocity_row(
                    model, contacts, c, xa, xb, ca, cb, wa, wb, ia, ib, va0, vb0, threshold,
                );
                n = n1;
                ra = ra1;
                rb = rb1;
                wn = wn1;
                target = target1;
                floor = -lambda[c] / h;
            }
            if wn > 0.0 {
                let vn = dot(
                    n,
                    (vb.top + cross(vb.bottom, rb)) - (va.top + cross(va.bottom, ra)),
                );
                let mut acc = 0.0;
                if j < 32 {
                    acc = imps[j];
                } else {
                    acc = impulse[c];
                }
                let a1 = max(acc + (target - vn) / wn, floor);
                if j < 32 {
                    imps[j] = a1;
                } else {
                    impulse[c] = a1;
                }
                let p = n * (a1 - acc);
                vb = SpatialVector::new(vb.top + p * wb, vb.bottom + ib * cross(rb, p));
                va = SpatialVector::new(va.top - p * wa, va.bottom - ia * cross(ra, p));
            }
        }
    }
    if store {
        for j in 0..min(k, 32) {
            impulse[manifolds.contacts[s + j]] = imps[j];
        }
    }
    (va, vb)
}

/// The velocity pass of the manifolds of colours `colors.x .. colors.y` in
/// place in `qd`, a thread taking every `stride`-th of each (see
/// [`solve_positions`]). `forward_only`: a taped step runs
/// [`solve_velocities_by_body`](super::xpbd_taped_kernels::solve_velocities_by_body).
#[weft::kernel(forward_only)]
pub fn solve_velocities(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    list: &Array<i32>,
    start: &Array<u32>,
    count: &Array<u32>,
    colors: IVec2,
    stride: i32,
    sweeps: i32,
    q: &Array<Transform>,
    qd: &mut Array<SpatialVector>,
    qd_prev: &Array<SpatialVector>,
    lambda: &Array<f32>,
    threshold: f32,
    h: f32,
    impulse: &mut Array<f32>,
) {
    let zero = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
    for color in colors.x..colors.y {
        let n = count[color] as i32;
        let base = start[color] as i32;
        let mut i = tid();
        while i < n {
            let m = list[base + i];
            let (ba, bb) = manifold_bodies(model, contacts, manifolds, m);
            let mut va = zero;
            let mut vb = zero;
            if ba >= 0 {
                va = qd[ba];
            }
            if bb >= 0 {
                vb = qd[bb];
            }
            let (na, nb) = manifold_velocities(
                model, contacts, manifolds, m, q, va, vb, qd_prev, lambda, threshold, h, sweeps,
                true, impulse,
            );
            if ba >= 0 {
                if model.body_inv_mass[ba] > 0.0 {
                    qd[ba] = na;
                }
            }
            if bb >= 0 {
                if model.body_inv_mass[bb] > 0.0 {
                    qd[bb] = nb;
                }
            }
            i += stride;
        }
    }
}

/// Velocities after the position projections: the predicted velocity plus the
/// projections' displacement over `dt` (bodies nothing touched keep the
/// integrator's velocity exactly).
#[weft::kernel]
pub fn velocities_from_positions(
    model: &Model,
    q_pred: &Array<Transform>,
    qd_pred: &Array<SpatialVector>,
    q: &Array<Transform>,
    dt: f32,
    qd_out: &mut Array<SpatialVector>,
) {
    let b = tid();
    let v = qd_pred[b];
    let mut out = v;
    let x0 = q_pred[b];
    let x1 = q[b];
    // Untouched bodies keep their velocity exactly (q · q⁻¹ in f32 is off the
    // identity by rounding, which over dt would be a spurious spin).
    let moved = x0.p.x != x1.p.x
        || x0.p.y != x1.p.y
        || x0.p.z != x1.p.z
        || x0.q.x != x1.q.x
        || x0.q.y != x1.q.y
        || x0.q.z != x1.q.z
        || x0.q.w != x1.q.w;
    if model.body_inv_mass[b] > 0.0 && moved {
        let com = model.body_com[b];
        let dc = transform_point(x1, com) - transform_point(x0, com);
        let dq = x1.q * quat_inverse(x0.q);
        let mut w = Vec3::new(dq.x, dq.y, dq.z) * (2.0 / dt);
        if dq.w < 0.0 {
            w = -w;
        }
        out = SpatialVector::new(v.top + dc / dt, v.bottom + w);
    }
    qd_out[b] = out;
}

/// Copies body poses and velocities (`q`, `qd` into `q_out`, `qd_out`) as a
/// launch, so a tape carries gradients through the copy.
#[weft::kernel]
pub fn copy_body_state(
    q: &Array<Transform>,
    qd: &Array<SpatialVector>,
    q_out: &mut Array<Transform>,
    qd_out: &mut Array<SpatialVector>,
) {
    let b = tid();
    q_out[b] = q[b];
    qd_out[b] = qd[b];
}
