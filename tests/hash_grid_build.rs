//! The hash grid built on the device with kernels (`DeviceHashGrid::build`) against
//! the host build (`weft_geom::HashGrid`), array for array, and queries after a
//! device build against brute force; on the CPU and, when present, a GPU.

use weft::geom::grid_build::{
    grid_cells, grid_chunk_base, grid_chunk_prefix, grid_chunk_sums, grid_count, grid_merge,
    grid_scatter, grid_sort_blocks,
};
use weft::geom::{DeviceHashGrid, hash_grid_query, hash_grid_query_next};
use weft::prelude::*;
use weft_geom::HashGrid;
use weft_testkit::devices::devices;
use weft_testkit::random_f32s;

/// `n` points uniform in `[lo, hi)³`.
fn cloud(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<Vec3> {
    random_f32s(3 * n, seed, lo, hi)
        .chunks(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect()
}

/// Asserts that the device grid holds exactly the host grid's arrays (points
/// compared bit for bit, so NaNs match).
fn assert_same_as_host(what: &str, grid: &DeviceHashGrid, host: &HashGrid) {
    assert_eq!(grid.dim(), host.dim(), "{what}: dims");
    assert_eq!(grid.num_points(), host.num_points(), "{what}: points");
    assert_eq!(
        grid.inv_cell_size,
        1.0 / host.cell_size(),
        "{what}: cell size"
    );
    assert!(
        grid.cell_start.to_vec() == host.cell_start(),
        "{what}: cell_start differs"
    );
    assert!(
        grid.cell_end.to_vec() == host.cell_end(),
        "{what}: cell_end differs"
    );
    let got = grid.sorted_index.to_vec();
    if got != host.sorted_index() {
        let k = (0..got.len())
            .find(|&k| got[k] != host.sorted_index()[k])
            .unwrap();
        panic!(
            "{what}: sorted_index differs first at slot {k}: device {}, host {}",
            got[k],
            host.sorted_index()[k]
        );
    }
    let bits = |p: &[Vec3]| -> Vec<[u32; 3]> {
        p.iter().map(|v| v.to_array().map(f32::to_bits)).collect()
    };
    assert!(
        bits(&grid.sorted_points.to_vec()) == bits(host.sorted_points()),
        "{what}: sorted_points differ"
    );
}

/// Builds on every device and compares with the host build.
fn check(what: &str, pts: &[Vec3], cell: f32, dim: [u32; 3]) {
    let host = HashGrid::with_points(pts, cell, dim).unwrap();
    for d in devices() {
        let x = Array::from_slice(d, pts);
        let mut grid = DeviceHashGrid::with_dim(d, dim).unwrap();
        grid.build(&x, cell).unwrap();
        assert_same_as_host(&format!("{what} on {d}"), &grid, &host);
    }
}

#[test]
fn device_build_equals_host_build() {
    check("no points", &[], 0.1, [8, 8, 8]);
    check("one point", &[Vec3::new(0.3, -0.2, 0.9)], 0.1, [8, 8, 8]);
    check(
        "1000 in a cube",
        &cloud(1000, 1, -1.0, 1.0),
        0.1,
        [16, 16, 16],
    );
    // Coordinates up to ±50 cells of 0.3 over 7 × 5 × 3 hashed cells: wrapping.
    check(
        "far and wrapped",
        &cloud(5000, 2, -50.0, 50.0),
        0.3,
        [7, 5, 3],
    );
    check(
        "one hashed cell",
        &cloud(600, 3, -1.0, 1.0),
        0.25,
        [1, 1, 1],
    );
    // 128³ hashed cells: every level of the scan over cells.
    check(
        "128³ cells",
        &cloud(50_000, 4, 0.0, 1.0),
        0.02,
        [128, 128, 128],
    );
    // 256 × 256 × 128 = 8M hashed cells: chunks longer than the minimum.
    check(
        "8M cells",
        &cloud(20_000, 11, -1.0, 1.0),
        0.01,
        [256, 256, 128],
    );
    // Huge coordinates saturate the cube coordinates, as on the host.
    check("huge", &cloud(300, 5, -3.0e9, 3.0e9), 1.0e-3, [16, 16, 16]);
}

#[test]
fn many_points_in_one_cell_keep_their_index_order() {
    // 3000 points in one cell of a sparse cloud (one merge pass) ...
    let mut pts = cloud(2000, 6, -4.0, 4.0);
    pts.extend(cloud(3000, 7, 0.5, 0.51));
    pts.rotate_left(1234);
    check("3000 in one cell", &pts, 0.5, [8, 8, 8]);
    // ... duplicates, and 70,000 in one cell (two merge passes).
    let mut dup = vec![Vec3::new(0.1, 0.2, 0.3); 500];
    dup.extend(cloud(500, 8, 0.0, 0.3));
    check("duplicates", &dup, 0.3, [4, 4, 4]);
    check(
        "70,000 in one cell",
        &cloud(70_000, 9, 2.0, 2.9),
        1.0,
        [32, 32, 32],
    );
}

#[test]
fn non_finite_points_go_where_the_host_puts_them() {
    let mut pts = cloud(200, 10, -1.0, 1.0);
    pts[3] = Vec3::new(f32::NAN, 0.0, 0.0);
    pts[50] = Vec3::splat(f32::INFINITY);
    pts[51] = Vec3::new(0.2, f32::NEG_INFINITY, -0.7);
    check("non-finite", &pts, 0.2, [8, 8, 8]);
}

#[test]
fn rebuilding_with_other_counts_and_cell_sizes() {
    let dim = [16, 8, 12];
    for d in devices() {
        let mut grid = DeviceHashGrid::with_dim(d, dim).unwrap();
        for (k, (n, cell)) in [
            (2000, 0.1),
            (2000, 0.2), // same count: no allocation (checked below on the CPU)
            (300, 0.05),
            (0, 0.1),
            (9000, 0.3),
            (9000, 0.3),
            (1, 1.0),
        ]
        .into_iter()
        .enumerate()
        {
            let pts = cloud(n, 20 + k as u64, -2.0, 2.0);
            let x = Array::from_slice(d, &pts);
            let before = d.is_cpu().then(|| {
                (
                    grid.sorted_index.as_slice().as_ptr(),
                    grid.sorted_points.as_slice().as_ptr(),
                )
            });
            grid.build(&x, cell).unwrap();
            let host = HashGrid::with_points(&pts, cell, dim).unwrap();
            assert_same_as_host(&format!("build {k} ({n} points) on {d}"), &grid, &host);
            if let (Some(b), true) = (before, k == 1 || k == 5) {
                let after = (
                    grid.sorted_index.as_slice().as_ptr(),
                    grid.sorted_points.as_slice().as_ptr(),
                );
                assert!(b == after, "same count, new buffers");
            }
        }
    }
}

#[test]
fn a_grid_copied_from_the_host_can_be_rebuilt_on_the_device() {
    let dim = [10, 10, 10];
    let a = cloud(500, 30, 0.0, 1.0);
    let b = cloud(800, 31, -1.0, 0.0);
    let host_a = HashGrid::with_points(&a, 0.1, dim).unwrap();
    let host_b = HashGrid::with_points(&b, 0.15, dim).unwrap();
    for d in devices() {
        let mut grid = DeviceHashGrid::new(d, &host_a).unwrap();
        grid.build(&Array::from_slice(d, &b), 0.15).unwrap();
        assert_same_as_host(&format!("rebuilt on {d}"), &grid, &host_b);
    }
}

#[test]
fn a_build_with_an_unchanged_count_replays_in_a_cuda_graph() {
    let Some(d) = weft_testkit::devices::cuda() else {
        return;
    };
    let Device::Cuda(ordinal) = d else {
        unreachable!()
    };
    let dim = [32, 32, 32];
    let mut x = Array::from_slice(d, &cloud(20_000, 70, -1.0, 1.0));
    let mut grid = DeviceHashGrid::with_dim(d, dim).unwrap();
    grid.build(&x, 0.1).unwrap();
    // Nothing is allocated by a build of the same count, so it can be captured.
    let step = weft::cuda::Graph::capture(ordinal, || grid.build(&x, 0.1)).unwrap();
    for seed in [71, 72] {
        let pts = cloud(20_000, seed, -1.0, 1.0);
        x.copy_from_slice(&pts).unwrap();
        step.launch().unwrap();
        let host = HashGrid::with_points(&pts, 0.1, dim).unwrap();
        assert_same_as_host(&format!("graph replay {seed}"), &grid, &host);
    }
}

/// Up to `CAP` neighbours per point, and how many there were.
const CAP: i32 = 128;

#[weft::kernel]
fn neighbours(
    grid: &DeviceHashGrid,
    x: &Array<Vec3>,
    r: f32,
    out: &mut Array<i32>,
    count: &mut Array<i32>,
) {
    let i = tid();
    let p = x[i];
    let mut k = 0;
    let mut q = hash_grid_query(grid, p, r);
    while q.index >= 0 {
        if k < 128 {
            out[i * 128 + k] = q.index;
        }
        k += 1;
        q = hash_grid_query_next(grid, q, p, r);
    }
    count[i] = k;
}

#[test]
fn queries_after_a_device_build_return_the_brute_force_neighbours() {
    let n = 2500;
    let pts = cloud(n, 40, -1.0, 1.0);
    for d in devices() {
        let x = Array::from_slice(d, &pts);
        for (cell, dim, radius) in [
            (0.1, [16, 16, 16], 0.08),
            (0.1, [8, 8, 8], 0.1),
            (0.05, [4, 5, 6], 0.12),
        ] {
            let mut grid = DeviceHashGrid::with_dim(d, dim).unwrap();
            grid.build(&x, cell).unwrap();
            let mut out = Array::zeros(d, [n * CAP as usize]);
            let mut count = Array::zeros(d, [n]);
            neighbours::launch(n, &grid, &x, radius, &mut out, &mut count).unwrap();
            let (out, count) = (out.to_vec(), count.to_vec());
            for i in 0..n {
                let mut brute: Vec<i32> = (0..n)
                    .filter(|&j| (pts[j] - pts[i]).length_squared() <= radius * radius)
                    .map(|j| j as i32)
                    .collect();
                assert!(count[i] <= CAP, "raise CAP");
                let k = count[i] as usize;
                let mut got = out[i * CAP as usize..i * CAP as usize + k].to_vec();
                brute.sort();
                got.sort();
                assert_eq!(got, brute, "{d}, cell {cell}, dim {dim:?}: point {i}");
            }
        }
    }
}

#[test]
fn an_empty_build_leaves_nothing_to_find() {
    for d in devices() {
        let mut grid = DeviceHashGrid::with_dim(d, [8, 8, 8]).unwrap();
        let pts = cloud(100, 50, 0.0, 1.0);
        grid.build(&Array::from_slice(d, &pts), 0.2).unwrap();
        grid.build(&Array::from_slice(d, &[]), 0.2).unwrap();
        assert_eq!(grid.num_points(), 0);
        let x = Array::from_slice(d, &pts);
        let mut out = Array::zeros(d, [100 * CAP as usize]);
        let mut count = Array::zeros(d, [100]);
        neighbours::launch(100, &grid, &x, 0.5, &mut out, &mut count).unwrap();
        assert!(count.to_vec().iter().all(|&k| k == 0));
        let host = HashGrid::with_points(&[], 0.2, [8, 8, 8]).unwrap();
        assert_same_as_host(&format!("emptied on {d}"), &grid, &host);
    }
}

#[test]
fn bad_inputs_are_clear_errors() {
    for dim in [[0, 4, 4], [4, 0, 4], [1 << 11, 1 << 10, 1 << 10]] {
        let e = DeviceHashGrid::with_dim(Device::Cpu, dim).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("dimension"),
            "{dim:?}: {e}"
        );
    }
    let mut grid = DeviceHashGrid::with_dim(Device::Cpu, [4, 4, 4]).unwrap();
    let x = Array::from_slice(Device::Cpu, &cloud(10, 60, 0.0, 1.0));
    for cell in [0.0, -0.1, f32::NAN, f32::INFINITY, -f32::INFINITY] {
        let e = grid.build(&x, cell).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("cell size"),
            "{cell}: {e}"
        );
    }
    // Points on another device (a placeholder array: no GPU needed).
    let elsewhere = Array::<Vec3>::placeholder(Device::Cuda(0), [10]);
    let e = grid.build(&elsewhere, 0.1).unwrap_err();
    assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
    assert!(e.to_string().contains("cuda:0"), "{e}");
    // The grid still works afterwards.
    grid.build(&x, 0.25).unwrap();
    assert_eq!(grid.num_points(), 10);
}

#[test]
fn build_kernels_have_ptx() {
    // Forward and adjoint of every kernel of the build and of the query kernel here
    // (ptxas-checked with WEFT_PTXAS).
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(
            grid_count,
            grid_chunk_sums,
            grid_chunk_prefix,
            grid_chunk_base,
            grid_cells,
            grid_scatter,
            grid_sort_blocks,
            grid_merge,
            neighbours
        ),
        &[],
    );
}
