//! The kernel language: control flow, funcs across modules, structs,
//! multi-dimensional launches, locals and literals — on the CPU and, when a GPU
//! works, on CUDA with the same expected results.

use weft::prelude::*;
use weft_testkit::devices::devices;

mod physics {
    use weft::prelude::*;

    /// A func in another module, calling a func of its own module.
    #[weft::func]
    pub fn spring_force(a: Vec3, b: Vec3, k: f32, rest: f32) -> Vec3 {
        let d = b - a;
        let len = d.length();
        if len == 0.0 {
            return Vec3::ZERO;
        }
        d * (k * stretch(len, rest) / len)
    }

    #[weft::func]
    fn stretch(len: f32, rest: f32) -> f32 {
        len - rest
    }

    #[weft::structure]
    pub struct Particle {
        pub pos: Vec3,
        pub vel: Vec3,
        pub mass: f32,
    }

    #[weft::func]
    pub fn min_max(a: f32, b: f32) -> (f32, f32) {
        if a < b { (a, b) } else { (b, a) }
    }
}

use physics::{Particle, min_max, spring_force};

#[weft::kernel]
fn springs(x: &Array<Vec3>, f: &mut Array<Vec3>, k: f32) {
    let i = tid();
    let n = x.len();
    let mut total = Vec3::ZERO;
    if i > 0 {
        total += spring_force(x[i], x[i - 1], k, 1.0);
    }
    if i + 1 < n {
        total += spring_force(x[i], x[i + 1], k, 1.0);
    }
    f[i] = total;
}

#[test]
fn funcs_from_another_module() {
    for d in devices() {
        let x = Array::from_vec(
            d,
            (0..5)
                .map(|i| Vec3::new(i as f32 * 2.0, 0.0, 0.0))
                .collect(),
        );
        let mut f = Array::zeros(d, [5]);
        springs::launch(5, &x, &mut f, 10.0).unwrap();
        let f = f.to_vec();
        // Each spring is stretched by 1: end particles feel 10, inner ones cancel.
        assert_eq!(f[0], Vec3::new(10.0, 0.0, 0.0));
        assert_eq!(f[2], Vec3::ZERO);
        assert_eq!(f[4], Vec3::new(-10.0, 0.0, 0.0));
    }
}

#[weft::kernel]
fn step_particles(p: &mut Array<Particle>, g: Vec3, dt: f32) {
    let i = tid();
    let mut q = p[i];
    q.vel += g * dt;
    q.pos += q.vel * dt;
    if q.pos.z < 0.0 {
        q.pos.z = 0.0;
        q.vel.z = -q.vel.z * 0.5;
    }
    p[i] = q;
}

#[test]
fn struct_arrays_and_field_assignment() {
    for d in devices() {
        let mut p = Array::from_vec(
            d,
            vec![
                Particle {
                    pos: Vec3::new(0.0, 0.0, 1.0),
                    vel: Vec3::ZERO,
                    mass: 1.0,
                },
                Particle {
                    pos: Vec3::new(0.0, 0.0, 0.001),
                    vel: Vec3::new(0.0, 0.0, -1.0),
                    mass: 2.0,
                },
            ],
        );
        step_particles::launch(2, &mut p, Vec3::new(0.0, 0.0, -10.0), 0.1).unwrap();
        let p = p.to_vec();
        assert!((p[0].vel.z + 1.0).abs() < 1e-6);
        assert!((p[0].pos.z - 0.9).abs() < 1e-6);
        assert_eq!(p[1].pos.z, 0.0);
        assert!((p[1].vel.z - 1.0).abs() < 1e-6);
        assert_eq!(p[1].mass, 2.0);
    }
}

#[weft::structure]
struct Params {
    scale: f32,
    offset: Vec2,
}

#[weft::kernel]
fn with_params(out: &mut Array<Vec2>, p: &Params) {
    let i = tid();
    out[i] = Vec2::new(i as f32, -(i as f32)) * p.scale + p.offset;
}

#[test]
fn struct_parameters() {
    for d in devices() {
        let mut out = Array::zeros(d, [3]);
        with_params::launch(
            3,
            &mut out,
            &Params {
                scale: 2.0,
                offset: Vec2::new(1.0, 1.0),
            },
        )
        .unwrap();
        assert_eq!(out.to_vec()[2], Vec2::new(5.0, -3.0));
    }
}

#[weft::kernel]
fn control_flow(out: &mut Array<i32>, limit: i32) {
    let i = tid();
    // Nested loops with break/continue and a while loop.
    let mut acc = 0;
    for a in 0..i {
        if a % 2 == 1 {
            continue;
        }
        for b in 0..limit {
            if b > a {
                break;
            }
            acc += b;
        }
    }
    let mut w = 0;
    while w * w < i {
        w += 1;
    }
    // Early return.
    if i == 7 {
        out[i] = -1;
        return;
    }
    // `if` as an expression, `&&` short-circuit protecting an index.
    let bonus = if i > 3 && out.len() > i + 100 {
        out[i + 100]
    } else if i > 5 {
        1000
    } else {
        0
    };
    out[i] = acc * 100 + w + bonus;
}

fn control_flow_reference(i: i32, limit: i32) -> i32 {
    let mut acc = 0;
    for a in 0..i {
        if a % 2 == 1 {
            continue;
        }
        for b in 0..limit {
            if b > a {
                break;
            }
            acc += b;
        }
    }
    let mut w = 0;
    while w * w < i {
        w += 1;
    }
    if i == 7 {
        return -1;
    }
    let bonus = if i > 5 { 1000 } else { 0 };
    acc * 100 + w + bonus
}

#[test]
fn loops_branches_early_return() {
    for d in devices() {
        let n = 20;
        let mut out = Array::zeros(d, [n]);
        control_flow::launch(n, &mut out, 4).unwrap();
        let expect: Vec<i32> = (0..n as i32)
            .map(|i| control_flow_reference(i, 4))
            .collect();
        assert_eq!(out.to_vec(), expect);
    }
}

#[weft::kernel]
fn grid2(out: &mut Array<f32, 2>) {
    let (i, j) = tid();
    out[i][j] = (i * 10 + j) as f32;
}

#[weft::kernel]
fn grid3(out: &mut Array<i32, 3>) {
    let (i, j, k) = tid();
    out[i][j][k] = i * 100 + j * 10 + k;
}

#[test]
fn multi_dimensional_launches() {
    for d in devices() {
        let mut a: Array<f32, 2> = Array::zeros(d, [3, 4]);
        grid2::launch((3, 4), &mut a).unwrap();
        assert_eq!(a.to_vec()[4 + 2], 12.0);
        let mut b: Array<i32, 3> = Array::zeros(d, [2, 3, 4]);
        grid3::launch([2, 3, 4], &mut b).unwrap();
        assert_eq!(b.to_vec()[12 + 2 * 4 + 3], 123);
        // Launching a 2-D kernel with a 1-D grid is an error, not garbage.
        let err = grid2::launch(12, &mut a).unwrap_err();
        assert!(err.to_string().contains("grid2"), "{err}");
    }
}

#[weft::kernel]
fn vectors_and_tuples(out: &mut Array<f32>, m: Mat3, q: Quat) {
    let i = tid();
    let v = Vec3::new(1.0, 2.0, 3.0) * (i as f32);
    let (lo, hi) = min_max(v.y, v.x);
    let mut w = m * v;
    w.y = w[0] + q.w;
    let s = unroll_sum(v);
    out[i] = lo + hi + w.y + m[1][0] + s + v.dot(Vec3::ONE) - dot(v, v).sqrt();
}

#[weft::func]
fn unroll_sum(v: Vec3) -> f32 {
    let mut s = 0.0;
    for k in unroll(0..3) {
        s += v[k];
    }
    s
}

#[test]
fn vectors_matrices_tuples_unroll() {
    for d in devices() {
        let m = Mat3::from_cols(
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(4.0, 5.0, 6.0),
            Vec3::new(7.0, 8.0, 9.0),
        );
        let q = Quat::from_xyzw(0.0, 0.0, 0.0, 1.0);
        let mut out = Array::zeros(d, [4]);
        vectors_and_tuples::launch(4, &mut out, m, q).unwrap();
        for (i, got) in out.to_vec().into_iter().enumerate() {
            let v = Vec3::new(1.0, 2.0, 3.0) * i as f32;
            let w = m * v;
            let expect = v.y.min(v.x)
                + v.y.max(v.x)
                + (w.x + 1.0)
                + m.col(0)[1]
                + (v.x + v.y + v.z)
                + v.dot(Vec3::ONE)
                - v.dot(v).sqrt();
            assert!((got - expect).abs() < 1e-4, "{i}: {got} vs {expect}");
        }
    }
}

#[weft::kernel]
fn literals_and_casts(out: &mut Array<f64>, k: u32) {
    let i = tid();
    let a: f64 = 1.5;
    let b = 2.0f64 * a;
    let c = (k as i64 + i as i64) as f64;
    let big = u64::MAX;
    let e = std::f64::consts::PI;
    let neg = -3;
    out[i] = a + b + c + (big >> 63) as f64 + e + neg as f64 + f32::EPSILON as f64;
}

#[test]
fn literals_constants_and_casts() {
    for d in devices() {
        let mut out = Array::zeros(d, [2]);
        literals_and_casts::launch(2, &mut out, 10).unwrap();
        let expect = 1.5 + 3.0 + 11.0 + 1.0 + std::f64::consts::PI - 3.0 + f32::EPSILON as f64;
        assert!((out.to_vec()[1] - expect).abs() < 1e-12);
    }
}

#[weft::kernel]
fn shadowing_and_scopes(out: &mut Array<i32>) {
    let i = tid();
    let x = i;
    let x = x * 2;
    let mut y = 0;
    {
        let x = 100;
        y += x;
    }
    out[i] = x + y;
}

#[test]
fn shadowing() {
    for d in devices() {
        let mut out = Array::zeros(d, [3]);
        shadowing_and_scopes::launch(3, &mut out).unwrap();
        assert_eq!(out.to_vec(), vec![100, 102, 104]);
    }
}

use weft::funcs::{lerp, smoothstep, split_normal};

#[weft::kernel]
fn library_funcs(out: &mut Array<f32>) {
    let i = tid();
    let t = i as f32 / 4.0;
    let (n, tan) = split_normal(Vec3::new(1.0, 2.0, 3.0), Vec3::Z);
    out[i] = lerp(0.0, 8.0, t) + smoothstep(0.0, 1.0, t) + n.z + tan.x;
}

#[test]
fn funcs_from_another_crate() {
    for d in devices() {
        let mut out = Array::zeros(d, [5]);
        library_funcs::launch(5, &mut out).unwrap();
        let o = out.to_vec();
        assert_eq!(o[0], 0.0 + 0.0 + 3.0 + 1.0);
        assert_eq!(o[2], 4.0 + 0.5 + 3.0 + 1.0);
        assert_eq!(o[4], 8.0 + 1.0 + 3.0 + 1.0);
    }
}

// A kernel's name does not collide with parameters of the same name (in this or
// other kernels): a kernel is a braced struct, which lives in the type namespace.
#[weft::kernel]
fn energy(v: &Array<f32>, energy: &mut Array<f32>) {
    let i = tid();
    energy[i] = 0.5 * v[i] * v[i];
}

#[weft::kernel]
fn uses_energy(energy: &Array<f32>, out: &mut Array<f32>) {
    let i = tid();
    out[i] = energy[i] * 2.0;
}

#[test]
fn kernel_names_do_not_shadow_parameters() {
    for d in devices() {
        let v = Array::from_slice(d, &[2.0f32, 4.0]);
        let mut e = Array::zeros(d, [2]);
        energy::launch(2, &v, &mut e).unwrap();
        let mut out = Array::zeros(d, [2]);
        uses_energy::launch(2, &e, &mut out).unwrap();
        assert_eq!(out.to_vec(), vec![4.0, 16.0]);
        assert_eq!(energy::NAME, "energy");
    }
}

/// A structure holding arrays, like Warp's `@wp.struct` models.
#[weft::structure]
pub struct Model {
    pub gravity: Vec3,
    pub inv_mass: Array<f32>,
    pub state: State,
}

#[weft::structure]
pub struct State {
    pub x: Array<Vec3>,
    pub v: Array<Vec3>,
}

#[weft::kernel]
fn step_model(m: &mut Model, dt: f32) {
    let i = tid();
    let w = m.inv_mass[i];
    if w > 0.0 {
        m.state.v[i] += m.gravity * dt;
    }
    m.state.x[i] += m.state.v[i] * dt;
}

#[weft::kernel]
fn read_model(m: &Model, out: &mut Array<f32>) {
    let i = tid();
    out[i] = m.state.x[i].z + m.inv_mass[i];
}

#[test]
fn structures_holding_arrays() {
    let n = 3;
    let mut m = Model {
        gravity: Vec3::new(0.0, 0.0, -10.0),
        inv_mass: Array::from_slice(Device::Cpu, &[1.0, 0.0, 1.0]),
        state: State {
            x: Array::zeros(Device::Cpu, [n]),
            v: Array::zeros(Device::Cpu, [n]),
        },
    };
    step_model::launch(n, &mut m, 0.5).unwrap();
    let x = m.state.x.to_vec();
    assert_eq!(x[0], Vec3::new(0.0, 0.0, -2.5));
    assert_eq!(x[1], Vec3::ZERO, "infinite mass does not move");
    let mut out = Array::zeros(Device::Cpu, [n]);
    read_model::launch(n, &m, &mut out).unwrap();
    assert_eq!(out.to_vec(), vec![-1.5, 0.0, -1.5]);
    // Arrays inside structures take part in the device check too.
    m.inv_mass = Array::placeholder(Device::Cuda(0), [3]);
    let e = step_model::launch(n, &mut m, 0.5).unwrap_err();
    assert!(e.to_string().contains("Model.inv_mass"), "{e}");
}

#[weft::kernel]
fn dynamic_components(out: &mut Array<Vec4>, a: &mut Array<Vec3>) {
    let i = tid();
    let mut v = Vec4::ZERO;
    for k in 0..4 {
        v[k] = (k * 10 + i) as f32;
    }
    v[i % 4] += 100.0;
    out[i] = v;
    a[i][i % 3] = -1.0;
}

#[test]
fn vector_components_by_runtime_index() {
    for d in devices() {
        let mut out = Array::zeros(d, [2]);
        let mut a = Array::zeros(d, [2]);
        dynamic_components::launch(2, &mut out, &mut a).unwrap();
        assert_eq!(
            out.to_vec(),
            vec![
                Vec4::new(100.0, 10.0, 20.0, 30.0),
                Vec4::new(1.0, 111.0, 21.0, 31.0)
            ]
        );
        assert_eq!(
            a.to_vec(),
            vec![Vec3::new(-1.0, 0.0, 0.0), Vec3::new(0.0, -1.0, 0.0)]
        );
    }
}

#[weft::kernel]
fn if_value_literals(x: &Array<f64>, out: &mut Array<f64>) {
    let i = tid();
    let m: f64 = if x[i] > 0.0 { 2.0 } else { -1.0 };
    let k = if x[i] > 0.0 { 3.0 } else { 1.0 };
    out[i] = x[i] * m * k;
}

#[test]
fn if_expressions_of_literals_take_their_type_from_the_context() {
    for d in devices() {
        let x = Array::from_slice(d, &[2.0f64, -1.0]);
        let mut out = Array::zeros(d, [2]);
        if_value_literals::launch(2, &x, &mut out).unwrap();
        assert_eq!(out.to_vec(), vec![12.0, 1.0]);
    }
}

#[weft::kernel]
fn let_literals(x: &Array<f64>, out: &mut Array<f64>) {
    let i = tid();
    let k = 2.0;
    out[i] = x[i] * k;
}

#[test]
fn immutable_literal_locals_take_their_type_from_the_context() {
    for d in devices() {
        let x = Array::from_slice(d, &[2.0f64]);
        let mut out = Array::zeros(d, [1]);
        let_literals::launch(1, &x, &mut out).unwrap();
        assert_eq!(out.to_vec(), vec![4.0]);
    }
}

#[test]
fn every_kernel_here_has_ptx() {
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(
            springs,
            step_particles,
            with_params,
            control_flow,
            grid2,
            grid3,
            vectors_and_tuples,
            literals_and_casts,
            shadowing_and_scopes,
            library_funcs,
            energy,
            uses_energy,
            step_model,
            read_model,
            dynamic_components,
            if_value_literals,
            let_literals,
        ),
        &[],
    );
}

/// The "last one sums" pattern: each thread writes its value, fences, counts
/// itself in; the thread that arrives last fences and sums every value. Without
/// the fences the last thread could read a value another thread's cache still
/// held back.
#[weft::kernel]
fn last_one_sums(
    x: &Array<u32>,
    vals: &mut Array<u32>,
    count: &mut Array<u32>,
    total: &mut Array<u32>,
) {
    let i = tid();
    vals[i] = x[i] * 3 + 1;
    thread_fence();
    if atomic_add(&mut count[0], 1) == vals.len() as u32 - 1 {
        thread_fence();
        let mut s = 0;
        for k in 0..vals.len() {
            s += vals[k];
        }
        total[0] = s;
    }
}

#[test]
fn a_thread_fence_orders_writes_before_a_counter() {
    let n = 100_000u32;
    let x: Vec<u32> = (0..n).map(|i| i % 1000).collect();
    let want: u32 = x.iter().map(|v| v * 3 + 1).sum();
    for d in devices() {
        for _ in 0..3 {
            let xa = Array::from_slice(d, &x);
            let mut vals = Array::zeros(d, [n as usize]);
            let mut count = Array::zeros(d, [1]);
            let mut total = Array::zeros(d, [1]);
            last_one_sums::launch(n as usize, &xa, &mut vals, &mut count, &mut total).unwrap();
            assert_eq!(total.to_vec(), vec![want], "{d:?}");
            assert_eq!(count.to_vec(), vec![n], "{d:?}");
        }
    }
    assert!(last_one_sums::PTX.unwrap().contains("fence.acq_rel.gpu"));
}

/// `(a, b) = (b, a)` style swaps, nested tuples, `_`, struct fields and vector
/// components as places, and a func's tuple result assigned to existing variables.
#[weft::func]
fn div_rem(a: i32, b: i32) -> (i32, i32) {
    (a / b, a % b)
}

#[weft::kernel]
fn destructuring(out: &mut Array<Vec4>, ints: &mut Array<IVec2>) {
    let i = tid();
    let mut a = i as f32;
    let mut b = 10.0;
    (a, b) = (b, a);
    let mut v = Vec2::ZERO;
    let mut w = 0.0;
    ((v.x, w), _, v.y) = ((a + 1.0, b * 2.0), 7.0, -a);
    let mut q = 0;
    let mut r = 0;
    (q, r) = div_rem(i as i32 + 17, 5);
    let mut k = 0;
    while k < 3 {
        (q, r) = (r, q + r);
        k += 1;
    }
    out[i] = Vec4::new(a, b, v.x + v.y, w);
    ints[i] = IVec2::new(q, r);
}

#[test]
fn destructuring_assignment() {
    for d in devices() {
        let n = 6;
        let mut out = Array::zeros(d, [n]);
        let mut ints = Array::zeros(d, [n]);
        destructuring::launch(n, &mut out, &mut ints).unwrap();
        for (i, (o, v)) in out.to_vec().into_iter().zip(ints.to_vec()).enumerate() {
            let (a, b) = (10.0, i as f32);
            assert_eq!(o, Vec4::new(a, b, (a + 1.0) - a, b * 2.0), "{d:?} {i}");
            let (mut q, mut r) = ((i as i32 + 17) / 5, (i as i32 + 17) % 5);
            for _ in 0..3 {
                (q, r) = (r, q + r);
            }
            assert_eq!(v, IVec2::new(q, r), "{d:?} {i}");
        }
    }
}
