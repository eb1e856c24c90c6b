//! The BVH over user boxes in kernels (`DeviceBvh`, `bvh_query_aabb`,
//! `bvh_query_ray`): every query finds exactly the items a loop over all of them
//! finds, each once, before and after a device refit; the refit gives the host
//! refit's boxes bit for bit, on the CPU and CUDA alike; empty trees, single
//! items, bad input and NaN queries behave; on the CPU and, when present, a GPU.

use weft::geom::bvh_refit::bvh_refit;
use weft::geom::{
    BvhNode, DeviceBvh, bvh_query_aabb, bvh_query_aabb_next, bvh_query_ray, bvh_query_ray_next,
};
use weft::prelude::*;
use weft_geom::{Aabb, Bvh};
use weft_testkit::devices::devices;
use weft_testkit::random_f32s;

/// Most items recorded per query: every item of the largest test set fits.
const CAP: usize = 2048;

/// The items whose boxes overlap `lo[i]..hi[i]`, in `items[i * CAP ..]`, and how
/// many (-1 when a finished query found another item when asked again).
#[weft::kernel]
fn box_query(
    bvh: &DeviceBvh,
    lo: &Array<Vec3>,
    hi: &Array<Vec3>,
    items: &mut Array<i32>,
    count: &mut Array<i32>,
) {
    let i = tid();
    let (a, b) = (lo[i], hi[i]);
    let mut k = 0;
    let mut q = bvh_query_aabb(bvh, a, b);
    while q.item >= 0 {
        if k < 2048 {
            items[i * 2048 + k] = q.item;
        }
        k += 1;
        q = bvh_query_aabb_next(bvh, q, a, b);
    }
    q = bvh_query_aabb_next(bvh, q, a, b);
    if q.item >= 0 {
        k = -1;
    }
    count[i] = k;
}

/// The items whose boxes the ray `origins[i] + t dirs[i]`, `0 <= t <= max_t[i]`,
/// meets, as [`box_query`].
#[weft::kernel]
fn ray_query(
    bvh: &DeviceBvh,
    origins: &Array<Vec3>,
    dirs: &Array<Vec3>,
    max_t: &Array<f32>,
    items: &mut Array<i32>,
    count: &mut Array<i32>,
) {
    let i = tid();
    let (o, d, t) = (origins[i], dirs[i], max_t[i]);
    let mut k = 0;
    let mut q = bvh_query_ray(bvh, o, d, t);
    while q.item >= 0 {
        if k < 2048 {
            items[i * 2048 + k] = q.item;
        }
        k += 1;
        q = bvh_query_ray_next(bvh, q, o, d, t);
    }
    q = bvh_query_ray_next(bvh, q, o, d, t);
    if q.item >= 0 {
        k = -1;
    }
    count[i] = k;
}

/// Moves item `i` by `shift[i]` and grows its upper corner by `grow[i]` (>= 0),
/// as a simulation step would.
#[weft::kernel]
fn move_items(
    lowers: &mut Array<Vec3>,
    uppers: &mut Array<Vec3>,
    shift: &Array<Vec3>,
    grow: &Array<Vec3>,
) {
    let i = tid();
    lowers[i] = lowers[i] + shift[i];
    uppers[i] = uppers[i] + shift[i] + grow[i];
}

/// `n` points uniform in `[lo, hi)³`.
fn cloud(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<Vec3> {
    random_f32s(3 * n, seed, lo, hi)
        .chunks(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect()
}

/// `n` random boxes in about `[-1, 1]³`: mostly small, every 10th flat (zero
/// width in x), every 10th a point, every 10th a copy of an earlier box, every
/// 97th large.
fn random_items(n: usize, seed: u64) -> (Vec<Vec3>, Vec<Vec3>) {
    let centres = cloud(n, seed, -1.0, 1.0);
    let halves = cloud(n, seed + 1, 0.0, 0.15);
    let (mut lo, mut hi) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let mut h = halves[i];
        match i % 10 {
            0 => h.x = 0.0,
            1 => h = Vec3::ZERO,
            _ => {}
        }
        if i % 97 == 0 {
            h *= 6.0;
        }
        if i % 10 == 2 && i >= 10 {
            lo.push(lo[i - 7]);
            hi.push(hi[i - 7]);
        } else {
            lo.push(centres[i] - h);
            hi.push(centres[i] + h);
        }
    }
    (lo, hi)
}

/// Host brute force: whether boxes `a` and `b` overlap (touching counts).
fn overlap(alo: Vec3, ahi: Vec3, blo: Vec3, bhi: Vec3) -> bool {
    alo.cmple(bhi).all() && ahi.cmpge(blo).all()
}

/// Host brute force: whether the ray `o + t d`, `0 <= t <= t_max`, meets the
/// closed box `lo..hi`, in f32 (the kernel's operations, so the same bits); a
/// zero direction component asks whether `o` is within the slab.
fn ray_meets(lo: Vec3, hi: Vec3, o: Vec3, d: Vec3, t_max: f32) -> bool {
    if !o.is_finite() || !d.is_finite() || t_max.is_nan() || t_max < 0.0 {
        return false;
    }
    let (mut near, mut far) = (0.0f32, t_max);
    for a in 0..3 {
        let inv = 1.0 / d[a];
        if inv.is_finite() {
            let (t0, t1) = ((lo[a] - o[a]) * inv, (hi[a] - o[a]) * inv);
            near = near.max(t0.min(t1));
            far = far.min(t0.max(t1));
        } else if !(lo[a] <= o[a] && o[a] <= hi[a]) {
            return false;
        }
    }
    near <= far
}

/// Query `i`'s items from a `CAP`-strided result, sorted; asserts the count and
/// that no item came twice.
fn found(what: &str, i: usize, items: &[i32], count: &[i32]) -> Vec<u32> {
    let k = count[i];
    assert!(k >= 0, "{what} {i}: a finished query found another item");
    let k = k as usize;
    assert!(k <= CAP, "{what} {i}: {k} items");
    let mut got: Vec<u32> = items[i * CAP..i * CAP + k]
        .iter()
        .map(|&x| x as u32)
        .collect();
    got.sort();
    let n = got.len();
    got.dedup();
    assert_eq!(got.len(), n, "{what} {i}: an item came twice");
    got
}

/// Random query boxes: every 10th a point, every 10th exactly an item's box,
/// every 10th flat, every 50th holding everything.
fn query_boxes(n: usize, lowers: &[Vec3], uppers: &[Vec3], seed: u64) -> (Vec<Vec3>, Vec<Vec3>) {
    let lo = cloud(n, seed, -1.3, 1.3);
    let size = cloud(n, seed + 1, 0.0, 0.6);
    let m = lowers.len().max(1);
    (0..n)
        .map(|i| match i % 10 {
            _ if i % 50 == 3 => (Vec3::splat(-5.0), Vec3::splat(5.0)),
            0 => (lo[i], lo[i]),
            1 if !lowers.is_empty() => (lowers[(7 * i) % m], uppers[(7 * i) % m]),
            2 => (lo[i], lo[i] + size[i] * Vec3::new(1.0, 0.0, 1.0)),
            _ => (lo[i], lo[i] + size[i]),
        })
        .unzip()
}

/// Random rays: origins inside and outside the items' cube; every 8th direction
/// along an axis, every 8th with one zero component, every 8th along an axis from
/// an item's corner (the ray runs in its faces), every 8th zero; `max_t`
/// infinite, short or long.
fn rays(n: usize, lowers: &[Vec3], seed: u64) -> (Vec<Vec3>, Vec<Vec3>, Vec<f32>) {
    let mut o = cloud(n, seed, -1.5, 1.5);
    let mut d = cloud(n, seed + 1, -1.0, 1.0);
    let r = random_f32s(n, seed + 2, 0.0, 1.0);
    let mut t = Vec::with_capacity(n);
    for i in 0..n {
        let axis = i % 3;
        let sign = if r[i] < 0.5 { -1.0 } else { 1.0 };
        match i % 8 {
            0 => {
                d[i] = Vec3::ZERO;
                d[i][axis] = sign;
            }
            1 => d[i][axis] = 0.0,
            2 if !lowers.is_empty() => {
                o[i] = lowers[(13 * i) % lowers.len()];
                d[i] = Vec3::ZERO;
                d[i][axis] = sign * 0.5;
            }
            3 => d[i] = Vec3::ZERO,
            _ => {}
        }
        t.push(match i % 4 {
            0 => f32::INFINITY,
            1 => 0.3 * r[i],
            2 => 1.0,
            _ => 3.0 + r[i],
        });
    }
    (o, d, t)
}

/// Runs `nq` random box and ray queries on `bvh` and asserts each finds the
/// brute-force items of `lowers`/`uppers` (the boxes the BVH holds now).
fn assert_queries(what: &str, bvh: &DeviceBvh, lowers: &[Vec3], uppers: &[Vec3], seed: u64) {
    let d = bvh.device();
    let nq = 1000;
    let (qlo, qhi) = query_boxes(nq, lowers, uppers, seed);
    let (mut items, mut count) = (Array::zeros(d, [nq * CAP]), Array::zeros(d, [nq]));
    let (la, ha) = (Array::from_slice(d, &qlo), Array::from_slice(d, &qhi));
    box_query::launch(nq, bvh, &la, &ha, &mut items, &mut count).unwrap();
    let (items_h, count_h) = (items.to_vec(), count.to_vec());
    let mut box_hits = 0;
    for i in 0..nq {
        let got = found(&format!("{what}: box"), i, &items_h, &count_h);
        let brute: Vec<u32> = (0..lowers.len())
            .filter(|&k| overlap(lowers[k], uppers[k], qlo[i], qhi[i]))
            .map(|k| k as u32)
            .collect();
        assert_eq!(got, brute, "{what}: box {i} {:?}..{:?}", qlo[i], qhi[i]);
        if i % 50 != 3 {
            box_hits += got.len();
        }
    }
    let (o, dir, t) = rays(nq, lowers, seed + 10);
    let (oa, da, ta) = (
        Array::from_slice(d, &o),
        Array::from_slice(d, &dir),
        Array::from_slice(d, &t),
    );
    ray_query::launch(nq, bvh, &oa, &da, &ta, &mut items, &mut count).unwrap();
    let (items_h, count_h) = (items.to_vec(), count.to_vec());
    let mut ray_hits = 0;
    for i in 0..nq {
        let got = found(&format!("{what}: ray"), i, &items_h, &count_h);
        let brute: Vec<u32> = (0..lowers.len())
            .filter(|&k| ray_meets(lowers[k], uppers[k], o[i], dir[i], t[i]))
            .map(|k| k as u32)
            .collect();
        assert_eq!(
            got, brute,
            "{what}: ray {i} from {:?} along {:?} to t = {}",
            o[i], dir[i], t[i]
        );
        ray_hits += got.len();
    }
    if lowers.len() >= 1000 {
        // The tests mean something: many items found (not counting the boxes
        // that hold everything).
        assert!(
            box_hits > 5 * nq && ray_hits > 2 * nq,
            "{what}: {box_hits} box and {ray_hits} ray hits"
        );
    }
    println!(
        "{what}: {box_hits} items in {nq} boxes (not counting those around everything), {ray_hits} on {nq} rays"
    );
}

/// The host BVH's arrays as kernels read them.
fn host_nodes(bvh: &Bvh) -> Vec<BvhNode> {
    bvh.nodes().iter().map(BvhNode::from).collect()
}

fn aabbs(lowers: &[Vec3], uppers: &[Vec3]) -> Vec<Aabb> {
    lowers
        .iter()
        .zip(uppers)
        .map(|(l, u)| Aabb::new(*l, *u))
        .collect()
}

#[test]
fn random_queries_find_the_brute_force_items() {
    let (lo, hi) = random_items(2000, 1);
    for d in devices() {
        let bvh = DeviceBvh::new(d, &lo, &hi).unwrap();
        assert_eq!(bvh.num_items(), 2000);
        // The host SAH tree, uploaded as it is.
        let host = Bvh::build(&aabbs(&lo, &hi));
        assert!(bvh.nodes.to_vec() == host_nodes(&host), "{d}: host tree");
        assert_eq!(bvh.prims.to_vec(), host.prim_indices());
        assert_eq!(bvh.parents.to_vec(), host.parents());
        assert_queries(&format!("2000 items on {d}"), &bvh, &lo, &hi, 10);
        // The same through arrays on the device.
        let from =
            DeviceBvh::from_arrays(&Array::from_slice(d, &lo), &Array::from_slice(d, &hi)).unwrap();
        assert!(
            from.nodes.to_vec() == bvh.nodes.to_vec(),
            "{d}: from_arrays"
        );
        assert_eq!(from.device(), d);
    }
}

#[test]
fn queries_after_a_refit_find_the_moved_items() {
    let n = 2000;
    let (lo, hi) = random_items(n, 2);
    let shift = cloud(n, 3, -0.3, 0.3);
    let grow = cloud(n, 4, 0.0, 0.05);
    // The moves the kernel makes, on the host (the same f32 additions).
    let lo2: Vec<Vec3> = (0..n).map(|i| lo[i] + shift[i]).collect();
    let hi2: Vec<Vec3> = (0..n).map(|i| hi[i] + shift[i] + grow[i]).collect();
    let mut host = Bvh::build(&aabbs(&lo, &hi));
    host.refit_from(&aabbs(&lo2, &hi2));
    // Then every item mirrored through the origin (far from where the tree was
    // built: slower queries, the same answers).
    let lo3: Vec<Vec3> = hi2.iter().map(|v| -*v).collect();
    let hi3: Vec<Vec3> = lo2.iter().map(|v| -*v).collect();
    let mut first: Option<Vec<BvhNode>> = None;
    for d in devices() {
        let mut bvh = DeviceBvh::new(d, &lo, &hi).unwrap();
        let nodes_at = bvh.nodes.device_ptr();
        let (s, g) = (Array::from_slice(d, &shift), Array::from_slice(d, &grow));
        move_items::launch(n, &mut bvh.lowers, &mut bvh.uppers, &s, &g).unwrap();
        bvh.refit().unwrap();
        assert_eq!(bvh.nodes.device_ptr(), nodes_at, "{d}: a refit reallocated");
        let nodes = bvh.nodes.to_vec();
        assert!(nodes == host_nodes(&host), "{d}: the host refit's boxes");
        match &first {
            None => first = Some(nodes),
            Some(cpu) => assert!(cpu == &nodes, "{d}: refit differs from the CPU's"),
        }
        assert_queries(&format!("moved on {d}"), &bvh, &lo2, &hi2, 20);
        bvh.lowers.copy_from_slice(&lo3).unwrap();
        bvh.uppers.copy_from_slice(&hi3).unwrap();
        bvh.refit().unwrap();
        assert_queries(&format!("mirrored on {d}"), &bvh, &lo3, &hi3, 30);
    }
}

#[test]
fn small_trees() {
    for d in devices() {
        // No items: one empty leaf; queries (even those holding everything)
        // find nothing; a refit does nothing.
        let mut empty = DeviceBvh::new(d, &[], &[]).unwrap();
        assert_eq!(empty.num_items(), 0);
        assert_eq!(empty.nodes.len(), 1);
        empty.refit().unwrap();
        assert_queries(&format!("empty on {d}"), &empty, &[], &[], 40);
        let z = Array::<Vec3>::zeros(d, [0]);
        assert_eq!(DeviceBvh::from_arrays(&z, &z).unwrap().num_items(), 0);
        // One item, then moved; and a few, one per leaf or several.
        let (lo, hi) = (vec![Vec3::splat(-0.1)], vec![Vec3::splat(0.2)]);
        let mut one = DeviceBvh::new(d, &lo, &hi).unwrap();
        assert_queries(&format!("one item on {d}"), &one, &lo, &hi, 41);
        let (lo2, hi2) = (
            vec![Vec3::new(0.5, 0.0, 0.0)],
            vec![Vec3::new(0.7, 0.1, 0.1)],
        );
        one.lowers.copy_from_slice(&lo2).unwrap();
        one.uppers.copy_from_slice(&hi2).unwrap();
        one.refit().unwrap();
        assert_eq!(one.nodes.to_vec()[0].lower, lo2[0]);
        assert_queries(&format!("one moved item on {d}"), &one, &lo2, &hi2, 42);
        for n in [2, 3, 9, 40] {
            let (lo, hi) = random_items(n, 50 + n as u64);
            let bvh = DeviceBvh::new(d, &lo, &hi).unwrap();
            assert_queries(&format!("{n} items on {d}"), &bvh, &lo, &hi, 43);
        }
    }
}

#[test]
fn axis_aligned_rays_along_faces() {
    // Unit cubes side by side in x; rays parallel to x exactly in their faces
    // (y = 0 or 1) or edges, just outside them, and from inside.
    let lo: Vec<Vec3> = (0..50).map(|i| Vec3::new(i as f32, 0.0, 0.0)).collect();
    let hi: Vec<Vec3> = lo.iter().map(|l| *l + Vec3::ONE).collect();
    for d in devices() {
        let bvh = DeviceBvh::new(d, &lo, &hi).unwrap();
        let cases = [
            (Vec3::new(-1.0, 0.0, 0.5), Vec3::X, f32::INFINITY, 50),
            (Vec3::new(-1.0, 1.0, 1.0), Vec3::X, f32::INFINITY, 50),
            (Vec3::new(-1.0, 1.0, 1.0), Vec3::X, 1.0, 1),
            (Vec3::new(-1.0, 1.0, 1.0), Vec3::X, 0.5, 0),
            (Vec3::new(-1.0, 1.0 + 1e-6, 0.5), Vec3::X, f32::INFINITY, 0),
            (Vec3::new(10.5, 0.5, 0.5), Vec3::NEG_X, f32::INFINITY, 11),
            (Vec3::new(10.0, 0.5, 0.5), Vec3::ZERO, 0.0, 2),
            (Vec3::new(10.5, 0.5, 2.0), Vec3::NEG_Z, 1.0, 1),
            (Vec3::new(10.5, 0.5, 2.0), Vec3::NEG_Z, 0.99, 0),
        ];
        let n = cases.len();
        let o = Array::from_slice(d, &cases.map(|c| c.0));
        let dir = Array::from_slice(d, &cases.map(|c| c.1));
        let t = Array::from_slice(d, &cases.map(|c| c.2));
        let (mut items, mut count) = (Array::zeros(d, [n * CAP]), Array::zeros(d, [n]));
        ray_query::launch(n, &bvh, &o, &dir, &t, &mut items, &mut count).unwrap();
        let count = count.to_vec();
        for (i, c) in cases.iter().enumerate() {
            assert_eq!(count[i], c.3, "{d}: case {i} {c:?}");
            let brute = (0..50)
                .filter(|&k| ray_meets(lo[k], hi[k], c.0, c.1, c.2))
                .count();
            assert_eq!(brute, c.3 as usize, "host brute force: case {i} {c:?}");
        }
    }
}

#[test]
fn nan_and_infinite_queries_find_nothing() {
    let (lo, hi) = random_items(500, 60);
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    for d in devices() {
        let bvh = DeviceBvh::new(d, &lo, &hi).unwrap();
        // Boxes with a NaN corner, even around everything.
        let boxes = [
            (Vec3::new(nan, -5.0, -5.0), Vec3::splat(5.0)),
            (Vec3::splat(-5.0), Vec3::new(5.0, 5.0, nan)),
            (Vec3::splat(nan), Vec3::splat(nan)),
        ];
        let n = boxes.len();
        let (mut items, mut count) = (Array::zeros(d, [n * CAP]), Array::zeros(d, [n]));
        box_query::launch(
            n,
            &bvh,
            &Array::from_slice(d, &boxes.map(|b| b.0)),
            &Array::from_slice(d, &boxes.map(|b| b.1)),
            &mut items,
            &mut count,
        )
        .unwrap();
        assert_eq!(count.to_vec(), vec![0; n], "{d}: NaN boxes");
        // Rays with a NaN or infinite origin or direction, or a NaN or negative
        // max_t; each would meet items otherwise.
        let o = Vec3::splat(-3.0);
        let dir = Vec3::ONE;
        let rays = [
            (Vec3::new(nan, -3.0, -3.0), dir, inf),
            (Vec3::splat(nan), dir, inf),
            (Vec3::new(-inf, -3.0, -3.0), dir, inf),
            (o, Vec3::new(1.0, nan, 1.0), inf),
            (o, Vec3::new(inf, 1.0, 1.0), inf),
            (o, dir, nan),
            (o, dir, -1.0),
        ];
        let n = rays.len();
        let (mut items, mut count) = (Array::zeros(d, [n * CAP]), Array::zeros(d, [n]));
        ray_query::launch(
            n,
            &bvh,
            &Array::from_slice(d, &rays.map(|r| r.0)),
            &Array::from_slice(d, &rays.map(|r| r.1)),
            &Array::from_slice(d, &rays.map(|r| r.2)),
            &mut items,
            &mut count,
        )
        .unwrap();
        assert_eq!(count.to_vec(), vec![0; n], "{d}: NaN and infinite rays");
        // The same ray with good values finds items.
        let (mut items, mut count) = (Array::zeros(d, [CAP]), Array::zeros(d, [1]));
        let one = |v| Array::from_slice(d, &[v]);
        ray_query::launch(
            1,
            &bvh,
            &one(o),
            &one(dir),
            &Array::from_slice(d, &[inf]),
            &mut items,
            &mut count,
        )
        .unwrap();
        assert!(count.to_vec()[0] > 0, "{d}: the valid ray");
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let d = Device::Cpu;
    let lo = vec![Vec3::ZERO; 4];
    let hi = vec![Vec3::ONE; 4];
    let err = |lo: &[Vec3], hi: &[Vec3]| DeviceBvh::new(d, lo, hi).unwrap_err();
    let e = err(&lo, &hi[..3]);
    assert!(
        matches!(e, Error::InvalidArgument { .. })
            && e.to_string().contains("lowers has 4 corners and uppers 3"),
        "{e}"
    );
    let mut nan = lo.clone();
    nan[2].y = f32::NAN;
    let e = err(&nan, &hi);
    assert!(
        e.to_string()
            .contains("item 2 has a corner that is not finite"),
        "{e}"
    );
    let mut inf = hi.clone();
    inf[3].z = f32::INFINITY;
    let e = err(&lo, &inf);
    assert!(
        e.to_string()
            .contains("item 3 has a corner that is not finite"),
        "{e}"
    );
    let mut flipped = lo.clone();
    flipped[1].y = 2.0;
    let e = err(&flipped, &hi);
    assert!(
        e.to_string()
            .contains("item 1 has lower > upper on the y axis (2 > 1)"),
        "{e}"
    );
    // The same checks through arrays.
    let e = DeviceBvh::from_arrays(&Array::from_slice(d, &nan), &Array::from_slice(d, &hi))
        .unwrap_err();
    assert!(e.to_string().contains("item 2"), "{e}");
    let elsewhere = Array::<Vec3>::placeholder(Device::Cuda(0), [4]);
    let e = DeviceBvh::from_arrays(&Array::from_slice(d, &lo), &elsewhere).unwrap_err();
    assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
    // A refit keeps the item count.
    let mut bvh = DeviceBvh::new(d, &lo, &hi).unwrap();
    bvh.lowers = Array::from_slice(d, &[Vec3::ZERO; 5]);
    let e = bvh.refit().unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { .. })
            && e.to_string().contains(
                "a refit keeps the tree's 4 items, but lowers has 5 corners and uppers 4"
            ),
        "{e}"
    );
    bvh.lowers = Array::from_slice(d, &lo);
    bvh.refit().unwrap();
}

#[test]
fn query_kernels_have_ptx() {
    // Forward and adjoint (ptxas-checked with WEFT_PTXAS).
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(bvh_refit, box_query, ray_query, move_items),
        &[],
    );
}
