//! Closest-point queries for a batch of points ([`ClosestPoints`]), in an order
//! that keeps nearby points together and with the slowest queries split across
//! threads.
//!
//! A thread per query in the caller's order makes each warp of a GPU search for
//! 32 unrelated points: a few of them near the surface walk deep into the tree
//! while the others wait, idle. Sorting the queries into cells along a Morton
//! curve first puts points that do similar work in the same warp. Without a
//! limit, a query from near the middle of a closed mesh visits most of the tree
//! (every face is about equally far), and the kernel waits for the slowest
//! thread; so each query stops after a node budget, and those that did not
//! finish are searched again by 32 threads each, 32 of the 1024 subtrees 10
//! levels down per thread, from the bound the first pass found. All on the device, without a
//! synchronisation:
//!
//! 1. `order_count` (a thread per point): the answer -1 for a point farther than
//!    `max_dist` from the mesh's box (a search that would end at the root),
//!    which takes no further part; for the others, the cell, 2^18 in the
//!    mesh's box grown by `min(max_dist, its diagonal)`, then 2^15 by index for
//!    the few outside it; an `atomic_add` on the cell's count, whose old value
//!    is the point's rank in it;
//! 2. the exclusive scan of the counts, with the hash grid's scan kernels;
//! 3. `order_scatter` (a thread per point): its index at its cell's start plus
//!    its rank;
//! 4. `closest_first_pass` (a thread per sorted point): the search of the point in that
//!    slot, with a small node budget (the regroup budget); the answer at the
//!    point's index, or the point appended to a queue with its bound;
//! 5. `closest_regroup_pass` (a thread per queued point): its search again, from
//!    the root and its bound, with the node budget; the answer, or the point
//!    appended to the list of unfinished queries. Most threads of the first pass
//!    finish within a few nodes and would idle in a warp that waits for the
//!    others; the queue packs the longer searches into full warps;
//! 6. `closest_split_pass`: each unfinished query on `SPLIT_LANES` threads,
//!    which share out its 1024 subtrees 10 levels down
//!    ([`mesh_query_point_subtree`]), the answers combined by a 64-bit
//!    `atomic_min` on (squared distance bits, face);
//! 7. `closest_finish`: the combined answers at their points' indices.
//!
//! The results do not depend on the order or the budget: each is
//! [`mesh_query_point_face`]'s, the smallest face index among equally close ones
//! included.

use super::grid_build::{grow, scan_counts};
use super::prelude::*;
#[allow(unused_imports)] // named by the generated code
use super::{
    BvhNode, DeviceMesh, mesh_query_point_face, mesh_query_point_subtree, point_box_distance_sq,
    ray::no_node,
};
use super::{grid_build, lbvh_kernels::morton_code};

/// Bits of the Morton code that pick the cell of a point in the mesh's box grown
/// by the search radius: 6 per axis.
const CELL_BITS: u32 = 18; // `order_count` shifts the 30-bit code by 30 - 18
/// Bits of the cell of a point outside that box, in cells by index (`order_count`
/// adds 2^18).
const FAR_BITS: u32 = 15;
/// Cells of the order: those in the box, then those outside.
const CELLS: usize = (1 << CELL_BITS) + (1 << FAR_BITS);

/// Levels below the root at which [`ClosestPoints`] splits a slow query into
/// subtrees (`split_subtree` and `closest_split_pass` count on 10).
pub const SPLIT_LEVELS: u32 = 10;
/// Threads that share a slow query, each searching 32 of its 1024 subtrees.
pub const SPLIT_LANES: i32 = 32;
/// Slow queries in flight at once in the split pass (each on `SPLIT_LANES`
/// threads; a few waves of an H200).
const SPLIT_QUERIES: usize = 8192;
/// The default node budget of a query on a GPU before it is split (see
/// [`ClosestPoints::set_budget`]).
pub const GPU_BUDGET: i32 = 1536;
/// The default node budget of the first pass on a GPU before the unfinished
/// queries are regrouped (see [`ClosestPoints::set_regroup_budget`]).
pub const GPU_REGROUP_BUDGET: i32 = 24;

/// Step 1: each point's cell and rank in it (`keyed[i] = (cell, rank)`), counting
/// the cells' points. The cells divide the root box of `mesh` grown by
/// `min(max_dist, its diagonal)` on each side. A point whose search would end
/// at the root (farther from the root box than `max_dist`, not finite, or an
/// empty mesh: the first test of `mesh_query_point_subtree`) gets its answer,
/// -1, here, and no cell (`keyed[i].x = u32::MAX`). Thread 0 zeroes the
/// atomically summed tail of `group_sums` (from `zero_from`).
#[kernel(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
pub fn order_count(
    mesh: &DeviceMesh,
    points: &Array<Vec3>,
    max_dist: f32,
    zero_from: i32,
    faces: &mut Array<i32>,
    counts: &mut Array<u32>,
    keyed: &mut Array<UVec2>,
    group_sums: &mut Array<u32>,
) {
    let i = tid();
    let p = points[i];
    let mut limit = -1.0;
    if max_dist >= 0.0 {
        limit = max_dist * max_dist;
    }
    let mut searched = abs(p.x) < f32::INFINITY
        && abs(p.y) < f32::INFINITY
        && abs(p.z) < f32::INFINITY
        && limit >= 0.0
        && mesh.nodes.len() > 0;
    let mut root = no_node();
    if searched {
        root = mesh.nodes[0];
        searched = point_box_distance_sq(p, root.lower, root.upper) <= limit;
    }
    if searched {
        let pad = max(min(max_dist, length(root.upper - root.lower)), 0.0);
        let lo = root.lower - Vec3::new(pad, pad, pad);
        let ext = root.upper - root.lower + Vec3::new(2.0 * pad, 2.0 * pad, 2.0 * pad);
        let mut inv = Vec3::ZERO;
        if ext.x > 0.0 {
            inv.x = 1.0 / ext.x;
        }
        if ext.y > 0.0 {
            inv.y = 1.0 / ext.y;
        }
        if ext.z > 0.0 {
            inv.z = 1.0 / ext.z;
        }
        let q = (p - lo) * inv;
        let inside =
            q.x >= 0.0 && q.x <= 1.0 && q.y >= 0.0 && q.y <= 1.0 && q.z >= 0.0 && q.z <= 1.0;
        let mut cell = 0u32;
        if inside {
            cell = morton_code(p, lo, inv) >> 12;
        } else {
            // Outside the grown box but within `max_dist` of the root box (a
            // limit beyond the diagonal, or rounding): after the others, in
            // cells by index, 32 consecutive points each, so that few share a
            // count (atomics on one address are serialised).
            cell = (1u32 << 18) + ((i as u32 / 32) & 0x7fff);
        }
        let rank = atomic_add(&mut counts[cell as i32], 1);
        keyed[i] = UVec2::new(cell, rank);
    } else {
        faces[i] = -1;
        keyed[i] = UVec2::new(u32::MAX, 0);
    }
    if i == 0 {
        for e in zero_from..group_sums.len() {
            group_sums[e] = 0;
        }
    }
}

/// Step 3: point `i` at its cell's first slot plus its rank.
#[kernel(crate = ::weft_runtime)]
pub fn order_scatter(keyed: &Array<UVec2>, cell_start: &Array<u32>, order: &mut Array<u32>) {
    let i = tid();
    let k = keyed[i];
    if k.x != u32::MAX {
        order[(cell_start[k.x as i32] + k.y) as i32] = i as u32;
    }
}

/// `(squared distance, face)` as one 64-bit number that orders like the pair
/// (distances are never negative, so their bits order like them; face -1 is
/// `u32::MAX`, after every face).
#[func(crate = ::weft_runtime)]
fn pack_answer(d2: f32, face: i32) -> u64 {
    ((f32_to_bits(d2) as u64) << 32) | (face as u32 as u64)
}

/// The `(squared distance, face)` of [`pack_answer`].
#[func(crate = ::weft_runtime)]
fn unpack_answer(packed: u64) -> (f32, i32) {
    (
        f32_from_bits((packed >> 32) as u32),
        (packed & 0xffff_ffffu64) as u32 as i32,
    )
}

/// The end of a search of point `i` in the first and regroup passes: its
/// answer `f` at `faces[i]`, and if the search is unfinished (`done` false),
/// `i` appended to `heavy` with the answer so far (squared distance `d2`) as
/// its bound and best entry, for the split pass.
#[func(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
fn answer_or_defer(
    i: i32,
    f: i32,
    d2: f32,
    done: bool,
    faces: &mut Array<i32>,
    heavy: &mut Array<i32>,
    heavy_count: &mut Array<i32>,
    bound: &mut Array<u64>,
    best: &mut Array<u64>,
) {
    faces[i] = f;
    if !done {
        let h = atomic_add(&mut heavy_count[0], 1);
        let packed = pack_answer(d2, f);
        heavy[h] = i;
        bound[h] = packed;
        best[h] = packed;
    }
}

/// Step 4: the query of the point in slot `tid()` of `order`, stopping after
/// `budget` nodes: its answer at the point's own index, or, if unfinished, the
/// point's index appended to `heavy` with the answer so far (a bound) packed
/// into `bound` and `best`. The slots end at the last cell's end (`cell_end`,
/// the scan's inclusive sums); threads past it do nothing.
#[kernel(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
pub fn closest_first_pass(
    mesh: &DeviceMesh,
    points: &Array<Vec3>,
    order: &Array<u32>,
    cell_end: &Array<u32>,
    max_dist: f32,
    budget: i32,
    faces: &mut Array<i32>,
    heavy: &mut Array<i32>,
    heavy_count: &mut Array<i32>,
    bound: &mut Array<u64>,
    best: &mut Array<u64>,
) {
    let t = tid();
    if t < cell_end[cell_end.len() - 1] as i32 {
        let i = order[t] as i32;
        let mut limit = -1.0;
        if max_dist >= 0.0 {
            limit = max_dist * max_dist;
        }
        let (f, d2, done) = mesh_query_point_subtree(mesh, points[i], 0, limit, -1, budget);
        answer_or_defer(i, f, d2, done, faces, heavy, heavy_count, bound, best);
    }
}

/// Step 5: the queries the first pass left unfinished (`queue[..queue_count]`,
/// in the order they were appended, so with every thread busy), searched again
/// from the root and from their bounds (`queue_bound`), stopping after `budget`
/// nodes: the answer at the point's index, or, if unfinished again, the point
/// appended to `heavy` as in `closest_first_pass`. A thread per queued query;
/// threads past the queue's end do nothing.
#[kernel(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
pub fn closest_regroup_pass(
    mesh: &DeviceMesh,
    points: &Array<Vec3>,
    queue: &Array<i32>,
    queue_count: &Array<i32>,
    queue_bound: &Array<u64>,
    budget: i32,
    faces: &mut Array<i32>,
    heavy: &mut Array<i32>,
    heavy_count: &mut Array<i32>,
    bound: &mut Array<u64>,
    best: &mut Array<u64>,
) {
    let t = tid();
    if t < queue_count[0] {
        let i = queue[t];
        let (d2, f) = unpack_answer(queue_bound[t]);
        let (f, d2, done) = mesh_query_point_subtree(mesh, points[i], 0, d2, f, budget);
        answer_or_defer(i, f, d2, done, faces, heavy, heavy_count, bound, best);
    }
}

/// The root of subtree `sub` of the `SPLIT_LEVELS` levels below the root
/// (the bits of `sub` from the highest pick the children, 0 the left), if it
/// exists and its path stays within `bound_d2` of `p`; -1 otherwise. A leaf met
/// higher up stands for the subtree whose remaining bits are all 0.
#[func(crate = ::weft_runtime)]
fn split_subtree(mesh: &DeviceMesh, sub: i32, p: Vec3, bound_d2: f32) -> i32 {
    let leaf_bit = 1u32 << 31;
    let mut node = 0;
    let mut level = 0;
    let mut going = mesh.nodes.len() > 0;
    if !going {
        node = -1;
    }
    while going {
        let n = mesh.nodes[node];
        if point_box_distance_sq(p, n.lower, n.upper) > bound_d2 {
            node = -1;
            going = false;
        } else if level == 10 {
            going = false;
        } else if (n.right_or_count & leaf_bit) != 0 {
            if (sub & ((1 << (10 - level)) - 1)) != 0 {
                node = -1;
            }
            going = false;
        } else {
            if ((sub >> (9 - level)) & 1) == 0 {
                node += 1;
            } else {
                node = n.right_or_count as i32;
            }
            level += 1;
        }
    }
    node
}

/// Step 6: the unfinished queries, 32 threads each: of the 2^`SPLIT_LEVELS`
/// subtrees that many levels below the root, thread `lane` searches those
/// numbered `lane`, `lane + 32`, … (`split_subtree`; neighbouring subtrees go
/// to different threads, so the part of the mesh near the point is shared out)
/// from the first pass's bound, and combines its answer into `best` with a 64-bit
/// `atomic_min`. `queries` heavy queries at a time (the launch has `queries · 32`
/// threads), over all of them.
#[kernel(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
pub fn closest_split_pass(
    mesh: &DeviceMesh,
    points: &Array<Vec3>,
    heavy: &Array<i32>,
    heavy_count: &Array<i32>,
    bound: &Array<u64>,
    queries: i32,
    best: &mut Array<u64>,
) {
    let t = tid();
    let lane = t % 32;
    let count = heavy_count[0];
    let mut h = t / 32;
    while h < count {
        let (d2, f) = unpack_answer(bound[h]);
        let p = points[heavy[h]];
        let mut g = f;
        let mut e2 = d2;
        for k in 0..32 {
            let root = split_subtree(mesh, lane + 32 * k, p, e2);
            if root >= 0 {
                let (g1, e1, _done) = mesh_query_point_subtree(mesh, p, root, e2, g, i32::MAX);
                g = g1;
                e2 = e1;
            }
        }
        if g >= 0 {
            atomic_min(&mut best[h], pack_answer(e2, g));
        }
        h += queries;
    }
}

/// Step 7: the split queries' answers, at their points' indices.
#[kernel(crate = ::weft_runtime)]
pub fn closest_finish(
    heavy: &Array<i32>,
    heavy_count: &Array<i32>,
    best: &Array<u64>,
    queries: i32,
    faces: &mut Array<i32>,
) {
    let mut h = tid();
    let count = heavy_count[0];
    while h < count {
        let (_d2, f) = unpack_answer(best[h]);
        faces[heavy[h]] = f;
        h += queries;
    }
}

/// Closest faces of a [`DeviceMesh`] to many points at once: what a kernel calling
/// [`mesh_query_point_face`] once per point computes, faster on a GPU for points
/// in no particular order: the queries run sorted along a Morton curve, those
/// still running after a few nodes are packed into full warps, and the slowest
/// are split across 32 threads (see the source of `point_batch.rs`; on an H200,
/// 1M random points around a 327,680-triangle sphere: 2.2× the per-thread kernel
/// within a limit, 2× without). Holds the buffers of the sort and the
/// split, which grow to the largest batch and are reused, so a batch of an
/// unchanged size allocates nothing and can be captured in a CUDA graph.
///
/// ```
/// use weft::prelude::*;
/// use weft::geom::{ClosestPoints, DeviceMesh};
///
/// let device = Device::Cpu; // or Device::best()
/// let mesh = DeviceMesh::new(device, &weft_geom::generate::icosphere(1.0, 2))?;
/// let points = Array::from_slice(device, &[Vec3::new(0.0, 0.0, 3.0), Vec3::new(9.0, 0.0, 0.0)]);
/// let mut faces = Array::zeros(device, [2]);
/// let mut batch = ClosestPoints::new(device)?;
/// batch.faces(&mesh, &points, 2.5, &mut faces)?;
/// let f = faces.to_vec();
/// assert!(f[0] >= 0); // the sphere is 2 away
/// assert_eq!(f[1], -1); // 8 away: beyond 2.5
/// # Ok::<(), weft::Error>(())
/// ```
pub struct ClosestPoints {
    counts: Array<u32>,
    chunk_sums: Array<u32>,
    chunk_prefix: Array<u32>,
    group_sums: Array<u32>,
    cell_start: Array<u32>,
    cell_end: Array<u32>,
    keyed: Array<UVec2>,
    order: Array<u32>,
    heavy: Array<i32>,
    heavy_count: Array<i32>,
    bound: Array<u64>,
    best: Array<u64>,
    queue: Array<i32>,
    queue_count: Array<i32>,
    queue_bound: Array<u64>,
    budget: i32,
    regroup: i32,
    /// Whether the last batch ran the regroup pass.
    regrouped: bool,
}

impl ClosestPoints {
    /// The buffers of the sort on `device` (those that depend on the batch size
    /// grow at the first query).
    ///
    /// Errors: the device's (unavailable, out of memory).
    pub fn new(device: Device) -> Result<Self, Error> {
        let (_, chunks, groups, top) = grid_build::scan_sizes(CELLS);
        Ok(ClosestPoints {
            counts: Array::try_zeros(device, [CELLS])?,
            chunk_sums: Array::try_zeros(device, [chunks])?,
            chunk_prefix: Array::try_zeros(device, [chunks])?,
            group_sums: Array::try_zeros(device, [groups + top])?,
            cell_start: Array::try_zeros(device, [CELLS])?,
            cell_end: Array::try_zeros(device, [CELLS])?,
            keyed: Array::try_zeros(device, [0])?,
            order: Array::try_zeros(device, [0])?,
            heavy: Array::try_zeros(device, [0])?,
            heavy_count: Array::try_zeros(device, [1])?,
            bound: Array::try_zeros(device, [0])?,
            best: Array::try_zeros(device, [0])?,
            queue: Array::try_zeros(device, [0])?,
            queue_count: Array::try_zeros(device, [1])?,
            queue_bound: Array::try_zeros(device, [0])?,
            budget: if device.is_cpu() {
                i32::MAX
            } else {
                GPU_BUDGET
            },
            regroup: if device.is_cpu() {
                i32::MAX
            } else {
                GPU_REGROUP_BUDGET
            },
            regrouped: false,
        })
    }

    /// How many nodes a query may visit before it is split across
    /// `SPLIT_LANES` threads (at least 1; `i32::MAX` never splits). The default
    /// is [`GPU_BUDGET`] on a GPU, where a warp waits for its slowest query, and
    /// no split on the CPU, where a split only adds work.
    pub fn set_budget(&mut self, nodes: i32) {
        self.budget = nodes.max(1);
    }

    /// The node budget of [`ClosestPoints::set_budget`].
    pub fn budget(&self) -> i32 {
        self.budget
    }

    /// How many nodes a query may visit in the first, sorted pass before it is
    /// queued to run again from its bound, packed with the other unfinished
    /// queries (at least 1; a budget at or above [`ClosestPoints::budget`] turns
    /// the regrouping off). Only batches with a finite `max_dist` are
    /// regrouped: the queued searches start again from the root, which costs
    /// little when a limit keeps them short. The default is [`GPU_REGROUP_BUDGET`] on a GPU and
    /// none on the CPU, where threads do not wait on each other.
    pub fn set_regroup_budget(&mut self, nodes: i32) {
        self.regroup = nodes.max(1);
    }

    /// The first pass's node budget of [`ClosestPoints::set_regroup_budget`].
    pub fn regroup_budget(&self) -> i32 {
        self.regroup
    }

    /// How many queries of the last batch were split (a read from the device,
    /// which waits for the batch: for tests and tuning).
    ///
    /// Errors: the device's.
    pub fn last_split_count(&self) -> Result<usize, Error> {
        Ok(self.heavy_count.try_to_vec()?[0] as usize)
    }

    /// How many queries of the last batch the first pass queued to run again
    /// (0 without regrouping; a read from the device, which waits for the
    /// batch: for tests and tuning).
    ///
    /// Errors: the device's.
    pub fn last_regroup_count(&self) -> Result<usize, Error> {
        if !self.regrouped {
            return Ok(0);
        }
        Ok(self.queue_count.try_to_vec()?[0] as usize)
    }

    /// The device the buffers live on.
    pub fn device(&self) -> Device {
        self.counts.device()
    }

    /// `faces[i]` = [`mesh_query_point_face`]`(mesh, points[i], max_dist)` for
    /// every point: the closest face within `max_dist` (inclusive;
    /// `f32::INFINITY` for no limit), the smallest index among equally close ones,
    /// or -1. The launches are queued on the device's stream.
    ///
    /// Errors: `faces` not as long as `points`, or more than `i32::MAX` points
    /// ([`Error::InvalidArgument`]); an array on another device than the buffers
    /// ([`Error::DeviceMismatch`]); the device's.
    pub fn faces(
        &mut self,
        mesh: &DeviceMesh,
        points: &Array<Vec3>,
        max_dist: f32,
        faces: &mut Array<i32>,
    ) -> Result<(), Error> {
        let n = points.len();
        if faces.len() != n {
            return Err(Error::InvalidArgument {
                what: "closest-point batch",
                message: format!("faces holds {} elements for {n} points", faces.len()),
            });
        }
        if n > i32::MAX as usize {
            return Err(Error::InvalidArgument {
                what: "closest-point batch",
                message: format!("at most {} points, got {n}", i32::MAX),
            });
        }
        let device = self.device();
        for (name, d) in [
            ("points", points.device()),
            ("faces", faces.device()),
            ("mesh", mesh.nodes.device()),
        ] {
            if d != device {
                return Err(Error::DeviceMismatch {
                    kernel: "ClosestPoints::faces",
                    first: "batch buffers",
                    first_device: device,
                    other: name,
                    other_device: d,
                });
            }
        }
        if n == 0 {
            return Ok(());
        }
        grow(&mut self.keyed, device, n)?;
        grow(&mut self.order, device, n)?;
        grow(&mut self.heavy, device, n)?;
        grow(&mut self.bound, device, n)?;
        grow(&mut self.best, device, n)?;
        let (_, _, groups, _) = grid_build::scan_sizes(CELLS);
        self.counts.try_fill(0)?;
        order_count::launch(
            n,
            mesh,
            points,
            max_dist,
            groups as i32,
            faces,
            &mut self.counts,
            &mut self.keyed,
            &mut self.group_sums,
        )?;
        scan_counts(
            &self.counts,
            &mut self.chunk_sums,
            &mut self.chunk_prefix,
            &mut self.group_sums,
            &mut self.cell_start,
            &mut self.cell_end,
        )?;
        order_scatter::launch(n, &self.keyed, &self.cell_start, &mut self.order)?;
        self.heavy_count.try_fill(0)?;
        // A restart from the bound pays when a limit keeps the searches short;
        // without one, the long searches are split instead.
        self.regrouped = self.regroup < self.budget && max_dist.is_finite();
        if self.regrouped {
            grow(&mut self.queue, device, n)?;
            grow(&mut self.queue_bound, device, n)?;
            self.queue_count.try_fill(0)?;
            // `best` is scratch here: the regroup pass writes the entries the
            // split pass reads.
            closest_first_pass::launch(
                n,
                mesh,
                points,
                &self.order,
                &self.cell_end,
                max_dist,
                self.regroup,
                faces,
                &mut self.queue,
                &mut self.queue_count,
                &mut self.queue_bound,
                &mut self.best,
            )?;
            closest_regroup_pass::launch(
                n,
                mesh,
                points,
                &self.queue,
                &self.queue_count,
                &self.queue_bound,
                self.budget,
                faces,
                &mut self.heavy,
                &mut self.heavy_count,
                &mut self.bound,
                &mut self.best,
            )?;
        } else {
            closest_first_pass::launch(
                n,
                mesh,
                points,
                &self.order,
                &self.cell_end,
                max_dist,
                self.budget,
                faces,
                &mut self.heavy,
                &mut self.heavy_count,
                &mut self.bound,
                &mut self.best,
            )?;
        }
        if self.budget == i32::MAX {
            return Ok(());
        }
        let queries = n.min(SPLIT_QUERIES);
        closest_split_pass::launch(
            queries * SPLIT_LANES as usize,
            mesh,
            points,
            &self.heavy,
            &self.heavy_count,
            &self.bound,
            queries as i32,
            &mut self.best,
        )?;
        let queries = n.min(SPLIT_QUERIES * SPLIT_LANES as usize);
        closest_finish::launch(
            queries,
            &self.heavy,
            &self.heavy_count,
            &self.best,
            queries as i32,
            faces,
        )?;
        Ok(())
    }
}
