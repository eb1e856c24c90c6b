//! Colouring contact manifolds so that a solver can run Gauss–Seidel in
//! parallel: manifolds of one colour share no dynamic body, so one thread per
//! manifold may update both its bodies' poses in place while the others of its
//! colour run; the colours run one after another.
//!
//! The colouring is a speculative greedy one (after Gebremedhin and Manne)
//! made deterministic: every manifold has a priority made from its shape pair
//! (a hash for the order, the pair itself to break ties), so the colours are
//! the same on every run and every device whatever slots the broad phase gave
//! the pairs. Each round, every uncoloured manifold picks the lowest colour
//! free at both its dynamic bodies and bids its priority for that colour at
//! each (`atomic_max`, per body and colour); a manifold that won at both takes
//! the colour, the others try again next round with the colours taken so far
//! excluded. (Jones–Plassmann, where only local maxima colour each round, needed
//! more than 32 rounds for a heap of 96 boxes: its rounds grow with the number
//! of manifolds a body touches.) After [`ROUNDS`] rounds, or when a manifold
//! finds none of the [`COLORS`] colours free, it goes to the overflow list,
//! which one thread solves in priority order (as Box2D v3's overflow
//! constraints). Static and kinematic bodies are never written, so they do not
//! count. The same colours give the same Gauss–Seidel order, so a scene steps
//! the same on every run (CPU runs are bit-repeatable) and the CPU and a GPU
//! agree.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::{Contacts, Manifolds, ShapeSet};

use super::xpbd_kernels::manifold_bodies;
use crate::Model;
use crate::error::Result;

/// Colours a manifold may get; overflow manifolds get colour `COLORS`.
pub const COLORS: usize = 64;

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

/// Rounds of the colouring; manifolds still uncoloured after them overflow
/// (at most 63: the round tags the bids above the 57 bits of a priority).
pub const ROUNDS: usize = 63;

/// The dynamic bodies of manifold `m` (-1 for static geometry and kinematic
/// bodies).
#[weft::func]
pub fn manifold_dynamic_bodies(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    m: i32,
) -> (i32, i32) {
    let (a, b) = manifold_bodies(model, contacts, manifolds, m);
    (dynamic_body(model, a), dynamic_body(model, b))
}

/// Xorshift of `x` (three shifts and xors; a bijection of `u32`).
#[weft::func]
pub fn xorshift(x: u32) -> u32 {
    let mut y = x;
    y = y ^ (y << 13);
    y = y ^ (y >> 17);
    y = y ^ (y << 5);
    y
}

/// A thread per manifold slot and per body: the slot's priority into `prio` (below 2^57: the
/// pair `(a, b)` of its shapes as `a · shapes + b` in the low `key_bits`, a
/// hash of it above) and its colour into `color` (-2 to be coloured, -1 for
/// an empty slot or one with no dynamic body); the bodies' colour masks
/// `used` are reset.
#[weft::kernel]
pub fn color_init(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    key_bits: i32,
    prio: &mut Array<i64>,
    color: &mut Array<i32>,
    used: &mut Array<u64>,
) {
    let m = tid();
    let mut c = -1;
    let mut p = 0i64;
    let slots = manifolds.len.len() as i32;
    if m < slots && manifolds.len[m] > 0 {
        let (a, b) = manifold_dynamic_bodies(model, contacts, manifolds, m);
        if a >= 0 || b >= 0 {
            c = -2;
            let c0 = manifolds.contacts[manifolds.start[m] as i32];
            let key = contacts.shape_a[c0] as i64 * model.rigid_shapes.body.len() as i64
                + contacts.shape_b[c0] as i64;
            let h = xorshift(xorshift(key as u32 ^ 0x9e3779b9u32) ^ ((key >> 32) as u32)) as i64;
            let hash_bits = 57 - key_bits;
            let mut hashed = 0i64;
            if hash_bits > 0 {
                hashed = (h & ((1i64 << min(hash_bits, 32)) - 1)) << key_bits;
            }
            p = hashed | key;
        }
    }
    if m < slots {
        prio[m] = p;
        color[m] = c;
    }
    if m < used.len() as i32 {
        used[m] = 0;
    }
}

/// The `skip`-th lowest colour free at both bodies `a`, `b` (-1: no body)
/// given their colour masks `used` (only read; the lowest free one when fewer
/// are free), or 64 when none is.
#[weft::func]
pub fn free_color(used: &mut Array<u64>, a: i32, b: i32, skip: i32) -> i32 {
    let mut mask = 0u64;
    if a >= 0 {
        mask = mask | used[a];
    }
    if b >= 0 {
        mask = mask | used[b];
    }
    let mut c = 0;
    while c < 64 && ((mask >> (c as u64)) & 1u64) == 1u64 {
        c += 1;
    }
    let lowest = c;
    let mut left = skip;
    while left > 0 && c < 64 {
        c += 1;
        while c < 64 && ((mask >> (c as u64)) & 1u64) == 1u64 {
            c += 1;
        }
        left -= 1;
    }
    if c >= 64 {
        c = lowest;
    }
    c
}

/// Round `r`, first half, for manifold `m`: an uncoloured manifold picks the
/// lowest colour free at both its bodies (`pick`) and bids its priority,
/// tagged with the round (so no reset is needed within a step), for that
/// colour at each body. (`color` and `used` are only read; they are `&mut`
/// so that [`color_serial`], which writes them, can call this.)
#[weft::func]
pub fn color_bid(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    m: i32,
    r: i32,
    prio: &Array<i64>,
    color: &mut Array<i32>,
    used: &mut Array<u64>,
    pick: &mut Array<i32>,
    best: &mut Array<i64>,
) {
    if color[m] == -2 {
        let (a, b) = manifold_dynamic_bodies(model, contacts, manifolds, m);
        // The lowest free colour (a compact colouring) for the first 8
        // rounds; then one of the lowest four, by the priority's hash, and
        // from round 16 one of the lowest eight: where a body has many
        // manifolds they all bid for the same lowest colour and one wins per
        // round, so the rounds needed grew with the most manifolds at a body
        // (a falling 32³ lattice overflowed 2,890 manifolds after 32 rounds).
        let mut skip = 0;
        if r >= 16 {
            skip = ((prio[m] >> 20) as i32 + r) & 7;
        } else if r >= 8 {
            skip = ((prio[m] >> 20) as i32 + r) & 3;
        }
        let c = free_color(used, a, b, skip);
        pick[m] = c;
        if c < 64 {
            let tag = ((r as i64) << 57) | prio[m];
            if a >= 0 {
                atomic_max(&mut best[a * 64 + c], tag);
            }
            if b >= 0 {
                atomic_max(&mut best[b * 64 + c], tag);
            }
        }
    }
}

/// Round `r`, second half, for manifold `m`: a manifold whose bid for its
/// picked colour won at both its bodies takes that colour (marked in the
/// bodies' masks: a colour is won at a body by one manifold, so adding its bit
/// sets it); one that found no colour free overflows (64), as does every
/// manifold still uncoloured in the last round (`last`).
#[weft::func]
pub fn color_take(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    m: i32,
    r: i32,
    last: bool,
    prio: &Array<i64>,
    pick: &mut Array<i32>,
    color: &mut Array<i32>,
    best: &mut Array<i64>,
    used: &mut Array<u64>,
) {
    if color[m] == -2 {
        let c = pick[m];
        if c >= 64 {
            color[m] = 64;
        } else {
            let (a, b) = manifold_dynamic_bodies(model, contacts, manifolds, m);
            let tag = ((r as i64) << 57) | prio[m];
            let mut won = true;
            if a >= 0 {
                won = won && best[a * 64 + c] == tag;
            }
            if b >= 0 {
                won = won && best[b * 64 + c] == tag;
            }
            if won {
                color[m] = c;
                let bit = 1u64 << (c as u64);
                if a >= 0 {
                    atomic_add(&mut used[a], bit);
                }
                if b >= 0 {
                    atomic_add(&mut used[b], bit);
                }
            } else if last {
                color[m] = 64;
            }
        }
    }
}

/// Bids of round `r` (see [`color_bid`]), a thread taking every `stride`-th
/// manifold slot; nothing once the last round left no manifold uncoloured
/// (`left[r - 1]`).
#[weft::kernel]
pub fn color_bids(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    r: i32,
    stride: i32,
    left: &Array<i32>,
    prio: &Array<i64>,
    color: &mut Array<i32>,
    used: &mut Array<u64>,
    pick: &mut Array<i32>,
    best: &mut Array<i64>,
) {
    let mut m = tid();
    if r > 0 && left[r - 1] == 0 {
        m = manifolds.len.len() as i32;
    }
    while m < manifolds.len.len() as i32 {
        color_bid(
            model, contacts, manifolds, m, r, prio, color, used, pick, best,
        );
        m += stride;
    }
}

/// Takes of round `r` (see [`color_take`]), a thread taking every
/// `stride`-th manifold slot; counts the manifolds still uncoloured after it
/// into `left[r]` (nothing once an earlier round left none).
#[weft::kernel]
pub fn color_takes(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    r: i32,
    last: bool,
    stride: i32,
    prio: &Array<i64>,
    pick: &mut Array<i32>,
    color: &mut Array<i32>,
    best: &mut Array<i64>,
    used: &mut Array<u64>,
    left: &mut Array<i32>,
) {
    let mut m = tid();
    if r > 0 && left[r - 1] == 0 {
        m = manifolds.len.len() as i32;
    }
    let mut open = 0;
    while m < manifolds.len.len() as i32 {
        color_take(
            model, contacts, manifolds, m, r, last, prio, pick, color, best, used,
        );
        if color[m] == -2 {
            open += 1;
        }
        m += stride;
    }
    if open > 0 {
        atomic_add(&mut left[r], open);
    }
}

/// One thread: every round, bids then takes (what a CPU does for a small
/// scene; the same colours as the launches per round).
#[weft::kernel]
pub fn color_serial(
    model: &Model,
    contacts: &Contacts,
    manifolds: &Manifolds,
    rounds: i32,
    prio: &Array<i64>,
    color: &mut Array<i32>,
    pick: &mut Array<i32>,
    best: &mut Array<i64>,
    used: &mut Array<u64>,
) {
    let n = manifolds.len.len() as i32;
    for r in 0..rounds {
        for m in 0..n {
            color_bid(
                model, contacts, manifolds, m, r, prio, color, used, pick, best,
            );
        }
        for m in 0..n {
            color_take(
                model,
                contacts,
                manifolds,
                m,
                r,
                r == rounds - 1,
                prio,
                pick,
                color,
                best,
                used,
            );
        }
    }
}

/// A thread per manifold slot: counts its colour.
#[weft::kernel]
pub fn color_count(color: &Array<i32>, count: &mut Array<u32>) {
    let c = color[tid()];
    if c >= 0 {
        atomic_add(&mut count[c], 1);
    }
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

/// Moves entry `first` of the max-heap `list[s..s + n]` (keyed by `prio`)
/// down to its place.
#[weft::func]
pub fn sift_down(prio: &Array<i64>, list: &mut Array<i32>, s: i32, first: i32, n: i32) {
    let mut root = first;
    let mut done = false;
    while !done {
        let mut c = 2 * root + 1;
        if c >= n {
            done = true;
        } else {
            if c + 1 < n {
                if prio[list[s + c + 1]] > prio[list[s + c]] {
                    c += 1;
                }
            }
            if prio[list[s + c]] > prio[list[s + root]] {
                let t = list[s + root];
                list[s + root] = list[s + c];
                list[s + c] = t;
                root = c;
            } else {
                done = true;
            }
        }
    }
}

/// One thread: sorts the overflow list (colour 64, solved in its order) by
/// priority, so that order is the same on every run (heapsort: a dense pile
/// can overflow tens of thousands of manifolds, where an insertion sort on one
/// GPU thread took seconds).
#[weft::kernel]
pub fn color_sort_overflow(
    prio: &Array<i64>,
    start: &Array<u32>,
    count: &Array<u32>,
    list: &mut Array<i32>,
) {
    let s = start[64] as i32;
    let n = count[64] as i32;
    let mut first = n / 2 - 1;
    while first >= 0 {
        sift_down(prio, list, s, first, n);
        first -= 1;
    }
    let mut end = n - 1;
    while end > 0 {
        let t = list[s];
        list[s] = list[s + end];
        list[s + end] = t;
        sift_down(prio, list, s, 0, end);
        end -= 1;
    }
}

/// The manifolds of each colour, rebuilt every step.
pub struct Coloring {
    /// Priority of each manifold slot (this step): colours go to higher
    /// priorities first, and the overflow is solved in ascending order.
    pub prio: Array<i64>,
    pick: Array<i32>,
    left: Array<i32>,
    best: Array<i64>,
    used: Array<u64>,
    /// Colour of each manifold slot.
    pub color: Array<i32>,
    /// Manifolds per colour (`COLORS + 1` entries, the last the overflow).
    pub count: Array<u32>,
    /// First entry of each colour in `list`.
    pub start: Array<u32>,
    fill: Array<u32>,
    /// Manifold slots grouped by colour.
    pub list: Array<i32>,
    /// On a CPU, below this many manifold slots the rounds run on one thread
    /// in one launch (the same colours).
    pub serial_below: usize,
}

impl Coloring {
    /// Buffers for `bodies` bodies and `slots` manifold slots.
    pub fn new(device: Device, bodies: usize, slots: usize) -> Result<Coloring> {
        let slots = slots.max(1);
        Ok(Coloring {
            prio: Array::try_zeros(device, [slots])?,
            pick: Array::try_zeros(device, [slots])?,
            left: Array::try_zeros(device, [ROUNDS])?,
            best: Array::try_zeros(device, [bodies.max(1) * COLORS])?,
            used: Array::try_zeros(device, [bodies.max(1)])?,
            color: Array::try_zeros(device, [slots])?,
            count: Array::try_zeros(device, [COLORS + 1])?,
            start: Array::try_zeros(device, [COLORS + 1])?,
            fill: Array::try_zeros(device, [COLORS + 1])?,
            list: Array::try_zeros(device, [slots])?,
            serial_below: 16_384,
        })
    }

    /// Colours the manifolds of `contacts` (launches only).
    pub fn run(&mut self, model: &Model, contacts: &Contacts, manifolds: &Manifolds) -> Result<()> {
        let slots = manifolds.slots();
        if self.color.len() < slots {
            return Err(crate::SimError::Mismatch(format!(
                "colouring sized for {} manifold slots, the manifolds have {slots}",
                self.color.len()
            )));
        }
        let shapes = model.rigid_shapes.body.len().max(2) as u64;
        let key_bits = 64 - (shapes * shapes - 1).leading_zeros() as i32;
        if key_bits > 57 {
            return Err(crate::SimError::Mismatch(format!(
                "{shapes} shapes are too many for the colouring's priorities"
            )));
        }
        self.count.try_fill(0)?;
        self.best.try_fill(-1)?;
        color_init::launch(
            slots.max(self.used.len()),
            model,
            contacts,
            manifolds,
            key_bits,
            &mut self.prio,
            &mut self.color,
            &mut self.used,
        )?;
        if model.device().is_cpu() && slots < self.serial_below {
            color_serial::launch(
                1,
                model,
                contacts,
                manifolds,
                ROUNDS as i32,
                &self.prio,
                &mut self.color,
                &mut self.pick,
                &mut self.best,
                &mut self.used,
            )?;
        } else {
            // Threads stride over the slots (a grid per slot would launch
            // millions of threads twice a round).
            let grid = slots.min(65_536);
            self.left.try_fill(0)?;
            for r in 0..ROUNDS as i32 {
                color_bids::launch(
                    grid,
                    model,
                    contacts,
                    manifolds,
                    r,
                    grid as i32,
                    &self.left,
                    &self.prio,
                    &mut self.color,
                    &mut self.used,
                    &mut self.pick,
                    &mut self.best,
                )?;
                color_takes::launch(
                    grid,
                    model,
                    contacts,
                    manifolds,
                    r,
                    r == ROUNDS as i32 - 1,
                    grid as i32,
                    &self.prio,
                    &mut self.pick,
                    &mut self.color,
                    &mut self.best,
                    &mut self.used,
                    &mut self.left,
                )?;
            }
        }
        color_count::launch(slots, &self.color, &mut self.count)?;
        color_starts::launch(1, &self.count, &mut self.start, &mut self.fill)?;
        color_scatter::launch(
            slots,
            &self.color,
            &self.start,
            &mut self.fill,
            &mut self.list,
        )?;
        color_sort_overflow::launch(1, &self.prio, &self.start, &self.count, &mut self.list)?;
        Ok(())
    }
}
