//! How values are split into scalar registers, how kernel arguments are packed into
//! the one parameter buffer, and where each component of an array element lives in
//! memory (glam's layouts, `#[repr(C)]` structures).

use std::collections::HashMap;

use crate::ir::StructDef;
use crate::types::{Scalar, Type};

/// One scalar component of a flattened value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comp {
    /// A scalar of the language.
    Scalar(Scalar),
    /// An array's base address (u64).
    Ptr,
}

impl Comp {
    /// Bytes in the argument buffer and in memory (bools take 4 in the argument
    /// buffer; see [`arg_size`](Self::arg_size)).
    pub fn arg_size(self) -> usize {
        match self {
            Comp::Ptr => 8,
            Comp::Scalar(Scalar::Bool) => 4,
            Comp::Scalar(s) => s.size(),
        }
    }
}

/// The scalar components of a value of type `t`, in order: vectors by component,
/// matrices column by column, quaternions x y z w, transforms p then q, spatial
/// vectors top then bottom, spatial matrices row-major, structures and tuples field
/// by field, arrays as their base address then one `i32` extent per dimension.
pub fn flatten(t: &Type, structs: &HashMap<String, StructDef>) -> Vec<Comp> {
    let mut out = Vec::new();
    flatten_into(t, structs, &mut out);
    out
}

fn flatten_into(t: &Type, structs: &HashMap<String, StructDef>, out: &mut Vec<Comp>) {
    match t {
        Type::Unit => {}
        Type::Scalar(s) => out.push(Comp::Scalar(*s)),
        Type::Array { ndim, .. } => {
            out.push(Comp::Ptr);
            out.extend(std::iter::repeat_n(
                Comp::Scalar(Scalar::I32),
                *ndim as usize,
            ));
        }
        Type::Struct(n) => {
            for (_, ft) in &structs[n].fields {
                flatten_into(ft, structs, out);
            }
        }
        Type::Tuple(ts) => {
            for t in ts {
                flatten_into(t, structs, out);
            }
        }
        other => {
            let s = other.scalar().expect("numeric type");
            let n = other.components().expect("numeric type");
            out.extend(std::iter::repeat_n(Comp::Scalar(s), n));
        }
    }
}

/// The parts of a composite type (as [`crate::Expr::Construct`] numbers them) and
/// the range of flattened components each occupies.
pub fn part_ranges(
    t: &Type,
    structs: &HashMap<String, StructDef>,
) -> Vec<(Type, std::ops::Range<usize>)> {
    let parts: Vec<Type> = match t {
        Type::Vector(n, s) => vec![Type::Scalar(*s); *n as usize],
        Type::Matrix(n, s) => vec![Type::Vector(*n, *s); *n as usize],
        Type::Quat(s) => vec![Type::Scalar(*s); 4],
        Type::Transform(s) => vec![Type::Vector(3, *s), Type::Quat(*s)],
        Type::SpatialVector(s) => vec![Type::Vector(3, *s), Type::Vector(3, *s)],
        Type::SpatialMatrix(s) => vec![Type::Scalar(*s); 36],
        Type::Tuple(ts) => ts.clone(),
        Type::Struct(n) => structs[n].fields.iter().map(|(_, t)| t.clone()).collect(),
        _ => vec![],
    };
    let mut at = 0;
    parts
        .into_iter()
        .map(|p| {
            let n = flatten(&p, structs).len();
            let r = at..at + n;
            at += n;
            (p, r)
        })
        .collect()
}

/// Size of the fixed header at the start of every kernel's argument buffer:
/// launch extents (4 × i32 at 0, 4, 8, 12), total thread count (i32 at 16), 4 bytes
/// of padding, the device's error record address (u64 at 24).
pub const HEADER: usize = 32;
/// Offset of the launch extents in the header.
pub const HEADER_DIMS: usize = 0;
/// Offset of the total thread count in the header.
pub const HEADER_TOTAL: usize = 16;
/// Offset of the error record address in the header.
pub const HEADER_ERROR: usize = 24;

/// Offsets of every flattened component of the kernel's parameters in the argument
/// buffer, after the header: each component aligned to its own size, in order.
/// Returns the offsets and the buffer's total size (a multiple of 8).
pub fn arg_offsets(comps: &[Comp]) -> (Vec<usize>, usize) {
    let mut at = HEADER;
    let offs = comps
        .iter()
        .map(|c| {
            let s = c.arg_size();
            at = at.div_ceil(s) * s;
            let o = at;
            at += s;
            o
        })
        .collect();
    (offs, at.div_ceil(8) * 8)
}

/// The memory layout of an array element: size, alignment, and the byte offset of
/// each flattened component. Matches glam (x86-64: `Vec4`, `Quat`, `Mat2`, `Mat4`
/// are 16-byte aligned) and `#[repr(C)]` structures.
pub fn elem_layout(
    t: &Type,
    structs: &HashMap<String, StructDef>,
) -> (usize, usize, Vec<(usize, Scalar)>) {
    use Scalar::*;
    let run = |s: Scalar, n: usize, align: usize| {
        let offs = (0..n).map(|i| (i * s.size(), s)).collect();
        (n * s.size(), align, offs)
    };
    match t {
        Type::Scalar(s) => (s.size(), s.size(), vec![(0, *s)]),
        Type::Vector(4, F32) | Type::Quat(F32) => run(F32, 4, 16),
        Type::Matrix(2, F32) => run(F32, 4, 16),
        Type::Matrix(4, F32) => run(F32, 16, 16),
        Type::Vector(n, s) => run(*s, *n as usize, s.size()),
        Type::Matrix(n, s) => run(*s, (*n as usize) * (*n as usize), s.size()),
        Type::Quat(s) => run(*s, 4, s.size()),
        Type::SpatialVector(s) => run(*s, 6, s.size()),
        Type::SpatialMatrix(s) => run(*s, 36, s.size()),
        Type::Transform(F32) => {
            let mut offs: Vec<_> = (0..3).map(|i| (4 * i, F32)).collect();
            offs.extend((0..4).map(|i| (16 + 4 * i, F32)));
            (32, 16, offs)
        }
        Type::Transform(s) => run(*s, 7, s.size()),
        Type::Struct(n) => {
            let mut at: usize = 0;
            let mut align: usize = 1;
            let mut offs = Vec::new();
            for (_, ft) in &structs[n].fields {
                let (size, a, inner) = elem_layout(ft, structs);
                at = at.div_ceil(a) * a;
                offs.extend(inner.into_iter().map(|(o, s)| (at + o, s)));
                at += size;
                align = align.max(a);
            }
            (at.div_ceil(align) * align, align, offs)
        }
        other => panic!("no memory layout for `{other}`"),
    }
}
