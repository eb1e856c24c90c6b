//! Hash grid: the layout invariants hold and queries return exactly the brute-force
//! neighbour sets.

mod common;

use common::{Rng, RngExt};
use glam::Vec3;
use weft_geom::{HashGrid, brute_force};

fn check_layout(grid: &HashGrid, points: &[Vec3]) {
    let (start, end, sorted) = (grid.cell_start(), grid.cell_end(), grid.sorted_index());
    let [dx, dy, dz] = grid.dim();
    assert_eq!(start.len(), (dx * dy * dz) as usize);
    let mut seen = vec![false; points.len()];
    let mut total = 0;
    for cell in 0..start.len() {
        let run = &sorted[start[cell] as usize..end[cell] as usize];
        assert!(
            run.windows(2).all(|w| w[0] < w[1]),
            "sorted by index within a cell"
        );
        for &i in run {
            assert_eq!(grid.cell_index(points[i as usize]) as usize, cell);
            assert!(!std::mem::replace(&mut seen[i as usize], true));
        }
        if cell + 1 < start.len() {
            assert_eq!(end[cell], start[cell + 1], "cells are packed in order");
        }
        total += run.len();
    }
    assert_eq!(total, points.len());
    for (k, &i) in sorted.iter().enumerate() {
        assert_eq!(grid.sorted_points()[k], points[i as usize]);
    }
}

#[test]
fn queries_equal_brute_force() {
    let mut rng = Rng::new(30);
    // (points, spread, cell size, dims, query radii)
    type Case = (usize, f32, f32, [u32; 3], &'static [f32]);
    let cases: [Case; 5] = [
        (3000, 2.0, 0.1, [128, 128, 128], &[0.1, 0.05, 0.0]),
        (3000, 2.0, 0.1, [4, 5, 3], &[0.1, 0.25]), // heavy aliasing
        (2000, 50.0, 1.0, [16, 16, 16], &[1.0, 3.5]), // radius > cell
        (2000, 0.5, 0.2, [1, 1, 1], &[0.2, 0.01]), // one cell
        (1500, 1e4, 7.0, [32, 32, 32], &[7.0, 0.5]), // far from the origin, negative
    ];
    for (n, spread, cell, dim, radii) in cases {
        let mut points: Vec<Vec3> = (0..n).map(|_| rng.vec3(-spread, spread)).collect();
        // Duplicates and points exactly on cell boundaries.
        points[1] = points[0];
        points[2] = Vec3::splat(cell * 3.0);
        points[3] = Vec3::splat(-cell);
        let grid = HashGrid::with_points(&points, cell, dim).unwrap();
        check_layout(&grid, &points);
        for &r in radii {
            for q in 0..300 {
                let p = if q % 3 == 0 {
                    points[rng.below(n)] + rng.vec3(-r, r)
                } else {
                    rng.vec3(-1.2 * spread, 1.2 * spread)
                };
                let mut got: Vec<u32> = grid.query(p, r).collect();
                got.sort_unstable();
                assert_eq!(
                    got,
                    brute_force::neighbors(&points, p, r),
                    "{dim:?} r={r} p={p}"
                );
            }
        }
    }
}

#[test]
fn neighbours_at_exactly_the_radius_count() {
    let points = vec![
        Vec3::ZERO,
        Vec3::new(0.5, 0.0, 0.0),
        Vec3::new(-0.5, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 0.5000001),
    ];
    let grid = HashGrid::with_points(&points, 0.5, [8, 8, 8]).unwrap();
    let mut got: Vec<u32> = grid.query(Vec3::ZERO, 0.5).collect();
    got.sort_unstable();
    assert_eq!(got, vec![0, 1, 2]);
}

#[test]
fn build_is_deterministic_and_reusable() {
    let mut rng = Rng::new(31);
    let points: Vec<Vec3> = (0..50_000).map(|_| rng.vec3(-1.0, 1.0)).collect();
    let a = HashGrid::with_points(&points, 0.05, [32, 32, 32]).unwrap();
    let b = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap()
        .install(|| HashGrid::with_points(&points, 0.05, [32, 32, 32]).unwrap());
    assert_eq!(a.sorted_index(), b.sorted_index());
    assert_eq!(a.cell_start(), b.cell_start());
    // Rebuilding with other points reuses the grid.
    let mut g = a.clone();
    let fewer = &points[..100];
    g.build(fewer, 0.2).unwrap();
    check_layout(&g, fewer);
    assert_eq!(g.num_points(), 100);
}

#[test]
fn bad_parameters_and_empty_input() {
    assert!(HashGrid::new([0, 4, 4]).is_err());
    assert!(HashGrid::new([1 << 11, 1 << 11, 1 << 11]).is_err());
    let mut g = HashGrid::new([4, 4, 4]).unwrap();
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let e = g.build(&[Vec3::ZERO], bad).unwrap_err();
        assert!(e.to_string().contains("cell_size"), "{e}");
    }
    g.build(&[], 1.0).unwrap();
    assert_eq!(g.query(Vec3::ZERO, 10.0).count(), 0);
    g.build(&[Vec3::ZERO, Vec3::NAN, Vec3::INFINITY], 1.0)
        .unwrap();
    assert_eq!(g.query(Vec3::ZERO, 1.0).collect::<Vec<_>>(), vec![0]);
    assert_eq!(g.query(Vec3::ZERO, -1.0).count(), 0);
    assert_eq!(g.query(Vec3::ZERO, f32::NAN).count(), 0);
    assert_eq!(g.query(Vec3::NAN, 1.0).count(), 0);
    let mut all: Vec<u32> = g.query(Vec3::ZERO, f32::INFINITY).collect();
    all.sort_unstable();
    let pts = [Vec3::ZERO, Vec3::NAN, Vec3::INFINITY];
    assert_eq!(
        all,
        brute_force::neighbors(&pts, Vec3::ZERO, f32::INFINITY),
        "inf radius"
    );
}
