//! A short traversal stack held in registers, for the BVH searches.
//!
//! The kernel language has no local arrays, so the stack is four `IVec4`s that
//! shift by one slot on each push and pop (register moves, no memory). It keeps
//! the newest [`NODE_STACK_SLOTS`] entries: a push onto a full stack drops the
//! oldest one and sets `dropped`. A search whose stack ran empty after a drop
//! finds the dropped subtrees again by climbing parent links from the node it just
//! finished (every ancestor whose nearer child holds that node still has its
//! farther child to visit), so any tree depth is correct and shallow trees never
//! pay for the climb.

use crate::prelude::*;

/// How many node indices a [`NodeStack`] holds before it drops the oldest.
pub const NODE_STACK_SLOTS: i32 = 16;

/// Node indices still to visit, newest first (`a.x` is the top).
#[weft::structure]
pub struct NodeStack {
    /// Slots 0–3 (`a.x` is the top).
    pub a: IVec4,
    /// Slots 4–7.
    pub b: IVec4,
    /// Slots 8–11.
    pub c: IVec4,
    /// Slots 12–15 (`d.w` is the oldest).
    pub d: IVec4,
    /// How many slots hold entries.
    pub len: i32,
    /// 1 once a push onto a full stack dropped its oldest entry, else 0.
    pub dropped: i32,
}

/// An empty stack.
#[weft::func]
pub fn node_stack() -> NodeStack {
    let none = IVec4::splat(-1);
    NodeStack {
        a: none,
        b: none,
        c: none,
        d: none,
        len: 0,
        dropped: 0,
    }
}

/// `s` with `node` on top; a full stack drops its oldest entry and records it.
#[weft::func]
pub fn node_stack_push(s: NodeStack, node: i32) -> NodeStack {
    let mut len = s.len + 1;
    let mut dropped = s.dropped;
    if len > 16 {
        len = 16;
        dropped = 1;
    }
    NodeStack {
        a: IVec4::new(node, s.a.x, s.a.y, s.a.z),
        b: IVec4::new(s.a.w, s.b.x, s.b.y, s.b.z),
        c: IVec4::new(s.b.w, s.c.x, s.c.y, s.c.z),
        d: IVec4::new(s.c.w, s.d.x, s.d.y, s.d.z),
        len,
        dropped,
    }
}

/// The top entry (-1 when empty) and the stack without it.
#[weft::func]
pub fn node_stack_pop(s: NodeStack) -> (i32, NodeStack) {
    let mut top = -1;
    let mut rest = s;
    if s.len > 0 {
        top = s.a.x;
        rest = NodeStack {
            a: IVec4::new(s.a.y, s.a.z, s.a.w, s.b.x),
            b: IVec4::new(s.b.y, s.b.z, s.b.w, s.c.x),
            c: IVec4::new(s.c.y, s.c.z, s.c.w, s.d.x),
            d: IVec4::new(s.d.y, s.d.z, s.d.w, -1),
            len: s.len - 1,
            dropped: s.dropped,
        };
    }
    (top, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[weft::kernel]
    fn push_then_pop(pushes: i32, out: &mut Array<i32>) {
        let mut s = node_stack();
        for k in 0..pushes {
            s = node_stack_push(s, k);
        }
        out[0] = s.dropped;
        let mut k = 1;
        let mut go = true;
        while go {
            let (top, rest) = node_stack_pop(s);
            s = rest;
            out[k] = top;
            k += 1;
            go = top >= 0;
        }
    }

    fn run(pushes: i32) -> Vec<i32> {
        let mut out = Array::from_vec(Device::Cpu, vec![-7; 40]);
        push_then_pop::launch(1, pushes, &mut out).unwrap();
        out.to_vec()
    }

    #[test]
    fn pops_in_reverse_push_order() {
        let out = run(5);
        assert_eq!(out[..7], [0, 4, 3, 2, 1, 0, -1]);
    }

    #[test]
    fn a_full_stack_keeps_the_newest_entries_and_records_the_drop() {
        assert_eq!(NODE_STACK_SLOTS, 16);
        let full = run(16);
        assert_eq!(full[0], 0, "16 entries fit");
        let want: Vec<i32> = (0..16).rev().chain([-1]).collect();
        assert_eq!(full[1..18], want[..]);
        let over = run(20);
        assert_eq!(over[0], 1, "a drop is recorded");
        let want: Vec<i32> = (4..20).rev().chain([-1]).collect();
        assert_eq!(over[1..18], want[..]);
    }
}
