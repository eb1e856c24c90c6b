//! Items used by code that `#[kernel]`, `#[func]` and `#[structure]` generate; not
//! part of the public API.
//!
//! Generated code names this module as `::weft::__private` (the facade re-exports
//! it), or as `path::__private` for an item written with `crate = path` — so a crate
//! can define kernels depending on `weft-runtime` and `weft-macros` alone, with
//! `#[weft_macros::kernel(crate = ::weft_runtime)]`. There is one such module,
//! whichever path reaches it, so items defined against either path work together
//! (a kernel of a crate using the facade can call a func defined with
//! `crate = ::weft_runtime`).

pub use crate::{
    Accum, AdjointStack, Array, ArrayView, AtomicElem, BorrowGuard, Device, Dims, Elem, Error,
    KernelStruct, KernelZero, adj_splat, component, cpu, cuda, mat_elem, nan_check, pack, tape,
    with_component, with_mat_elem,
};
pub use bytemuck;
pub use weft_macros::__chain;
pub use weft_types as types;
pub use weft_types::adjoint;
pub use weft_types::builtins;

/// Which arrays of a structure a kernel reaches (its own field accesses and
/// those of the funcs it calls, `weft_ir::reach`): a CPU launch builds views
/// of only these ([`KernelStruct::view_used`]), the others null.
#[derive(Debug)]
pub struct Used {
    /// Bit `i % 64` of word `i / 64`: field `i` is reached whole.
    pub whole: &'static [u64],
    /// Structure fields reached in part: the field's index and what of it.
    pub parts: &'static [(u32, &'static Used)],
}

impl Used {
    /// Whether field `i` is reached whole.
    #[inline(always)]
    pub fn whole(&self, i: u32) -> bool {
        self.whole
            .get((i / 64) as usize)
            .is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }

    /// What of structure field `i` is reached, when it is reached in part.
    #[inline(always)]
    pub fn part(&self, i: u32) -> Option<&'static Used> {
        self.parts.iter().find(|p| p.0 == i).map(|p| p.1)
    }
}

/// Names a structure from another item's site: every func (through its hidden
/// adjoint struct) and structure implements `Named<ID>` for the structures of its
/// interface, `ID` hashing the structure's name, so a kernel that calls
/// `hash_grid_query` names its result `<hash_grid_query as Named<ID>>::T` without
/// the user importing `HashGridQuery`.
pub trait Named<const ID: u64> {
    /// The structure.
    type T;
}
