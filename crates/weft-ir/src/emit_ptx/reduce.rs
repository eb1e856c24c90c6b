//! Atomic adds that many threads aim at one element (a scalar loss, the gradient of
//! a shared parameter). A full warp whose lanes all target the same element first
//! sums its values with butterfly shuffles; its leader then adds the sum into a
//! per-block slot in shared memory (claimed by the first warp's address), and at
//! the kernel's exit, after a barrier every thread reaches, one thread of the
//! block adds each slot into global memory: one global atomic per block and site
//! instead of one per lane, so such accumulations run near memory speed instead
//! of at the single-address atomic rate. A warp aiming at another element than its
//! block's slot holds adds its sum to global memory directly; partial or divergent
//! warps and lanes aiming at different elements take the plain per-lane `red`.
//! Whether lanes and warps agree is checked at run time, so the result never
//! depends on an analysis being right.
//!
//! An add at literal indices (`loss[0] += …`, the gradient of `k[0]`) aims at the
//! same element in every iteration of the grid-stride loop, so each thread first
//! sums into registers and only at the exit goes through the warp and block sums
//! above: the loop then costs one compare and one add per iteration. A thread
//! whose adds at one such site reach a second element (the same literal index
//! into another array) adds those directly to global memory.

use std::collections::HashSet;

use super::emitter::{Em, Frame};
use super::layout;
use super::regs::{Class, Reg, bits, float_lit};
use crate::ir::{Block, Expr, Stmt, ValueId};
use crate::types::{Scalar, Type};

/// The values of `b` (nested blocks included) defined as literals.
pub(super) fn literal_values(b: &Block) -> HashSet<ValueId> {
    let mut out = HashSet::new();
    b.for_each_stmt(&mut |s| {
        if let Stmt::Def(v, Expr::Lit(_)) = s {
            out.insert(*v);
        }
    });
    out
}

impl Em<'_> {
    /// Adds `val` componentwise to the element of type `t` at `addr`, summing over
    /// the warp first when every lane of a full warp targets that element.
    pub(super) fn warp_reduced_add(&mut self, fr: &Frame, t: &Type, addr: Reg, val: &[Reg]) {
        let mask = self.c.reg(Class::B32);
        self.c.ins(format!("activemask.b32 {mask}"));
        let uniform = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.eq.b32 {uniform}, {mask}, -1"));
        // Lane 0's address, compared in every lane (meaningless unless the warp is
        // full, and then only used under `uniform`).
        let lane0 = self.shuffle64(addr, "idx", 0, &mask.to_string());
        let same = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.eq.u64 {same}, {lane0}, {addr}"));
        self.c
            .ins(format!("vote.sync.all.pred {same}, {same}, {mask}"));
        self.c.ins(format!("and.pred {uniform}, {uniform}, {same}"));
        let (slow, done) = (self.c.label("red_lanes"), self.c.label("red_done"));
        self.c.ins(format!("@!{uniform} bra {slow}"));
        let (_, _, comps) = layout::elem_layout(t, &fr.f.structs);
        let lane = self.c.reg(Class::B32);
        self.c.ins(format!("mov.u32 {lane}, %laneid"));
        let leader = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.eq.u32 {leader}, {lane}, 0"));
        let mut sums = Vec::new();
        for ((_, s), &v) in comps.iter().zip(val) {
            let mut sum = v;
            for k in [16, 8, 4, 2, 1] {
                let other = if matches!(sum.class, Class::B64 | Class::F64) {
                    self.shuffle64(sum, "bfly", k, "-1")
                } else {
                    let o = self.c.reg(sum.class);
                    self.c
                        .ins(format!("shfl.sync.bfly.b32 {o}, {sum}, {k}, 31, -1"));
                    o
                };
                sum = self.arith("add", *s, sum, other);
            }
            sums.push(sum);
        }
        // The leader claims the block's slot for this site (or finds it holding
        // this address) and adds there; otherwise it adds to global memory.
        self.c.ins(format!("@!{leader} bra {done}"));
        let slot = self.red_slot(&comps);
        let sym = self.red_symbol();
        let old = self.c.reg(Class::B64);
        self.c.ins(format!(
            "atom.shared.cas.b64 {old}, [{sym}+{slot}], 0, {addr}"
        ));
        let (free, mine) = (self.c.reg(Class::Pred), self.c.reg(Class::Pred));
        self.c.ins(format!("setp.eq.u64 {free}, {old}, 0"));
        self.c.ins(format!("setp.eq.u64 {mine}, {old}, {addr}"));
        self.c.ins(format!("or.pred {mine}, {mine}, {free}"));
        for (k, ((off, s), sum)) in comps.iter().zip(&sums).enumerate() {
            let t = red_type(*s);
            let cell = slot + 8 + 8 * k as u32;
            self.c
                .ins(format!("@{mine} red.shared.add.{t} [{sym}+{cell}], {sum}"));
            self.c
                .ins(format!("@!{mine} red.global.add.{t} [{addr}+{off}], {sum}"));
        }
        self.c.ins(format!("bra.uni {done}"));
        self.c.place(&slow);
        self.red_lanes(&comps, addr, val);
        self.c.place(&done);
    }

    /// Adds `val` to the element of type `t` at `addr` (an element at literal
    /// indices) in this thread's registers for the site; a thread whose registers
    /// already hold another element adds to global memory instead.
    pub(super) fn cached_add(&mut self, fr: &Frame, t: &Type, addr: Reg, val: &[Reg]) {
        let (_, _, comps) = layout::elem_layout(t, &fr.f.structs);
        let at = self.c.reg(Class::B64);
        let sums: Vec<Reg> = comps
            .iter()
            .map(|(_, s)| self.c.reg(Class::of(*s)))
            .collect();
        self.red_caches.push((at, t.clone(), sums.clone()));
        let (here, other, done) = (
            self.c.label("cache_add"),
            self.c.label("cache_other"),
            self.c.label("cache_done"),
        );
        let p = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.eq.u64 {p}, {at}, {addr}"));
        self.c.ins(format!("@{p} bra {here}"));
        self.c.ins(format!("setp.ne.u64 {p}, {at}, 0"));
        self.c.ins(format!("@{p} bra {other}"));
        self.c.ins(format!("mov.b64 {at}, {addr}"));
        self.c.place(&here);
        for ((_, s), (&sum, &v)) in comps.iter().zip(sums.iter().zip(val)) {
            let r = self.arith("add", *s, sum, v);
            self.c.ins(format!("mov.{} {sum}, {r}", bits(*s)));
        }
        self.c.ins(format!("bra.uni {done}"));
        self.c.place(&other);
        self.red_lanes(&comps, addr, val);
        self.c.place(&done);
    }

    /// At the exit, before the block's flush: every thread adds its register sums
    /// through the warp and block sums (threads that never added skip).
    pub(super) fn cache_flush(&mut self, fr: &Frame) {
        for (at, t, sums) in self.red_caches.clone() {
            let skip = self.c.label("cache_empty");
            let p = self.c.reg(Class::Pred);
            self.c.ins(format!("setp.eq.u64 {p}, {at}, 0"));
            self.c.ins(format!("@{p} bra {skip}"));
            self.warp_reduced_add(fr, &t, at, &sums);
            self.c.place(&skip);
        }
    }

    /// Clears every cache (address 0, sums the additive identity): code to place
    /// before the grid-stride loop.
    pub(super) fn cache_init(&mut self) -> String {
        let start = self.c.text.len();
        for (at, _, sums) in self.red_caches.clone() {
            self.c.ins(format!("mov.b64 {at}, 0"));
            for sum in sums {
                // The additive identity (`-0.0 + x == x`; 0 for integers).
                let z = match sum.class {
                    Class::F32 => float_lit(-0.0, Scalar::F32),
                    Class::F64 => float_lit(-0.0, Scalar::F64),
                    _ => "0".into(),
                };
                self.c.ins(format!(
                    "mov.{} {sum}, {z}",
                    super::build::cls_bits(sum.class)
                ));
            }
        }
        self.c.text.split_off(start)
    }

    /// Each lane adds its `val` componentwise to global memory at `addr`.
    fn red_lanes(&mut self, comps: &[(usize, Scalar)], addr: Reg, val: &[Reg]) {
        for ((off, s), v) in comps.iter().zip(val) {
            self.c.ins(format!(
                "red.global.add.{} [{addr}+{off}], {v}",
                red_type(*s)
            ));
        }
    }

    /// The shared-memory symbol holding this kernel's reduction slots.
    pub(super) fn red_symbol(&self) -> String {
        format!("__weft_red_{}", self.name)
    }

    /// A new slot for a site adding elements of `comps`: its byte offset. A slot
    /// is the claimed address (8 bytes, 0 while free) and one 8-byte cell per
    /// component.
    fn red_slot(&mut self, comps: &[(usize, Scalar)]) -> u32 {
        let at = self.red_bytes;
        self.red_slots.push((at, comps.to_vec()));
        self.red_bytes += 8 + 8 * comps.len() as u32;
        at
    }

    /// Zeroes every slot (thread 0 of the block) and waits for the block: the
    /// code to place before any thread may reach a reduction site.
    pub(super) fn red_init(&mut self) -> String {
        let sym = self.red_symbol();
        let start = self.c.text.len();
        let t = self.c.reg(Class::B32);
        self.c.ins(format!("mov.u32 {t}, %tid.x"));
        let p = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.ne.u32 {p}, {t}, 0"));
        let skip = self.c.label("red_init_done");
        self.c.ins(format!("@{p} bra {skip}"));
        for off in (0..self.red_bytes).step_by(8) {
            self.c.ins(format!("st.shared.u64 [{sym}+{off}], 0"));
        }
        self.c.place(&skip);
        self.c.ins("barrier.sync 0");
        self.c.text.split_off(start)
    }

    /// At the kernel's exit: waits for the block, then thread 0 adds every
    /// claimed slot into global memory.
    pub(super) fn red_flush(&mut self) {
        let sym = self.red_symbol();
        self.c.ins("barrier.sync 0");
        let t = self.c.reg(Class::B32);
        self.c.ins(format!("mov.u32 {t}, %tid.x"));
        let p = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.ne.u32 {p}, {t}, 0"));
        let end = self.c.label("red_flushed");
        self.c.ins(format!("@{p} bra {end}"));
        for (at, comps) in self.red_slots.clone() {
            let addr = self.c.reg(Class::B64);
            self.c.ins(format!("ld.shared.u64 {addr}, [{sym}+{at}]"));
            let q = self.c.reg(Class::Pred);
            self.c.ins(format!("setp.eq.u64 {q}, {addr}, 0"));
            let next = self.c.label("red_slot_done");
            self.c.ins(format!("@{q} bra {next}"));
            for (k, (off, s)) in comps.iter().enumerate() {
                let v = self.c.reg(Class::of(*s));
                let b = super::regs::bits(*s);
                let cell = at + 8 + 8 * k as u32;
                self.c.ins(format!("ld.shared.{b} {v}, [{sym}+{cell}]"));
                self.c.ins(format!(
                    "red.global.add.{} [{addr}+{off}], {v}",
                    red_type(*s)
                ));
            }
            self.c.place(&next);
        }
        self.c.place(&end);
    }

    /// The module-scope declaration of the slots, when the kernel has any.
    pub(super) fn red_decl(&self) -> String {
        if self.red_bytes == 0 {
            return String::new();
        }
        format!(
            ".shared .align 8 .b8 {}[{}];\n\n",
            self.red_symbol(),
            self.red_bytes
        )
    }

    /// Plain read-modify-write adds (for gradients each thread owns at `tid()`).
    pub(super) fn plain_add(&mut self, fr: &Frame, t: &Type, addr: Reg, val: &[Reg]) {
        let (_, _, comps) = layout::elem_layout(t, &fr.f.structs);
        for ((off, s), &v) in comps.iter().zip(val) {
            let cur = self.c.reg(Class::of(*s));
            let b = super::regs::bits(*s);
            self.c.ins(format!("ld.global.{b} {cur}, [{addr}+{off}]"));
            let sum = self.arith("add", *s, cur, v);
            self.c.ins(format!("st.global.{b} [{addr}+{off}], {sum}"));
        }
    }

    /// A 64-bit register shuffled as two 32-bit halves (`mode` is `idx` or `bfly`).
    fn shuffle64(&mut self, x: Reg, mode: &str, lane: u32, mask: &str) -> Reg {
        let (lo, hi) = (self.c.reg(Class::B32), self.c.reg(Class::B32));
        self.c.ins(format!("mov.b64 {{{lo}, {hi}}}, {x}"));
        let (slo, shi) = (self.c.reg(Class::B32), self.c.reg(Class::B32));
        self.c.ins(format!(
            "shfl.sync.{mode}.b32 {slo}, {lo}, {lane}, 31, {mask}"
        ));
        self.c.ins(format!(
            "shfl.sync.{mode}.b32 {shi}, {hi}, {lane}, 31, {mask}"
        ));
        let out = self.c.reg(x.class);
        self.c.ins(format!("mov.b64 {out}, {{{slo}, {shi}}}"));
        out
    }
}

/// The type suffix of `red.global.add` for a scalar.
pub(super) fn red_type(s: Scalar) -> &'static str {
    match s {
        Scalar::I32 => "s32",
        Scalar::I64 => "u64",
        other => super::regs::ty(other),
    }
}
