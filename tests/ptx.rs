//! The PTX back end without a GPU: every kernel here compiles to a PTX module whose
//! structure is checked; with `WEFT_PTXAS=/path/to/ptxas` each module is also
//! assembled for sm_90 (the check a driver's JIT would make).

use weft::prelude::*;

#[weft::kernel]
fn integrate(x: &mut Array<Vec3>, v: &mut Array<Vec3>, gravity: Vec3, dt: f32) {
    let i = tid();
    v[i] += gravity * dt;
    x[i] += v[i] * dt;
    if x[i].z < 0.0 {
        x[i].z = 0.0;
        v[i].z = -0.5 * v[i].z;
    }
}

#[weft::func]
fn spring(a: Vec3, b: Vec3, k: f32) -> Vec3 {
    (b - a) * k
}

#[weft::kernel]
fn control_flow(x: &Array<f32>, y: &mut Array<f32>, n: i32) {
    let i = tid();
    let mut s = 0.0;
    for k in 0..n {
        if k % 2 == 0 {
            continue;
        }
        s += x[i] * k as f32;
        if s > 100.0 {
            break;
        }
    }
    let mut j = 0;
    while j < 3 {
        s = s * 0.5;
        j += 1;
    }
    y[i] = s + length(spring(Vec3::ZERO, Vec3::ONE, 2.0));
}

#[weft::kernel]
fn grid2d(a: &mut Array<f64, 2>, q: &Array<Quat>, m: &Array<Mat3>, out: &mut Array<Vec3>) {
    let (i, j) = tid();
    a[i][j] = (i * 10 + j) as f64;
    if j == 0 {
        let r = q[i] * Vec3::X;
        out[i] = m[i] * r + normalize(cross(r, Vec3::Z));
        atomic_add(&mut a[0][0], 1.0);
    }
}

#[weft::kernel]
fn loss(x: &Array<Vec3>, target: Vec3, l: &mut Array<f32>) {
    let i = tid();
    let d = x[i] - target;
    atomic_add(&mut l[0], dot(d, d));
}

/// Assembles `ptx` with `$WEFT_PTXAS` (the shared policy: skipped without it, a
/// failure without it under `WEFT_REQUIRE_CUDA=1`), showing the PTX on failure.
fn ptxas(name: &str, ptx: &str) {
    if let Err(e) = weft_testkit::devices::ptxas(name, ptx) {
        panic!("{e}\n--- PTX ---\n{ptx}");
    }
}

fn check(name: &str, ptx: Result<&'static str, &'static str>) {
    let ptx = ptx.unwrap_or_else(|e| panic!("kernel `{name}` has no PTX: {e}"));
    assert!(ptx.contains(".version 8.0"), "{ptx}");
    assert!(ptx.contains(&format!(".visible .entry {name}(")), "{ptx}");
    // No approximate math and no fused multiply-adds of floats.
    assert!(!ptx.contains(".approx"), "{ptx}");
    assert!(!ptx.contains("fma."), "{ptx}");
    ptxas(name, ptx);
}

#[test]
fn kernels_compile_to_ptx() {
    check("integrate", integrate::PTX);
    check("control_flow", control_flow::PTX);
    check("grid2d", grid2d::PTX);
    check("loss", loss::PTX);
    if std::env::var("WEFT_PTX_PRINT").is_ok() {
        println!("{}", integrate::PTX.unwrap());
    }
}

#[test]
fn adjoints_compile_to_ptx() {
    use weft_testkit::bounce::{contact_forces, distance_loss, integrate as step};
    check("loss_adjoint", loss::ADJOINT_PTX);
    check("contact_forces", contact_forces::PTX);
    check("contact_forces_adjoint", contact_forces::ADJOINT_PTX);
    check("integrate", step::PTX);
    check("integrate_adjoint", step::ADJOINT_PTX);
    check("distance_loss_adjoint", distance_loss::ADJOINT_PTX);
}

#[test]
fn ptx_uses_exact_arithmetic_and_the_profiles_bounds_checks() {
    let p = integrate::PTX.unwrap();
    assert!(p.contains("add.rn.f32") && p.contains("mul.rn.f32"), "{p}");
    // Debug builds embed the bounds-checked variant, whose checks write the error
    // record instead of faulting; release builds embed the unchecked one (the
    // `#[weft::kernel]` expansion picks by `cfg!(debug_assertions)` of the crate that
    // defines the kernel, this test's), so each profile asserts its own variant.
    if cfg!(debug_assertions) {
        assert!(p.contains("atom.global.cas.b32"), "{p}");
    } else {
        assert!(
            !p.contains("atom.global.cas"),
            "release PTX kept bounds checks:\n{p}"
        );
    }
}

#[weft::kernel]
fn shared_k(x: &Array<f32>, k: &Array<f32>, y: &mut Array<f32>) {
    let i = tid();
    y[i] = x[i] * k[0];
}

#[test]
fn one_address_accumulation_is_summed_over_the_warp() {
    // `atomic_add(&mut l[0], ..)` whose old value is unused: warp sum first.
    let p = loss::PTX.unwrap();
    assert!(p.contains("vote.sync.all.pred"), "{p}");
    assert_eq!(p.matches("shfl.sync.bfly.b32").count(), 5, "{p}");
    // Then the warp's leader adds into the block's shared slot, flushed by one
    // thread at the exit after a barrier (zeroed at entry, after another).
    assert!(
        p.contains(".shared .align 8 .b8 __weft_red_loss[16];"),
        "{p}"
    );
    assert_eq!(p.matches("atom.shared.cas.b64").count(), 1, "{p}");
    assert_eq!(p.matches("red.shared.add.f32").count(), 1, "{p}");
    assert_eq!(p.matches("barrier.sync 0").count(), 2, "{p}");
    // The adjoint: `k`'s gradient funnels into one element at a literal index, so
    // each thread sums it in a register across its grid-stride iterations and goes
    // through the warp sum only at the exit (`red`s: the register path's for a
    // second element, the leader's into global memory when the slot is taken, the
    // per-lane path's, the flush's); `x`'s gradient is each thread's own element
    // (plain load, add, store).
    let a = shared_k::ADJOINT_PTX.unwrap();
    assert_eq!(a.matches("shfl.sync.bfly.b32").count(), 5, "{a}");
    assert_eq!(a.matches("red.global.add").count(), 4, "{a}");
    let label = |name: &str| {
        let line = a.lines().find(|l| l.starts_with(name) && l.ends_with(':'));
        a.find(line.unwrap()).unwrap()
    };
    let (exit, cache) = (label("$L_exit"), label("$L_cache_add"));
    assert!(
        cache < exit && a.find("shfl.sync.bfly").unwrap() > exit,
        "{a}"
    );
    assert_eq!(a.matches("red.shared.add").count(), 1, "{a}");
    check("shared_k_adjoint", shared_k::ADJOINT_PTX);
    // It loops with a grid stride, so it asks the L2 for the elements a few
    // strides ahead of x, x's gradient and y's gradient (the arrays it reads at the
    // thread's index; not k, read at 0). Kernels that do not loop do not.
    assert_eq!(a.matches("prefetch.global.L2").count(), 3, "{a}");
    assert!(!shared_k::PTX.unwrap().contains("prefetch"));
    // An adjoint that adds into its own elements of a gradient asks for its
    // current elements up front (x, and x's gradient it updates).
    let l = loss::ADJOINT_PTX.unwrap();
    assert_eq!(l.matches("prefetch.global.L2").count(), 2, "{l}");
}

#[test]
fn the_adjoint_stack_overflow_code_is_the_runtimes() {
    assert_eq!(
        weft_ir::emit_ptx::STACK_OVERFLOW_PARAM,
        weft::cuda::STACK_OVERFLOW_PARAM
    );
    assert_eq!(
        weft_ir::emit_ptx::LOCAL_ARRAY_PARAM,
        weft::cuda::LOCAL_ARRAY_PARAM
    );
}

#[test]
fn the_grid_dependency_mark_is_the_runtimes() {
    assert_eq!(
        weft_ir::emit_ptx::GRID_DEPENDENCY_MARK,
        weft::cuda::GRID_DEPENDENCY_MARK
    );
    // Every entry carries it once, before its first memory access.
    let p = shared_k::PTX.unwrap();
    let mark = p.find(weft::cuda::GRID_DEPENDENCY_MARK).unwrap();
    assert_eq!(p.matches(weft::cuda::GRID_DEPENDENCY_MARK).count(), 1);
    assert!(!p[..mark].contains("ld.global") && !p[..mark].contains("st.shared"));
}

#[weft::kernel]
fn fused_k(a: &Array<Vec3>, s: &Array<f64>, out: &mut Array<Vec3>, wide: &mut Array<f64>) {
    let i = tid();
    out[i] = fma(a[i], a[i], Vec3::ONE);
    wide[i] = fma(s[i], 3.0, s[i]);
}

#[test]
fn fma_is_the_only_fused_arithmetic() {
    let p = fused_k::PTX.unwrap();
    assert_eq!(p.matches("fma.rn.f32").count(), 3, "{p}");
    assert_eq!(p.matches("fma.rn.f64").count(), 1, "{p}");
    assert_eq!(p.matches("fma.").count(), 4, "{p}");
    ptxas("fused_k", p);
    // Its adjoint multiplies (`adj_fma`): `a * b + c` is never contracted.
    let adj = fused_k::ADJOINT_PTX.unwrap();
    assert!(
        adj.contains("mul.rn.f32") && adj.contains("mul.rn.f64"),
        "{adj}"
    );
    ptxas("fused_k_adjoint", adj);
}

/// A pure scalar func that reaches elementary functions.
#[weft::func]
fn heading(v: Vec3) -> f32 {
    atan2(v.y, v.x) + sin(v.z)
}

/// The same math on an array element: it touches memory.
#[weft::func]
fn heading_at(x: &Array<Vec3>, i: i32) -> f32 {
    atan2(x[i].y, x[i].x) + sin(x[i].z)
}

#[weft::kernel]
fn headings(v: &Array<Vec3>, out: &mut Array<f32>) {
    let i = tid();
    let mut s = 0.0;
    for k in 0..3 {
        s += heading(v[i] * (1.0 + 0.5 * s)) + heading_at(v, i) * s;
        if k == 2 {
            s = s * 0.5;
        }
    }
    out[i] = s;
}

#[test]
fn adjoints_call_pure_elementary_funcs_out_of_line() {
    let fwd = headings::PTX.unwrap();
    let adj = headings::ADJOINT_PTX.unwrap();
    // Forward kernels inline the user's funcs; only the rare Payne–Hanek
    // reduction of `sin` (arguments beyond ±400) is a `.func` there.
    assert!(!fwd.contains(" heading("), "{fwd}");
    assert!(fwd.contains(") __weft_h_rem_pio2_large_f32("), "{fwd}");
    assert!(fwd.contains("call.uni (__r), __weft_h_rem_pio2_large_f32, (__a0)"));
    // An adjoint calls the pure func's replays out of line (its own adjoint
    // stays inline), but not the one that reads an array.
    assert!(adj.contains(") heading("), "{adj}");
    assert!(adj.contains("call.uni (__r), heading, (__a0, __a1, __a2)"));
    assert!(!adj.contains(" heading_at("));
    check("headings", headings::PTX);
    ptxas("headings_adjoint", adj);
}
