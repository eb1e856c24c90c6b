//! Every builtin compiles with only `use weft::prelude::*` and the imports of the
//! library funcs it calls: generated code names the structures those funcs return
//! (`HashGridQuery`, `BvhQuery`, `MeshAabbQuery`, `BvhNode` …) through paths it
//! builds itself, never through names the user was made to import. Parameter types
//! are written as full paths (`&weft::geom::DeviceMesh`) for the same reason.
//!
//! Each kernel lives in its own module so no import leaks from one to another; the
//! test that runs them checks a few values so a miscompiled query is caught too.

mod math {
    use weft::prelude::*;

    #[weft::kernel]
    pub fn scalars(x: &Array<f32>, out: &mut Array<f32>) {
        let i = tid();
        let v = x[i];
        let a = abs(v) + 0.5;
        let mut s = sin(v) + cos(v) + tan(v) + asin(v) + acos(v) + atan(v) + atan2(v, a);
        s += sinh(v) + cosh(v) + tanh(v) + exp(v) + exp2(v) + log(a) + log2(a) + log10(a);
        s += pow(a, v) + sqrt(a) + cbrt(v) + floor(v) + ceil(v) + round(v) + trunc(v);
        s += sign(v) + min(v, a) + max(v, a) + clamp(v, -1.0, 1.0) + fma(v, a, 1.0);
        s += stop_gradient(v) + f32_from_bits(f32_to_bits(v));
        out[i] = s;
    }

    #[weft::kernel]
    pub fn linear_algebra(x: &Array<Vec3>, out: &mut Array<f32>) {
        let i = tid();
        let a = x[i];
        let b = cross(a, Vec3::X) + Vec3::ONE;
        let m = outer(a, b) + diag(b) + skew(a) + Mat3::IDENTITY;
        let n = transpose(inverse(m));
        let q = quat_from_axis_angle(normalize(b), length(a));
        let r = quat_from_matrix(quat_to_matrix(q));
        let v = quat_rotate(q, a) + quat_rotate_inv(quat_inverse(r), b) + q * a;
        let t = Transform::new(a, q);
        let w = transform_point(t, b) + transform_vector(transform_inverse(t), a);
        let s = SpatialVector::new(a, b);
        let c = spatial_cross(s, s) + spatial_cross_dual(s, s);
        let d = spatial_top(c) + spatial_bottom(c);
        out[i] = dot(v + w + d, n * a) + determinant(m) + trace(n) + length_sq(a);
    }

    #[weft::kernel]
    pub fn atomics_and_random(out: &mut Array<f32>, count: &mut Array<i32>, seed: u32) {
        let i = tid();
        let mut state = rand_init(seed, i as u32);
        let r = randf(&mut state) + randf_range(&mut state, -1.0, 1.0) + randn(&mut state);
        let k = randi(&mut state);
        atomic_add(&mut out[0], r);
        atomic_sub(&mut out[1], r);
        atomic_min(&mut count[0], k as i32);
        atomic_max(&mut count[1], k as i32);
        thread_fence();
    }
}

mod grid {
    use weft::geom::{hash_grid_query, hash_grid_query_next};
    use weft::prelude::*;

    #[weft::kernel]
    pub fn neighbours(
        grid: &weft::geom::DeviceHashGrid,
        x: &Array<Vec3>,
        r: f32,
        n: &mut Array<i32>,
    ) {
        let i = tid();
        let mut k = 0;
        let mut q = hash_grid_query(grid, x[i], r);
        while q.index >= 0 {
            k += 1;
            q = hash_grid_query_next(grid, q, x[i], r);
        }
        n[i] = k;
    }
}

mod bvh {
    use weft::geom::{bvh_query_aabb, bvh_query_aabb_next, bvh_query_ray, bvh_query_ray_next};
    use weft::prelude::*;

    #[weft::kernel]
    pub fn boxes_and_rays(bvh: &weft::geom::DeviceBvh, p: &Array<Vec3>, n: &mut Array<i32, 2>) {
        let i = tid();
        let lo = p[i] - Vec3::splat(0.1);
        let hi = p[i] + Vec3::splat(0.1);
        let mut k = 0;
        let mut q = bvh_query_aabb(bvh, lo, hi);
        while q.item >= 0 {
            k += 1;
            q = bvh_query_aabb_next(bvh, q, lo, hi);
        }
        n[i][0] = k;
        let o = p[i] - Vec3::new(0.0, 0.0, 5.0);
        let mut m = 0;
        let mut r = bvh_query_ray(bvh, o, Vec3::Z, 10.0);
        while r.item >= 0 {
            m += 1;
            r = bvh_query_ray_next(bvh, r, o, Vec3::Z, 10.0);
        }
        n[i][1] = m;
    }
}

mod mesh {
    use weft::geom::{mesh_query_aabb, mesh_query_aabb_next, mesh_query_point, mesh_query_ray};
    use weft::prelude::*;

    #[weft::kernel]
    pub fn queries(mesh: &weft::geom::DeviceMesh, p: &Array<Vec3>, out: &mut Array<i32, 2>) {
        let i = tid();
        let lo = p[i] - Vec3::splat(0.1);
        let hi = p[i] + Vec3::splat(0.1);
        let mut k = 0;
        let mut q = mesh_query_aabb(mesh, lo, hi);
        while q.face >= 0 {
            k += 1;
            q = mesh_query_aabb_next(mesh, q, lo, hi);
        }
        out[i][0] = k;
        // Fields of results whose structures (`MeshQueryRay`, `MeshQueryPoint`)
        // are not imported here.
        let ray = mesh_query_ray(mesh, p[i], Vec3::Z, 10.0);
        let point = mesh_query_point(mesh, p[i], 10.0);
        out[i][1] = -1;
        if ray.hit && point.found && ray.t > 0.0 {
            out[i][1] = ray.face + point.face;
        }
    }
}

use weft::prelude::*;

#[test]
fn kernels_that_import_only_the_prelude_and_their_funcs_run() {
    let dev = Device::Cpu;
    let pts: Vec<Vec3> = (0..8)
        .map(|i| Vec3::new(i as f32 * 0.05, 0.0, 0.0))
        .collect();
    let x = Array::from_slice(dev, &pts);

    let mut out = Array::zeros(dev, [8]);
    math::scalars::launch(8, &Array::from_slice(dev, &[0.25f32; 8]), &mut out).unwrap();
    assert!(out.to_vec().iter().all(|v| v.is_finite()));
    math::linear_algebra::launch(8, &x, &mut out).unwrap();
    let mut sums = Array::zeros(dev, [2]);
    let mut count = Array::from_slice(dev, &[i32::MAX, i32::MIN]);
    math::atomics_and_random::launch(8, &mut sums, &mut count, 7).unwrap();
    let s = sums.to_vec();
    assert_eq!(s[0], -s[1]);

    let host = weft_geom::HashGrid::with_points(&pts, 0.05, [8, 8, 8]).unwrap();
    let grid = weft::geom::DeviceHashGrid::new(dev, &host).unwrap();
    let mut n = Array::zeros(dev, [8]);
    grid::neighbours::launch(8, &grid, &x, 0.06, &mut n).unwrap();
    assert_eq!(n.to_vec(), vec![2, 3, 3, 3, 3, 3, 3, 2]);

    let mesh = weft_geom::Mesh::new(
        vec![
            Vec3::new(-1.0, -1.0, 1.0),
            Vec3::new(1.0, -1.0, 1.0),
            Vec3::new(0.0, 1.0, 1.0),
        ],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let dmesh = weft::geom::DeviceMesh::new(dev, &mesh).unwrap();
    let mut hits = Array::zeros(dev, [8, 2]);
    mesh::queries::launch(8, &dmesh, &x, &mut hits).unwrap();
    // Only the first point's box (±0.1 around the origin) is away from z = 1.
    let hits = hits.to_vec();
    assert_eq!(hits[0], 0);
    // Every ray up from y = 0 meets the one face, the closest point too.
    assert!(hits.chunks(2).all(|c| c[1] == 0), "{hits:?}");

    let bvh = weft::geom::DeviceBvh::new(dev, &[Vec3::splat(-0.01)], &[Vec3::splat(0.01)]).unwrap();
    let mut found = Array::zeros(dev, [8, 2]);
    bvh::boxes_and_rays::launch(8, &bvh, &x, &mut found).unwrap();
    // Points 0..=2 are within 0.1 of the origin's box; every ray goes up through x = x_i.
    let f = found.to_vec();
    let boxes: Vec<i32> = f.chunks(2).map(|c| c[0]).collect();
    let rays: Vec<i32> = f.chunks(2).map(|c| c[1]).collect();
    assert_eq!(boxes, vec![1, 1, 1, 0, 0, 0, 0, 0]);
    assert_eq!(rays, vec![1, 0, 0, 0, 0, 0, 0, 0]);
}
