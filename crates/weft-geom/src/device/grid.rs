//! Fixed-radius neighbours from a hashed uniform grid, inside kernels.

use super::prelude::*;

/// A [`weft_geom::HashGrid`](crate::HashGrid) in one device's memory (same layout: see that type's
/// docs), for [`hash_grid_query`]: copied from a host-built grid
/// ([`DeviceHashGrid::new`]) or built on the device from an array of points
/// ([`DeviceHashGrid::with_dim`], then [`DeviceHashGrid::build`] every step).
#[structure(crate = ::weft_runtime)]
pub struct DeviceHashGrid {
    /// Hashed cells along x.
    pub dim_x: i32,
    /// Hashed cells along y.
    pub dim_y: i32,
    /// Hashed cells along z.
    pub dim_z: i32,
    /// 1 / cell size.
    pub inv_cell_size: f32,
    /// First slot of each hashed cell in `sorted_index`.
    pub cell_start: Array<u32>,
    /// One past the last slot of each hashed cell.
    pub cell_end: Array<u32>,
    /// Point indices sorted by cell.
    pub sorted_index: Array<u32>,
    /// The points in that order.
    pub sorted_points: Array<Vec3>,
    // Scratch of the device build (`grid_build.rs`), allocated by `with_dim` and
    // grown by `build`; empty in a grid copied from the host until it is rebuilt.
    /// Points per hashed cell while building; all zero between builds.
    pub(crate) counts: Array<u32>,
    /// Points per chunk of cells, then each chunk's first slot.
    pub(crate) chunk_sums: Array<u32>,
    /// Exclusive prefix of `chunk_sums` within each group of chunks.
    pub(crate) chunk_prefix: Array<u32>,
    /// Group sums, then sums of groups of groups, then the count of `large`.
    pub(crate) group_sums: Array<u32>,
    /// Per point: its cell and arrival rank in the cell (capacity ≥ points).
    pub(crate) keyed: Array<UVec2>,
    /// Per slot: point and cell, in arrival order within a cell.
    pub(crate) scatter: Array<UVec2>,
    /// Per slot: point and cell, large cells sorted by blocks (merge buffer).
    pub(crate) merge: Array<UVec2>,
    /// Slots of the cells too large for a one-block sort.
    pub(crate) large: Array<u32>,
    /// 1 while a build is in flight: a build that finds it set re-zeroes the scratch.
    pub(crate) dirty: i32,
}

impl DeviceHashGrid {
    /// Copies a host-built grid to `device`. It can be rebuilt on the device with
    /// [`DeviceHashGrid::build`] afterwards (the first such build allocates the
    /// scratch that [`DeviceHashGrid::with_dim`] allocates up front).
    pub fn new(device: Device, grid: &crate::HashGrid) -> Result<Self, Error> {
        let [dx, dy, dz] = grid.dim();
        Ok(DeviceHashGrid {
            dim_x: dx as i32,
            dim_y: dy as i32,
            dim_z: dz as i32,
            inv_cell_size: 1.0 / grid.cell_size(),
            cell_start: Array::try_from_slice(device, grid.cell_start())?,
            cell_end: Array::try_from_slice(device, grid.cell_end())?,
            sorted_index: Array::try_from_slice(device, grid.sorted_index())?,
            sorted_points: Array::try_from_slice(device, grid.sorted_points())?,
            counts: Array::try_zeros(device, [0])?,
            chunk_sums: Array::try_zeros(device, [0])?,
            chunk_prefix: Array::try_zeros(device, [0])?,
            group_sums: Array::try_zeros(device, [0])?,
            keyed: Array::try_zeros(device, [0])?,
            scatter: Array::try_zeros(device, [0])?,
            merge: Array::try_zeros(device, [0])?,
            large: Array::try_zeros(device, [0])?,
            dirty: 0,
        })
    }
}

/// Where a neighbour query stands: `index` is the current neighbour (a point
/// index), -1 once there are no more. Start with [`hash_grid_query`], advance with
/// [`hash_grid_query_next`] (passing the same point and radius):
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
/// let pts: Vec<Vec3> = (0..100).map(|i| Vec3::new(i as f32 * 0.01, 0.0, 0.0)).collect();
/// let host = weft_geom::HashGrid::with_points(&pts, 0.05, [16, 16, 16]).unwrap();
/// let grid = DeviceHashGrid::new(Device::Cpu, &host).unwrap();
/// let x = Array::from_slice(Device::Cpu, &pts);
/// let mut n = Array::zeros(Device::Cpu, [100]);
/// neighbours::launch(100, &grid, &x, 0.025, &mut n).unwrap();
/// assert_eq!(n.to_vec()[50], 5); // itself and two on each side
/// ```
#[structure(crate = ::weft_runtime)]
pub struct HashGridQuery {
    /// The current neighbour, or -1 when the query is done.
    pub index: i32,
    /// Which cube of the query's range is being read (-1 before the first).
    pub cube: i32,
    /// The next slot of that cube's cell.
    pub slot: i32,
    /// The end of that cell's slots.
    pub end: i32,
    /// The first cube of the query's range along each axis, wrapped into the
    /// grid (set by [`hash_grid_query`], so `next` need not find it again).
    pub first: IVec3,
    /// How many cubes the range spans along each axis (zero: an empty query).
    pub count: IVec3,
}

/// Integer cube coordinate of `x` along one axis: `floor(x * inv)`, saturating.
#[func(crate = ::weft_runtime)]
fn cube_coord(x: f32, inv: f32) -> i64 {
    floor(x * inv) as i32 as i64
}

/// The first cube and the number of cubes along one axis that a query covering
/// `lo..hi` visits: at most `dim` (a wider range wraps onto every hashed cell).
#[func(crate = ::weft_runtime)]
fn axis_range(lo: f32, hi: f32, inv: f32, dim: i32) -> (i64, i64) {
    let a = cube_coord(lo, inv);
    let n = cube_coord(hi, inv) - a + 1;
    let d = dim as i64;
    let mut out = (a, n);
    if n >= d {
        out = (0i64, d);
    }
    out
}

/// `x mod d` in `0..d`.
#[func(crate = ::weft_runtime)]
fn wrap(x: i64, d: i32) -> i64 {
    let dd = d as i64;
    ((x % dd) + dd) % dd
}

/// The first neighbour of `p` within `radius` (inclusive) in `grid`, `index` -1 if
/// there is none. Visits exactly the cubes overlapping the ball's box, each hashed
/// cell at most once, so every point within the radius comes once, whatever the
/// radius (the same rule as `weft_geom::HashGrid::query`).
#[func(crate = ::weft_runtime)]
pub fn hash_grid_query(grid: &DeviceHashGrid, p: Vec3, radius: f32) -> HashGridQuery {
    let mut first = IVec3::new(0, 0, 0);
    let mut count = IVec3::new(0, 0, 0);
    let valid = radius >= 0.0
        && abs(p.x) < f32::INFINITY
        && abs(p.y) < f32::INFINITY
        && abs(p.z) < f32::INFINITY
        && grid.sorted_index.len() > 0;
    if valid {
        // Padded by a few ulps, like the host query, so rounding in the distance
        // test cannot accept a point whose cube is outside the range.
        let pad = (abs(p) + Vec3::splat(radius)) * 1.0e-6;
        let inv = grid.inv_cell_size;
        let lo = p - Vec3::splat(radius) - pad;
        let hi = p + Vec3::splat(radius) + pad;
        let (ax, nx) = axis_range(lo.x, hi.x, inv, grid.dim_x);
        let (ay, ny) = axis_range(lo.y, hi.y, inv, grid.dim_y);
        let (az, nz) = axis_range(lo.z, hi.z, inv, grid.dim_z);
        first = IVec3::new(
            wrap(ax, grid.dim_x) as i32,
            wrap(ay, grid.dim_y) as i32,
            wrap(az, grid.dim_z) as i32,
        );
        count = IVec3::new(nx as i32, ny as i32, nz as i32);
    }
    let start = HashGridQuery {
        index: -1,
        cube: -1,
        slot: 0,
        end: 0,
        first,
        count,
    };
    hash_grid_query_next(grid, start, p, radius)
}

/// The query's next neighbour (`index` -1 when there is none); pass the same point
/// and radius.
#[func(crate = ::weft_runtime)]
pub fn hash_grid_query_next(
    grid: &DeviceHashGrid,
    q: HashGridQuery,
    p: Vec3,
    radius: f32,
) -> HashGridQuery {
    let mut cube = q.cube;
    let mut slot = q.slot;
    let mut end = q.end;
    let mut index = -1;
    let nx = q.count.x;
    let ny = q.count.y;
    // At most the grid's cells, so an i32 holds it.
    let total = nx * ny * q.count.z;
    let r2 = radius * radius;
    loop {
        if slot < end {
            let j = slot;
            slot += 1;
            if length_sq(grid.sorted_points[j] - p) <= r2 {
                index = grid.sorted_index[j] as i32;
                break;
            }
        } else {
            cube += 1;
            if cube >= total {
                break;
            }
            let rest = cube / nx;
            let cx = wrap_once(q.first.x + (cube - rest * nx), grid.dim_x);
            let cz = rest / ny;
            let cy = wrap_once(q.first.y + (rest - cz * ny), grid.dim_y);
            let cz = wrap_once(q.first.z + cz, grid.dim_z);
            let h = (cz * grid.dim_y + cy) * grid.dim_x + cx;
            slot = grid.cell_start[h] as i32;
            end = grid.cell_end[h] as i32;
        }
    }
    HashGridQuery {
        index,
        cube,
        slot,
        end,
        first: q.first,
        count: q.count,
    }
}

/// `x` in `0..d` for `x` in `0..2d`.
#[func(crate = ::weft_runtime)]
fn wrap_once(x: i32, d: i32) -> i32 {
    let mut y = x;
    if y >= d {
        y -= d;
    }
    y
}
