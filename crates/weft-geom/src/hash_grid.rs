//! Hashed uniform grid for fixed-radius neighbour queries over points.
//!
//! # Layout (what the kernel builtin `hash_grid_query` iterates)
//!
//! A grid has dimensions `dim = [dx, dy, dz]` and a cell size `h`. Space is cut into
//! cubes of side `h`; the cube of a point `p` has integer coordinates
//! `c = floor(p * (1 / h))` (component-wise, converted with Rust's saturating `as i32`),
//! and is stored in the hashed cell
//!
//! ```text
//! hash(c) = (c.z mod dz) * dx * dy + (c.y mod dy) * dx + (c.x mod dx)     (mod = rem_euclid)
//! ```
//!
//! so unbounded space wraps onto `dx * dy * dz` cells. Arrays:
//!
//! * `sorted_index: [u32; n]` — point indices sorted by hashed cell, and by index within
//!   a cell (deterministic);
//! * `cell_start, cell_end: [u32; dx*dy*dz]` — the points of hashed cell `k` are
//!   `sorted_index[cell_start[k] .. cell_end[k]]` (empty: `start == end`);
//! * `sorted_points: [Vec3; n]` — `points[sorted_index[i]]`, for coherent reads.
//!
//! A query with radius `r ≤ h` visits the 27 cubes `c + {-1, 0, 1}³` around `p`'s cube
//! and keeps points with `|q - p|² ≤ r²`; cells visited twice (dimensions below 3)
//! must be skipped. The host [`HashGrid::query`] visits exactly the cubes overlapping
//! the query ball's box (any radius), each hashed cell at most once, so it returns
//! every point within `r` exactly once.
//!
//! # Build
//!
//! A counting sort, parallel with rayon: hashed cell per point, atomic per-cell counts,
//! exclusive prefix sum into `cell_start`, atomic scatter (the counters live in
//! `cell_end`, which ends up holding the ends), then a sort inside each cell so the
//! order does not depend on thread timing.

use std::sync::atomic::{AtomicU32, Ordering};

use glam::Vec3;
use rayon::prelude::*;

use crate::error::{GeomError, Result};

/// A hashed uniform grid over a set of points (see the [module docs](self) for the
/// layout).
///
/// ```
/// use glam::Vec3;
/// use weft_geom::HashGrid;
///
/// let points: Vec<Vec3> = (0..1000).map(|i| Vec3::new(i as f32 * 0.01, 0.0, 0.0)).collect();
/// let grid = HashGrid::with_points(&points, 0.05, [64, 64, 64])?;
/// let mut near: Vec<u32> = grid.query(Vec3::new(5.0, 0.0, 0.0), 0.025).collect();
/// near.sort();
/// assert_eq!(near, vec![498, 499, 500, 501, 502]);
/// # Ok::<(), weft_geom::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct HashGrid {
    dim: [u32; 3],
    cell_size: f32,
    inv_cell_size: f32,
    cell_start: Vec<u32>,
    cell_end: Vec<u32>,
    sorted_index: Vec<u32>,
    sorted_points: Vec<Vec3>,
    keys: Vec<u32>,
}

const _: () = assert!(std::mem::align_of::<u32>() == std::mem::align_of::<AtomicU32>());

/// Views a `u32` slice as atomics for the parallel counting phases.
fn as_atomic(s: &mut [u32]) -> &[AtomicU32] {
    // SAFETY: `AtomicU32` has the same size, bit validity and (asserted above)
    // alignment as `u32`, and the unique borrow guarantees no non-atomic access while
    // the returned view lives.
    unsafe { &*(s as *mut [u32] as *const [AtomicU32]) }
}

impl HashGrid {
    /// An empty grid with `dim` hashed cells per axis (each ≥ 1, product < 2³¹), e.g.
    /// `[128, 128, 128]`. Cell arrays are allocated once here and reused by every
    /// [`HashGrid::build`].
    pub fn new(dim: [u32; 3]) -> Result<Self> {
        let cells = dim.iter().map(|&d| d as u64).product::<u64>();
        if dim.contains(&0) || cells >= 1 << 31 {
            return Err(GeomError::InvalidParameter {
                name: "dim",
                message: format!(
                    "each dimension must be ≥ 1 and their product < 2^31, got {dim:?}"
                ),
            });
        }
        Ok(Self {
            dim,
            cell_size: 1.0,
            inv_cell_size: 1.0,
            cell_start: vec![0; cells as usize],
            cell_end: vec![0; cells as usize],
            sorted_index: Vec::new(),
            sorted_points: Vec::new(),
            keys: Vec::new(),
        })
    }

    /// [`HashGrid::new`] then [`HashGrid::build`].
    pub fn with_points(points: &[Vec3], cell_size: f32, dim: [u32; 3]) -> Result<Self> {
        let mut grid = Self::new(dim)?;
        grid.build(points, cell_size)?;
        Ok(grid)
    }

    /// Sorts `points` into the grid with cubes of side `cell_size` (finite, > 0;
    /// usually the query radius). Replaces the previous contents, reusing memory.
    pub fn build(&mut self, points: &[Vec3], cell_size: f32) -> Result<()> {
        if !(cell_size > 0.0 && cell_size.is_finite()) {
            return Err(GeomError::InvalidParameter {
                name: "cell_size",
                message: format!("must be finite and > 0, got {cell_size}"),
            });
        }
        if points.len() > u32::MAX as usize {
            return Err(GeomError::TooLarge {
                what: "points",
                count: points.len(),
                max: u32::MAX as usize,
            });
        }
        self.cell_size = cell_size;
        self.inv_cell_size = 1.0 / cell_size;
        const MIN: usize = 4096;

        let mut keys = std::mem::take(&mut self.keys);
        points
            .par_iter()
            .with_min_len(MIN)
            .map(|&p| self.cell_index(p))
            .collect_into_vec(&mut keys);

        // Count per cell, in `cell_end`.
        self.cell_end
            .par_iter_mut()
            .with_min_len(MIN)
            .for_each(|c| *c = 0);
        let counts = as_atomic(&mut self.cell_end);
        keys.par_iter().with_min_len(MIN).for_each(|&k| {
            counts[k as usize].fetch_add(1, Ordering::Relaxed);
        });

        // Exclusive prefix sum; `cell_end` becomes the scatter cursor.
        let mut running = 0u32;
        for (start, end) in self.cell_start.iter_mut().zip(self.cell_end.iter_mut()) {
            *start = running;
            running += *end;
            *end = *start;
        }

        // Scatter; each cursor ends at its cell's end.
        self.sorted_index.resize(points.len(), 0);
        let cursor = as_atomic(&mut self.cell_end);
        let slots = as_atomic(&mut self.sorted_index);
        keys.par_iter()
            .enumerate()
            .with_min_len(MIN)
            .for_each(|(i, &k)| {
                let at = cursor[k as usize].fetch_add(1, Ordering::Relaxed);
                slots[at as usize].store(i as u32, Ordering::Relaxed);
            });

        // Deterministic order within each cell.
        self.sorted_index
            .par_chunk_by_mut(|&a, &b| keys[a as usize] == keys[b as usize])
            .for_each(|cell| cell.sort_unstable());

        self.sorted_index
            .par_iter()
            .with_min_len(MIN)
            .map(|&i| points[i as usize])
            .collect_into_vec(&mut self.sorted_points);
        self.keys = keys;
        Ok(())
    }

    /// Integer coordinates of the cube holding `p`: `floor(p * (1 / cell_size))`.
    #[inline]
    pub fn cell_coords(&self, p: Vec3) -> [i32; 3] {
        (p * self.inv_cell_size)
            .floor()
            .to_array()
            .map(|x| x as i32)
    }

    /// Hashed cell of integer cube coordinates (see the module docs).
    #[inline]
    pub fn hash_cell(&self, c: [i32; 3]) -> u32 {
        let [dx, dy, dz] = self.dim.map(|d| d as i64);
        let x = (c[0] as i64).rem_euclid(dx);
        let y = (c[1] as i64).rem_euclid(dy);
        let z = (c[2] as i64).rem_euclid(dz);
        ((z * dy + y) * dx + x) as u32
    }

    /// Hashed cell holding `p`.
    #[inline]
    pub fn cell_index(&self, p: Vec3) -> u32 {
        self.hash_cell(self.cell_coords(p))
    }

    /// Indices of all points within `radius` of `p` (`|q - p|² ≤ radius²`), each once,
    /// grouped by cell. Empty for a negative or NaN radius or non-finite `p`.
    pub fn query(&self, p: Vec3, radius: f32) -> HashGridQuery<'_> {
        let mut q = HashGridQuery {
            grid: self,
            p,
            r2: radius * radius,
            start: [0; 3],
            count: [0; 3],
            row: [0; 2],
            cur: 0..0,
            wrapped: 0..0,
            done: radius.is_nan() || radius < 0.0 || !p.is_finite() || self.sorted_index.is_empty(),
        };
        if q.done {
            return q;
        }
        // Pad by a few ulps so rounding in the distance test cannot accept a point
        // whose cube is outside the range.
        let pad = (p.abs() + Vec3::splat(radius)) * 1e-6;
        let lo = self.cell_coords(p - radius - pad);
        let hi = self.cell_coords(p + radius + pad);
        for a in 0..3 {
            let dim = self.dim[a] as i64;
            let n = hi[a] as i64 - lo[a] as i64 + 1;
            // Wrapped once here; the iterator then steps without dividing.
            (q.start[a], q.count[a]) = if n >= dim {
                (0, dim as u32)
            } else {
                ((lo[a] as i64).rem_euclid(dim) as u32, n as u32)
            };
        }
        q
    }

    /// Grid dimensions (hashed cells per axis).
    pub fn dim(&self) -> [u32; 3] {
        self.dim
    }

    /// Side of a cube.
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// Number of points in the grid.
    pub fn num_points(&self) -> usize {
        self.sorted_index.len()
    }

    /// First slot in `sorted_index` of each hashed cell.
    pub fn cell_start(&self) -> &[u32] {
        &self.cell_start
    }

    /// One past the last slot in `sorted_index` of each hashed cell.
    pub fn cell_end(&self) -> &[u32] {
        &self.cell_end
    }

    /// Point indices sorted by hashed cell, then index.
    pub fn sorted_index(&self) -> &[u32] {
        &self.sorted_index
    }

    /// The points in `sorted_index` order.
    pub fn sorted_points(&self) -> &[Vec3] {
        &self.sorted_points
    }
}

/// Iterator over the points near a query point. From [`HashGrid::query`].
///
/// It visits the hashed cells of the query box row by row (x fastest, then y, then
/// z). The cells of one x-run are consecutive in the cell arrays, so their points are
/// one contiguous run of `sorted_index` (two when the run wraps around `dim[0]`).
#[derive(Clone, Debug)]
pub struct HashGridQuery<'a> {
    grid: &'a HashGrid,
    p: Vec3,
    r2: f32,
    /// First cube per axis, wrapped into `0 .. dim`.
    start: [u32; 3],
    /// Cubes per axis (≤ dim, so no hashed cell is visited twice).
    count: [u32; 3],
    /// Next row: steps along y and z.
    row: [u32; 2],
    cur: std::ops::Range<usize>,
    /// The part of the current x-run after it wrapped to x = 0.
    wrapped: std::ops::Range<usize>,
    done: bool,
}

impl Iterator for HashGridQuery<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let g = self.grid;
        loop {
            for k in self.cur.by_ref() {
                if (g.sorted_points[k] - self.p).length_squared() <= self.r2 {
                    return Some(g.sorted_index[k]);
                }
            }
            if !self.wrapped.is_empty() {
                self.cur = std::mem::replace(&mut self.wrapped, 0..0);
                continue;
            }
            if self.done {
                return None;
            }
            let [dx, dy, dz] = g.dim;
            let wrap = |c: u32, dim: u32| if c >= dim { c - dim } else { c };
            let y = wrap(self.start[1] + self.row[0], dy);
            let z = wrap(self.start[2] + self.row[1], dz);
            let row = ((z * dy + y) * dx) as usize;
            let (x0, n) = (self.start[0] as usize, self.count[0] as usize);
            let first = n.min(dx as usize - x0);
            let run = |a: usize, len: usize| {
                g.cell_start[row + a] as usize..g.cell_end[row + a + len - 1] as usize
            };
            self.cur = run(x0, first);
            if n > first {
                self.wrapped = run(0, n - first);
            }
            self.row[0] += 1;
            if self.row[0] == self.count[1] {
                self.row[0] = 0;
                self.row[1] += 1;
                self.done = self.row[1] == self.count[2];
            }
        }
    }
}
