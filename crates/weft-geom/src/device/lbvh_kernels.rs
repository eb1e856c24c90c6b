//! The kernels of `LbvhBuilder`: a linear BVH (Karras 2012,
//! "Maximizing parallelism in the construction of BVHs, octrees and k-d trees")
//! built by Weft kernels, so the CPU and CUDA back ends do the same work.
//!
//! 1. `lbvh_reset`, `lbvh_bounds`: the box of the face centroids, reduced in
//!    registers over a thread's faces, then by `atomic_min`/`atomic_max` on
//!    order-preserving integer keys into one of `slots` copies (so that no single
//!    address takes every atomic); faces with a vertex index out of range or a
//!    non-finite centroid are recorded (smallest face index) for the host to
//!    report;
//!    `lbvh_merge_slots` merges the copies into the first;
//! 2. `lbvh_morton`: a 30-bit Morton code per face centroid in that box;
//! 3. a stable least-significant-digit radix sort of `(code, face)`, `RADIX_BITS`
//!    bits per pass, over tiles of `TILE` keys: `lbvh_digit_counts` (a thread per
//!    tile and digit: how many keys of the tile have the digit), an exclusive scan
//!    of those counts in digit-major order (the hash grid's scan kernels,
//!    `grid_build.rs`), and `lbvh_scatter` (a thread per key: its digit's start for
//!    its tile plus the number of earlier keys of the tile with the same digit).
//!    No atomics: the order is deterministic, and equal codes stay in face order;
//! 4. `lbvh_hierarchy`: Karras' internal nodes from the sorted codes (a thread per
//!    internal node: direction, range by exponential and binary search, split),
//!    ties between equal codes broken by sorted position, as if each key were
//!    `(code, position)`;
//! 5. the layout the traversal needs (`left child = parent + 1`, see below):
//!    `lbvh_chain_len`, the scan again, `lbvh_chain_place`;
//! 6. `lbvh_nodes`: a thread per leaf writes its leaf, then climbs; at each
//!    parent an atomic visit counter lets the second child's thread through, which
//!    writes the parent's box (union of its children's) and climbs on.
//!
//! Node order. The kernel queries (`ray.rs`, `closest.rs`, `aabb.rs`) take the
//! left child of inner node `i` to be node `i + 1` and read the right child and
//! the parent links from the arrays; nothing else of the host builder's
//! depth-first order is assumed. Karras numbers nodes otherwise, so the tree is
//! renumbered. In a Karras tree the nodes whose key range starts at sorted
//! position `k` form a chain of left children from a right child (or the root)
//! down to leaf `k`; storing each chain contiguously, top first, puts every left
//! child right after its parent. The chains are stored in order of `k`, which
//! makes the result exactly the depth-first pre-order: subtrees are contiguous
//! and leaves (one face each) appear in sorted order, so `prims` is the sorted
//! face list. `lbvh_chain_len` measures each chain (a thread per leaf walks up
//! while its node is a left child), the scan gives each chain its first slot and
//! `lbvh_chain_place` numbers the chain's nodes.
//!
//! Memory ordering in step 6: the second thread reads boxes that another thread
//! of the same launch wrote before its atomic increment. Each thread fences
//! (the `thread_fence()` builtin) after writing a node and
//! before counting itself in at the parent, and the thread that goes on fences
//! again before reading the children: the fences pair through the counter, so
//! the reader sees both children's boxes (and no stale cached copy of them).

#[allow(unused_imports)] // named by the generated code
use super::BvhNode;
use super::prelude::*;

/// Bits of the Morton code sorted per radix pass.
pub const RADIX_BITS: u32 = 6;

/// Digits per pass (`2^RADIX_BITS`), and keys per tile of the sort (the kernels
/// write it as the literal 64: kernels cannot name module constants).
pub const TILE: i32 = 64;

/// Radix passes: the 30 bits of a Morton code.
pub const PASSES: u32 = 5;

/// An unsigned integer that orders like the float `x` (`-0.0` just below `0.0`).
#[func(crate = ::weft_runtime)]
pub fn order_key(x: f32) -> u32 {
    let b = f32_to_bits(x);
    let mut k = b | 0x8000_0000u32;
    if (b & 0x8000_0000u32) != 0 {
        k = !b;
    }
    k
}

/// The float whose `order_key` is `k`.
#[func(crate = ::weft_runtime)]
pub fn from_order_key(k: u32) -> f32 {
    let mut b = !k;
    if (k & 0x8000_0000u32) != 0 {
        b = k & 0x7fff_ffffu32;
    }
    f32_from_bits(b)
}

/// The 10 low bits of `v` spread to every third bit (bit `i` to bit `3 i`).
#[func(crate = ::weft_runtime)]
pub fn spread_bits(v: u32) -> u32 {
    let mut x = v & 0x3ffu32;
    x = (x | (x << 16)) & 0x0300_00ffu32;
    x = (x | (x << 8)) & 0x0300_f00fu32;
    x = (x | (x << 4)) & 0x030c_30c3u32;
    x = (x | (x << 2)) & 0x0924_9249u32;
    x
}

/// The 30-bit Morton code of `p` in the box `lo .. lo + 1 / inv` (`inv` per axis,
/// 0 for a flat axis): 10 bits per axis, x highest. A NaN coordinate counts as 0.
#[func(crate = ::weft_runtime)]
pub fn morton_code(p: Vec3, lo: Vec3, inv: Vec3) -> u32 {
    let q = (p - lo) * inv * 1024.0;
    let x = clamp(q.x, 0.0, 1023.0) as u32;
    let y = clamp(q.y, 0.0, 1023.0) as u32;
    let z = clamp(q.z, 0.0, 1023.0) as u32;
    (spread_bits(x) << 2) | (spread_bits(y) << 1) | spread_bits(z)
}

/// Vertex index `v` of a face, clamped into the point array (a build that was not
/// validated reads a wrong point, never out of bounds).
#[func(crate = ::weft_runtime)]
fn vertex(faces: &Array<u32>, k: i32, num_points: i32) -> i32 {
    min(faces[k] as i32, num_points - 1)
}

/// Step 1a: thread `g` sets the centroid-box slots and the error records to their
/// identities (`u32::MAX` for minima and records, 0 for maxima). Slot `s` holds
/// lower keys at `6 s .. 6 s + 3` and upper keys at `6 s + 3 .. 6 s + 6`; the two
/// records (first face with a bad index, first with a non-finite centroid) follow.
#[kernel(crate = ::weft_runtime)]
pub fn lbvh_reset(bounds: &mut Array<u32>) {
    let g = tid();
    let mut v = u32::MAX;
    let c = g % 6;
    if g < bounds.len() - 2 && c >= 3 {
        v = 0;
    }
    bounds[g] = v;
}

/// Step 1b: thread `t` of `stride` takes faces `t, t + stride, ...`: checks their
/// vertex indices and centroids and merges the centroids' box into slot
/// `t % slots`.
#[kernel(crate = ::weft_runtime)]
pub fn lbvh_bounds(
    points: &Array<Vec3>,
    faces: &Array<u32>,
    stride: i32,
    slots: i32,
    bounds: &mut Array<u32>,
) {
    let t = tid();
    let np = points.len() as u32;
    let nf = faces.len() / 3;
    let records = bounds.len() - 2;
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    let mut f = t;
    while f < nf {
        let (i0, i1, i2) = (faces[3 * f], faces[3 * f + 1], faces[3 * f + 2]);
        if i0 >= np || i1 >= np || i2 >= np {
            atomic_min(&mut bounds[records], f as u32);
        } else {
            let c = (points[i0 as i32] + points[i1 as i32] + points[i2 as i32]) / 3.0;
            if abs(c.x) < f32::INFINITY && abs(c.y) < f32::INFINITY && abs(c.z) < f32::INFINITY {
                lo = min(lo, c);
                hi = max(hi, c);
            } else {
                atomic_min(&mut bounds[records + 1], f as u32);
            }
        }
        f += stride;
    }
    if lo.x <= hi.x {
        let s = (t % slots) * 6;
        atomic_min(&mut bounds[s], order_key(lo.x));
        atomic_min(&mut bounds[s + 1], order_key(lo.y));
        atomic_min(&mut bounds[s + 2], order_key(lo.z));
        atomic_max(&mut bounds[s + 3], order_key(hi.x));
        atomic_max(&mut bounds[s + 4], order_key(hi.y));
        atomic_max(&mut bounds[s + 5], order_key(hi.z));
    }
}

/// Step 1c: thread `c` (0–5) merges component `c` of the `slots` slots into
/// slot 0 (minima for `c < 3`, maxima above), so the Morton kernel reads one box
/// instead of every thread reducing the slots again.
#[kernel(crate = ::weft_runtime)]
pub fn lbvh_merge_slots(bounds: &mut Array<u32>, slots: i32) {
    let c = tid();
    let mut v = bounds[c];
    for s in 1..slots {
        let w = bounds[6 * s + c];
        if c < 3 {
            v = min(v, w);
        } else {
            v = max(v, w);
        }
    }
    bounds[c] = v;
}

/// Step 2: a thread per face: the face's Morton code (`codes[f]`) in the
/// centroid box of slot 0, and its index (`ids[f] = f`).
#[kernel(crate = ::weft_runtime)]
pub fn lbvh_morton(
    points: &Array<Vec3>,
    faces: &Array<u32>,
    bounds: &Array<u32>,
    codes: &mut Array<u32>,
    ids: &mut Array<u32>,
) {
    let f = tid();
    let lk = UVec3::new(bounds[0], bounds[1], bounds[2]);
    let hk = UVec3::new(bounds[3], bounds[4], bounds[5]);
    let lo = Vec3::new(
        from_order_key(lk.x),
        from_order_key(lk.y),
        from_order_key(lk.z),
    );
    let hi = Vec3::new(
        from_order_key(hk.x),
        from_order_key(hk.y),
        from_order_key(hk.z),
    );
    let ext = hi - lo;
    let (mut ix, mut iy, mut iz) = (0.0, 0.0, 0.0);
    if ext.x > 0.0 {
        ix = 1.0 / ext.x;
    }
    if ext.y > 0.0 {
        iy = 1.0 / ext.y;
    }
    if ext.z > 0.0 {
        iz = 1.0 / ext.z;
    }
    let inv = Vec3::new(ix, iy, iz);
    let np = points.len();
    let a = points[vertex(faces, 3 * f, np)];
    let b = points[vertex(faces, 3 * f + 1, np)];
    let c = points[vertex(faces, 3 * f + 2, np)];
    codes[f] = morton_code((a + b + c) / 3.0, lo, inv);
    ids[f] = f as u32;
}

/// The radix digit of `key` at bit `shift`.
#[func(crate = ::weft_runtime)]
fn digit(key: u32, shift: u32) -> i32 {
    ((key >> shift) & 63u32) as i32
}

/// Sort step a: thread `g` = tile `g / TILE`, digit `g % TILE`: how many keys of
/// the tile have that digit, at `counts[digit * tiles + tile]` (digit-major, the
/// order of the scan). Thread 0 also zeroes `group_sums[zero_from..]`, the part of
/// the scan's scratch it sums atomically.
#[kernel(crate = ::weft_runtime)]
pub fn lbvh_digit_counts(
    keys: &Array<u32>,
    n: i32,
    shift: u32,
    tiles: i32,
    zero_from: i32,
    counts: &mut Array<u32>,
    group_sums: &mut Array<u32>,
) {
    let g = tid();
    let tile = g / 64;
    let d = g % 64;
    let mut c = 0u32;
    for j in tile * 64..min(tile * 64 + 64, n) {
        if digit(keys[j], shift) == d {
            c += 1;
        }
    }
    counts[d * tiles + tile] = c;
    if g == 0 {
        for e in zero_from..group_sums.len() {
            group_sums[e] = 0;
        }
    }
}

/// Sort step c: a thread per key: its slot is its digit's first slot for its tile
/// (`starts`, the scanned counts) plus the number of earlier keys of the tile with
/// the same digit (a stable pass).
#[kernel(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
pub fn lbvh_scatter(
    keys: &Array<u32>,
    vals: &Array<u32>,
    shift: u32,
    tiles: i32,
    starts: &Array<u32>,
    keys_out: &mut Array<u32>,
    vals_out: &mut Array<u32>,
) {
    let i = tid();
    let tile = i / 64;
    let key = keys[i];
    let d = digit(key, shift);
    let mut r = 0;
    for j in tile * 64..i {
        if digit(keys[j], shift) == d {
            r += 1;
        }
    }
    let at = starts[d * tiles + tile] as i32 + r;
    keys_out[at] = key;
    vals_out[at] = vals[i];
}

/// Whether `(a.x, a.y)` has fewer significant bits than `(b.x, b.y)`, read as
/// 64-bit numbers `x · 2^32 + y`: the key pair XORed into `a` shares a longer
/// prefix than the one in `b` (Karras' `δ(a) > δ(b)`).
#[func(crate = ::weft_runtime)]
pub fn longer_prefix(a: UVec2, b: UVec2) -> bool {
    let mut out = false;
    if a.x == 0 && b.x == 0 {
        out = a.y < b.y && a.y < (a.y ^ b.y);
    } else if a.x == 0 {
        out = true;
    } else if b.x != 0 {
        out = a.x < b.x && a.x < (a.x ^ b.x);
    }
    out
}

/// The XOR of the keys `(code, position)` at sorted positions `i` and `j`, or
/// `(u32::MAX, u32::MAX)` (a shorter prefix than any pair's) when `j` is outside
/// `0..n`.
#[func(crate = ::weft_runtime)]
pub fn key_xor(codes: &Array<u32>, n: i32, i: i32, j: i32) -> UVec2 {
    let mut x = UVec2::splat(u32::MAX);
    if j >= 0 && j < n {
        x = UVec2::new(codes[i] ^ codes[j], (i ^ j) as u32);
    }
    x
}

/// Step 4: a thread per internal node `i` of the Karras tree over `n` sorted keys
/// (ids: internal node `i` is `i`, leaf `k` is `n - 1 + k`): its children
/// (`left`, `right`) and their `parent`; zeroes the node's visit counter. Thread 0
/// marks the root's parent as none.
#[kernel(crate = ::weft_runtime)]
pub fn lbvh_hierarchy(
    codes: &Array<u32>,
    n: i32,
    left: &mut Array<u32>,
    right: &mut Array<u32>,
    parent: &mut Array<u32>,
    visits: &mut Array<u32>,
) {
    let i = tid();
    let mut d = -1;
    if longer_prefix(key_xor(codes, n, i, i + 1), key_xor(codes, n, i, i - 1)) {
        d = 1;
    }
    // The range's other end: exponential, then binary search.
    let x_min = key_xor(codes, n, i, i - d);
    let mut l_max = 2;
    while longer_prefix(key_xor(codes, n, i, i + l_max * d), x_min) {
        l_max *= 2;
    }
    let mut l = 0;
    let mut t = l_max / 2;
    while t >= 1 {
        if longer_prefix(key_xor(codes, n, i, i + (l + t) * d), x_min) {
            l += t;
        }
        t /= 2;
    }
    let j = i + l * d;
    // The split: the last position sharing more than the range's prefix with `i`.
    let x_node = key_xor(codes, n, i, j);
    let mut s = 0;
    let mut div = 2;
    loop {
        let step = (l + div - 1) / div;
        if longer_prefix(key_xor(codes, n, i, i + (s + step) * d), x_node) {
            s += step;
        }
        if step <= 1 {
            break;
        }
        div *= 2;
    }
    let gamma = i + s * d + min(d, 0);
    let mut lc = gamma;
    if min(i, j) == gamma {
        lc = n - 1 + gamma;
    }
    let mut rc = gamma + 1;
    if max(i, j) == gamma + 1 {
        rc = n + gamma;
    }
    left[i] = lc as u32;
    right[i] = rc as u32;
    parent[lc] = i as u32;
    parent[rc] = i as u32;
    visits[i] = 0;
    if i == 0 {
        parent[0] = u32::MAX;
    }
}

/// Step 5a: a thread per slot of `lens` (`n` leaves, then zeros up to its length):
/// the length of the chain of left children that ends at leaf `k`. Thread 0 also
/// zeroes `group_sums[zero_from..]` for the scan.
#[kernel(crate = ::weft_runtime)]
pub fn lbvh_chain_len(
    n: i32,
    left: &Array<u32>,
    parent: &Array<u32>,
    zero_from: i32,
    lens: &mut Array<u32>,
    group_sums: &mut Array<u32>,
) {
    let k = tid();
    let mut len = 0u32;
    if k < n {
        len = 1;
        let mut id = n - 1 + k;
        while id != 0 {
            let p = parent[id] as i32;
            if left[p] as i32 != id {
                break;
            }
            len += 1;
            id = p;
        }
    }
    lens[k] = len;
    if k == 0 {
        for e in zero_from..group_sums.len() {
            group_sums[e] = 0;
        }
    }
}

/// Step 5b: a thread per leaf `k`: numbers its chain's nodes, ending at
/// `chain_end[k] - 1` for the leaf, into `pos` (indexed by node id).
#[kernel(crate = ::weft_runtime)]
pub fn lbvh_chain_place(
    n: i32,
    left: &Array<u32>,
    parent: &Array<u32>,
    chain_end: &Array<u32>,
    pos: &mut Array<u32>,
) {
    let k = tid();
    let mut at = chain_end[k] - 1;
    let mut id = n - 1 + k;
    pos[id] = at;
    while id != 0 {
        let p = parent[id] as i32;
        if left[p] as i32 != id {
            break;
        }
        at -= 1;
        pos[p] = at;
        id = p;
    }
}

/// The corners of face `f` (vertex indices clamped, see `vertex`).
#[func(crate = ::weft_runtime)]
fn face_corners(points: &Array<Vec3>, faces: &Array<u32>, f: i32) -> (Vec3, Vec3, Vec3) {
    let np = points.len();
    let a = points[vertex(faces, 3 * f, np)];
    let b = points[vertex(faces, 3 * f + 1, np)];
    let c = points[vertex(faces, 3 * f + 2, np)];
    (a, b, c)
}

/// The final index of node id `id`'s parent, `u32::MAX` for the root (id 0).
#[func(crate = ::weft_runtime)]
fn parent_slot(parent: &Array<u32>, pos: &Array<u32>, id: i32) -> u32 {
    let mut p = u32::MAX;
    if id != 0 {
        p = pos[parent[id] as i32];
    }
    p
}

/// Step 6: a thread per leaf `k` (sorted position; face `ids[k]`): writes the leaf,
/// `prims[k]` and the face's corners at `tris[3 k..3 k + 3]`, then climbs while it is the second child to arrive at a parent
/// (`visits`), writing each such parent from its children's boxes.
#[kernel(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
pub fn lbvh_nodes(
    points: &Array<Vec3>,
    faces: &Array<u32>,
    ids: &Array<u32>,
    left: &Array<u32>,
    right: &Array<u32>,
    parent: &Array<u32>,
    pos: &Array<u32>,
    visits: &mut Array<u32>,
    nodes: &mut Array<BvhNode>,
    prims: &mut Array<u32>,
    parents: &mut Array<u32>,
    tris: &mut Array<Vec4>,
) {
    let leaf_bit = 1u32 << 31;
    let k = tid();
    let n = ids.len();
    let f = ids[k];
    let (a, b, c) = face_corners(points, faces, f as i32);
    let (lo, hi) = (min(min(a, b), c), max(max(a, b), c));
    tris[3 * k] = Vec4::new(a.x, a.y, a.z, 0.0);
    tris[3 * k + 1] = Vec4::new(b.x, b.y, b.z, 0.0);
    tris[3 * k + 2] = Vec4::new(c.x, c.y, c.z, 0.0);
    let mut id = n - 1 + k;
    let me = pos[id] as i32;
    nodes[me] = BvhNode {
        lower: lo,
        left_or_first: k as u32,
        upper: hi,
        right_or_count: leaf_bit | 1,
    };
    prims[k] = f;
    parents[me] = parent_slot(parent, pos, id);
    while id != 0 {
        let p = parent[id] as i32;
        // Release this thread's node before counting in; acquire the
        // sibling's after (see the module docs).
        thread_fence();
        if atomic_add(&mut visits[p], 1) == 0 {
            break;
        }
        thread_fence();
        let l = pos[left[p] as i32];
        let r = pos[right[p] as i32];
        let at = pos[p] as i32;
        nodes[at] = BvhNode {
            lower: min(nodes[l as i32].lower, nodes[r as i32].lower),
            left_or_first: l,
            upper: max(nodes[l as i32].upper, nodes[r as i32].upper),
            right_or_count: r,
        };
        parents[at] = parent_slot(parent, pos, p);
        id = p;
    }
}
