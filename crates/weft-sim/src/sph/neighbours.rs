//! [`NeighbourList`]: every grid slot's neighbours within the kernel's
//! support, found once per step on the CPU so that the density and the force
//! passes do not both walk the grid.
//!
//! On a CPU the walk dominates a step: with cells as wide as the support a
//! particle has about 290 candidates in its 27 cells for about 30–40
//! neighbours, and the density and force kernels each tested all of them. The
//! list is made by host code, a cell at a time: the runs of slots of the 27
//! cells around a cell (each row of three cells one run while it does not
//! wrap) are found once for all the cell's particles, and each particle tests
//! the candidates eight or sixteen at a time (AVX2 or AVX-512, where the CPU
//! has them) over the grid's sorted points laid out as three coordinate
//! arrays; with AVX-512 the slots that pass are written sixteen at a time
//! (compressed into one register, then stored). It visits the cells in the
//! order of the kernels' walk
//! ([`neighbour_cubes`](super::kernels::neighbour_cubes): z, then y, then x)
//! and keeps the points within the radius, so the kernels that read it find the
//! same neighbours in the same order as those that walk the grid.
//!
//! The list is by slot of the grid (`grid.sorted_index[s]` is the particle in
//! slot `s`), neighbours included: the CPU kernels read the particles' data in
//! the grid's order ([`sph_gather`](super::kernels::sph_gather)), where
//! neighbours in space are close in memory.
//!
//! On CUDA the kernels walk the grid (a thread's candidate test costs no more
//! than reading a list there, and the list would cost memory traffic).

use rayon::prelude::*;
use weft::geom::DeviceHashGrid;
use weft::prelude::*;

use crate::error::Result;

/// The neighbours of each slot of a grid (itself included), for the SPH
/// kernels: slot `s`'s are the slots `index[range[s].x .. range[s].y]`, in the
/// order of the grid walk (slot `s` holds particle `grid.sorted_index[s]`).
/// Entries past the last range are unused (the index array grows by a quarter
/// when a step needs more, so it is rarely reallocated).
#[weft::structure]
pub struct NeighbourList {
    /// Per slot: its first entry in `index` and one past its last.
    pub range: Array<UVec2>,
    /// Neighbours' slots, by slot.
    pub index: Array<u32>,
}

/// Padding after the sorted coordinates, so that sixteen lanes can be read
/// from any slot (the lanes past a run are masked off).
const PAD: usize = 16;

/// Slots of the grid per parallel task of the build.
const CHUNK: usize = 512;

/// The host scratch of [`NeighbourList`] builds, reused from step to step.
#[derive(Default)]
pub(crate) struct ListScratch {
    /// The sorted points' coordinates, then [`PAD`] NaNs.
    xs: Vec<f32>,
    ys: Vec<f32>,
    zs: Vec<f32>,
    /// Per task: how many neighbours each of its slots has.
    counts: Vec<Vec<u32>>,
    /// Entries of `index` per task: each task writes its slots' neighbours,
    /// one after the other, straight into its own region of this size.
    region: usize,
}

/// Where a task of the build writes: its region of the list's `index`, and
/// how much of it is used.
struct Out<'a> {
    buf: &'a mut [u32],
    len: usize,
}

impl NeighbourList {
    /// An empty list for a grid of `n` particles on `device`.
    pub fn new(device: Device, n: usize) -> Result<Self> {
        Ok(NeighbourList {
            range: Array::try_zeros(device, [n])?,
            index: Array::try_zeros(device, [0])?,
        })
    }

    /// A list of no particle (the solver's on CUDA, where the kernels walk
    /// the grid).
    pub fn empty(device: Device) -> Result<Self> {
        Self::new(device, 0)
    }

    /// Number of slots (particles).
    pub fn len(&self) -> usize {
        self.range.len()
    }

    /// Whether the list holds no particle.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Total number of (slot, neighbour) entries, self-pairs included.
    pub fn entries(&self) -> usize {
        self.range
            .to_vec()
            .iter()
            .map(|r| (r.y - r.x) as usize)
            .sum()
    }

    /// Fills the list from `grid` (on the CPU) with the slots of the points
    /// within `radius` of each slot's point.
    pub(crate) fn build(
        &mut self,
        grid: &DeviceHashGrid,
        radius: f32,
        scratch: &mut ListScratch,
    ) -> Result<()> {
        self.build_with(Lanes::detect(), grid, radius, scratch)
    }

    /// [`NeighbourList::build`] testing `lanes` candidates at a time.
    fn build_with(
        &mut self,
        lanes: Lanes,
        grid: &DeviceHashGrid,
        radius: f32,
        scratch: &mut ListScratch,
    ) -> Result<()> {
        let n = grid.sorted_index.len();
        debug_assert_eq!(self.len(), n);
        let tasks = n.div_ceil(CHUNK);
        // The entries of `index` per task in this build.
        let mut region;
        {
            let sorted = grid.sorted_points.as_slice();
            scratch.xs.clear();
            scratch.ys.clear();
            scratch.zs.clear();
            scratch.xs.extend(sorted.iter().map(|p| p.x));
            scratch.ys.extend(sorted.iter().map(|p| p.y));
            scratch.zs.extend(sorted.iter().map(|p| p.z));
            for v in [&mut scratch.xs, &mut scratch.ys, &mut scratch.zs] {
                v.extend([f32::NAN; PAD]);
            }
            let walk = Walk {
                dim: [grid.dim_x, grid.dim_y, grid.dim_z],
                inv_cell_size: grid.inv_cell_size,
                reach: (radius * grid.inv_cell_size - 1.0e-4).ceil().max(1.0) as i32,
                cell_start: &grid.cell_start.as_slice(),
                cell_end: &grid.cell_end.as_slice(),
                xs: &scratch.xs,
                ys: &scratch.ys,
                zs: &scratch.zs,
                r2: radius * radius,
                lanes,
            };
            scratch.counts.resize_with(tasks, Vec::new);
            // A region per task that holds a quarter more than the most a task
            // needed last time; a build that overflows one is redone with
            // regions twice as large.
            region = scratch.region.max(CHUNK * 8);
            loop {
                if self.index.len() < tasks * region {
                    self.index = Array::try_zeros(self.range.device(), [tasks * region])?;
                }
                let mut index = self.index.as_mut_slice();
                let used: Option<Vec<usize>> = index[..tasks * region]
                    .par_chunks_mut(region)
                    .zip(scratch.counts.par_iter_mut())
                    .enumerate()
                    .map(|(t, (buf, counts))| {
                        let mut out = Out { buf, len: 0 };
                        let slots = t * CHUNK..((t + 1) * CHUNK).min(n);
                        walk.slots(slots, &mut out, counts).then_some(out.len)
                    })
                    .collect();
                match used {
                    Some(used) => {
                        // The next build's regions.
                        let most = used.into_iter().max().unwrap_or(0);
                        scratch.region = region.max(most + most / 4 + 2 * PAD);
                        break;
                    }
                    None => region *= 2,
                }
            }
        }
        // Each slot's range, within its task's region.
        let mut range = self.range.as_mut_slice();
        for (t, counts) in scratch.counts[..tasks].iter().enumerate() {
            let mut at = (t * region) as u32;
            for (r, &c) in range[t * CHUNK..].iter_mut().zip(counts) {
                *r = UVec2::new(at, at + c);
                at += c;
            }
        }
        Ok(())
    }
}

/// What the build reads: the grid's arrays on the host, its sorted points by
/// coordinate, the squared radius.
struct Walk<'a> {
    dim: [i32; 3],
    inv_cell_size: f32,
    /// Cells to visit on each side of a point's cell: 1 when the radius is at
    /// most a cell (up to 10⁻⁴ of one, so that rounding in `radius / cell`
    /// does not make it 2: a point beyond the next cell is then at least the
    /// radius away, where the SPH kernel and its slope are zero).
    reach: i32,
    cell_start: &'a [u32],
    cell_end: &'a [u32],
    xs: &'a [f32],
    ys: &'a [f32],
    zs: &'a [f32],
    r2: f32,
    lanes: Lanes,
}

/// How many candidates one compare tests: the widest the CPU has.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lanes {
    One,
    /// AVX2.
    Eight,
    /// AVX-512.
    Sixteen,
}

impl Lanes {
    /// The widest this CPU supports.
    fn detect() -> Lanes {
        Lanes::supported().last().copied().unwrap_or(Lanes::One)
    }

    /// Every width this CPU supports, narrowest first.
    fn supported() -> Vec<Lanes> {
        let mut all = vec![Lanes::One];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                all.push(Lanes::Eight);
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                all.push(Lanes::Sixteen);
            }
        }
        all
    }
}

/// The hashed coordinates to visit along an axis of `dim` cells around `c`:
/// `c - reach ..= c + reach` wrapped, or every cell once when that covers the
/// axis (as the kernels' walk).
fn axis_cells(c: i32, reach: i32, dim: i32) -> impl Iterator<Item = i32> {
    let all = 2 * reach + 1 >= dim;
    let (lo, hi) = if all {
        (0, dim - 1)
    } else {
        (c - reach, c + reach)
    };
    (lo..=hi).map(move |k| k.rem_euclid(dim))
}

impl Walk<'_> {
    /// The hashed cell coordinates of `p` (the rule of the grid's build).
    fn cell(&self, p: Vec3) -> [i32; 3] {
        let f = |v: f32, d: i32| (((v * self.inv_cell_size).floor() as i32) % d + d) % d;
        [
            f(p.x, self.dim[0]),
            f(p.y, self.dim[1]),
            f(p.z, self.dim[2]),
        ]
    }

    /// The runs of slots of the cells around cell `c`, in walk order, into
    /// `runs`: a row's consecutive cells are one run.
    fn runs(&self, c: [i32; 3], runs: &mut Vec<(usize, usize)>) {
        runs.clear();
        let [dx, dy, dz] = self.dim;
        for z in axis_cells(c[2], self.reach, dz) {
            for y in axis_cells(c[1], self.reach, dy) {
                let row = ((z * dy + y) * dx) as usize;
                let mut run: Option<(usize, usize)> = None;
                for x in axis_cells(c[0], self.reach, dx) {
                    let (s, e) = (
                        self.cell_start[row + x as usize] as usize,
                        self.cell_end[row + x as usize] as usize,
                    );
                    run = match run {
                        Some((rs, re)) if re == s => Some((rs, e)),
                        Some(done) => {
                            runs.push(done);
                            Some((s, e))
                        }
                        None => Some((s, e)),
                    };
                }
                runs.extend(run.filter(|(s, e)| s < e));
            }
        }
    }

    /// Lists the neighbours of the points in `slots` into `out`, each slot's
    /// count into `counts`; false (and an incomplete list) when `out` has no
    /// room for them.
    fn slots(&self, slots: std::ops::Range<usize>, out: &mut Out, counts: &mut Vec<u32>) -> bool {
        counts.clear();
        let mut runs = Vec::with_capacity(32);
        // The candidates in `runs`.
        let mut candidates = 0;
        let mut cell = [-1; 3];
        // The slots known to be in `cell` end here: the next slots need no
        // cell computation (two integer divisions per axis) until then.
        let mut same_until = 0;
        for s in slots {
            let p = Vec3::new(self.xs[s], self.ys[s], self.zs[s]);
            if s >= same_until {
                let c = self.cell(p);
                if c != cell {
                    cell = c;
                    self.runs(c, &mut runs);
                    candidates = runs.iter().map(|(lo, hi)| hi - lo).sum::<usize>();
                }
                let k = ((c[2] * self.dim[1] + c[1]) * self.dim[0] + c[0]) as usize;
                let (start, end) = (self.cell_start[k] as usize, self.cell_end[k] as usize);
                same_until = if (start..end).contains(&s) {
                    end
                } else {
                    s + 1
                };
            }
            // Room for every candidate, and for a full store of sixteen lanes.
            if out.len + candidates + PAD > out.buf.len() {
                return false;
            }
            let before = out.len;
            scan(self, &runs, p, out);
            counts.push((out.len - before) as u32);
        }
        true
    }
}

/// Appends the slots of `runs` whose points are within the radius of `p` to
/// `out`, in order. `out` must have room for all of `runs`' slots plus
/// [`PAD`].
fn scan(w: &Walk, runs: &[(usize, usize)], p: Vec3, out: &mut Out) {
    match w.lanes {
        // SAFETY: `Lanes::Sixteen` and `Eight` are only chosen where the CPU has
        // AVX-512F and AVX2 (`Lanes::supported`).
        #[cfg(target_arch = "x86_64")]
        Lanes::Sixteen => unsafe { scan_avx512(w, runs, p, out) },
        #[cfg(target_arch = "x86_64")]
        Lanes::Eight => unsafe { scan_avx2(w, runs, p, out) },
        _ => {
            for &(lo, hi) in runs {
                for k in lo..hi {
                    let (dx, dy, dz) = (w.xs[k] - p.x, w.ys[k] - p.y, w.zs[k] - p.z);
                    if dx * dx + dy * dy + dz * dz <= w.r2 {
                        out.buf[out.len] = k as u32;
                        out.len += 1;
                    }
                }
            }
        }
    }
}

/// [`scan`] with AVX-512: sixteen slots per compare, otherwise as
/// [`scan_avx2`]; the slots that pass are packed into one register
/// (`vpcompressd`) and stored sixteen lanes at a time at the end of `out`,
/// which then grows by their count.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn scan_avx512(w: &Walk, runs: &[(usize, usize)], p: Vec3, out: &mut Out) {
    use std::arch::x86_64::*;
    let (px, py, pz) = (
        _mm512_set1_ps(p.x),
        _mm512_set1_ps(p.y),
        _mm512_set1_ps(p.z),
    );
    let r2 = _mm512_set1_ps(w.r2);
    let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let room: usize = runs.iter().map(|(lo, hi)| hi - lo).sum::<usize>() + PAD;
    assert!(out.len + room <= out.buf.len());
    for &(lo, hi) in runs {
        assert!(hi + PAD <= w.xs.len() && hi <= i32::MAX as usize);
        let mut base = lo;
        while base < hi {
            // SAFETY: `base < hi` and `hi + PAD <= len` with `PAD = 16`
            // (asserted above), so the sixteen lanes are in bounds; unaligned
            // loads accept any address.
            let (x, y, z) = unsafe {
                (
                    _mm512_loadu_ps(w.xs.as_ptr().add(base)),
                    _mm512_loadu_ps(w.ys.as_ptr().add(base)),
                    _mm512_loadu_ps(w.zs.as_ptr().add(base)),
                )
            };
            let (dx, dy, dz) = (
                _mm512_sub_ps(x, px),
                _mm512_sub_ps(y, py),
                _mm512_sub_ps(z, pz),
            );
            let d2 = _mm512_add_ps(
                _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
                _mm512_mul_ps(dz, dz),
            );
            let mut mask = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(d2, r2);
            if hi - base < 16 {
                mask &= ((1u32 << (hi - base)) - 1) as u16;
            }
            let slots = _mm512_add_epi32(_mm512_set1_epi32(base as i32), iota);
            // SAFETY: `out.len` has grown by at most one per candidate before
            // this one, so `out.len + 16` is within the room asserted above;
            // unaligned stores accept any address.
            unsafe {
                _mm512_storeu_si512(
                    out.buf.as_mut_ptr().add(out.len).cast(),
                    _mm512_maskz_compress_epi32(mask, slots),
                );
            }
            out.len += mask.count_ones() as usize;
            base += 16;
        }
    }
}

/// [`scan`] with AVX2: eight slots per compare with the same arithmetic
/// (`(dx² + dy²) + dz²` as the kernels' `length_sq`, no fused multiply-adds),
/// so the same points pass; a run's last partial eight read the padding past
/// it and mask those lanes off.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn scan_avx2(w: &Walk, runs: &[(usize, usize)], p: Vec3, out: &mut Out) {
    use std::arch::x86_64::*;
    let (px, py, pz) = (
        _mm256_set1_ps(p.x),
        _mm256_set1_ps(p.y),
        _mm256_set1_ps(p.z),
    );
    let r2 = _mm256_set1_ps(w.r2);
    for &(lo, hi) in runs {
        assert!(hi + PAD <= w.xs.len());
        let mut base = lo;
        while base < hi {
            // SAFETY: `base < hi` and `hi + PAD <= len` (asserted above) for
            // the three coordinate arrays, so the eight lanes are in bounds;
            // unaligned loads accept any address.
            let (x, y, z) = unsafe {
                (
                    _mm256_loadu_ps(w.xs.as_ptr().add(base)),
                    _mm256_loadu_ps(w.ys.as_ptr().add(base)),
                    _mm256_loadu_ps(w.zs.as_ptr().add(base)),
                )
            };
            let (dx, dy, dz) = (
                _mm256_sub_ps(x, px),
                _mm256_sub_ps(y, py),
                _mm256_sub_ps(z, pz),
            );
            let d2 = _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
                _mm256_mul_ps(dz, dz),
            );
            let mut mask = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(d2, r2)) as u32;
            if hi - base < 8 {
                mask &= (1 << (hi - base)) - 1;
            }
            while mask != 0 {
                out.buf[out.len] = (base + mask.trailing_zeros() as usize) as u32;
                out.len += 1;
                mask &= mask - 1;
            }
            base += 8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift32) of floats in `0..1`.
    fn uniform(state: &mut u32) -> f32 {
        *state ^= *state << 13;
        *state ^= *state >> 17;
        *state ^= *state << 5;
        (*state >> 8) as f32 / (1u32 << 24) as f32
    }

    /// Lists random points with `dim` hashed cells and checks every list
    /// against brute force: the same set (itself included), each once.
    fn check(dim: [u32; 3], extent: f32, cell: f32, radius: f32, n: usize, seed: u32) {
        let mut s = seed;
        let pts: Vec<Vec3> = (0..n)
            .map(|_| {
                Vec3::new(uniform(&mut s), uniform(&mut s), uniform(&mut s)) * extent
                    - Vec3::splat(0.25 * extent)
            })
            .collect();
        let x = Array::from_slice(Device::Cpu, &pts);
        let mut grid = DeviceHashGrid::with_dim(Device::Cpu, dim).unwrap();
        grid.build(&x, cell).unwrap();
        let mut list = NeighbourList::new(Device::Cpu, n).unwrap();
        let mut lists = Vec::new();
        for lanes in Lanes::supported() {
            // A new scratch each time: its first build outgrows the initial
            // regions when the cells are dense (and redoes the build).
            let mut scratch = ListScratch::default();
            list.build_with(lanes, &grid, radius, &mut scratch).unwrap();
            let (range, index) = (list.range.to_vec(), list.index.to_vec());
            let by_slot: Vec<Vec<u32>> = range
                .iter()
                .map(|r| index[r.x as usize..r.y as usize].to_vec())
                .collect();
            lists.push(by_slot);
        }
        // Every width lists the same neighbours in the same order.
        for other in &lists[1..] {
            assert_eq!(other, &lists[0]);
        }
        let range = list.range.to_vec();
        let index = list.index.to_vec();
        let sorted_index = grid.sorted_index.to_vec();
        let mut pairs = 0;
        for (slot, &i) in sorted_index.iter().enumerate() {
            let p = &pts[i as usize];
            let r = range[slot];
            // Slots to particles.
            let mut got: Vec<u32> = index[r.x as usize..r.y as usize]
                .iter()
                .map(|&k| sorted_index[k as usize])
                .collect();
            got.sort_unstable();
            let want: Vec<u32> = (0..n as u32)
                .filter(|&j| (pts[j as usize] - *p).length_squared() <= radius * radius)
                .collect();
            assert_eq!(got, want, "point {i} of {n}, dim {dim:?}");
            pairs += want.len();
        }
        assert_eq!(pairs, list.entries());
    }

    #[test]
    fn lists_match_brute_force() {
        // Cells as wide as the radius in a grid that covers the points.
        check([16, 16, 16], 1.0, 0.1, 0.1, 2000, 7);
        // A radius of two cells (five cells per axis are walked).
        check([16, 16, 16], 1.0, 0.05, 0.1, 1500, 11);
        // A radius smaller than the cells.
        check([16, 16, 16], 1.0, 0.1, 0.06, 2000, 8);
        // Few hashed cells: the walk wraps, and on the two-cell axis covers it.
        check([3, 2, 5], 1.0, 0.1, 0.1, 1500, 9);
        // Dense cells (runs longer than eight slots) and one cell per axis.
        check([1, 1, 1], 0.3, 0.2, 0.2, 600, 10);
    }

    #[test]
    fn lists_follow_the_grid_walk_order() {
        // The kernels that walk the grid visit candidates in the order of the
        // walk: a list is in that order, so the sums over it are the same.
        let mut s = 3;
        let pts: Vec<Vec3> = (0..800)
            .map(|_| Vec3::new(uniform(&mut s), uniform(&mut s), uniform(&mut s)))
            .collect();
        let x = Array::from_slice(Device::Cpu, &pts);
        let mut grid = DeviceHashGrid::with_dim(Device::Cpu, [10, 10, 10]).unwrap();
        grid.build(&x, 0.1).unwrap();
        let mut list = NeighbourList::new(Device::Cpu, pts.len()).unwrap();
        list.build(&grid, 0.1, &mut ListScratch::default()).unwrap();
        let (range, index) = (list.range.to_vec(), list.index.to_vec());
        let sorted_points = grid.sorted_points.to_vec();
        let mut checked = 0;
        for (s, p) in sorted_points.iter().enumerate() {
            // Inside, where no cube of the walk wraps.
            if p.cmplt(Vec3::splat(0.11)).any() || p.cmpgt(Vec3::splat(0.89)).any() {
                continue;
            }
            checked += 1;
            // Cubes by z, y, x are in increasing hashed cell order, and so are
            // their slots.
            let slots = &index[range[s].x as usize..range[s].y as usize];
            assert!(slots.windows(2).all(|w| w[0] < w[1]), "slot {s}: {slots:?}");
        }
        assert!(checked > 200, "{checked}");
    }

    #[test]
    fn an_empty_set_lists_nothing() {
        let x = Array::<Vec3>::from_slice(Device::Cpu, &[]);
        let mut grid = DeviceHashGrid::with_dim(Device::Cpu, [4, 4, 4]).unwrap();
        grid.build(&x, 0.1).unwrap();
        let mut list = NeighbourList::new(Device::Cpu, 0).unwrap();
        list.build(&grid, 0.1, &mut ListScratch::default()).unwrap();
        assert!(list.is_empty());
        assert_eq!(list.entries(), 0);
    }
}
