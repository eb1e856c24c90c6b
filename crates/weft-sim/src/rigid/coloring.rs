//! Colouring contact manifolds so that a solver can run Gauss–Seidel in
//! parallel: manifolds of one colour share no dynamic body, so one thread per
//! manifold may update both its bodies' poses in place while the others of its
//! colour run; the colours run one after another.
//!
//! The colouring is greedy and lock-free, in one launch: each manifold claims
//! the lowest colour free at both its dynamic bodies (a claim is a per-body,
//! per-colour counter that only the first incrementer owns; losers undo their
//! increment and try the next colour). Bodies are claimed in index order, so a
//! chain of waiting claims always ends at one that succeeds: no deadlock and no
//! livelock, even when a GPU warp runs its threads in lockstep. A manifold that
//! finds none of the [`COLORS`] colours free goes to the overflow list, which
//! one thread solves sequentially (as Box2D v3's overflow constraints).
//! Static and kinematic bodies are never written, so they do not count.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::{Contacts, Manifolds, ShapeSet};

use crate::Model;
use crate::error::Result;

/// Colours a manifold may get; overflow manifolds get colour `COLORS`.
pub const COLORS: usize = 32;

/// Body `b` if it is moved by contacts (dynamic), else -1.
#[weft::func]
pub fn dynamic_body(model: &Model, b: i32) -> i32 {
    let mut d = -1;
    if b >= 0 {
        if model.body_inv_mass[b] > 0.0 {
            d = b;
        }
    }
    d
}

/// Tries to own colour `c` at body `b` (-1: nothing to claim): whether it did.
/// A failed try leaves the counter as it was.
#[weft::func]
pub fn claim(claims: &mut Array<i32>, b: i32, c: i32) -> bool {
    let mut ok = true;
    if b >= 0 {
        let k = b * 32 + c;
        if atomic_add(&mut claims[k], 1) != 0 {
            atomic_sub(&mut claims[k], 1);
            ok = false;
        }
    }
    ok
}

/// Gives colour `c` at body `b` back.
#[weft::func]
pub fn release(claims: &mut Array<i32>, b: i32, c: i32) {
    if b >= 0 {
        atomic_sub(&mut claims[b * 32 + c], 1);
    }
}

/// A thread per manifold slot: its colour (-1 for an empty slot or one with no
/// dynamic body, 32 for overflow) into `color`, counted in `count`.
#[weft::kernel]
pub fn color_manifolds(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    claims: &mut Array<i32>,
    color: &mut Array<i32>,
    count: &mut Array<u32>,
) {
    let m = tid();
    let mut got = -1;
    if manifolds.len[m] > 0 {
        let c0 = manifolds.contacts[manifolds.start[m] as i32];
        let a = dynamic_body(model, model.rigid_shapes.body[contacts.shape_a[c0]]);
        let b = dynamic_body(model, model.rigid_shapes.body[contacts.shape_b[c0]]);
        if a >= 0 || b >= 0 {
            let lo = min(a, b);
            let hi = max(a, b);
            let mut c = 0;
            while got < 0 && c < 32 {
                if claim(claims, lo, c) {
                    if claim(claims, hi, c) {
                        got = c;
                    } else {
                        release(claims, lo, c);
                    }
                }
                c += 1;
            }
            if got < 0 {
                got = 32;
            }
            atomic_add(&mut count[got], 1);
        }
    }
    color[m] = got;
}

/// One thread: the first slot of each colour's list (exclusive scan of
/// `count`), and `fill` zeroed.
#[weft::kernel]
pub fn color_starts(count: &Array<u32>, start: &mut Array<u32>, fill: &mut Array<u32>) {
    let mut run = 0;
    for c in 0..count.len() {
        start[c] = run;
        run += count[c];
        fill[c] = 0;
    }
}

/// A thread per manifold slot: appends the manifold to its colour's list.
#[weft::kernel]
pub fn color_scatter(
    color: &Array<i32>,
    start: &Array<u32>,
    fill: &mut Array<u32>,
    list: &mut Array<i32>,
) {
    let m = tid();
    let c = color[m];
    if c >= 0 {
        let k = atomic_add(&mut fill[c], 1);
        list[(start[c] + k) as i32] = m;
    }
}

/// The manifolds of each colour, rebuilt every step.
pub struct Coloring {
    claims: Array<i32>,
    /// Colour of each manifold slot.
    pub color: Array<i32>,
    /// Manifolds per colour (`COLORS + 1` entries, the last the overflow).
    pub count: Array<u32>,
    /// First entry of each colour in `list`.
    pub start: Array<u32>,
    fill: Array<u32>,
    /// Manifold slots grouped by colour.
    pub list: Array<i32>,
}

impl Coloring {
    /// Buffers for `bodies` bodies and `slots` manifold slots.
    pub fn new(device: Device, bodies: usize, slots: usize) -> Result<Coloring> {
        Ok(Coloring {
            claims: Array::try_zeros(device, [bodies * COLORS])?,
            color: Array::try_zeros(device, [slots])?,
            count: Array::try_zeros(device, [COLORS + 1])?,
            start: Array::try_zeros(device, [COLORS + 1])?,
            fill: Array::try_zeros(device, [COLORS + 1])?,
            list: Array::try_zeros(device, [slots])?,
        })
    }

    /// Colours the manifolds of `contacts` (launches only).
    pub fn run(&mut self, model: &Model, contacts: &Contacts, manifolds: &Manifolds) -> Result<()> {
        self.claims.try_fill(0)?;
        self.count.try_fill(0)?;
        color_manifolds::launch(
            manifolds.slots(),
            model,
            contacts,
            manifolds,
            &mut self.claims,
            &mut self.color,
            &mut self.count,
        )?;
        color_starts::launch(1, &self.count, &mut self.start, &mut self.fill)?;
        color_scatter::launch(
            manifolds.slots(),
            &self.color,
            &self.start,
            &mut self.fill,
            &mut self.list,
        )?;
        Ok(())
    }
}
