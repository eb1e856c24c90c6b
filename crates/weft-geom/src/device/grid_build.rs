//! Building a [`DeviceHashGrid`] on the device, with kernels, from points that live
//! there.
//!
//! The result is the layout of [`weft_geom::HashGrid`](crate::HashGrid), array for array (the same
//! `cell_start`, `cell_end`, `sorted_index` and `sorted_points`, points ordered by
//! index within a cell), so it does not depend on thread timing and the host grid
//! can check it. Only Weft kernels run, so the CPU and CUDA back ends do the same
//! work. A counting sort over the hashed cells, then a sort inside each cell:
//!
//! 1. `grid_count` (a thread per point): the hashed cell, and an `atomic_add` on
//!    its count, whose old value is the point's arrival rank in the cell;
//! 2. `grid_chunk_sums` (a thread per chunk of `chunk` consecutive cells): its
//!    count;
//! 3. `grid_chunk_prefix` (a thread per chunk): the exclusive prefix of the chunk
//!    sums within its group of `GROUP` chunks; a group's last chunk writes the
//!    group's sum and adds it to its group of groups (atomically);
//! 4. `grid_chunk_base` (a thread per chunk): its first slot, adding at most
//!    `GROUP` − 1 group sums and `GROUP` sums of groups of groups;
//! 5. `grid_cells` (a thread per cell on a GPU, per chunk on a CPU): `cell_start`
//!    (the chunk's first slot plus the counts before it in the chunk) and
//!    `cell_end` — together an exclusive scan over the cells in global memory,
//!    coalesced on a GPU, no thread reading more than `GROUP` values of a level;
//! 6. `grid_scatter` (a thread per point): `(point, cell)` at cell start plus
//!    arrival rank — grouped by cell, in arbitrary order within a cell;
//! 7. `grid_sort_blocks` (a thread per slot): the order by index. A cell of at
//!    most `BLOCK` points is final here (a point's place is the number of
//!    smaller indices in its cell); a larger one is sorted in blocks of `BLOCK`
//!    slots and its slots are listed. Also zeroes the counts for the next build;
//! 8. `grid_merge`, passes over the listed slots only (so a few threads that stop
//!    at once when no cell is large): `ways` sorted runs become one, each point
//!    placed by binary searches in the other runs.
//!
//! A build is 7 launches plus the merge passes (on a GPU up to 64 runs merged per
//! pass: 2 passes up to 2^20 points; on the CPU, where a launch costs little and
//! binary searches much, 2 per pass), and allocates nothing once the buffers have
//! grown to the point count, so a simulation step that rebuilds its grid can be
//! captured in a CUDA graph. No serial work depends on the points' distribution:
//! a cell holding every point costs O(n · (BLOCK + passes · ways · log n))
//! parallel work (5 ms for 2^20 points on an H200, against ~0.12 ms for 2^20
//! uniform points).

use super::grid::DeviceHashGrid;
use super::prelude::*;

/// Cells of at most this many points are sorted by one pass (a point's place is
/// found by reading its whole cell); larger ones in blocks of this size, then
/// merged.
pub const BLOCK: i32 = 256;

/// Chunks per group (and groups per group of groups) in the scan over cells; runs
/// merged per merge pass on a GPU at most.
pub const GROUP: i32 = 64;

/// Chunks of cells are at least this long; longer when a grid has more than
/// `MIN_CHUNK · 2^18` cells, so that at most `GROUP` groups of groups remain.
const MIN_CHUNK: usize = 16;

/// The hashed cell of `p` (the rule of `weft_geom::HashGrid::cell_index`):
/// `floor(p * inv)` per axis, saturated to `i32`, wrapped into `0..dim`.
#[func(crate = ::weft_runtime)]
fn grid_cell(p: Vec3, inv: f32, dx: i32, dy: i32, dz: i32) -> i32 {
    // `c % d` is in `-d + 1 ..= d - 1`, so adding `d` to a negative remainder
    // cannot overflow, and the flat index is below `dx * dy * dz < 2^31`: one i32
    // division per axis (i64 divisions cost several times more on both back ends).
    let mut x = (floor(p.x * inv) as i32) % dx;
    let mut y = (floor(p.y * inv) as i32) % dy;
    let mut z = (floor(p.z * inv) as i32) % dz;
    if x < 0 {
        x += dx;
    }
    if y < 0 {
        y += dy;
    }
    if z < 0 {
        z += dz;
    }
    (z * dy + y) * dx + x
}

/// How many of the points in the sorted run `a[lo..hi]` (`(index, cell)` pairs)
/// have an index below `v`.
#[func(crate = ::weft_runtime)]
fn count_below(a: &Array<UVec2>, lo: i32, hi: i32, v: u32) -> i32 {
    let mut l = lo;
    let mut h = hi;
    while l < h {
        let m = l + (h - l) / 2;
        if a[m].x < v {
            l = m + 1;
        } else {
            h = m;
        }
    }
    l - lo
}

/// Step 1: each point's cell and arrival rank in it (`keyed[i] = (cell, rank)`),
/// counting the cells' points; thread 0 zeroes the atomically summed tail of
/// `group_sums` (sums of groups of groups, then the count of large-cell slots).
#[kernel(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
pub fn grid_count(
    points: &Array<Vec3>,
    inv: f32,
    dx: i32,
    dy: i32,
    dz: i32,
    zero_from: i32,
    counts: &mut Array<u32>,
    keyed: &mut Array<UVec2>,
    group_sums: &mut Array<u32>,
) {
    let i = tid();
    let k = grid_cell(points[i], inv, dx, dy, dz);
    let rank = atomic_add(&mut counts[k], 1);
    keyed[i] = UVec2::new(k as u32, rank);
    if i == 0 {
        for e in zero_from..group_sums.len() {
            group_sums[e] = 0;
        }
    }
}

/// Step 2: a thread per chunk of `chunk` cells: its count.
#[kernel(crate = ::weft_runtime)]
pub fn grid_chunk_sums(counts: &Array<u32>, chunk: i32, chunk_sums: &mut Array<u32>) {
    let c = tid();
    let lo = c * chunk;
    let mut s = 0;
    for k in lo..min(lo + chunk, counts.len()) {
        s += counts[k];
    }
    chunk_sums[c] = s;
}

/// Step 3: a thread per chunk: the exclusive prefix of the chunk sums of its group
/// before it; the group's last chunk writes the group sum to `group_sums[g]` and
/// adds it to `group_sums[groups + g / 64]` (its group of groups).
#[kernel(crate = ::weft_runtime)]
pub fn grid_chunk_prefix(
    chunk_sums: &Array<u32>,
    groups: i32,
    chunk_prefix: &mut Array<u32>,
    group_sums: &mut Array<u32>,
) {
    let c = tid();
    let g = c / 64;
    let mut s = 0;
    for j in g * 64..c {
        s += chunk_sums[j];
    }
    chunk_prefix[c] = s;
    if c == min(g * 64 + 64, chunk_sums.len()) - 1 {
        let total = s + chunk_sums[c];
        group_sums[g] = total;
        atomic_add(&mut group_sums[groups + g / 64], total);
    }
}

/// Step 4: a thread per chunk: its first slot (exclusive prefix over all chunks),
/// into `chunk_base` (the chunk sums' array: they are no longer needed).
#[kernel(crate = ::weft_runtime)]
pub fn grid_chunk_base(
    chunk_prefix: &Array<u32>,
    group_sums: &Array<u32>,
    groups: i32,
    chunk_base: &mut Array<u32>,
) {
    let c = tid();
    let g = c / 64;
    let gg = g / 64;
    let mut run = chunk_prefix[c];
    for j in gg * 64..g {
        run += group_sums[j];
    }
    for e in 0..gg {
        run += group_sums[groups + e];
    }
    chunk_base[c] = run;
}

/// Step 5: a thread per `per` consecutive cells (`per` divides `chunk`): their
/// first and one-past-last slots, from the chunk's first slot and the counts before
/// them in the chunk. One cell per thread on a GPU (coalesced, and the loop over
/// the counts before it reads cached lines); a whole chunk per thread on a CPU,
/// which then reads every count once.
#[kernel(crate = ::weft_runtime)]
pub fn grid_cells(
    counts: &Array<u32>,
    chunk_base: &Array<u32>,
    chunk: i32,
    per: i32,
    cell_start: &mut Array<u32>,
    cell_end: &mut Array<u32>,
) {
    let lo = tid() * per;
    let c = lo / chunk;
    let mut run = chunk_base[c];
    for j in c * chunk..lo {
        run += counts[j];
    }
    for k in lo..min(lo + per, counts.len()) {
        cell_start[k] = run;
        run += counts[k];
        cell_end[k] = run;
    }
}

/// Step 6: a thread per point: `(index, cell)` at its cell's start plus its arrival
/// rank. The cell travels along so that step 7 can read its cell's range without
/// waiting for the point's coordinates (a random read: on a CPU, the wait is most
/// of the step's time).
#[kernel(crate = ::weft_runtime)]
pub fn grid_scatter(keyed: &Array<UVec2>, cell_start: &Array<u32>, scatter: &mut Array<UVec2>) {
    let i = tid();
    let e = keyed[i];
    scatter[(cell_start[e.x as i32] + e.y) as i32] = UVec2::new(i as u32, e.x);
}

/// Step 7: a thread per slot of `scatter`: the point's rank among the smaller
/// indices of its cell (of its block of `block` slots in a larger cell), then its
/// final place (or, in a larger cell, its place in the block in `merge`, and the
/// slot appended to `large`); zeroes the cell's count for the next build.
#[kernel(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
pub fn grid_sort_blocks(
    points: &Array<Vec3>,
    scatter: &Array<UVec2>,
    cell_start: &Array<u32>,
    cell_end: &Array<u32>,
    block: i32,
    count_at: i32,
    counts: &mut Array<u32>,
    sorted_index: &mut Array<u32>,
    sorted_points: &mut Array<Vec3>,
    merge: &mut Array<UVec2>,
    large: &mut Array<u32>,
    group_sums: &mut Array<u32>,
) {
    let s = tid();
    let e = scatter[s];
    let v = e.x;
    let k = e.y as i32;
    let start = cell_start[k] as i32;
    let end = cell_end[k] as i32;
    counts[k] = 0;
    if end - start <= block {
        let mut r = 0;
        for t in start..end {
            if scatter[t].x < v {
                r += 1;
            }
        }
        sorted_index[start + r] = v;
        sorted_points[start + r] = points[v as i32];
    } else {
        let b0 = start + (s - start) / block * block;
        let b1 = min(b0 + block, end);
        let mut r = 0;
        for t in b0..b1 {
            if scatter[t].x < v {
                r += 1;
            }
        }
        merge[b0 + r] = e;
        let at = atomic_add(&mut group_sums[count_at], 1);
        large[at as i32] = s as u32;
    }
}

/// Step 8, one merge pass over the slots of the large cells (`stride` threads, each
/// taking every `stride`-th): runs of `width` sorted slots in `src`, `ways` of them
/// merged into one. A point's new place is its place in its run plus, for each
/// other run of its group, the number of smaller indices there. Cells sorted after
/// this pass go to the final arrays, the others to `dst`.
#[kernel(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
pub fn grid_merge(
    points: &Array<Vec3>,
    src: &Array<UVec2>,
    cell_start: &Array<u32>,
    cell_end: &Array<u32>,
    large: &Array<u32>,
    group_sums: &Array<u32>,
    count_at: i32,
    width: i32,
    ways: i32,
    stride: i32,
    dst: &mut Array<UVec2>,
    sorted_index: &mut Array<u32>,
    sorted_points: &mut Array<Vec3>,
) {
    let count = group_sums[count_at] as i32;
    let mut t = tid();
    while t < count {
        let s = large[t] as i32;
        let e = src[s];
        let v = e.x;
        let start = cell_start[e.y as i32] as i32;
        let end = cell_end[e.y as i32] as i32;
        let len = end - start;
        if len > width {
            let rel = s - start;
            let r = rel / width;
            let g0 = r / ways * ways;
            let mut at = g0 * width + (rel - r * width);
            let mut q = g0;
            while q < g0 + ways && (start as i64 + q as i64 * width as i64) < end as i64 {
                if q != r {
                    let lo = start + q * width;
                    at += count_below(src, lo, min(lo + width, end), v);
                }
                q += 1;
            }
            if len as i64 <= width as i64 * ways as i64 {
                sorted_index[start + at] = v;
                sorted_points[start + at] = points[v as i32];
            } else {
                dst[start + at] = e;
            }
        }
        t += stride;
    }
}

/// Sizes of the scan over `cells` hashed cells: cells per chunk, chunks, groups of
/// chunks, groups of groups (at most `GROUP`).
pub(super) fn scan_sizes(cells: usize) -> (usize, usize, usize, usize) {
    let g = GROUP as usize;
    let chunk = MIN_CHUNK.max(cells.div_ceil(g * g * g));
    let chunks = cells.div_ceil(chunk);
    let groups = chunks.div_ceil(g);
    (chunk, chunks, groups, groups.div_ceil(g))
}

/// The merge passes for `n` points, merging at most `max_ways` runs per pass:
/// `(passes, ways)`, the fewest passes with `BLOCK · ways^passes ≥ n`, then the
/// fewest ways for them.
fn merge_plan(n: usize, max_ways: usize) -> (usize, usize) {
    let runs = n.div_ceil(BLOCK as usize);
    if runs <= 1 {
        return (0, 1);
    }
    let covers = |ways: usize, passes: usize| {
        (0..passes)
            .try_fold(1usize, |acc, _| acc.checked_mul(ways))
            .is_none_or(|c| c >= runs)
    };
    let mut passes = 1;
    while !covers(max_ways, passes) {
        passes += 1;
    }
    let mut ways = 2;
    while !covers(ways, passes) {
        ways += 1;
    }
    (passes, ways)
}

/// Steps 2–5 of a build: `starts` and `ends`, the exclusive and inclusive scans of
/// `counts`, through `chunk_sums`, `chunk_prefix` and `group_sums` (sized by
/// [`scan_sizes`] for `counts.len()`; the kernel that filled `counts` zeroed
/// `group_sums` from `groups` on). Also the scans of the LBVH's sort and of
/// [`ClosestPoints`](super::ClosestPoints)' order.
pub(super) fn scan_counts(
    counts: &Array<u32>,
    chunk_sums: &mut Array<u32>,
    chunk_prefix: &mut Array<u32>,
    group_sums: &mut Array<u32>,
    starts: &mut Array<u32>,
    ends: &mut Array<u32>,
) -> Result<(), Error> {
    let cells = counts.len();
    let (chunk, chunks, groups, _) = scan_sizes(cells);
    grid_chunk_sums::launch(chunks, counts, chunk as i32, chunk_sums)?;
    grid_chunk_prefix::launch(chunks, chunk_sums, groups as i32, chunk_prefix, group_sums)?;
    grid_chunk_base::launch(chunks, chunk_prefix, group_sums, groups as i32, chunk_sums)?;
    let per = if counts.device().is_cpu() { chunk } else { 1 };
    grid_cells::launch(
        cells.div_ceil(per),
        counts,
        chunk_sums,
        chunk as i32,
        per as i32,
        starts,
        ends,
    )
}

/// Replaces `a` by a zeroed array of `n` elements if it holds fewer.
pub(super) fn grow<T: weft_runtime::Elem>(
    a: &mut Array<T>,
    device: Device,
    n: usize,
) -> Result<(), Error> {
    if a.len() < n {
        *a = Array::try_zeros(device, [n])?;
    }
    Ok(())
}

impl DeviceHashGrid {
    /// An empty grid on `device` with `dim` hashed cells per axis (each ≥ 1, product
    /// < 2³¹, e.g. `[128, 128, 128]`), to be filled on the device by
    /// [`DeviceHashGrid::build`]. Everything that depends on the cell count is
    /// allocated here, once; the per-point buffers grow at the first build.
    ///
    /// Errors: a dimension of zero or too many cells ([`Error::InvalidArgument`]),
    /// or the device's (unavailable, out of memory).
    pub fn with_dim(device: Device, dim: [u32; 3]) -> Result<Self, Error> {
        let cells = dim.iter().map(|&d| d as u64).product::<u64>();
        if dim.contains(&0) || cells >= 1 << 31 {
            return Err(Error::InvalidArgument {
                what: "hash grid dimensions",
                message: format!(
                    "each dimension must be ≥ 1 and their product < 2^31, got {dim:?}"
                ),
            });
        }
        let cells = cells as usize;
        let (_, chunks, groups, top) = scan_sizes(cells);
        Ok(DeviceHashGrid {
            dim_x: dim[0] as i32,
            dim_y: dim[1] as i32,
            dim_z: dim[2] as i32,
            inv_cell_size: 1.0,
            cell_start: Array::try_zeros(device, [cells])?,
            cell_end: Array::try_zeros(device, [cells])?,
            sorted_index: Array::try_zeros(device, [0])?,
            sorted_points: Array::try_zeros(device, [0])?,
            counts: Array::try_zeros(device, [cells])?,
            chunk_sums: Array::try_zeros(device, [chunks])?,
            chunk_prefix: Array::try_zeros(device, [chunks])?,
            group_sums: Array::try_zeros(device, [groups + top + 1])?,
            keyed: Array::try_zeros(device, [0])?,
            scatter: Array::try_zeros(device, [0])?,
            merge: Array::try_zeros(device, [0])?,
            large: Array::try_zeros(device, [0])?,
            dirty: 0,
        })
    }

    /// Hashed cells per axis.
    pub fn dim(&self) -> [u32; 3] {
        [self.dim_x as u32, self.dim_y as u32, self.dim_z as u32]
    }

    /// Number of points in the grid.
    pub fn num_points(&self) -> usize {
        self.sorted_index.len()
    }

    /// The device the grid lives on.
    pub fn device(&self) -> Device {
        self.cell_start.device()
    }

    /// Sorts `points` into the grid with cubes of side `cell_size` (finite, > 0;
    /// usually the query radius), on the grid's device, replacing what it held: the
    /// same arrays as [`weft_geom::HashGrid::build`](crate::HashGrid::build) on the same points, so queries
    /// ([`super::hash_grid_query`]) see exactly the host grid, whatever the thread
    /// timing. The launches are queued on the device's stream (asynchronous on a
    /// GPU); the source of `grid_build.rs` describes them.
    ///
    /// Memory: the scratch grows to the largest point count seen and is reused;
    /// `sorted_index` and `sorted_points` hold exactly the points, so they are
    /// reallocated when the count changes. With an unchanged count a build
    /// allocates nothing, so a step that rebuilds can be captured in a CUDA graph.
    /// No points: an empty grid, without a launch.
    ///
    /// Errors: a bad `cell_size` ([`Error::InvalidArgument`]), `points` on another
    /// device than the grid ([`Error::DeviceMismatch`]), more than `i32::MAX`
    /// points, or the device's.
    ///
    /// ```
    /// use weft::prelude::*;
    /// use weft::geom::{DeviceHashGrid, hash_grid_query, hash_grid_query_next};
    ///
    /// #[kernel(crate = ::weft_runtime)]
    /// fn neighbours(grid: &DeviceHashGrid, x: &Array<Vec3>, r: f32, n: &mut Array<i32>) {
    ///     let i = tid();
    ///     let mut k = 0;
    ///     let mut q = hash_grid_query(grid, x[i], r);
    ///     while q.index >= 0 {
    ///         k += 1;
    ///         q = hash_grid_query_next(grid, q, x[i], r);
    ///     }
    ///     n[i] = k;
    /// }
    ///
    /// let device = Device::Cpu; // or Device::best()
    /// let pts: Vec<Vec3> = (0..100).map(|i| Vec3::new(i as f32 * 0.01, 0.0, 0.0)).collect();
    /// let x = Array::from_slice(device, &pts);
    /// let mut grid = DeviceHashGrid::with_dim(device, [16, 16, 16])?;
    /// grid.build(&x, 0.05)?; // every step, where the points live
    /// let mut n = Array::zeros(device, [100]);
    /// neighbours::launch(100, &grid, &x, 0.025, &mut n)?;
    /// assert_eq!(n.to_vec()[50], 5); // itself and two on each side
    ///
    /// // The same arrays as the host build.
    /// let host = weft_geom::HashGrid::with_points(&pts, 0.05, [16, 16, 16]).unwrap();
    /// assert_eq!(grid.sorted_index.to_vec(), host.sorted_index());
    /// assert_eq!(grid.cell_start.to_vec(), host.cell_start());
    /// # Ok::<(), weft::Error>(())
    /// ```
    pub fn build(&mut self, points: &Array<Vec3>, cell_size: f32) -> Result<(), Error> {
        if !(cell_size > 0.0 && cell_size.is_finite()) {
            return Err(Error::InvalidArgument {
                what: "cell size",
                message: format!("must be finite and > 0, got {cell_size}"),
            });
        }
        let device = self.device();
        if points.device() != device {
            return Err(Error::DeviceMismatch {
                kernel: "DeviceHashGrid::build",
                first: "grid",
                first_device: device,
                other: "points",
                other_device: points.device(),
            });
        }
        let n = points.len();
        if n > i32::MAX as usize {
            return Err(Error::InvalidArgument {
                what: "point count",
                message: format!("at most {} points, got {n}", i32::MAX),
            });
        }
        let cells = self.cell_start.len();
        let (_, chunks, groups, top) = scan_sizes(cells);
        if self.counts.len() != cells {
            // A grid copied from the host: its build scratch, once.
            self.counts = Array::try_zeros(device, [cells])?;
            self.chunk_sums = Array::try_zeros(device, [chunks])?;
            self.chunk_prefix = Array::try_zeros(device, [chunks])?;
            self.group_sums = Array::try_zeros(device, [groups + top + 1])?;
            self.dirty = 0;
        }
        self.inv_cell_size = 1.0 / cell_size;
        if n == 0 {
            if !self.sorted_index.is_empty() {
                self.cell_start.try_fill(0)?;
                self.cell_end.try_fill(0)?;
                self.sorted_index = Array::try_zeros(device, [0])?;
                self.sorted_points = Array::try_zeros(device, [0])?;
            }
            return Ok(());
        }
        grow(&mut self.keyed, device, n)?;
        grow(&mut self.scatter, device, n)?;
        grow(&mut self.merge, device, n)?;
        grow(&mut self.large, device, n)?;
        if self.sorted_index.len() != n {
            self.sorted_index = Array::try_zeros(device, [n])?;
            self.sorted_points = Array::try_zeros(device, [n])?;
        }
        if self.dirty != 0 {
            // An earlier build stopped half-way: its counts may be left over.
            self.counts.try_fill(0)?;
        }
        self.dirty = 1;

        let (inv, dx, dy, dz) = (self.inv_cell_size, self.dim_x, self.dim_y, self.dim_z);
        let count_at = (groups + top) as i32;
        grid_count::launch(
            n,
            points,
            inv,
            dx,
            dy,
            dz,
            groups as i32,
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
        grid_scatter::launch(n, &self.keyed, &self.cell_start, &mut self.scatter)?;
        grid_sort_blocks::launch(
            n,
            points,
            &self.scatter,
            &self.cell_start,
            &self.cell_end,
            BLOCK,
            count_at,
            &mut self.counts,
            &mut self.sorted_index,
            &mut self.sorted_points,
            &mut self.merge,
            &mut self.large,
            &mut self.group_sums,
        )?;
        // A merge pass costs a GPU little when no cell is large (its threads read one
        // count and stop), so a GPU merges up to 64 runs at once: 2 passes up to
        // 2^20 points. A CPU pays for each point's binary searches instead, and
        // almost nothing per launch: 2 runs at a time, `log2(n / BLOCK)` passes.
        let max_ways = if device.is_cpu() { 2 } else { GROUP as usize };
        let (passes, ways) = merge_plan(n, max_ways);
        // Enough threads to fill the device when a cell holds most points; each
        // takes every `stride`-th large slot, and all stop at once when there are
        // none.
        let stride = n.min(if device.is_cpu() { 4096 } else { 1 << 16 });
        let mut width = BLOCK;
        for pass in 0..passes {
            // The last pass writes only the final arrays.
            let (src, dst) = if pass % 2 == 0 {
                (&self.merge, &mut self.scatter)
            } else {
                (&self.scatter, &mut self.merge)
            };
            grid_merge::launch(
                stride,
                points,
                src,
                &self.cell_start,
                &self.cell_end,
                &self.large,
                &self.group_sums,
                count_at,
                width,
                ways as i32,
                stride as i32,
                dst,
                &mut self.sorted_index,
                &mut self.sorted_points,
            )?;
            width = width.saturating_mul(ways as i32);
        }
        self.dirty = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_sizes_cover_every_cell_count() {
        for cells in [
            1,
            2,
            15,
            16,
            17,
            1000,
            128 * 128 * 128,
            300 * 300 * 300,
            (1 << 31) - 1,
        ] {
            let (chunk, chunks, groups, top) = scan_sizes(cells);
            assert!(chunk * chunks >= cells && chunk * (chunks - 1) < cells);
            assert!(groups * 64 >= chunks && top * 64 >= groups);
            assert!(top <= 64, "{cells}: {top} groups of groups");
        }
    }

    #[test]
    fn merge_plans_cover_every_point() {
        for n in [
            1,
            256,
            257,
            16384,
            16385,
            1 << 20,
            (1 << 20) + 1,
            i32::MAX as usize,
        ] {
            for max in [2, 64] {
                let (passes, ways) = merge_plan(n, max);
                assert!(ways <= max && (ways >= 2 || passes == 0), "{n}: {ways}");
                assert!(256 * ways.pow(passes as u32) >= n, "{n}: {passes} × {ways}");
            }
        }
        assert_eq!(merge_plan(256, 64), (0, 1));
        assert_eq!(merge_plan(1 << 20, 64), (2, 64));
        assert_eq!(merge_plan(1 << 20, 2), (12, 2));
        assert_eq!(merge_plan(16 * 256, 64), (1, 16));
    }
}
