//! A small deterministic random source for the unit tests (xorshift32).

/// Uniform `f32`s in `lo..hi` from a xorshift32 generator seeded with `seed`
/// (non-zero).
pub(crate) fn uniform(seed: u32, lo: f32, hi: f32) -> impl FnMut() -> f32 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s as f32 / u32::MAX as f32 * (hi - lo) + lo
    }
}
