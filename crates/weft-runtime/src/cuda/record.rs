//! The per-device error record through which bounds-checked GPU kernels report the
//! first out-of-bounds access, and the registry that names kernels and parameters.

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use super::context::device;
use crate::Error;

/// Size of a device's error record in bytes (4 × u64, zero when clear).
pub const ERROR_RECORD_BYTES: usize = 32;
/// Offset of the `u32` flag: 0 when clear; the first failing thread sets it to 1
/// with `atom.global.cas.b32 [rec], 0, 1` and, only if it saw 0, writes the fields
/// below (later failures leave the first report alone).
pub const ERROR_RECORD_FLAG: usize = 0;
/// Offset of the `u32` kernel id ([`kernel_id`] of the kernel's name, FNV-1a).
pub const ERROR_RECORD_KERNEL: usize = 4;
/// Offset of the `u32` parameter index of the array (`u32::MAX`: unknown).
pub const ERROR_RECORD_PARAM: usize = 8;
/// The parameter index an adjoint kernel writes when its per-thread stack
/// overflows (index: bytes needed, extent: capacity); the same value as
/// `weft_ir::emit_ptx::STACK_OVERFLOW_PARAM`.
pub const STACK_OVERFLOW_PARAM: u32 = u32::MAX - 1;
/// The parameter index a kernel writes for an out-of-range index into one of its
/// local arrays (`let mut s = [0; 8];`); the same value as
/// `weft_ir::emit_ptx::LOCAL_ARRAY_PARAM`.
pub const LOCAL_ARRAY_PARAM: u32 = u32::MAX - 2;
/// Offset of the `i64` offending index (of one dimension).
pub const ERROR_RECORD_INDEX: usize = 16;
/// Offset of the `i64` extent of that dimension.
pub const ERROR_RECORD_EXTENT: usize = 24;

/// The error record's fields and their byte offsets, in order: `u32` flag at 0,
/// `u32` kernel id at 4, `u32` parameter index at 8 (4 bytes of padding), `i64`
/// index at 16, `i64` extent at 24. This is the layout the PTX emitter writes
/// (`weft_ir::emit_ptx::ERROR_RECORD`); its address is in every launch's argument
/// header ([`error_record_ptr`]).
pub const ERROR_RECORD: [(&str, usize); 5] = [
    ("flag", ERROR_RECORD_FLAG),
    ("kernel", ERROR_RECORD_KERNEL),
    ("param", ERROR_RECORD_PARAM),
    ("index", ERROR_RECORD_INDEX),
    ("extent", ERROR_RECORD_EXTENT),
];

/// The device address of CUDA device `ordinal`'s error record, to pass to kernels
/// (creates the device's context on first use).
pub fn error_record_ptr(ordinal: usize) -> Result<u64, Error> {
    Ok(device(ordinal)?.record)
}

/// The id of a kernel name in the error record: 32-bit FNV-1a of its bytes (the
/// same function the kernel macro uses for `KERNEL_ID`).
pub const fn kernel_id(name: &str) -> u32 {
    let b = name.as_bytes();
    let mut h: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < b.len() {
        h ^= b[i] as u32;
        h = h.wrapping_mul(0x0100_0193);
        i += 1;
    }
    h
}

#[derive(Default, Clone, Copy)]
struct Names {
    kernel: Option<&'static str>,
    params: Option<&'static [&'static str]>,
}

fn registry() -> &'static RwLock<HashMap<u32, Names>> {
    static R: OnceLock<RwLock<HashMap<u32, Names>>> = OnceLock::new();
    R.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Names the kernel with id `id` in [`Error::OutOfBounds`] reports. Launching an
/// entry through [`super::launch`] registers its name under [`kernel_id`] of the entry
/// name (and an entry `k_adjoint` also under `k`'s id, as "k (adjoint)"), so this is
/// only needed for ids computed otherwise.
pub fn register_kernel_name(id: u32, name: &'static str) {
    let mut r = registry().write().unwrap_or_else(|p| p.into_inner());
    r.entry(id).or_default().kernel = Some(name);
}

/// Registers a name only if none is known for `id` (the launcher's automatic names).
pub(crate) fn register_default_name(id: u32, name: &'static str) {
    let mut r = registry().write().unwrap_or_else(|p| p.into_inner());
    let e = r.entry(id).or_default();
    if e.kernel.is_none() {
        e.kernel = Some(name);
    }
}

/// Names the parameters of the kernel with id `id`: the error record's parameter
/// index `i` is reported as `params[i]`.
pub fn register_kernel_params(id: u32, params: &'static [&'static str]) {
    let mut r = registry().write().unwrap_or_else(|p| p.into_inner());
    r.entry(id).or_default().params = Some(params);
}

/// The error a set record reports, or `None` if the flag is clear.
pub(crate) fn decode(bytes: &[u8; ERROR_RECORD_BYTES]) -> Option<Error> {
    let u32_at = |o: usize| u32::from_ne_bytes(bytes[o..o + 4].try_into().unwrap());
    let i64_at = |o: usize| i64::from_ne_bytes(bytes[o..o + 8].try_into().unwrap());
    if u32_at(ERROR_RECORD_FLAG) == 0 {
        return None;
    }
    let id = u32_at(ERROR_RECORD_KERNEL);
    let param = u32_at(ERROR_RECORD_PARAM);
    let names = registry()
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .get(&id)
        .copied()
        .unwrap_or_default();
    let kernel = match names.kernel {
        Some(k) => k.to_string(),
        None => format!("#{id:#010x}"),
    };
    if param == STACK_OVERFLOW_PARAM {
        return Some(Error::AdjointStackOverflow {
            kernel,
            needed: i64_at(ERROR_RECORD_INDEX),
            capacity: i64_at(ERROR_RECORD_EXTENT),
        });
    }
    let param = match names.params.and_then(|p| p.get(param as usize)) {
        Some(p) => p.to_string(),
        None if param == u32::MAX => "?".to_string(),
        None if param == LOCAL_ARRAY_PARAM => "(a local array)".to_string(),
        None => format!("#{param}"),
    };
    Some(Error::OutOfBounds {
        kernel,
        param,
        index: i64_at(ERROR_RECORD_INDEX),
        len: i64_at(ERROR_RECORD_EXTENT),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_ids_are_fnv1a() {
        assert_eq!(kernel_id(""), 0x811c_9dc5);
        assert_eq!(kernel_id("a"), 0xe40c_292c);
    }

    #[test]
    fn records_decode_with_registered_names() {
        let mut rec = [0u8; ERROR_RECORD_BYTES];
        assert!(decode(&rec).is_none());
        let id = kernel_id("record_test_kernel");
        register_kernel_name(id, "record_test_kernel");
        register_kernel_params(id, &["x", "y"]);
        rec[0..4].copy_from_slice(&1u32.to_ne_bytes());
        rec[4..8].copy_from_slice(&id.to_ne_bytes());
        rec[8..12].copy_from_slice(&1u32.to_ne_bytes());
        rec[16..24].copy_from_slice(&7i64.to_ne_bytes());
        rec[24..32].copy_from_slice(&3i64.to_ne_bytes());
        let e = decode(&rec).unwrap();
        assert_eq!(
            e.to_string(),
            "kernel `record_test_kernel`: index 7 out of bounds for array `y` of extent 3 (reported by the GPU)"
        );
        rec[4..8].copy_from_slice(&0xdeadu32.to_ne_bytes());
        rec[8..12].copy_from_slice(&u32::MAX.to_ne_bytes());
        let e = decode(&rec).unwrap();
        assert!(
            e.to_string().starts_with("kernel `#0x0000dead`: index 7"),
            "{e}"
        );
        rec[8..12].copy_from_slice(&LOCAL_ARRAY_PARAM.to_ne_bytes());
        let e = decode(&rec).unwrap().to_string();
        assert!(e.contains("`(a local array)` of extent 3"), "{e}");
    }

    #[test]
    fn stack_overflow_records_decode() {
        let mut rec = [0u8; ERROR_RECORD_BYTES];
        let id = kernel_id("stack_test_kernel");
        register_kernel_name(id, "stack_test_kernel");
        rec[0..4].copy_from_slice(&1u32.to_ne_bytes());
        rec[4..8].copy_from_slice(&id.to_ne_bytes());
        rec[8..12].copy_from_slice(&STACK_OVERFLOW_PARAM.to_ne_bytes());
        rec[16..24].copy_from_slice(&2056i64.to_ne_bytes());
        rec[24..32].copy_from_slice(&2048i64.to_ne_bytes());
        let e = decode(&rec).unwrap().to_string();
        assert!(
            e.contains("stack_test_kernel") && e.contains("2048 bytes") && e.contains("2056"),
            "{e}"
        );
    }
}
