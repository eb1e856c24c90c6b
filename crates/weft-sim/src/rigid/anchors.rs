//! Static friction kept from step to step, as PhysX and Box2D keep their
//! contacts: the tangential slip (and twist) a sticking pair has left at the
//! end of a step — later colours moving a body after its friction was solved —
//! is carried into the next step's friction, which takes it back, instead of
//! becoming the next step's rest pose. Without it a pyramid of boxes shears
//! (its top moved 70 mm in 10 s; with it 0.5 mm).
//!
//! The table is per body, [`SLOTS`] entries each, owned by the pair's dynamic
//! body of the larger index; an entry is `(shape a, shape b)` and the slip left
//! (xyz in a's frame, w the twist). A step looks its manifolds up at its start
//! ([`anchors_load`]) and writes those that pushed and did not slide into the
//! next table ([`anchors_store`]); a pair that slides starts afresh. Entries
//! are found by key, so the slot order (thread timing) does not change the
//! result. A pair that finds no entry (new, or its owner's table was full)
//! carries nothing.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::{Contacts, Manifolds, ShapeSet};

use super::contact_math::body_pose;
use super::xpbd_kernels::{friction_patch, manifold_bodies, patch_slip};
use crate::Model;
use crate::error::Result;

/// Anchor entries per body (pairs of one body beyond this anchor at each
/// step's start, as without persistence).
pub const SLOTS: usize = 8;

/// The body whose table holds the anchor of the pair of bodies `ba`, `bb`:
/// the dynamic one of the larger index (-1 when neither moves).
#[weft::func]
pub fn anchor_owner(model: &Model, ba: i32, bb: i32) -> i32 {
    let mut hi = ba;
    let mut lo = bb;
    if bb > ba {
        hi = bb;
        lo = ba;
    }
    let mut o = -1;
    if hi >= 0 {
        if model.body_inv_mass[hi] > 0.0 {
            o = hi;
        }
    }
    if o < 0 && lo >= 0 {
        if model.body_inv_mass[lo] > 0.0 {
            o = lo;
        }
    }
    o
}

/// A thread per manifold slot: `carry[m]` is the slip its pair left last
/// step (in world axes at the step's starting poses `q`), from last step's
/// table (`count`, `key`, `left`), else zero; `slid[m]` is cleared.
#[weft::kernel]
pub fn anchors_load(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    q: &Array<Transform>,
    count: &Array<i32>,
    key: &Array<IVec2>,
    left: &Array<Vec4>,
    carry: &mut Array<Vec4>,
    slid: &mut Array<i32>,
) {
    let m = tid();
    let mut r = Vec4::ZERO;
    if manifolds.len[m] > 0 {
        let c0 = manifolds.contacts[manifolds.start[m] as i32];
        let sa = contacts.shape_a[c0];
        let sb = contacts.shape_b[c0];
        let (ba, bb) = manifold_bodies(model, contacts, manifolds, m);
        let o = anchor_owner(model, ba, bb);
        if o >= 0 {
            let n = min(count[o], 8);
            for i in 0..n {
                let k = key[o * 8 + i];
                if k.x == sa && k.y == sb {
                    let l = left[o * 8 + i];
                    let v = quat_rotate(body_pose(q, ba).q, Vec3::new(l.x, l.y, l.z));
                    r = Vec4::new(v.x, v.y, v.z, l.w);
                }
            }
        }
    }
    carry[m] = r;
    slid[m] = 0;
}

/// A thread per manifold slot: a manifold that pushed in the step's last
/// substep (some `lambda > 0`) and did not slide puts the slip its pair is
/// left with at the step's end (poses `q`, start `q0`) into its owner's
/// entries of the next table (`count` zeroed before).
#[weft::kernel]
pub fn anchors_store(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    q: &Array<Transform>,
    q0: &Array<Transform>,
    lambda: &Array<f32>,
    carry: &Array<Vec4>,
    slid: &Array<i32>,
    count: &mut Array<i32>,
    key: &mut Array<IVec2>,
    left: &mut Array<Vec4>,
) {
    let m = tid();
    let k = manifolds.len[m] as i32;
    let s = manifolds.start[m] as i32;
    let mut lam = 0.0;
    for i in 0..k {
        lam += lambda[manifolds.contacts[s + i]];
    }
    if lam > 0.0 && slid[m] == 0 {
        let (ba, bb) = manifold_bodies(model, contacts, manifolds, m);
        let o = anchor_owner(model, ba, bb);
        let xa = body_pose(q, ba);
        let xb = body_pose(q, bb);
        let (la, lb, n, _) = friction_patch(contacts, manifolds, m, xa, xb);
        if o >= 0 {
            let (st, twist) = patch_slip(
                xa,
                xb,
                body_pose(q0, ba),
                body_pose(q0, bb),
                la,
                lb,
                n,
                carry[m],
            );
            let v = quat_rotate(quat_inverse(xa.q), st);
            let slot = atomic_add(&mut count[o], 1);
            if slot < 8 {
                let c0 = manifolds.contacts[s];
                key[o * 8 + slot] = IVec2::new(contacts.shape_a[c0], contacts.shape_b[c0]);
                left[o * 8 + slot] = Vec4::new(v.x, v.y, v.z, twist);
            }
        }
    }
}

/// One table of anchors ([`SLOTS`] per body).
struct Table {
    count: Array<i32>,
    key: Array<IVec2>,
    left: Array<Vec4>,
}

impl Table {
    fn new(device: Device, bodies: usize) -> Result<Table> {
        Ok(Table {
            count: Array::try_zeros(device, [bodies])?,
            key: Array::try_zeros(device, [bodies * SLOTS])?,
            left: Array::try_zeros(device, [bodies * SLOTS])?,
        })
    }
}

/// The slip left by the last step and this step's per manifold.
pub(crate) struct Anchors {
    /// Per manifold slot: the slip its pair carries into this step.
    pub(crate) carry: Array<Vec4>,
    /// Per manifold slot: 1 when its friction slid in the last substep.
    pub(crate) slid: Array<i32>,
    prev: Table,
    next: Table,
}

impl Anchors {
    /// Tables for `bodies` bodies and `slots` manifold slots.
    pub(crate) fn new(device: Device, bodies: usize, slots: usize) -> Result<Anchors> {
        Ok(Anchors {
            carry: Array::try_zeros(device, [slots.max(1)])?,
            slid: Array::try_zeros(device, [slots.max(1)])?,
            prev: Table::new(device, bodies.max(1))?,
            next: Table::new(device, bodies.max(1))?,
        })
    }

    /// Replaces the per-manifold arrays with new ones (a taped step: the
    /// launches a tape recorded in earlier steps still read the old ones).
    pub(crate) fn renew(&mut self, device: Device) -> Result<()> {
        self.carry = Array::try_zeros(device, [self.carry.len()])?;
        self.slid = Array::try_zeros(device, [self.slid.len()])?;
        Ok(())
    }

    /// Forgets every pair's slip (the next step starts afresh).
    pub(crate) fn clear(&mut self) -> Result<()> {
        self.prev.count.try_fill(0)?;
        Ok(())
    }

    /// Fills `carry` for this step's manifolds (starting poses `q`).
    pub(crate) fn load(
        &mut self,
        model: &Model,
        contacts: &Contacts,
        manifolds: &Manifolds,
        q: &Array<Transform>,
    ) -> Result<()> {
        let p = &self.prev;
        anchors_load::launch(
            manifolds.len.len(),
            model,
            contacts,
            manifolds,
            q,
            &p.count,
            &p.key,
            &p.left,
            &mut self.carry,
            &mut self.slid,
        )?;
        Ok(())
    }

    /// Keeps the slip of the pairs that pushed and stuck (`lambda`, poses `q`
    /// at the step's end and `q0` at its start) for the next step.
    pub(crate) fn store(
        &mut self,
        model: &Model,
        contacts: &Contacts,
        manifolds: &Manifolds,
        q: &Array<Transform>,
        q0: &Array<Transform>,
        lambda: &Array<f32>,
    ) -> Result<()> {
        let t = &mut self.next;
        t.count.try_fill(0)?;
        anchors_store::launch(
            manifolds.len.len(),
            model,
            contacts,
            manifolds,
            q,
            q0,
            lambda,
            &self.carry,
            &self.slid,
            &mut t.count,
            &mut t.key,
            &mut t.left,
        )?;
        // Copied, not swapped: a CUDA graph keeps the addresses it captured.
        self.prev.count.copy_from(&self.next.count)?;
        self.prev.key.copy_from(&self.next.key)?;
        self.prev.left.copy_from(&self.next.left)?;
        Ok(())
    }
}
