//! The kernels of a taped [`XpbdRigid`](super::XpbdRigid) step: the plain
//! step's manifold solves (see [`xpbd_kernels`](super::xpbd_kernels)) written
//! so their adjoints exist. A thread per body writes only that body's result,
//! the funcs write no arrays, and a manifold's accumulated corrections live in
//! two `Vec4`s (so at most 8 contacts per manifold) instead of a local array,
//! which carries no gradient. The rows are recomputed where the plain step
//! caches them; they are the same numbers (the poses do not change during a
//! manifold's block), so a taped step equals a plain one bit for bit.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::{Contacts, Manifolds, ShapeSet};

use super::anchors::anchor_owner;
use super::contact_math::{body_com_world, body_pose};
use super::integrate::rotate_by;
use super::xpbd_kernels::{
    body_inverse_mass, manifold_bodies, normal_row, patch_friction, velocity_row,
};
use crate::Model;

/// Entry `j` (0..8) of the pair of packs `a` (0..4), `b` (4..8).
#[weft::func]
pub fn pick8(a: Vec4, b: Vec4, j: i32) -> f32 {
    let mut v = b.w;
    if j == 0 {
        v = a.x;
    } else if j == 1 {
        v = a.y;
    } else if j == 2 {
        v = a.z;
    } else if j == 3 {
        v = a.w;
    } else if j == 4 {
        v = b.x;
    } else if j == 5 {
        v = b.y;
    } else if j == 6 {
        v = b.z;
    }
    v
}

/// The packs `a`, `b` with entry `j` (0..8) set to `v`.
#[weft::func]
pub fn put8(a: Vec4, b: Vec4, j: i32, v: f32) -> (Vec4, Vec4) {
    let mut x = a;
    let mut y = b;
    if j == 0 {
        x = Vec4::new(v, a.y, a.z, a.w);
    } else if j == 1 {
        x = Vec4::new(a.x, v, a.z, a.w);
    } else if j == 2 {
        x = Vec4::new(a.x, a.y, v, a.w);
    } else if j == 3 {
        x = Vec4::new(a.x, a.y, a.z, v);
    } else if j == 4 {
        y = Vec4::new(v, b.y, b.z, b.w);
    } else if j == 5 {
        y = Vec4::new(b.x, v, b.z, b.w);
    } else if j == 6 {
        y = Vec4::new(b.x, b.y, v, b.w);
    } else {
        y = Vec4::new(b.x, b.y, b.z, v);
    }
    (x, y)
}

/// [`normal_block`](super::xpbd_kernels::normal_block) without arrays: the
/// λ of the manifold's (at most 8) contacts come in and go out as the packs
/// `la`, `lb`. Returns the new poses and the packs.
#[weft::func]
pub fn normal_block_taped(
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
    la: Vec4,
    lb: Vec4,
) -> (Transform, Transform, Vec4, Vec4) {
    let ba = bodies.x;
    let bb = bodies.y;
    let wa = w.x;
    let wb = w.y;
    let s = manifolds.start[m] as i32;
    let k = manifolds.len[m] as i32;
    let ca = body_com_world(model, ba, xa);
    let cb = body_com_world(model, bb, xb);
    let mut l0 = la;
    let mut l1 = lb;
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
            let (n, ta, tb, ua, ub, wr, gap0) =
                normal_row(contacts, c, xa, xb, ca, cb, wa, wb, ia, ib);
            if wr > 0.0 {
                let iw = 1.0 / wr;
                let gap = max(gap0, -max_push);
                let lam = pick8(l0, l1, j);
                let d = gap + dot(n, dxb - dxa) + dot(tb, dwb) - dot(ta, dwa);
                let lnew = max(lam - d * iw, 0.0);
                let dl = lnew - lam;
                if dl != 0.0 {
                    dxb += n * (wb * dl);
                    dwb += ub * dl;
                    dxa -= n * (wa * dl);
                    dwa -= ua * dl;
                    let (p0, p1) = put8(l0, l1, j, lnew);
                    l0 = p0;
                    l1 = p1;
                    moved = true;
                }
            }
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
    (ya, yb, l0, l1)
}

/// One group of the position solve out of place: a thread per body `b`
/// solves the manifold `slot[group · bodies + b]` of the group (no two of
/// which share a dynamic body) from poses `q` and writes its own new pose to
/// `q_out[b]` (bodies without a manifold in the group, and static or
/// kinematic ones, copy theirs). Both bodies of a manifold solve it alike;
/// only its [`anchor_owner`] stores λ (from `lambda_in`, or 0 when `first`,
/// into `lambda_out`) and `slid`.
#[weft::kernel]
pub fn solve_positions_by_body(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    slot: &Array<i32>,
    group: i32,
    sweeps: i32,
    max_push: f32,
    first: bool,
    friction: bool,
    q: &Array<Transform>,
    q0: &Array<Transform>,
    carry: &Array<Vec4>,
    lambda_in: &Array<f32>,
    lambda_out: &mut Array<f32>,
    slid: &mut Array<i32>,
    q_out: &mut Array<Transform>,
) {
    let b = tid();
    let m = slot[group * q.len() as i32 + b];
    let mut out = q[b];
    if m >= 0 {
        let (ba, bb) = manifold_bodies(model, contacts, manifolds, m);
        let s = manifolds.start[m] as i32;
        let k = manifolds.len[m] as i32;
        let mut l0 = Vec4::ZERO;
        let mut l1 = Vec4::ZERO;
        if !first {
            for j in 0..k {
                let (p0, p1) = put8(l0, l1, j, lambda_in[manifolds.contacts[s + j]]);
                l0 = p0;
                l1 = p1;
            }
        }
        let xa = body_pose(q, ba);
        let xb = body_pose(q, bb);
        let (wa, ia) = body_inverse_mass(model, ba, xa);
        let (wb, ib) = body_inverse_mass(model, bb, xb);
        let bodies = IVec2::new(ba, bb);
        let w = Vec2::new(wa, wb);
        let (na, nb, r0, r1) = normal_block_taped(
            model, contacts, manifolds, m, bodies, xa, xb, w, ia, ib, sweeps, max_push, l0, l1,
        );
        let mut lam = 0.0;
        for j in 0..k {
            lam += pick8(r0, r1, j);
        }
        let mut fa = na;
        let mut fb = nb;
        let mut kinetic = 0;
        if friction {
            let (ya, yb, kin) = patch_friction(
                model, contacts, manifolds, m, bodies, na, nb, w, ia, ib, q0, carry, lam,
            );
            fa = ya;
            fb = yb;
            kinetic = kin;
        }
        if b == ba {
            out = fa;
        } else {
            out = fb;
        }
        if anchor_owner(model, ba, bb) == b {
            for j in 0..k {
                lambda_out[manifolds.contacts[s + j]] = pick8(r0, r1, j);
            }
            if friction {
                slid[m] = kinetic;
            }
        }
    }
    q_out[b] = out;
}

/// [`manifold_velocities`](super::xpbd_kernels::manifold_velocities) without
/// arrays (at most 8 contacts; the impulses are not kept).
#[weft::func]
pub fn manifold_velocities_taped(
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
) -> (SpatialVector, SpatialVector) {
    let (ba, bb) = manifold_bodies(model, contacts, manifolds, m);
    let s = manifolds.start[m] as i32;
    let k = manifolds.len[m] as i32;
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
    let mut i0 = Vec4::ZERO;
    let mut i1 = Vec4::ZERO;
    for sweep in 0..sweeps {
        for i in 0..k {
            let mut j = i;
            if sweep % 2 == 1 {
                j = k - 1 - i;
            }
            let c = manifolds.contacts[s + j];
            if lambda[c] > 0.0 {
                let (n, ra, rb, wn, target) = velocity_row(
                    model, contacts, c, xa, xb, ca, cb, wa, wb, ia, ib, va0, vb0, threshold,
                );
                if wn > 0.0 {
                    let vn = dot(
                        n,
                        (vb.top + cross(vb.bottom, rb)) - (va.top + cross(va.bottom, ra)),
                    );
                    let acc = pick8(i0, i1, j);
                    let a1 = max(acc + (target - vn) / wn, -lambda[c] / h);
                    let (p0, p1) = put8(i0, i1, j, a1);
                    i0 = p0;
                    i1 = p1;
                    let p = n * (a1 - acc);
                    vb = SpatialVector::new(vb.top + p * wb, vb.bottom + ib * cross(rb, p));
                    va = SpatialVector::new(va.top - p * wa, va.bottom - ia * cross(ra, p));
                }
            }
        }
    }
    (va, vb)
}

/// One group of the velocity pass out of place (as
/// [`solve_positions_by_body`]): thread `b` writes `qd_out[b]`.
#[weft::kernel]
pub fn solve_velocities_by_body(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    slot: &Array<i32>,
    group: i32,
    sweeps: i32,
    q: &Array<Transform>,
    qd: &Array<SpatialVector>,
    qd_prev: &Array<SpatialVector>,
    lambda: &Array<f32>,
    threshold: f32,
    h: f32,
    qd_out: &mut Array<SpatialVector>,
) {
    let b = tid();
    let m = slot[group * q.len() as i32 + b];
    let mut out = qd[b];
    if m >= 0 {
        let (ba, bb) = manifold_bodies(model, contacts, manifolds, m);
        let zero = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
        let mut va = zero;
        let mut vb = zero;
        if ba >= 0 {
            va = qd[ba];
        }
        if bb >= 0 {
            vb = qd[bb];
        }
        let (na, nb) = manifold_velocities_taped(
            model, contacts, manifolds, m, q, va, vb, qd_prev, lambda, threshold, h, sweeps,
        );
        if b == ba {
            out = na;
        } else {
            out = nb;
        }
    }
    qd_out[b] = out;
}
