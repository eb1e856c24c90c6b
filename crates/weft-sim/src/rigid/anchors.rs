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
//!
//! Under a tape the slip carried must carry gradients too (it is a function
//! of the last step's poses): a taped step also keeps each manifold's slip
//! in an array of its own ([`anchors_left`], recorded), the table remembers
//! which manifold wrote each entry, and the next taped step gathers its
//! carry from that array ([`anchors_gather`], recorded): the same numbers.

use weft::Tape;
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
/// table (`count`, `key`, `left`), else zero; `slid[m]` is cleared and
/// `prev[m]` is the last step's manifold slot that left it (`from`), or -1.
/// `forward_only`: a taped step runs it in `Tape::pause`, then [`anchors_gather`].
#[weft::kernel(forward_only)]
pub fn anchors_load(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    q: &Array<Transform>,
    count: &Array<i32>,
    key: &Array<IVec2>,
    left: &Array<Vec4>,
    from: &Array<i32>,
    carry: &mut Array<Vec4>,
    slid: &mut Array<i32>,
    prev: &mut Array<i32>,
) {
    let m = tid();
    let mut r = Vec4::ZERO;
    let mut p = -1;
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
                    r = carried(body_pose(q, ba), l);
                    p = from[o * 8 + i];
                }
            }
        }
    }
    carry[m] = r;
    slid[m] = 0;
    prev[m] = p;
}

/// The slip `left` (xyz in a's frame, w the twist) in world axes at a's pose
/// `xa`.
#[weft::func]
pub fn carried(xa: Transform, left: Vec4) -> Vec4 {
    let v = quat_rotate(xa.q, Vec3::new(left.x, left.y, left.z));
    Vec4::new(v.x, v.y, v.z, left.w)
}

/// A thread per manifold slot, recorded by a tape: `carry[m]` from the last
/// taped step's per-manifold slip `left` at slot `prev[m]` (as
/// [`anchors_load`] finds it in the table), else zero.
#[weft::kernel]
pub fn anchors_gather(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    q: &Array<Transform>,
    prev: &Array<i32>,
    left: &Array<Vec4>,
    carry: &mut Array<Vec4>,
) {
    let m = tid();
    let mut r = Vec4::ZERO;
    let p = prev[m];
    if p >= 0 {
        let (ba, _bb) = manifold_bodies(model, contacts, manifolds, m);
        r = carried(body_pose(q, ba), left[p]);
    }
    carry[m] = r;
}

/// The slip a manifold that pushed (some `lambda > 0`) and did not slide
/// leaves at the step's end (poses `q`, start `q0`), in a's frame with the
/// twist in w; `keep` is 0 (and the slip zero) for one that leaves none, else 1.
#[weft::func]
pub fn left_slip(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    m: i32,
    q: &Array<Transform>,
    q0: &Array<Transform>,
    lambda: &Array<f32>,
    carry: Vec4,
    slid: i32,
) -> (Vec4, i32) {
    let k = manifolds.len[m] as i32;
    let s = manifolds.start[m] as i32;
    let mut lam = 0.0;
    for i in 0..k {
        lam += lambda[manifolds.contacts[s + i]];
    }
    let mut out = Vec4::ZERO;
    let mut keep = 0;
    if lam > 0.0 && slid == 0 {
        let (ba, bb) = manifold_bodies(model, contacts, manifolds, m);
        if anchor_owner(model, ba, bb) >= 0 {
            let xa = body_pose(q, ba);
            let xb = body_pose(q, bb);
            let (la, lb, n, _) = friction_patch(contacts, manifolds, m, xa, xb);
            let (st, twist) = patch_slip(
                xa,
                xb,
                body_pose(q0, ba),
                body_pose(q0, bb),
                la,
                lb,
                n,
                carry,
            );
            let v = quat_rotate(quat_inverse(xa.q), st);
            out = Vec4::new(v.x, v.y, v.z, twist);
            keep = 1;
        }
    }
    (out, keep)
}

/// A thread per manifold slot, recorded by a tape: `left[m]` is the slip
/// manifold `m` leaves ([`left_slip`]; zero where none).
#[weft::kernel]
pub fn anchors_left(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    q: &Array<Transform>,
    q0: &Array<Transform>,
    lambda: &Array<f32>,
    carry: &Array<Vec4>,
    slid: &Array<i32>,
    left: &mut Array<Vec4>,
) {
    let m = tid();
    let (v, _keep) = left_slip(
        model, contacts, manifolds, m, q, q0, lambda, carry[m], slid[m],
    );
    left[m] = v;
}

/// A thread per manifold slot: a manifold that pushed in the step's last
/// substep (some `lambda > 0`) and did not slide puts the slip its pair is
/// left with at the step's end (poses `q`, start `q0`) into its owner's
/// entries of the next table (`count` zeroed before; `from` the slot `m`).
/// `forward_only`: a taped step runs it in `Tape::pause`, then [`anchors_left`].
#[weft::kernel(forward_only)]
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
    from: &mut Array<i32>,
) {
    let m = tid();
    let (v, keep) = left_slip(
        model, contacts, manifolds, m, q, q0, lambda, carry[m], slid[m],
    );
    if keep == 1 {
        let (ba, bb) = manifold_bodies(model, contacts, manifolds, m);
        let o = anchor_owner(model, ba, bb);
        let slot = atomic_add(&mut count[o], 1);
        if slot < 8 {
            let c0 = manifolds.contacts[manifolds.start[m] as i32];
            key[o * 8 + slot] = IVec2::new(contacts.shape_a[c0], contacts.shape_b[c0]);
            left[o * 8 + slot] = v;
            from[o * 8 + slot] = m;
        }
    }
}

/// One table of anchors ([`SLOTS`] per body).
struct Table {
    count: Array<i32>,
    key: Array<IVec2>,
    left: Array<Vec4>,
    /// The manifold slot that wrote each entry.
    from: Array<i32>,
}

impl Table {
    fn new(device: Device, bodies: usize) -> Result<Table> {
        Ok(Table {
            count: Array::try_zeros(device, [bodies])?,
            key: Array::try_zeros(device, [bodies * SLOTS])?,
            left: Array::try_zeros(device, [bodies * SLOTS])?,
            from: Array::try_zeros(device, [bodies * SLOTS])?,
        })
    }
}

/// The slip left by the last step and this step's per manifold.
pub(crate) struct Anchors {
    /// Per manifold slot: the slip its pair carries into this step.
    pub(crate) carry: Array<Vec4>,
    /// Per manifold slot: 1 when its friction slid in the last substep.
    pub(crate) slid: Array<i32>,
    /// Per manifold slot: the last step's slot whose slip it carries, or -1.
    prev_slot: Array<i32>,
    /// The last step's slip per manifold slot, when that step was taped
    /// (what the next taped step gathers its carry from).
    taped_left: Option<Array<Vec4>>,
    prev: Table,
    next: Table,
}

impl Anchors {
    /// Tables for `bodies` bodies and `slots` manifold slots.
    pub(crate) fn new(device: Device, bodies: usize, slots: usize) -> Result<Anchors> {
        Ok(Anchors {
            carry: Array::try_zeros(device, [slots.max(1)])?,
            slid: Array::try_zeros(device, [slots.max(1)])?,
            prev_slot: Array::try_zeros(device, [slots.max(1)])?,
            taped_left: None,
            prev: Table::new(device, bodies.max(1))?,
            next: Table::new(device, bodies.max(1))?,
        })
    }

    /// Replaces the per-manifold arrays with new ones (a taped step: the
    /// launches a tape recorded in earlier steps still read the old ones).
    pub(crate) fn renew(&mut self, device: Device) -> Result<()> {
        self.carry = Array::try_zeros(device, [self.carry.len()])?;
        self.slid = Array::try_zeros(device, [self.slid.len()])?;
        self.prev_slot = Array::try_zeros(device, [self.prev_slot.len()])?;
        Ok(())
    }

    /// Forgets every pair's slip (the next step starts afresh).
    pub(crate) fn clear(&mut self) -> Result<()> {
        self.taped_left = None;
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
            &p.from,
            &mut self.carry,
            &mut self.slid,
            &mut self.prev_slot,
        )?;
        Ok(())
    }

    /// [`load`](Self::load) in a taped step: the table is read off the tape,
    /// then, when the last step was taped too, `carry` is gathered again
    /// from its per-manifold slip on the tape (the same numbers).
    pub(crate) fn load_taped(
        &mut self,
        model: &Model,
        contacts: &Contacts,
        manifolds: &Manifolds,
        q: &Array<Transform>,
    ) -> Result<()> {
        Tape::pause(|| self.load(model, contacts, manifolds, q))?;
        if let Some(left) = self.taped_left.take() {
            let mut carry = Array::try_zeros(model.device(), [self.carry.len()])?;
            anchors_gather::launch(
                manifolds.len.len(),
                model,
                contacts,
                manifolds,
                q,
                &self.prev_slot,
                &left,
                &mut carry,
            )?;
            self.carry = carry;
        }
        Ok(())
    }

    /// [`store`](Self::store) in a taped step: the table off the tape, and
    /// each manifold's slip on it, for the next taped step to gather.
    pub(crate) fn store_taped(
        &mut self,
        model: &Model,
        contacts: &Contacts,
        manifolds: &Manifolds,
        q: &Array<Transform>,
        q0: &Array<Transform>,
        lambda: &Array<f32>,
    ) -> Result<()> {
        Tape::pause(|| self.store(model, contacts, manifolds, q, q0, lambda))?;
        let mut left = Array::try_zeros(model.device(), [self.carry.len()])?;
        anchors_left::launch(
            manifolds.len.len(),
            model,
            contacts,
            manifolds,
            q,
            q0,
            lambda,
            &self.carry,
            &self.slid,
            &mut left,
        )?;
        self.taped_left = Some(left);
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
        self.taped_left = None;
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
            &mut t.from,
        )?;
        // Copied, not swapped: a CUDA graph keeps the addresses it captured.
        self.prev.count.copy_from(&self.next.count)?;
        self.prev.key.copy_from(&self.next.key)?;
        self.prev.left.copy_from(&self.next.left)?;
        self.prev.from.copy_from(&self.next.from)?;
        Ok(())
    }
}
