//! Atomic adds that many threads aim at one element (a scalar loss, the gradient of
//! a shared parameter): a full warp whose lanes all target the same element first
//! sums its values with butterfly shuffles and issues one `red`, so such
//! accumulations run near memory speed instead of at the single-address atomic rate.
//! Anything else (partial or divergent warps, lanes aiming at different elements)
//! takes the plain per-lane `red`. Whether the lanes agree is checked at run time,
//! so the result never depends on an analysis being right.

use super::emitter::{Em, Frame};
use super::layout;
use super::regs::{Class, Reg};
use crate::types::{Scalar, Type};

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
        for ((off, s), &v) in comps.iter().zip(val) {
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
            self.c.ins(format!(
                "@{leader} red.global.add.{} [{addr}+{off}], {sum}",
                red_type(*s)
            ));
        }
        self.c.ins(format!("bra.uni {done}"));
        self.c.place(&slow);
        for ((off, s), v) in comps.iter().zip(val) {
            self.c.ins(format!(
                "red.global.add.{} [{addr}+{off}], {v}",
                red_type(*s)
            ));
        }
        self.c.place(&done);
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
