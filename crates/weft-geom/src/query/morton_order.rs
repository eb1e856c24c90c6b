//! Spatially coherent processing of many queries: sort them along a Morton (Z-order)
//! curve, answer them in that order in parallel chunks, and put the answers back in
//! the caller's order.
//!
//! Queries that follow each other on the curve lie close together, so they visit the
//! same BVH nodes and triangles (cache hits instead of misses) and one query's answer
//! bounds the next one's (see [`MeshBvh::closest_points`](crate::MeshBvh::closest_points)).

use std::marker::PhantomData;

use glam::Vec3;
use rayon::prelude::*;

use crate::aabb::Aabb;

/// Queries per parallel task: long enough for neighbours to share work, short enough
/// for two to eight threads to balance.
pub(crate) const CHUNK: usize = 1024;

/// How many queries ahead [`QueryOrder::answer`] asks for a query's input: the
/// queries' inputs are read in a scattered order, one cache miss each otherwise.
pub(crate) const LOOKAHEAD: usize = 8;

/// Spreads the low 10 bits of `v` to every third bit (bits 0, 3, …, 27).
#[inline]
fn spread10(v: u32) -> u32 {
    let mut x = v & 0x3ff;
    x = (x | x << 16) & 0x0300_00ff;
    x = (x | x << 8) & 0x0300_f00f;
    x = (x | x << 4) & 0x030c_30c3;
    x = (x | x << 2) & 0x0924_9249;
    x
}

/// The 30-bit Morton code of `p` on a 1024³ grid over `bounds` (points outside are
/// clamped to it, non-finite components count as 0).
#[inline]
pub(crate) fn morton_code(p: Vec3, bounds: &Aabb) -> u32 {
    let extent = bounds.extent().max(Vec3::splat(f32::MIN_POSITIVE));
    let q = ((p - bounds.lower) / extent * 1024.0).clamp(Vec3::ZERO, Vec3::splat(1023.0));
    // `as u32` maps NaN to 0.
    spread10(q.x as u32) | spread10(q.y as u32) << 1 | spread10(q.z as u32) << 2
}

/// The bounds of the finite points among `points` (empty when there are none).
pub(crate) fn finite_bounds(points: impl IndexedParallelIterator<Item = Vec3>) -> Aabb {
    points
        .with_min_len(4096)
        .fold(
            || Aabb::EMPTY,
            |b, p| if p.is_finite() { b.grow(p) } else { b },
        )
        .reduce(|| Aabb::EMPTY, Aabb::union)
}

/// A permutation of query indices `0..n` in which nearby queries are consecutive.
///
/// Only [`QueryOrder::morton`] makes one, so it is always a permutation (what
/// [`QueryOrder::answer`] relies on to write answers from several threads).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct QueryOrder(Vec<u32>);

impl QueryOrder {
    /// Indices `0..keys.len()` sorted by the Morton code of `keys[i]` over the keys'
    /// finite bounds (ties by index, so the order is deterministic).
    pub(crate) fn morton(keys: &[Vec3]) -> Self {
        assert!(
            u32::try_from(keys.len()).is_ok(),
            "at most 2^32 queries per batch"
        );
        let bounds = finite_bounds(keys.par_iter().copied());
        let mut coded: Vec<u64> = keys
            .par_iter()
            .enumerate()
            .with_min_len(4096)
            .map(|(i, &p)| u64::from(morton_code(p, &bounds)) << 32 | i as u64)
            .collect();
        coded.par_sort_unstable();
        Self(coded.into_par_iter().map(|c| c as u32).collect())
    }

    /// The indices in order.
    #[cfg(test)]
    pub(crate) fn indices(&self) -> &[u32] {
        &self.0
    }

    /// Answers queries `0..n` in this order, in parallel chunks of [`CHUNK`]
    /// consecutive entries, `group` consecutive queries at a time:
    /// `answer(state, ids, out)` pushes onto `out` (empty) the answers of queries `ids`,
    /// in that order, with a per-chunk `state` (`S::default()` at the start of each
    /// chunk) that carries what one group leaves for the next. `prefetch(i)` is called
    /// [`LOOKAHEAD`] queries before query `i` is answered (to start loading its input).
    /// Returns the answers by query index.
    pub(crate) fn answer<R, S>(
        &self,
        group: usize,
        prefetch: impl Fn(usize) + Sync,
        answer: impl Fn(&mut S, &[u32], &mut Vec<R>) + Sync,
    ) -> Vec<R>
    where
        R: Send,
        S: Default,
    {
        assert!(group > 0, "groups of at least one query");
        let n = self.0.len();
        let mut out: Vec<R> = Vec::with_capacity(n);
        let slots = ScatterSlots::new(out.spare_capacity_mut());
        self.0.par_chunks(CHUNK).for_each(|chunk| {
            let mut state = S::default();
            let mut answers = Vec::with_capacity(group);
            for &i in chunk.iter().take(LOOKAHEAD) {
                prefetch(i as usize);
            }
            for (g, ids) in chunk.chunks(group).enumerate() {
                for &ahead in chunk.iter().skip(g * group + LOOKAHEAD).take(ids.len()) {
                    prefetch(ahead as usize);
                }
                answers.clear();
                answer(&mut state, ids, &mut answers);
                assert_eq!(answers.len(), ids.len(), "one answer per query");
                for (&i, r) in ids.iter().zip(answers.drain(..)) {
                    // SAFETY: `self.0` is a permutation of `0..n` (the type's
                    // invariant), so slot `i` is written by this task only, once.
                    unsafe { slots.write(i as usize, r) };
                }
            }
        });
        // SAFETY: every index of `0..n` is in the permutation, so every slot was
        // written above.
        unsafe { out.set_len(n) };
        out
    }
}

/// Uninitialized slots that parallel tasks fill at distinct indices.
struct ScatterSlots<'a, R> {
    ptr: *mut R,
    len: usize,
    _slots: PhantomData<&'a mut [R]>,
}

// SAFETY: the slots are only written through `write`, whose callers guarantee distinct
// indices across threads; `R: Send` values move to the owning vector.
unsafe impl<R: Send> Sync for ScatterSlots<'_, R> {}

impl<'a, R> ScatterSlots<'a, R> {
    fn new(slots: &'a mut [std::mem::MaybeUninit<R>]) -> Self {
        Self {
            ptr: slots.as_mut_ptr().cast(),
            len: slots.len(),
            _slots: PhantomData,
        }
    }

    /// Writes `value` into slot `i`.
    ///
    /// # Safety
    ///
    /// No other call may write slot `i`, on any thread.
    unsafe fn write(&self, i: usize, value: R) {
        assert!(i < self.len, "slot {i} out of {}", self.len);
        // SAFETY: `i < len` (checked) and no other thread writes slot `i` (caller).
        unsafe { self.ptr.add(i).write(value) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_code_interleaves_axes() {
        let b = Aabb::new(Vec3::ZERO, Vec3::splat(1024.0));
        assert_eq!(morton_code(Vec3::new(1.0, 0.0, 0.0), &b), 0b001);
        assert_eq!(morton_code(Vec3::new(0.0, 1.0, 0.0), &b), 0b010);
        assert_eq!(morton_code(Vec3::new(0.0, 0.0, 1.0), &b), 0b100);
        assert_eq!(morton_code(Vec3::new(3.0, 0.0, 2.0), &b), 0b101_001);
        assert_eq!(morton_code(Vec3::splat(1023.5), &b), (1 << 30) - 1);
        assert_eq!(morton_code(Vec3::splat(5000.0), &b), (1 << 30) - 1);
        assert_eq!(morton_code(Vec3::splat(-5.0), &b), 0);
        assert_eq!(morton_code(Vec3::NAN, &b), 0);
    }

    #[test]
    fn order_is_a_sorted_permutation() {
        let mut r = crate::test_rng::uniform(0x5eed, -3.0, 3.0);
        let mut keys: Vec<Vec3> = (0..5000).map(|_| Vec3::new(r(), r(), r())).collect();
        keys[17] = Vec3::NAN;
        keys[99] = Vec3::new(f32::INFINITY, 0.0, 0.0);
        keys[100] = keys[3];
        let order = QueryOrder::morton(&keys);
        let order = order.indices();
        let mut seen = vec![false; keys.len()];
        for &i in order {
            assert!(!std::mem::replace(&mut seen[i as usize], true));
        }
        assert!(seen.iter().all(|&s| s));
        let b = finite_bounds(keys.par_iter().copied());
        let codes: Vec<(u32, u32)> = order
            .iter()
            .map(|&i| (morton_code(keys[i as usize], &b), i))
            .collect();
        assert!(codes.windows(2).all(|w| w[0] < w[1]));
        assert!(QueryOrder::morton(&[]).indices().is_empty());
    }

    #[test]
    fn answers_land_at_their_query_index() {
        let n = 3 * CHUNK + 17;
        let order = QueryOrder((0..n as u32).rev().collect());
        for group in [1, 3, 8] {
            // The state counts the queries answered before in the same chunk.
            let out = order.answer(
                group,
                |_| {},
                |seen: &mut usize, ids, out| {
                    assert!(ids.len() <= group);
                    for &i in ids {
                        *seen += 1;
                        out.push((i as usize, *seen));
                    }
                },
            );
            assert_eq!(out.len(), n);
            for (i, &(j, seen)) in out.iter().enumerate() {
                assert_eq!(i, j);
                assert!((1..=CHUNK).contains(&seen));
            }
            // Each chunk starts afresh: the first entry of every chunk saw nothing before.
            let firsts = out.iter().filter(|&&(_, seen)| seen == 1).count();
            assert_eq!(firsts, n.div_ceil(CHUNK));
        }
    }
}
