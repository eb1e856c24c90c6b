//! Every differentiable builtin, differentiated at the kernel level — through the
//! generated adjoint kernel, the tape and arrays — against finite differences on random
//! inputs (proptest), inside the domain where the builtin is smooth.
//!
//! Each check launches a small kernel (one builtin, or one operator) over a batch of
//! independent elements (thread `i` reads element `i` of every input array and writes
//! element `i` of the output array), seeds the output's gradient with random weights
//! `w`, runs the adjoint through a [`Tape`], and compares the gradient of every input
//! component with the finite difference of the element's loss `Σ w·out` (five-point
//! stencil for f64 inputs, tolerance 1e-8; central differences for f32, 2e-3). The
//! elements are independent, so each launch of the stencil moves one component of
//! every element at once.
//!
//! Then: the special points (zero vectors, `sqrt(0)`, kinks of `min max clamp abs`,
//! non-differentiable values in a differentiable kernel), f32 kernels, a check that the
//! harness catches a wrong gradient, and a completeness check against
//! `weft_ir::builtins::BUILTINS`.
//!
//! `cargo test --test builtin_gradients -- --nocapture` prints the worst error of
//! every check; `PROPTEST_CASES=N` runs N random batches per check (default 32: about
//! 7 s for the whole file in a debug build on 2 busy cores, 4 s of CPU). A failing
//! batch's seed is saved next to this file (`builtin_gradients.proptest-regressions`)
//! and replayed first by every later run: commit it.

use proptest::prelude::*;
use weft::prelude::*;

// ---------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------

/// A value whose float components the checks read and perturb (as f64).
trait Flat: Copy + std::fmt::Debug {
    /// Number of float components.
    const N: usize;
    /// Whether the components are f64 (else f32): sets the finite-difference step.
    const F64: bool;
    /// All components zero.
    const ZERO: Self;
    fn get(&self, i: usize) -> f64;
    fn set(&mut self, i: usize, v: f64);
}

impl Flat for f64 {
    const N: usize = 1;
    const F64: bool = true;
    const ZERO: Self = 0.0;
    fn get(&self, _: usize) -> f64 {
        *self
    }
    fn set(&mut self, _: usize, v: f64) {
        *self = v;
    }
}

impl Flat for f32 {
    const N: usize = 1;
    const F64: bool = false;
    const ZERO: Self = 0.0;
    fn get(&self, _: usize) -> f64 {
        *self as f64
    }
    fn set(&mut self, _: usize, v: f64) {
        *self = v as f32;
    }
}

/// Types indexed by component: vectors and spatial vectors.
macro_rules! flat_indexed {
    ($($t:ident: $n:literal, $f64:literal;)*) => {$(
        impl Flat for $t {
            const N: usize = $n;
            const F64: bool = $f64;
            const ZERO: Self = $t::ZERO;
            fn get(&self, i: usize) -> f64 {
                self[i] as f64
            }
            fn set(&mut self, i: usize, v: f64) {
                self[i] = v as _;
            }
        }
    )*};
}
flat_indexed! {
    Vec2: 2, false; Vec3: 3, false; Vec4: 4, false;
    DVec2: 2, true; DVec3: 3, true; DVec4: 4, true;
    SpatialVector: 6, false; DSpatialVector: 6, true;
}

/// Matrices, column-major.
macro_rules! flat_matrix {
    ($($t:ident: $dim:literal, $f64:literal;)*) => {$(
        impl Flat for $t {
            const N: usize = $dim * $dim;
            const F64: bool = $f64;
            const ZERO: Self = $t::ZERO;
            fn get(&self, i: usize) -> f64 {
                self.col(i / $dim)[i % $dim] as f64
            }
            fn set(&mut self, i: usize, v: f64) {
                self.col_mut(i / $dim)[i % $dim] = v as _;
            }
        }
    )*};
}
flat_matrix! {
    Mat2: 2, false; Mat3: 3, false; Mat4: 4, false;
    DMat2: 2, true; DMat3: 3, true; DMat4: 4, true;
}

/// Quaternions `(x, y, z, w)`, transforms `(p, q)` and 6×6 spatial matrices (row-major).
macro_rules! flat_rigid {
    ($($q:ident, $t:ident, $sm:ident, $v:ident: $f64:literal;)*) => {$(
        impl Flat for $q {
            const N: usize = 4;
            const F64: bool = $f64;
            const ZERO: Self = $q::from_xyzw(0.0, 0.0, 0.0, 0.0);
            fn get(&self, i: usize) -> f64 {
                self.to_array()[i] as f64
            }
            fn set(&mut self, i: usize, v: f64) {
                let mut a = self.to_array();
                a[i] = v as _;
                *self = $q::from_array(a);
            }
        }

        impl Flat for $t {
            const N: usize = 7;
            const F64: bool = $f64;
            const ZERO: Self = $t::new($v::ZERO, <$q as Flat>::ZERO);
            fn get(&self, i: usize) -> f64 {
                if i < 3 { self.p[i] as f64 } else { self.q.get(i - 3) }
            }
            fn set(&mut self, i: usize, v: f64) {
                if i < 3 {
                    self.p[i] = v as _;
                } else {
                    self.q.set(i - 3, v);
                }
            }
        }

        impl Flat for $sm {
            const N: usize = 36;
            const F64: bool = $f64;
            const ZERO: Self = $sm::ZERO;
            fn get(&self, i: usize) -> f64 {
                self.m[i / 6][i % 6] as f64
            }
            fn set(&mut self, i: usize, v: f64) {
                self.m[i / 6][i % 6] = v as _;
            }
        }
    )*};
}
flat_rigid! {
    Quat, Transform, SpatialMatrix, Vec3: false;
    DQuat, DTransform, DSpatialMatrix, DVec3: true;
}

fn flatten<T: Flat>(values: &[T]) -> Vec<f64> {
    values
        .iter()
        .flat_map(|v| (0..T::N).map(move |c| v.get(c)))
        .collect()
}

fn unflatten<T: Flat>(x: &[f64]) -> Vec<T> {
    x.chunks(T::N)
        .map(|c| {
            let mut v = T::ZERO;
            for (i, &x) in c.iter().enumerate() {
                v.set(i, x);
            }
            v
        })
        .collect()
}

/// A batch of kernel inputs: one value, or a tuple with one value per input array.
trait Columns: Sized {
    /// The flattened components of each input array.
    fn columns(cases: &[Self]) -> Vec<Vec<f64>>;
}

impl<A: Flat> Columns for A {
    fn columns(cases: &[Self]) -> Vec<Vec<f64>> {
        vec![flatten(cases)]
    }
}

impl<A: Flat, B: Flat> Columns for (A, B) {
    fn columns(cases: &[Self]) -> Vec<Vec<f64>> {
        let a: Vec<A> = cases.iter().map(|c| c.0).collect();
        let b: Vec<B> = cases.iter().map(|c| c.1).collect();
        vec![flatten(&a), flatten(&b)]
    }
}

impl<A: Flat, B: Flat, C: Flat> Columns for (A, B, C) {
    fn columns(cases: &[Self]) -> Vec<Vec<f64>> {
        let a: Vec<A> = cases.iter().map(|c| c.0).collect();
        let b: Vec<B> = cases.iter().map(|c| c.1).collect();
        let c: Vec<C> = cases.iter().map(|c| c.2).collect();
        vec![flatten(&a), flatten(&b), flatten(&c)]
    }
}

/// Forward: device, element count and flattened inputs → flattened outputs.
type Forward = Box<dyn Fn(Device, usize, &[Vec<f64>]) -> Vec<f64>>;
/// Backward: device, element count, flattened inputs and output seed → flattened
/// input gradients.
type Backward = Box<dyn Fn(Device, usize, &[Vec<f64>], &[f64]) -> Vec<Vec<f64>>>;

/// An elementwise kernel `k(a: &Array<A>, b: &Array<B>, …, out: &mut Array<R>)` as
/// functions of flattened components.
struct Harness {
    name: &'static str,
    args: &'static [&'static str],
    /// (components, is f64) of each input.
    inputs: Vec<(usize, bool)>,
    /// Components of the output.
    out: usize,
    forward: Forward,
    backward: Backward,
    /// The kernel's PTX, or why the CUDA back end has none.
    ptx: Result<&'static str, &'static str>,
    /// The adjoint kernel's PTX, or why the CUDA back end has none.
    adjoint_ptx: Result<&'static str, &'static str>,
}

/// A kernel with a [`Harness`].
trait Checked {
    fn harness() -> Harness;
}

/// `impl Checked` for an elementwise kernel `name(a: &Array<A>, …, out: &mut Array<R>)`.
macro_rules! checked {
    ($name:ident($($a:ident: $t:ident),+) -> $r:ident) => {
        impl Checked for $name {
            fn harness() -> Harness {
                Harness {
                    name: concat!(module_path!(), "::", stringify!($name)),
                    args: &[$(stringify!($a)),+],
                    inputs: vec![$((<$t as Flat>::N, <$t as Flat>::F64)),+],
                    out: <$r as Flat>::N,
                    forward: Box::new(|d: Device, n: usize, x: &[Vec<f64>]| {
                        let mut k = 0..;
                        $(let $a = Array::from_vec(d, unflatten::<$t>(&x[k.next().unwrap()]));)+
                        let mut out = Array::<$r>::zeros(d, [n]);
                        $name::launch(n, $(&$a,)+ &mut out).unwrap();
                        flatten(&out.to_vec())
                    }),
                    backward: Box::new(|d: Device, n: usize, x: &[Vec<f64>], seed: &[f64]| {
                        let mut k = 0..;
                        $(let $a = Array::from_vec(d, unflatten::<$t>(&x[k.next().unwrap()])).requires_grad();)+
                        let mut out = Array::<$r>::zeros(d, [n]).requires_grad();
                        let mut tape = Tape::new();
                        tape.record(|| $name::launch(n, $(&$a,)+ &mut out)).unwrap();
                        tape.backward_from(&mut out, &unflatten::<$r>(seed)).unwrap();
                        vec![$(flatten(&$a.grad_to_vec().unwrap())),+]
                    }),
                    ptx: $name::PTX,
                    adjoint_ptx: $name::ADJOINT_PTX,
                }
            }
        }
    };
}

/// Elementwise kernels written as the expression of their inputs:
/// `fn name(a: A, b: B) -> R { expr }` becomes
/// `#[weft::kernel] fn name(a: &Array<A>, b: &Array<B>, out: &mut Array<R>)` computing
/// `out[i] = expr` from `a = a[i]`, `b = b[i]`, plus its [`Checked`] harness.
///
/// Each block also lists its kernels with their PTX in `const PTX_TABLE` (or the
/// name given as `table = NAME;` first), for the PTX check without a GPU.
macro_rules! kernels {
    (table = $table:ident; $($(#[$attr:meta])* fn $name:ident($($a:ident: $t:ident),+) -> $r:ident { $($body:tt)* })*) => {
        $(
            $(#[$attr])*
            #[weft::kernel]
            fn $name($($a: &Array<$t>,)+ out: &mut Array<$r>) {
                let i = tid();
                $(let $a = $a[i];)+
                out[i] = { $($body)* };
            }
            checked!($name($($a: $t),+) -> $r);
        )*
        /// This block's kernels: `(name, PTX, ADJOINT_PTX)`.
        pub(super) const $table: &[weft_testkit::devices::KernelPtx] =
            &[$((concat!(module_path!(), "::", stringify!($name)), $name::PTX, $name::ADJOINT_PTX)),*];
    };
    ($($body:tt)*) => {
        kernels! { table = PTX_TABLE; $($body)* }
    };
}

/// Tolerance of a check: the largest `|tape - fd| / max(|fd|, 1)`, and a relative
/// finite-difference step to use instead of the default.
#[derive(Clone, Copy, Debug)]
struct Tol {
    max_rel: f64,
    step: Option<f64>,
}

/// f64 inputs: the five-point stencil
/// `(f(x-2h) - 8f(x-h) + 8f(x+h) - f(x+2h)) / 12h` with `h ≈ 1e-4 max(|x|, 1)` is good
/// to ~`1.5 ε |f| / h + h⁴ f⁽⁵⁾ / 30 ≈ 1e-11` on these domains, so the check is tight
/// enough to see a rule computed in f32 (~1e-7).
const F64: Tol = Tol {
    max_rel: 1e-8,
    step: None,
};

/// f32 inputs: central differences with `h ≈ 2e-3 max(|x|, 1)` (as `weft::gradcheck`);
/// the loss's rounding (`ε₃₂ |f| / h ≈ 3e-5 |f|`) and truncation (`h² f''' / 6`) leave
/// ~1e-4.
const F32: Tol = Tol {
    max_rel: 2e-3,
    step: None,
};

/// Random output weights in ±[0.5, 1.5), fixed per position.
fn weights(n: usize) -> Vec<f64> {
    let r = weft_testkit::random_f32s(2 * n, 0x5eed, 0.0, 1.0);
    (0..n)
        .map(|i| {
            let m = 0.5 + r[2 * i] as f64;
            if r[2 * i + 1] < 0.5 { -m } else { m }
        })
        .collect()
}

/// The tape's gradients of `Σ seed·out` at `cases`, one flattened vector per input.
fn tape_grads<K: Checked, C: Columns>(cases: &[C], seed: &[f64]) -> Vec<Vec<f64>> {
    let h = K::harness();
    (h.backward)(Device::Cpu, cases.len(), &C::columns(cases), seed)
}

/// The kernel's outputs at `cases`, flattened.
fn outputs<K: Checked, C: Columns>(cases: &[C]) -> Vec<f64> {
    let h = K::harness();
    (h.forward)(Device::Cpu, cases.len(), &C::columns(cases))
}

/// The power of two nearest `x` (exact steps: `x ± h`, `x ± 2h` are representable).
fn pow2(x: f64) -> f64 {
    x.log2().round().exp2()
}

/// Compares the tape gradient of `Σ w·out` with finite differences, for every component
/// of every input of every element; returns the worst error. f64 inputs use the
/// five-point stencil (unless `tol.step` is given), f32 inputs central differences.
fn check<K: Checked, C: Columns + std::fmt::Debug>(
    cases: &[C],
    tol: Tol,
) -> Result<f64, TestCaseError> {
    let h = K::harness();
    let n = cases.len();
    let x = C::columns(cases);
    let w = weights(n * h.out);
    let grads = (h.backward)(Device::Cpu, n, &x, &w);
    cuda_parity(&h, &x, &w, &grads);
    let loss = |y: &[f64], i: usize| -> f64 {
        (0..h.out)
            .map(|o| w[i * h.out + o] * y[i * h.out + o])
            .sum()
    };
    let mut worst = 0.0f64;
    for (k, &(comps, is_f64)) in h.inputs.iter().enumerate() {
        let five_point = is_f64 && tol.step.is_none();
        let step = tol.step.unwrap_or(if is_f64 { 1e-4 } else { 2e-3 });
        let offsets: &[f64] = if five_point {
            &[-2.0, -1.0, 1.0, 2.0]
        } else {
            &[-1.0, 1.0]
        };
        for c in 0..comps {
            // Element `i`'s component moved by `o h`, representable in its type.
            let at = |i: usize, o: f64| -> f64 {
                let v = x[k][i * comps + c];
                let p = v + o * pow2(step * v.abs().max(1.0));
                if is_f64 { p } else { p as f32 as f64 }
            };
            // The loss of every element at each offset.
            let losses: Vec<Vec<f64>> = offsets
                .iter()
                .map(|&o| {
                    let mut xs = x.clone();
                    for i in 0..n {
                        xs[k][i * comps + c] = at(i, o);
                    }
                    let y = (h.forward)(Device::Cpu, n, &xs);
                    (0..n).map(|i| loss(&y, i)).collect()
                })
                .collect();
            for i in 0..n {
                let fd = if five_point {
                    let l = |s: usize| losses[s][i];
                    (l(0) - 8.0 * l(1) + 8.0 * l(2) - l(3)) / (12.0 * (at(i, 1.0) - at(i, 0.0)))
                } else {
                    (losses[1][i] - losses[0][i]) / (at(i, 1.0) - at(i, -1.0))
                };
                let tape = grads[k][i * comps + c];
                let err = (tape - fd).abs() / fd.abs().max(1.0);
                prop_assert!(
                    tape.is_finite() && err <= tol.max_rel,
                    "{}: d/d{}[{c}] of element {i} = {:?}: tape {tape:e}, finite difference {fd:e} (error {err:.2e} > {:.0e})",
                    h.name,
                    h.args[k],
                    cases[i],
                    tol.max_rel
                );
                worst = worst.max(err);
            }
        }
    }
    println!("{}: worst error {worst:.2e} ({n} elements)", h.name);
    Ok(worst)
}

/// With a GPU: the CUDA forward outputs and tape gradients at `x` against the CPU's
/// (`grads`), within the bounds of `weft_testkit::devices`. Adjoints the CUDA back
/// end cannot run are skipped with their reason.
fn cuda_parity(h: &Harness, x: &[Vec<f64>], w: &[f64], grads: &[Vec<f64>]) {
    let Some(d) = weft_testkit::devices::cuda() else {
        return;
    };
    if let Err(e) = h.ptx {
        println!("SKIPPED (CUDA, {}): {e}", h.name);
        return;
    }
    let n = x.first().map_or(0, |c| c.len() / h.inputs[0].0.max(1));
    let (c, g) = ((h.forward)(Device::Cpu, n, x), (h.forward)(d, n, x));
    weft_testkit::devices::assert_same(&format!("{} (CUDA forward)", h.name), &c, &g);
    match h.adjoint_ptx {
        Ok(_) => {
            let gg = (h.backward)(d, n, x, w);
            weft_testkit::devices::assert_grads(
                &format!("{} (CUDA gradients)", h.name),
                &grads.to_vec(),
                &gg,
            );
        }
        Err(e) => println!("SKIPPED (CUDA adjoint of {}): {e}", h.name),
    }
}

// ---------------------------------------------------------------------------------
// Input strategies
// ---------------------------------------------------------------------------------

fn cfg() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(32);
    ProptestConfig {
        cases,
        // Failing seeds go to `builtin_gradients.proptest-regressions` next to this file
        // (named explicitly: the default looks for a `src/lib.rs` this package lacks).
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    }
}

/// 4 to 8 elements per launch (with `cfg()`'s 32 cases: 128–256 inputs per builtin).
fn batch<S: Strategy>(s: S) -> impl Strategy<Value = Vec<S::Value>> {
    prop::collection::vec(s, 4..=8)
}

/// `±[gap, hi)`.
fn away(gap: f64, hi: f64) -> impl Strategy<Value = f64> + Clone {
    (gap..hi, any::<bool>()).prop_map(|(m, neg)| if neg { -m } else { m })
}

/// `k + f` for an integer `k` in `[lo, hi)` and `f` at least `margin` from 0 and 1.
fn off_integer(lo: i32, hi: i32, margin: f64) -> impl Strategy<Value = f64> {
    (lo..hi, margin..1.0 - margin).prop_map(|(k, f)| k as f64 + f)
}

/// Like [`off_integer`], and also `margin` away from the half-integers (`round`'s jumps).
fn off_half_integer(lo: i32, hi: i32, margin: f64) -> impl Strategy<Value = f64> {
    (lo..hi, margin..0.5 - margin, any::<bool>())
        .prop_map(|(k, f, upper)| k as f64 + f + if upper { 0.5 } else { 0.0 })
}

/// `(a, b)` with `|a - b| >= gap`: away from the kink of `min`/`max`.
fn distinct_pair(lo: f64, hi: f64, gap: f64) -> impl Strategy<Value = (f64, f64)> + Clone {
    (lo..hi, away(gap, 3.0)).prop_map(|(a, d)| (a, a + d))
}

/// `(x, lo, hi)` with `lo < hi` and `x` at least `gap` from both bounds (below, inside
/// and above all occur).
fn clamp_triple(gap: f64) -> impl Strategy<Value = (f64, f64, f64)> + Clone {
    (-4.0..4.0, -2.0..0.0, 0.5..3.0)
        .prop_map(|(x, lo, w): (f64, f64, f64)| (x, lo, lo + w))
        .prop_filter("away from the bounds", move |&(x, lo, hi)| {
            (x - lo).abs() > gap && (x - hi).abs() > gap
        })
}

/// `(a, b)` with `a / b` at least `margin` from an integer (the jumps of `a % b`).
fn rem_pair(
    a_max: f64,
    b_min: f64,
    b_max: f64,
    margin: f64,
) -> impl Strategy<Value = (f64, f64)> + Clone {
    (-a_max..a_max, away(b_min, b_max)).prop_filter("a / b away from integers", move |&(a, b)| {
        let q = (a / b).abs();
        let f = q - q.floor();
        f > margin && f < 1.0 - margin
    })
}

fn dvec2(lo: f64, hi: f64) -> impl Strategy<Value = DVec2> + Clone {
    (lo..hi, lo..hi).prop_map(|(x, y)| DVec2::new(x, y))
}

fn dvec3(lo: f64, hi: f64) -> impl Strategy<Value = DVec3> + Clone {
    (lo..hi, lo..hi, lo..hi).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn dvec4(lo: f64, hi: f64) -> impl Strategy<Value = DVec4> + Clone {
    (lo..hi, lo..hi, lo..hi, lo..hi).prop_map(|(x, y, z, w)| DVec4::new(x, y, z, w))
}

/// Components in `±[gap, hi)` (away from the kinks of `abs`, `sign`).
fn dvec3_away(gap: f64, hi: f64) -> impl Strategy<Value = DVec3> + Clone {
    (away(gap, hi), away(gap, hi), away(gap, hi)).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

/// Random vectors no shorter than `min_len` (smooth `length`, `normalize`).
fn dvec3_long(min_len: f64) -> impl Strategy<Value = DVec3> + Clone {
    dvec3(-3.0, 3.0).prop_filter("long enough", move |v| v.length() >= min_len)
}

/// Unit quaternions: random axis, angle in (-π, π).
fn unit_dquat() -> impl Strategy<Value = DQuat> + Clone {
    (dvec3_long(0.1), -3.1..3.1)
        .prop_map(|(axis, angle)| DQuat::from_axis_angle(axis.normalize(), angle))
}

/// Any quaternion of length in [0.5, 2].
fn dquat() -> impl Strategy<Value = DQuat> + Clone {
    dvec4(-1.5, 1.5)
        .prop_filter("length in [0.5, 2]", |v| (0.5..=2.0).contains(&v.length()))
        .prop_map(DQuat::from_vec4)
}

fn dmat2(lo: f64, hi: f64) -> impl Strategy<Value = DMat2> + Clone {
    (dvec2(lo, hi), dvec2(lo, hi)).prop_map(|(a, b)| DMat2::from_cols(a, b))
}

fn dmat3(lo: f64, hi: f64) -> impl Strategy<Value = DMat3> + Clone {
    (dvec3(lo, hi), dvec3(lo, hi), dvec3(lo, hi)).prop_map(|(a, b, c)| DMat3::from_cols(a, b, c))
}

fn dmat4(lo: f64, hi: f64) -> impl Strategy<Value = DMat4> + Clone {
    (dvec4(lo, hi), dvec4(lo, hi), dvec4(lo, hi), dvec4(lo, hi))
        .prop_map(|(a, b, c, d)| DMat4::from_cols(a, b, c, d))
}

/// `±2 I + 0.4 R`, `R` in [-1, 1]: diagonally dominant, so `|det|` and the smallest
/// singular value stay away from 0 (smooth `inverse`).
fn well_conditioned2() -> impl Strategy<Value = DMat2> + Clone {
    (dmat2(-0.4, 0.4), any::<bool>())
        .prop_map(|(m, neg)| m + DMat2::IDENTITY * if neg { -2.0 } else { 2.0 })
}

fn well_conditioned3() -> impl Strategy<Value = DMat3> + Clone {
    (dmat3(-0.4, 0.4), any::<bool>())
        .prop_map(|(m, neg)| m + DMat3::IDENTITY * if neg { -2.0 } else { 2.0 })
}

fn well_conditioned4() -> impl Strategy<Value = DMat4> + Clone {
    (dmat4(-0.4, 0.4), any::<bool>())
        .prop_map(|(m, neg)| m + DMat4::IDENTITY * if neg { -2.0 } else { 2.0 })
}

/// Whether `quat_from_matrix`'s branch (Shepperd: the trace's sign, then the largest
/// diagonal element) is at least `margin` from switching at `m`.
fn shepperd_margin(m: DMat3, margin: f64) -> bool {
    let d = [m.x_axis.x, m.y_axis.y, m.z_axis.z];
    let t = d[0] + d[1] + d[2];
    if t.abs() < margin {
        return false;
    }
    if t >= 0.0 {
        return true;
    }
    let mut s = d;
    s.sort_by(f64::total_cmp);
    s[2] - s[1] > margin
}

/// Rotation matrices plus a little noise (`quat_from_matrix` is differentiated off the
/// rotations too), away from branch switches.
fn near_rotation() -> impl Strategy<Value = DMat3> + Clone {
    (unit_dquat(), dmat3(-0.02, 0.02))
        .prop_map(|(q, noise)| DMat3::from_quat(q) + noise)
        .prop_filter("away from a branch switch", |m| shepperd_margin(*m, 0.05))
}

fn dtransform() -> impl Strategy<Value = DTransform> + Clone {
    (dvec3(-2.0, 2.0), unit_dquat()).prop_map(|(p, q)| DTransform::new(p, q))
}

fn dspatial(lo: f64, hi: f64) -> impl Strategy<Value = DSpatialVector> + Clone {
    (dvec3(lo, hi), dvec3(lo, hi)).prop_map(|(a, b)| DSpatialVector::new(a, b))
}

fn dspatial_matrix() -> impl Strategy<Value = DSpatialMatrix> + Clone {
    prop::array::uniform6(prop::array::uniform6(-1.0..1.0f64)).prop_map(DSpatialMatrix::from_rows)
}

fn vec3(lo: f32, hi: f32) -> impl Strategy<Value = Vec3> + Clone {
    (lo..hi, lo..hi, lo..hi).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn vec4(lo: f32, hi: f32) -> impl Strategy<Value = Vec4> + Clone {
    (lo..hi, lo..hi, lo..hi, lo..hi).prop_map(|(x, y, z, w)| Vec4::new(x, y, z, w))
}

fn unit_quat() -> impl Strategy<Value = Quat> + Clone {
    unit_dquat().prop_map(|q| q.as_quat())
}

// ---------------------------------------------------------------------------------
// Scalar math (f64)
// ---------------------------------------------------------------------------------

mod scalar {
    use super::*;

    /// The builtins checked here.
    pub const COVERED: &[&str] = &[
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp",
        "exp2", "log", "log2", "log10", "pow", "sqrt", "cbrt", "floor", "ceil", "round", "trunc",
        "abs", "sign", "min", "max", "clamp", "fma",
    ];

    kernels! {
        fn sin_k(x: f64) -> f64 { sin(x) }
        fn cos_k(x: f64) -> f64 { cos(x) }
        fn tan_k(x: f64) -> f64 { tan(x) }
        fn asin_k(x: f64) -> f64 { asin(x) }
        fn acos_k(x: f64) -> f64 { acos(x) }
        fn atan_k(x: f64) -> f64 { atan(x) }
        fn atan2_k(y: f64, x: f64) -> f64 { atan2(y, x) }
        fn sinh_k(x: f64) -> f64 { sinh(x) }
        fn cosh_k(x: f64) -> f64 { cosh(x) }
        fn tanh_k(x: f64) -> f64 { tanh(x) }
        fn exp_k(x: f64) -> f64 { exp(x) }
        fn exp2_k(x: f64) -> f64 { exp2(x) }
        fn log_k(x: f64) -> f64 { log(x) }
        fn log2_k(x: f64) -> f64 { log2(x) }
        fn log10_k(x: f64) -> f64 { log10(x) }
        fn pow_k(x: f64, y: f64) -> f64 { pow(x, y) }
        fn sqrt_k(x: f64) -> f64 { sqrt(x) }
        fn cbrt_k(x: f64) -> f64 { cbrt(x) }
        fn floor_k(x: f64) -> f64 { floor(x) }
        fn ceil_k(x: f64) -> f64 { ceil(x) }
        fn round_k(x: f64) -> f64 { round(x) }
        fn trunc_k(x: f64) -> f64 { trunc(x) }
        fn abs_k(x: f64) -> f64 { abs(x) }
        fn sign_k(x: f64) -> f64 { sign(x) }
        fn min_k(a: f64, b: f64) -> f64 { min(a, b) }
        fn max_k(a: f64, b: f64) -> f64 { max(a, b) }
        fn clamp_k(x: f64, lo: f64, hi: f64) -> f64 { clamp(x, lo, hi) }
        fn fma_k(a: f64, b: f64, c: f64) -> f64 { fma(a, b, c) }
        /// Method syntax lowers to the same builtins (`powf` and `powi` to `pow`,
        /// `ln` to `log`); `powi` allows a negative base.
        fn methods_k(x: f64, y: f64) -> f64 { x.abs().powf(y) + x.powi(3) + (x * x + 0.5).ln() + x.sin().exp() }
    }

    proptest! {
        #![proptest_config(cfg())]

        #[test] fn sin_(c in batch(-6.0..6.0f64)) { check::<sin_k, _>(&c, F64)?; }
        #[test] fn cos_(c in batch(-6.0..6.0f64)) { check::<cos_k, _>(&c, F64)?; }
        #[test] fn tan_(c in batch(-1.3..1.3f64)) { check::<tan_k, _>(&c, F64)?; }
        #[test] fn asin_(c in batch(-0.95..0.95f64)) { check::<asin_k, _>(&c, F64)?; }
        #[test] fn acos_(c in batch(-0.95..0.95f64)) { check::<acos_k, _>(&c, F64)?; }
        #[test] fn atan_(c in batch(-10.0..10.0f64)) { check::<atan_k, _>(&c, F64)?; }
        // `y` away from 0: off the branch cut (`x < 0`, `y = 0`) and the origin.
        #[test] fn atan2_(c in batch((away(0.05, 3.0), -3.0..3.0f64))) { check::<atan2_k, _>(&c, F64)?; }
        #[test] fn sinh_(c in batch(-4.0..4.0f64)) { check::<sinh_k, _>(&c, F64)?; }
        #[test] fn cosh_(c in batch(-4.0..4.0f64)) { check::<cosh_k, _>(&c, F64)?; }
        #[test] fn tanh_(c in batch(-4.0..4.0f64)) { check::<tanh_k, _>(&c, F64)?; }
        #[test] fn exp_(c in batch(-5.0..5.0f64)) { check::<exp_k, _>(&c, F64)?; }
        #[test] fn exp2_(c in batch(-6.0..6.0f64)) { check::<exp2_k, _>(&c, F64)?; }
        #[test] fn log_(c in batch(0.05..20.0f64)) { check::<log_k, _>(&c, F64)?; }
        #[test] fn log2_(c in batch(0.05..20.0f64)) { check::<log2_k, _>(&c, F64)?; }
        #[test] fn log10_(c in batch(0.05..20.0f64)) { check::<log10_k, _>(&c, F64)?; }
        #[test] fn pow_(c in batch((0.1..4.0f64, -3.0..3.0f64))) { check::<pow_k, _>(&c, F64)?; }
        #[test] fn sqrt_(c in batch(0.05..20.0f64)) { check::<sqrt_k, _>(&c, F64)?; }
        #[test] fn cbrt_(c in batch(away(0.05, 20.0))) { check::<cbrt_k, _>(&c, F64)?; }
        #[test] fn floor_(c in batch(off_integer(-5, 5, 0.02))) { check::<floor_k, _>(&c, F64)?; }
        #[test] fn ceil_(c in batch(off_integer(-5, 5, 0.02))) { check::<ceil_k, _>(&c, F64)?; }
        #[test] fn round_(c in batch(off_half_integer(-5, 5, 0.02))) { check::<round_k, _>(&c, F64)?; }
        #[test] fn trunc_(c in batch(off_integer(-5, 5, 0.02))) { check::<trunc_k, _>(&c, F64)?; }
        #[test] fn abs_(c in batch(away(0.01, 5.0))) { check::<abs_k, _>(&c, F64)?; }
        #[test] fn sign_(c in batch(away(0.01, 5.0))) { check::<sign_k, _>(&c, F64)?; }
        #[test] fn min_(c in batch(distinct_pair(-4.0, 4.0, 0.01))) { check::<min_k, _>(&c, F64)?; }
        #[test] fn max_(c in batch(distinct_pair(-4.0, 4.0, 0.01))) { check::<max_k, _>(&c, F64)?; }
        #[test] fn clamp_(c in batch(clamp_triple(0.01))) { check::<clamp_k, _>(&c, F64)?; }
        #[test] fn fma_(c in batch((-4.0..4.0f64, -4.0..4.0f64, -4.0..4.0f64))) { check::<fma_k, _>(&c, F64)?; }
        #[test] fn methods(c in batch((away(0.1, 2.0), -2.0..2.0f64))) { check::<methods_k, _>(&c, F64)?; }
    }
}

// ---------------------------------------------------------------------------------
// Operators and casts (f64 scalars)
// ---------------------------------------------------------------------------------

mod operators {
    use super::*;

    kernels! {
        fn add_k(a: f64, b: f64) -> f64 { a + b }
        fn sub_k(a: f64, b: f64) -> f64 { a - b }
        fn mul_k(a: f64, b: f64) -> f64 { a * b }
        fn div_k(a: f64, b: f64) -> f64 { a / b }
        /// `a - trunc(a / b) b`: d/db is `-trunc(a / b)` between the jumps.
        fn rem_k(a: f64, b: f64) -> f64 { a % b }
        fn neg_k(a: f64) -> f64 { -a }
        /// Compound assignment operators.
        fn compound_k(a: f64, b: f64) -> f64 {
            let mut s = a;
            s += b;
            s *= a;
            s -= b * b;
            s /= 2.0 + b * b;
            s
        }
        /// `f64 -> f32`: the kernel works in f32 (checked with an f32-sized step).
        fn cast_to_f32_k(x: f64) -> f32 { sin(x as f32) * (x as f32) }
        /// `f32 -> f64`.
        fn cast_to_f64_k(x: f32) -> f64 { exp(x as f64 * 0.5) * (x as f64) }
    }

    proptest! {
        #![proptest_config(cfg())]

        #[test] fn add(c in batch((-5.0..5.0f64, -5.0..5.0f64))) { check::<add_k, _>(&c, F64)?; }
        #[test] fn sub(c in batch((-5.0..5.0f64, -5.0..5.0f64))) { check::<sub_k, _>(&c, F64)?; }
        #[test] fn mul(c in batch((-5.0..5.0f64, -5.0..5.0f64))) { check::<mul_k, _>(&c, F64)?; }
        #[test] fn div(c in batch((-5.0..5.0f64, away(0.2, 5.0)))) { check::<div_k, _>(&c, F64)?; }
        #[test] fn rem(c in batch(rem_pair(10.0, 0.5, 3.0, 0.03))) { check::<rem_k, _>(&c, F64)?; }
        #[test] fn neg(c in batch(-5.0..5.0f64)) { check::<neg_k, _>(&c, F64)?; }
        #[test] fn compound(c in batch((-3.0..3.0f64, -3.0..3.0f64))) { check::<compound_k, _>(&c, F64)?; }
        #[test] fn cast_to_f32(c in batch(-3.0..3.0f64)) {
            // The output is f32: a step of 1e-3 keeps its rounding (~1e-7) small
            // against the step.
            check::<cast_to_f32_k, _>(&c, Tol { max_rel: 1e-3, step: Some(1e-3) })?;
        }
        #[test] fn cast_to_f64(c in batch(-3.0..3.0f32)) { check::<cast_to_f64_k, _>(&c, F32)?; }
    }
}

// ---------------------------------------------------------------------------------
// Vectors (DVec2, DVec3, DVec4; the quaternion and spatial overloads are in their
// families)
// ---------------------------------------------------------------------------------

mod vector {
    use super::*;

    pub const COVERED: &[&str] = &[
        "dot",
        "cross",
        "length",
        "length_sq",
        "normalize",
        "outer",
        "abs",
        "sign",
        "min",
        "max",
        "clamp",
        "fma",
    ];

    kernels! {
        fn dot2_k(a: DVec2, b: DVec2) -> f64 { dot(a, b) }
        fn dot3_k(a: DVec3, b: DVec3) -> f64 { dot(a, b) }
        fn dot4_k(a: DVec4, b: DVec4) -> f64 { a.dot(b) }
        fn cross_k(a: DVec3, b: DVec3) -> DVec3 { cross(a, b) }
        fn length2_k(a: DVec2) -> f64 { length(a) }
        fn length3_k(a: DVec3) -> f64 { length(a) }
        fn length4_k(a: DVec4) -> f64 { a.length() }
        fn length_sq2_k(a: DVec2) -> f64 { length_sq(a) }
        fn length_sq3_k(a: DVec3) -> f64 { length_sq(a) }
        fn length_sq4_k(a: DVec4) -> f64 { a.length_squared() }
        fn normalize2_k(a: DVec2) -> DVec2 { normalize(a) }
        fn normalize3_k(a: DVec3) -> DVec3 { normalize(a) }
        fn normalize4_k(a: DVec4) -> DVec4 { a.normalize() }
        fn outer2_k(a: DVec2, b: DVec2) -> DMat2 { outer(a, b) }
        fn outer3_k(a: DVec3, b: DVec3) -> DMat3 { outer(a, b) }
        fn outer4_k(a: DVec4, b: DVec4) -> DMat4 { outer(a, b) }
        fn abs_k(a: DVec3) -> DVec3 { abs(a) }
        fn sign_k(a: DVec3) -> DVec3 { sign(a) }
        fn min_k(a: DVec3, b: DVec3) -> DVec3 { min(a, b) }
        fn max_k(a: DVec3, b: DVec3) -> DVec3 { max(a, b) }
        fn clamp_k(x: DVec3, lo: DVec3, hi: DVec3) -> DVec3 { clamp(x, lo, hi) }
        fn fma_k(a: DVec3, b: DVec3, c: DVec3) -> DVec3 { fma(a, b, c) }
        // Operators, componentwise and with scalars.
        fn add_k(a: DVec3, b: DVec3) -> DVec3 { a + b }
        fn sub_k(a: DVec3, b: DVec3) -> DVec3 { a - b }
        fn mul_k(a: DVec3, b: DVec3) -> DVec3 { a * b }
        fn div_k(a: DVec3, b: DVec3) -> DVec3 { a / b }
        fn rem_k(a: DVec3, b: DVec3) -> DVec3 { a % b }
        fn neg_k(a: DVec3) -> DVec3 { -a }
        fn scale_k(a: DVec3, s: f64) -> DVec3 { a * s }
        fn scale_left_k(s: f64, a: DVec3) -> DVec3 { s * a }
        fn div_scalar_k(a: DVec3, s: f64) -> DVec3 { a / s }
        fn rem_scalar_k(a: DVec3, s: f64) -> DVec3 { a % s }
        fn mul4_k(a: DVec4, b: DVec4) -> DVec4 { a * b / (b * b + DVec4::ONE) - a }
        fn rem4_k(a: DVec4, b: DVec4) -> DVec4 { a % b }
        fn ops2_k(a: DVec2, s: f64) -> DVec2 { (a * s - a / (s * s + 1.0)) * 2.0 + -a }
        /// Constructors, splats and components (`v.x`, `v[i]`).
        fn components_k(a: DVec3, s: f64) -> DVec4 {
            let v = DVec3::new(a.y * s, a[2], a.x) + DVec3::splat(s);
            DVec4::new(v.x, v.y * v.z, a[0] * s, s)
        }
        /// Component writes (`v.y = …`, `v[j] = …`) and reads at run-time indices.
        fn component_writes_k(a: DVec3, s: f64) -> DVec3 {
            let mut v = a * s;
            v.y = v.x * a.z;
            v.z += s * v.y;
            for j in 0..3 {
                v[j] = v[j] * a[(j + 1) % 3] + a[j];
            }
            v
        }
        fn piecewise2_k(a: DVec2, b: DVec2) -> DVec2 {
            clamp(min(a, b) * 2.0, -DVec2::ONE, max(a, b)) + abs(a) + sign(b)
        }
        fn piecewise4_k(a: DVec4, b: DVec4) -> DVec4 {
            clamp(min(a, b) * 2.0, -DVec4::ONE, max(a, b)) + abs(a) + sign(b)
        }
    }

    /// Whether `a`, `b`, `2 min(a, b)`, `-1` and `max(a, b)` are at least `gap` apart
    /// where they meet in `min`, `max`, `clamp`, `abs`, `sign` (componentwise).
    pub fn off_piecewise_kinks(a: &[f64], b: &[f64], gap: f64) -> bool {
        a.iter().zip(b).all(|(&a, &b)| {
            let (lo, hi) = (2.0 * a.min(b), a.max(b));
            (a - b).abs() > gap
                && (lo + 1.0).abs() > gap
                && (lo - hi).abs() > gap
                && a.abs() > gap
                && b.abs() > gap
        })
    }

    fn rem_vectors() -> impl Strategy<Value = (DVec3, DVec3)> {
        (
            rem_pair(8.0, 0.5, 3.0, 0.03),
            rem_pair(8.0, 0.5, 3.0, 0.03),
            rem_pair(8.0, 0.5, 3.0, 0.03),
        )
            .prop_map(|(x, y, z)| (DVec3::new(x.0, y.0, z.0), DVec3::new(x.1, y.1, z.1)))
    }

    fn rem_vectors4() -> impl Strategy<Value = (DVec4, DVec4)> {
        let p = rem_pair(8.0, 0.5, 3.0, 0.03);
        (p.clone(), p.clone(), p.clone(), p).prop_map(|(x, y, z, w)| {
            (
                DVec4::new(x.0, y.0, z.0, w.0),
                DVec4::new(x.1, y.1, z.1, w.1),
            )
        })
    }

    /// `a % s` with every component of `a / s` away from an integer.
    fn rem_vector_scalar() -> impl Strategy<Value = (DVec3, f64)> {
        (dvec3(-8.0, 8.0), away(0.5, 3.0)).prop_filter("a / s away from integers", |(a, s)| {
            (*a / *s).to_array().iter().all(|q| {
                let f = q.abs() - q.abs().floor();
                f > 0.03 && f < 0.97
            })
        })
    }

    fn distinct_vectors() -> impl Strategy<Value = (DVec3, DVec3)> {
        let p = distinct_pair(-4.0, 4.0, 0.01);
        (p.clone(), p.clone(), p)
            .prop_map(|(x, y, z)| (DVec3::new(x.0, y.0, z.0), DVec3::new(x.1, y.1, z.1)))
    }

    fn clamp_vectors() -> impl Strategy<Value = (DVec3, DVec3, DVec3)> {
        let t = clamp_triple(0.01);
        (t.clone(), t.clone(), t).prop_map(|(x, y, z)| {
            (
                DVec3::new(x.0, y.0, z.0),
                DVec3::new(x.1, y.1, z.1),
                DVec3::new(x.2, y.2, z.2),
            )
        })
    }

    fn long2() -> impl Strategy<Value = DVec2> {
        dvec2(-3.0, 3.0).prop_filter("long enough", |v| v.length() >= 0.3)
    }

    fn long4() -> impl Strategy<Value = DVec4> {
        dvec4(-3.0, 3.0).prop_filter("long enough", |v| v.length() >= 0.3)
    }

    fn nonzero3() -> impl Strategy<Value = DVec3> {
        dvec3_away(0.2, 4.0)
    }

    proptest! {
        #![proptest_config(cfg())]

        #[test] fn dot2(c in batch((dvec2(-3.0, 3.0), dvec2(-3.0, 3.0)))) { check::<dot2_k, _>(&c, F64)?; }
        #[test] fn dot3(c in batch((dvec3(-3.0, 3.0), dvec3(-3.0, 3.0)))) { check::<dot3_k, _>(&c, F64)?; }
        #[test] fn dot4(c in batch((dvec4(-3.0, 3.0), dvec4(-3.0, 3.0)))) { check::<dot4_k, _>(&c, F64)?; }
        #[test] fn cross_(c in batch((dvec3(-3.0, 3.0), dvec3(-3.0, 3.0)))) { check::<cross_k, _>(&c, F64)?; }
        #[test] fn length2(c in batch(long2())) { check::<length2_k, _>(&c, F64)?; }
        #[test] fn length3(c in batch(dvec3_long(0.3))) { check::<length3_k, _>(&c, F64)?; }
        #[test] fn length4(c in batch(long4())) { check::<length4_k, _>(&c, F64)?; }
        #[test] fn length_sq2(c in batch(dvec2(-3.0, 3.0))) { check::<length_sq2_k, _>(&c, F64)?; }
        #[test] fn length_sq3(c in batch(dvec3(-3.0, 3.0))) { check::<length_sq3_k, _>(&c, F64)?; }
        #[test] fn length_sq4(c in batch(dvec4(-3.0, 3.0))) { check::<length_sq4_k, _>(&c, F64)?; }
        #[test] fn normalize2(c in batch(long2())) { check::<normalize2_k, _>(&c, F64)?; }
        #[test] fn normalize3(c in batch(dvec3_long(0.3))) { check::<normalize3_k, _>(&c, F64)?; }
        #[test] fn normalize4(c in batch(long4())) { check::<normalize4_k, _>(&c, F64)?; }
        #[test] fn outer2(c in batch((dvec2(-3.0, 3.0), dvec2(-3.0, 3.0)))) { check::<outer2_k, _>(&c, F64)?; }
        #[test] fn outer3(c in batch((dvec3(-3.0, 3.0), dvec3(-3.0, 3.0)))) { check::<outer3_k, _>(&c, F64)?; }
        #[test] fn outer4(c in batch((dvec4(-3.0, 3.0), dvec4(-3.0, 3.0)))) { check::<outer4_k, _>(&c, F64)?; }
        #[test] fn abs_(c in batch(dvec3_away(0.01, 4.0))) { check::<abs_k, _>(&c, F64)?; }
        #[test] fn sign_(c in batch(dvec3_away(0.01, 4.0))) { check::<sign_k, _>(&c, F64)?; }
        #[test] fn min_(c in batch(distinct_vectors())) { check::<min_k, _>(&c, F64)?; }
        #[test] fn max_(c in batch(distinct_vectors())) { check::<max_k, _>(&c, F64)?; }
        #[test] fn clamp_(c in batch(clamp_vectors())) { check::<clamp_k, _>(&c, F64)?; }
        #[test] fn fma_(c in batch((dvec3(-3.0, 3.0), dvec3(-3.0, 3.0), dvec3(-3.0, 3.0)))) { check::<fma_k, _>(&c, F64)?; }
        #[test] fn add(c in batch((dvec3(-3.0, 3.0), dvec3(-3.0, 3.0)))) { check::<add_k, _>(&c, F64)?; }
        #[test] fn sub(c in batch((dvec3(-3.0, 3.0), dvec3(-3.0, 3.0)))) { check::<sub_k, _>(&c, F64)?; }
        #[test] fn mul(c in batch((dvec3(-3.0, 3.0), dvec3(-3.0, 3.0)))) { check::<mul_k, _>(&c, F64)?; }
        #[test] fn div(c in batch((dvec3(-3.0, 3.0), nonzero3()))) { check::<div_k, _>(&c, F64)?; }
        #[test] fn rem(c in batch(rem_vectors())) { check::<rem_k, _>(&c, F64)?; }
        #[test] fn neg(c in batch(dvec3(-3.0, 3.0))) { check::<neg_k, _>(&c, F64)?; }
        #[test] fn scale(c in batch((dvec3(-3.0, 3.0), -3.0..3.0f64))) { check::<scale_k, _>(&c, F64)?; }
        #[test] fn scale_left(c in batch((-3.0..3.0f64, dvec3(-3.0, 3.0)))) { check::<scale_left_k, _>(&c, F64)?; }
        #[test] fn div_scalar(c in batch((dvec3(-3.0, 3.0), away(0.2, 3.0)))) { check::<div_scalar_k, _>(&c, F64)?; }
        #[test] fn rem_scalar(c in batch(rem_vector_scalar())) { check::<rem_scalar_k, _>(&c, F64)?; }
        #[test] fn mul4(c in batch((dvec4(-3.0, 3.0), dvec4(-3.0, 3.0)))) { check::<mul4_k, _>(&c, F64)?; }
        #[test] fn rem4(c in batch(rem_vectors4())) { check::<rem4_k, _>(&c, F64)?; }
        #[test] fn ops2(c in batch((dvec2(-3.0, 3.0), -3.0..3.0f64))) { check::<ops2_k, _>(&c, F64)?; }
        #[test] fn components(c in batch((dvec3(-3.0, 3.0), -3.0..3.0f64))) { check::<components_k, _>(&c, F64)?; }
        #[test] fn component_writes(c in batch((dvec3(-3.0, 3.0), -3.0..3.0f64))) { check::<component_writes_k, _>(&c, F64)?; }
        #[test] fn piecewise2(c in batch((dvec2(-3.0, 3.0), dvec2(-3.0, 3.0)).prop_filter("off kinks", |(a, b)| off_piecewise_kinks(&a.to_array(), &b.to_array(), 0.01)))) {
            check::<piecewise2_k, _>(&c, F64)?;
        }
        #[test] fn piecewise4(c in batch((dvec4(-3.0, 3.0), dvec4(-3.0, 3.0)).prop_filter("off kinks", |(a, b)| off_piecewise_kinks(&a.to_array(), &b.to_array(), 0.01)))) {
            check::<piecewise4_k, _>(&c, F64)?;
        }
    }
}

// ---------------------------------------------------------------------------------
// Matrices (DMat2, DMat3, DMat4)
// ---------------------------------------------------------------------------------

mod matrix {
    use super::*;

    pub const COVERED: &[&str] = &[
        "transpose",
        "determinant",
        "inverse",
        "trace",
        "diag",
        "skew",
        "outer",
    ];

    kernels! {
        fn transpose2_k(m: DMat2) -> DMat2 { transpose(m) }
        fn transpose3_k(m: DMat3) -> DMat3 { transpose(m) }
        fn transpose4_k(m: DMat4) -> DMat4 { m.transpose() }
        fn determinant2_k(m: DMat2) -> f64 { determinant(m) }
        fn determinant3_k(m: DMat3) -> f64 { determinant(m) }
        fn determinant4_k(m: DMat4) -> f64 { m.determinant() }
        fn inverse2_k(m: DMat2) -> DMat2 { inverse(m) }
        fn inverse3_k(m: DMat3) -> DMat3 { inverse(m) }
        fn inverse4_k(m: DMat4) -> DMat4 { m.inverse() }
        fn trace2_k(m: DMat2) -> f64 { trace(m) }
        fn trace3_k(m: DMat3) -> f64 { trace(m) }
        fn trace4_k(m: DMat4) -> f64 { trace(m) }
        fn diag2_k(v: DVec2) -> DMat2 { diag(v) }
        fn diag3_k(v: DVec3) -> DMat3 { diag(v) }
        fn diag4_k(v: DVec4) -> DMat4 { DMat4::from_diagonal(v) }
        fn skew_k(v: DVec3) -> DMat3 { skew(v) }
        // Operators.
        fn matmul2_k(a: DMat2, b: DMat2) -> DMat2 { a * b }
        fn matmul3_k(a: DMat3, b: DMat3) -> DMat3 { a * b }
        fn matmul4_k(a: DMat4, b: DMat4) -> DMat4 { a * b }
        fn matvec2_k(m: DMat2, v: DVec2) -> DVec2 { m * v }
        fn matvec3_k(m: DMat3, v: DVec3) -> DVec3 { m * v }
        fn matvec4_k(m: DMat4, v: DVec4) -> DVec4 { m * v }
        fn add_k(a: DMat3, b: DMat3) -> DMat3 { a + b }
        fn sub_k(a: DMat3, b: DMat3) -> DMat3 { a - b }
        fn neg_k(a: DMat3) -> DMat3 { -a }
        fn scale_k(m: DMat3, s: f64) -> DMat3 { m * s }
        fn scale_left_k(s: f64, m: DMat3) -> DMat3 { s * m }
        fn div_scalar_k(m: DMat3, s: f64) -> DMat3 { m / s }
        fn ops2_k(a: DMat2, s: f64) -> DMat2 { (a + a * s) / (s * s + 1.0) - s * a + -a }
        fn ops4_k(a: DMat4, s: f64) -> DMat4 { (a - a * s) / (s * s + 1.0) + s * a + -a }
        /// Constructors and element access: `from_cols`, `m.col(i)`, `m.row(i)`,
        /// `m[row][col]`.
        fn elements_k(m: DMat3, v: DVec3) -> DVec3 {
            let a = DMat3::from_cols(v, m.row(0), m.col(2));
            a.col(1) * m[1][2] + a.row(2) * v.x + DVec3::splat(a[0][1])
        }
    }

    proptest! {
        #![proptest_config(cfg())]

        #[test] fn transpose2(c in batch(dmat2(-2.0, 2.0))) { check::<transpose2_k, _>(&c, F64)?; }
        #[test] fn transpose3(c in batch(dmat3(-2.0, 2.0))) { check::<transpose3_k, _>(&c, F64)?; }
        #[test] fn transpose4(c in batch(dmat4(-2.0, 2.0))) { check::<transpose4_k, _>(&c, F64)?; }
        #[test] fn determinant2(c in batch(dmat2(-2.0, 2.0))) { check::<determinant2_k, _>(&c, F64)?; }
        #[test] fn determinant3(c in batch(dmat3(-2.0, 2.0))) { check::<determinant3_k, _>(&c, F64)?; }
        #[test] fn determinant4(c in batch(dmat4(-2.0, 2.0))) { check::<determinant4_k, _>(&c, F64)?; }
        #[test] fn inverse2(c in batch(well_conditioned2())) { check::<inverse2_k, _>(&c, F64)?; }
        #[test] fn inverse3(c in batch(well_conditioned3())) { check::<inverse3_k, _>(&c, F64)?; }
        #[test] fn inverse4(c in batch(well_conditioned4())) { check::<inverse4_k, _>(&c, F64)?; }
        #[test] fn trace2(c in batch(dmat2(-2.0, 2.0))) { check::<trace2_k, _>(&c, F64)?; }
        #[test] fn trace3(c in batch(dmat3(-2.0, 2.0))) { check::<trace3_k, _>(&c, F64)?; }
        #[test] fn trace4(c in batch(dmat4(-2.0, 2.0))) { check::<trace4_k, _>(&c, F64)?; }
        #[test] fn diag2(c in batch(dvec2(-2.0, 2.0))) { check::<diag2_k, _>(&c, F64)?; }
        #[test] fn diag3(c in batch(dvec3(-2.0, 2.0))) { check::<diag3_k, _>(&c, F64)?; }
        #[test] fn diag4(c in batch(dvec4(-2.0, 2.0))) { check::<diag4_k, _>(&c, F64)?; }
        #[test] fn skew_(c in batch(dvec3(-2.0, 2.0))) { check::<skew_k, _>(&c, F64)?; }
        #[test] fn matmul2(c in batch((dmat2(-2.0, 2.0), dmat2(-2.0, 2.0)))) { check::<matmul2_k, _>(&c, F64)?; }
        #[test] fn matmul3(c in batch((dmat3(-2.0, 2.0), dmat3(-2.0, 2.0)))) { check::<matmul3_k, _>(&c, F64)?; }
        #[test] fn matmul4(c in batch((dmat4(-2.0, 2.0), dmat4(-2.0, 2.0)))) { check::<matmul4_k, _>(&c, F64)?; }
        #[test] fn matvec2(c in batch((dmat2(-2.0, 2.0), dvec2(-2.0, 2.0)))) { check::<matvec2_k, _>(&c, F64)?; }
        #[test] fn matvec3(c in batch((dmat3(-2.0, 2.0), dvec3(-2.0, 2.0)))) { check::<matvec3_k, _>(&c, F64)?; }
        #[test] fn matvec4(c in batch((dmat4(-2.0, 2.0), dvec4(-2.0, 2.0)))) { check::<matvec4_k, _>(&c, F64)?; }
        #[test] fn add(c in batch((dmat3(-2.0, 2.0), dmat3(-2.0, 2.0)))) { check::<add_k, _>(&c, F64)?; }
        #[test] fn sub(c in batch((dmat3(-2.0, 2.0), dmat3(-2.0, 2.0)))) { check::<sub_k, _>(&c, F64)?; }
        #[test] fn neg(c in batch(dmat3(-2.0, 2.0))) { check::<neg_k, _>(&c, F64)?; }
        #[test] fn scale(c in batch((dmat3(-2.0, 2.0), -2.0..2.0f64))) { check::<scale_k, _>(&c, F64)?; }
        #[test] fn scale_left(c in batch((-2.0..2.0f64, dmat3(-2.0, 2.0)))) { check::<scale_left_k, _>(&c, F64)?; }
        #[test] fn div_scalar(c in batch((dmat3(-2.0, 2.0), away(0.2, 2.0)))) { check::<div_scalar_k, _>(&c, F64)?; }
        #[test] fn ops2(c in batch((dmat2(-2.0, 2.0), -2.0..2.0f64))) { check::<ops2_k, _>(&c, F64)?; }
        #[test] fn ops4(c in batch((dmat4(-2.0, 2.0), -2.0..2.0f64))) { check::<ops4_k, _>(&c, F64)?; }
        #[test] fn elements(c in batch((dmat3(-2.0, 2.0), dvec3(-2.0, 2.0)))) { check::<elements_k, _>(&c, F64)?; }
    }
}

// ---------------------------------------------------------------------------------
// Quaternions (DQuat)
// ---------------------------------------------------------------------------------

mod quaternion {
    use super::*;

    pub const COVERED: &[&str] = &[
        "quat_from_axis_angle",
        "quat_to_matrix",
        "quat_from_matrix",
        "quat_inverse",
        "quat_rotate",
        "quat_rotate_inv",
        "inverse",
        "dot",
        "length",
        "length_sq",
        "normalize",
    ];

    kernels! {
        fn from_axis_angle_k(axis: DVec3, angle: f64) -> DQuat { quat_from_axis_angle(axis, angle) }
        fn to_matrix_k(q: DQuat) -> DMat3 { quat_to_matrix(q) }
        fn from_matrix_k(m: DMat3) -> DQuat { quat_from_matrix(m) }
        fn quat_inverse_k(q: DQuat) -> DQuat { quat_inverse(q) }
        fn inverse_k(q: DQuat) -> DQuat { inverse(q) }
        fn rotate_k(q: DQuat, v: DVec3) -> DVec3 { quat_rotate(q, v) }
        fn rotate_inv_k(q: DQuat, v: DVec3) -> DVec3 { quat_rotate_inv(q, v) }
        fn dot_k(a: DQuat, b: DQuat) -> f64 { dot(a, b) }
        fn length_k(q: DQuat) -> f64 { length(q) }
        fn length_sq_k(q: DQuat) -> f64 { length_sq(q) }
        fn normalize_k(q: DQuat) -> DQuat { normalize(q) }
        // Operators.
        fn mul_k(a: DQuat, b: DQuat) -> DQuat { a * b }
        fn mul_vec_k(q: DQuat, v: DVec3) -> DVec3 { q * v }
        fn add_k(a: DQuat, b: DQuat) -> DQuat { a + b }
        fn sub_k(a: DQuat, b: DQuat) -> DQuat { a - b }
        fn neg_k(q: DQuat) -> DQuat { -q }
        fn scale_k(q: DQuat, s: f64) -> DQuat { q * s }
        fn div_scalar_k(q: DQuat, s: f64) -> DQuat { q / s }
        /// Constructor spellings of the builtins, `from_xyzw` and components.
        fn constructors_k(axis: DVec3, angle: f64) -> DVec4 {
            let q = DQuat::from_axis_angle(axis, angle);
            let r = DQuat::from_xyzw(q.w, q.x * angle, q.y, -q.z);
            let m = DMat3::from_quat(r);
            let v = m * axis;
            DVec4::new(v.x, v.y, v.z, r.w)
        }
        fn from_mat3_k(m: DMat3) -> DQuat { DQuat::from_mat3(m) }
    }

    /// Each branch of `quat_from_matrix`'s Shepperd method, at rotations (plus a little
    /// non-rotation) well inside it.
    #[test]
    fn from_matrix_every_branch() {
        let eps = DMat3::from_cols(
            DVec3::new(0.01, -0.02, 0.005),
            DVec3::new(0.015, 0.0, -0.01),
            DVec3::new(-0.005, 0.01, 0.02),
        );
        let branch_w = DMat3::from_quat(DQuat::from_axis_angle(
            DVec3::new(1.0, 2.0, 3.0).normalize(),
            0.7,
        ));
        let branch_x = DMat3::from_quat(DQuat::from_axis_angle(
            DVec3::new(1.0, 0.2, 0.1).normalize(),
            2.9,
        ));
        let branch_y = DMat3::from_quat(DQuat::from_axis_angle(
            DVec3::new(0.1, 1.0, -0.2).normalize(),
            -2.8,
        ));
        let branch_z = DMat3::from_quat(DQuat::from_axis_angle(
            DVec3::new(-0.2, 0.1, 1.0).normalize(),
            3.0,
        ));
        let cases: Vec<DMat3> = [branch_w, branch_x, branch_y, branch_z]
            .into_iter()
            .flat_map(|m| [m, m + eps])
            .collect();
        for m in &cases {
            assert!(shepperd_margin(*m, 0.1), "{m:?}");
        }
        check::<from_matrix_k, _>(&cases, F64).unwrap();
    }

    proptest! {
        #![proptest_config(cfg())]

        // Any axis (not normalized by the builtin) and angle.
        #[test] fn from_axis_angle(c in batch((dvec3(-2.0, 2.0), -6.0..6.0f64))) { check::<from_axis_angle_k, _>(&c, F64)?; }
        #[test] fn to_matrix(c in batch(dquat())) { check::<to_matrix_k, _>(&c, F64)?; }
        #[test] fn from_matrix(c in batch(near_rotation())) { check::<from_matrix_k, _>(&c, F64)?; }
        #[test] fn quat_inverse_(c in batch(dquat())) { check::<quat_inverse_k, _>(&c, F64)?; }
        #[test] fn inverse_(c in batch(dquat())) { check::<inverse_k, _>(&c, F64)?; }
        // Unit and non-unit quaternions: the formula is differentiated as written.
        #[test] fn rotate(c in batch((dquat(), dvec3(-2.0, 2.0)))) { check::<rotate_k, _>(&c, F64)?; }
        #[test] fn rotate_unit(c in batch((unit_dquat(), dvec3(-2.0, 2.0)))) { check::<rotate_k, _>(&c, F64)?; }
        #[test] fn rotate_inv(c in batch((dquat(), dvec3(-2.0, 2.0)))) { check::<rotate_inv_k, _>(&c, F64)?; }
        #[test] fn dot_(c in batch((dquat(), dquat()))) { check::<dot_k, _>(&c, F64)?; }
        #[test] fn length_(c in batch(dquat())) { check::<length_k, _>(&c, F64)?; }
        #[test] fn length_sq_(c in batch(dquat())) { check::<length_sq_k, _>(&c, F64)?; }
        #[test] fn normalize_(c in batch(dquat())) { check::<normalize_k, _>(&c, F64)?; }
        #[test] fn mul(c in batch((dquat(), dquat()))) { check::<mul_k, _>(&c, F64)?; }
        #[test] fn mul_vec(c in batch((dquat(), dvec3(-2.0, 2.0)))) { check::<mul_vec_k, _>(&c, F64)?; }
        #[test] fn add(c in batch((dquat(), dquat()))) { check::<add_k, _>(&c, F64)?; }
        #[test] fn sub(c in batch((dquat(), dquat()))) { check::<sub_k, _>(&c, F64)?; }
        #[test] fn neg(c in batch(dquat())) { check::<neg_k, _>(&c, F64)?; }
        #[test] fn scale(c in batch((dquat(), -2.0..2.0f64))) { check::<scale_k, _>(&c, F64)?; }
        #[test] fn div_scalar(c in batch((dquat(), away(0.2, 2.0)))) { check::<div_scalar_k, _>(&c, F64)?; }
        #[test] fn constructors(c in batch((dvec3(-2.0, 2.0), -3.0..3.0f64))) { check::<constructors_k, _>(&c, F64)?; }
        #[test] fn from_mat3(c in batch(near_rotation())) { check::<from_mat3_k, _>(&c, F64)?; }
    }
}

// ---------------------------------------------------------------------------------
// Rigid transforms (DTransform)
// ---------------------------------------------------------------------------------

mod transform {
    use super::*;

    pub const COVERED: &[&str] = &[
        "transform_point",
        "transform_vector",
        "transform_inverse",
        "inverse",
    ];

    kernels! {
        fn point_k(t: DTransform, p: DVec3) -> DVec3 { transform_point(t, p) }
        fn vector_k(t: DTransform, v: DVec3) -> DVec3 { transform_vector(t, v) }
        fn transform_inverse_k(t: DTransform) -> DTransform { transform_inverse(t) }
        fn inverse_k(t: DTransform) -> DTransform { inverse(t) }
        fn compose_k(a: DTransform, b: DTransform) -> DTransform { a * b }
        /// `DTransform::new` and the fields `t.p`, `t.q`.
        fn fields_k(p: DVec3, q: DQuat) -> DVec3 {
            let t = DTransform::new(p * 2.0, q);
            transform_point(t, t.p) + DVec3::new(t.q.x, t.q.w, 0.5)
        }
    }

    proptest! {
        #![proptest_config(cfg())]

        #[test] fn point(c in batch((dtransform(), dvec3(-2.0, 2.0)))) { check::<point_k, _>(&c, F64)?; }
        #[test] fn vector(c in batch((dtransform(), dvec3(-2.0, 2.0)))) { check::<vector_k, _>(&c, F64)?; }
        #[test] fn transform_inverse_(c in batch(dtransform())) { check::<transform_inverse_k, _>(&c, F64)?; }
        #[test] fn inverse_(c in batch(dtransform())) { check::<inverse_k, _>(&c, F64)?; }
        #[test] fn compose(c in batch((dtransform(), dtransform()))) { check::<compose_k, _>(&c, F64)?; }
        #[test] fn fields(c in batch((dvec3(-2.0, 2.0), dquat()))) { check::<fields_k, _>(&c, F64)?; }
    }
}

// ---------------------------------------------------------------------------------
// Spatial algebra (DSpatialVector, DSpatialMatrix)
// ---------------------------------------------------------------------------------

mod spatial {
    use super::*;

    pub const COVERED: &[&str] = &[
        "spatial_top",
        "spatial_bottom",
        "spatial_cross",
        "spatial_cross_dual",
        "dot",
    ];

    kernels! {
        fn top_k(s: DSpatialVector) -> DVec3 { spatial_top(s) }
        fn bottom_k(s: DSpatialVector) -> DVec3 { spatial_bottom(s) }
        fn cross_k(a: DSpatialVector, b: DSpatialVector) -> DSpatialVector { spatial_cross(a, b) }
        fn cross_dual_k(a: DSpatialVector, f: DSpatialVector) -> DSpatialVector { spatial_cross_dual(a, f) }
        fn dot_k(a: DSpatialVector, b: DSpatialVector) -> f64 { dot(a, b) }
        // Operators.
        fn vector_ops_k(a: DSpatialVector, b: DSpatialVector) -> DSpatialVector { (a + b) * 2.0 - 0.5 * a + -b / 3.0 }
        fn scale_k(a: DSpatialVector, s: f64) -> DSpatialVector { a * s + s * a - a / (s * s + 1.0) }
        fn matvec_k(m: DSpatialMatrix, v: DSpatialVector) -> DSpatialVector { m * v }
        fn matmul_k(a: DSpatialMatrix, b: DSpatialMatrix) -> DSpatialMatrix { a * b }
        fn matrix_ops_k(a: DSpatialMatrix, b: DSpatialMatrix) -> DSpatialMatrix { (a + b) * 2.0 - 0.5 * a + -b }
        fn matrix_scale_k(m: DSpatialMatrix, s: f64) -> DSpatialMatrix { m * s + s * m }
        /// `DSpatialVector::new` and the fields `top`, `bottom`.
        fn fields_k(a: DVec3, b: DVec3) -> DVec3 {
            let s = DSpatialVector::new(a, b * 2.0);
            s.top * s.bottom.y + s.bottom
        }
    }

    proptest! {
        #![proptest_config(cfg())]

        #[test] fn top(c in batch(dspatial(-2.0, 2.0))) { check::<top_k, _>(&c, F64)?; }
        #[test] fn bottom(c in batch(dspatial(-2.0, 2.0))) { check::<bottom_k, _>(&c, F64)?; }
        #[test] fn cross(c in batch((dspatial(-2.0, 2.0), dspatial(-2.0, 2.0)))) { check::<cross_k, _>(&c, F64)?; }
        #[test] fn cross_dual(c in batch((dspatial(-2.0, 2.0), dspatial(-2.0, 2.0)))) { check::<cross_dual_k, _>(&c, F64)?; }
        #[test] fn dot_(c in batch((dspatial(-2.0, 2.0), dspatial(-2.0, 2.0)))) { check::<dot_k, _>(&c, F64)?; }
        #[test] fn vector_ops(c in batch((dspatial(-2.0, 2.0), dspatial(-2.0, 2.0)))) { check::<vector_ops_k, _>(&c, F64)?; }
        #[test] fn scale(c in batch((dspatial(-2.0, 2.0), -2.0..2.0f64))) { check::<scale_k, _>(&c, F64)?; }
        #[test] fn matvec(c in batch((dspatial_matrix(), dspatial(-2.0, 2.0)))) { check::<matvec_k, _>(&c, F64)?; }
        #[test] fn matmul(c in batch((dspatial_matrix(), dspatial_matrix()))) { check::<matmul_k, _>(&c, F64)?; }
        #[test] fn matrix_ops(c in batch((dspatial_matrix(), dspatial_matrix()))) { check::<matrix_ops_k, _>(&c, F64)?; }
        #[test] fn matrix_scale(c in batch((dspatial_matrix(), -2.0..2.0f64))) { check::<matrix_scale_k, _>(&c, F64)?; }
        #[test] fn fields(c in batch((dvec3(-2.0, 2.0), dvec3(-2.0, 2.0)))) { check::<fields_k, _>(&c, F64)?; }
    }
}

// ---------------------------------------------------------------------------------
// Library funcs (`weft::funcs`, f32 only)
// ---------------------------------------------------------------------------------

mod funcs {
    use super::*;
    use weft::funcs::{lerp, lerp3, smoothstep, split_normal};

    kernels! {
        fn lerp_k(a: f32, b: f32, t: f32) -> f32 { lerp(a, b, t) }
        fn lerp3_k(a: Vec3, b: Vec3, t: f32) -> Vec3 { lerp3(a, b, t) }
        fn smoothstep_k(e0: f32, e1: f32, x: f32) -> f32 { smoothstep(e0, e1, x) }
        fn split_normal_k(v: Vec3, n: Vec3) -> Vec3 {
            let (normal, tangent) = split_normal(v, n);
            normal * 2.0 + tangent
        }
    }

    /// `(e0, e1, x)` with `x` below, inside and above `[e0, e1]`, away from the edges.
    fn smoothstep_args() -> impl Strategy<Value = (f32, f32, f32)> {
        (-1.0..0.0f32, 0.5..2.0f32, -2.0..3.0f32)
            .prop_map(|(e0, w, x)| (e0, e0 + w, x))
            .prop_filter("away from the edges", |&(e0, e1, x)| {
                (x - e0).abs() > 0.05 && (x - e1).abs() > 0.05
            })
    }

    proptest! {
        #![proptest_config(cfg())]

        #[test] fn lerp_(c in batch((-3.0..3.0f32, -3.0..3.0f32, -1.0..2.0f32))) { check::<lerp_k, _>(&c, F32)?; }
        #[test] fn lerp3_(c in batch((vec3(-3.0, 3.0), vec3(-3.0, 3.0), -1.0..2.0f32))) { check::<lerp3_k, _>(&c, F32)?; }
        #[test] fn smoothstep_(c in batch(smoothstep_args())) { check::<smoothstep_k, _>(&c, F32)?; }
        #[test] fn split_normal_(c in batch((vec3(-3.0, 3.0), vec3(-1.0, 1.0)))) { check::<split_normal_k, _>(&c, F32)?; }
    }
}

// ---------------------------------------------------------------------------------
// f32 paths (tolerance from f32 precision)
// ---------------------------------------------------------------------------------

mod f32_paths {
    use super::*;

    kernels! {
        fn sin_k(x: f32) -> f32 { sin(x) }
        fn exp_k(x: f32) -> f32 { exp(x) }
        fn log_k(x: f32) -> f32 { log(x) }
        fn sqrt_k(x: f32) -> f32 { sqrt(x) }
        fn atan2_k(y: f32, x: f32) -> f32 { atan2(y, x) }
        fn pow_k(x: f32, y: f32) -> f32 { pow(x, y) }
        fn normalize_k(a: Vec3) -> Vec3 { normalize(a) }
        fn cross_k(a: Vec3, b: Vec3) -> Vec3 { cross(a, b) * length(a) }
        fn inverse_k(m: Mat3) -> Mat3 { inverse(m) * determinant(m) }
        fn rotate_k(q: Quat, v: Vec3) -> Vec3 { quat_rotate(q, v) + quat_rotate_inv(q, v) }
        /// `Transform` has padding between `p` and `q` in f32.
        fn transform_k(t: Transform, p: Vec3) -> Vec3 { transform_point(t, p) + transform_vector(transform_inverse(t), p) }
        fn spatial_k(a: SpatialVector, b: SpatialVector) -> SpatialVector { spatial_cross(a, b) + spatial_cross_dual(b, a) }
        fn spatial_matvec_k(m: SpatialMatrix, v: SpatialVector) -> SpatialVector { m * v }
        /// glam's `Vec4 % Vec4` rounds the quotient down (SSE2) where the other vectors
        /// truncate; the rule follows the forward.
        fn rem4_k(a: Vec4, b: Vec4) -> Vec4 { a % b }
        fn min_max_clamp_k(a: Vec4, b: Vec4) -> Vec4 { clamp(min(a, b) * 2.0, -Vec4::ONE, max(a, b)) + abs(a) }
        fn fma_k(a: Vec3, b: Vec3, s: f32) -> Vec3 { fma(a, b, Vec3::splat(fma(s, s, -1.0))) }
    }

    fn rem4_args() -> impl Strategy<Value = (Vec4, Vec4)> {
        let b = (1.0..3.0f32, any::<bool>()).prop_map(|(m, neg)| if neg { -m } else { m });
        (vec4(-5.0, 5.0), (b.clone(), b.clone(), b.clone(), b))
            .prop_map(|(a, (x, y, z, w))| (a, Vec4::new(x, y, z, w)))
            .prop_filter("a / b away from integers", |(a, b)| {
                (*a / *b).to_array().iter().all(|q| {
                    let f = q - q.floor();
                    f > 0.08 && f < 0.92
                })
            })
    }

    /// Components of `a`, `b`, `2 min(a, b)`, `-1` and `max(a, b)` at least 0.05 apart
    /// where they meet in `min`, `max`, `clamp`, `abs`.
    fn min_max_clamp_args() -> impl Strategy<Value = (Vec4, Vec4)> {
        (vec4(-3.0, 3.0), vec4(-3.0, 3.0)).prop_filter("away from kinks", |(a, b)| {
            let (lo, hi) = (a.min(*b) * 2.0, a.max(*b));
            (0..4).all(|i| {
                (a[i] - b[i]).abs() > 0.05
                    && (lo[i] + 1.0).abs() > 0.05
                    && (lo[i] - hi[i]).abs() > 0.05
                    && a[i].abs() > 0.05
            })
        })
    }

    fn well_conditioned() -> impl Strategy<Value = Mat3> {
        well_conditioned3().prop_map(|m| m.as_mat3())
    }

    proptest! {
        #![proptest_config(cfg())]

        #[test] fn sin_(c in batch(-6.0..6.0f32)) { check::<sin_k, _>(&c, F32)?; }
        #[test] fn exp_(c in batch(-4.0..4.0f32)) { check::<exp_k, _>(&c, F32)?; }
        #[test] fn log_(c in batch(0.2..20.0f32)) { check::<log_k, _>(&c, F32)?; }
        #[test] fn sqrt_(c in batch(0.2..20.0f32)) { check::<sqrt_k, _>(&c, F32)?; }
        #[test] fn atan2_(c in batch(((0.2..3.0f32), -3.0..3.0f32))) { check::<atan2_k, _>(&c, F32)?; }
        #[test] fn pow_(c in batch((0.3..3.0f32, -2.0..2.0f32))) { check::<pow_k, _>(&c, F32)?; }
        #[test] fn normalize_(c in batch(vec3(-3.0, 3.0).prop_filter("long", |v| v.length() > 0.5))) { check::<normalize_k, _>(&c, F32)?; }
        #[test] fn cross_(c in batch((vec3(-2.0, 2.0).prop_filter("long", |v| v.length() > 0.5), vec3(-2.0, 2.0)))) { check::<cross_k, _>(&c, F32)?; }
        #[test] fn inverse_(c in batch(well_conditioned())) { check::<inverse_k, _>(&c, F32)?; }
        #[test] fn rotate(c in batch((unit_quat(), vec3(-2.0, 2.0)))) { check::<rotate_k, _>(&c, F32)?; }
        #[test] fn transform(c in batch(((vec3(-2.0, 2.0), unit_quat()).prop_map(|(p, q)| Transform::new(p, q)), vec3(-2.0, 2.0)))) { check::<transform_k, _>(&c, F32)?; }
        #[test] fn spatial(c in batch(((vec3(-2.0, 2.0), vec3(-2.0, 2.0)), (vec3(-2.0, 2.0), vec3(-2.0, 2.0))).prop_map(|(a, b)| (SpatialVector::new(a.0, a.1), SpatialVector::new(b.0, b.1))))) { check::<spatial_k, _>(&c, F32)?; }
        #[test] fn spatial_matvec(c in batch((dspatial_matrix(), dspatial(-2.0, 2.0)).prop_map(|(m, v)| {
            (SpatialMatrix::from_rows(m.m.map(|r| r.map(|x| x as f32))), SpatialVector::from_array(v.to_array().map(|x| x as f32)))
        }))) { check::<spatial_matvec_k, _>(&c, F32)?; }
        #[test] fn rem4(c in batch(rem4_args())) { check::<rem4_k, _>(&c, F32)?; }
        #[test] fn min_max_clamp(c in batch(min_max_clamp_args())) { check::<min_max_clamp_k, _>(&c, F32)?; }
        #[test] fn fma_(c in batch((vec3(-3.0, 3.0), vec3(-3.0, 3.0), -2.0..2.0f32))) { check::<fma_k, _>(&c, F32)?; }
    }

    pub(super) const PTX_TABLE_2: &[weft_testkit::devices::KernelPtx] =
        &weft_testkit::ptx_of!(spring_loss);

    #[weft::kernel]
    fn spring_loss(x: &Array<Vec3>, loss: &mut Array<f32>, rest: f32) {
        let i = tid();
        if i + 1 < x.len() {
            let d = x[i + 1] - x[i];
            let s = length(d) - rest;
            atomic_add(&mut loss[0], s * s + dot(normalize(d), Vec3::Z));
        }
    }

    /// The same kind of check through `weft::gradcheck` (f32 inputs, its default step).
    #[test]
    fn gradcheck_on_vec3_arrays() {
        let r = weft_testkit::random_f32s(24, 3, -0.4, 0.4);
        let x0: Vec<Vec3> = (0..8)
            .map(|i| Vec3::new(i as f32 + r[3 * i], r[3 * i + 1], r[3 * i + 2]))
            .collect();
        let mut x = Array::from_slice(Device::Cpu, &x0);
        let report = gradcheck(&mut [&mut x], None, |x, loss| {
            loss.fill(0.0);
            spring_loss::launch(8, x[0], loss, 0.8)
        })
        .unwrap();
        println!("f32_paths::gradcheck_on_vec3_arrays: {report}");
        assert_eq!(report.checked, 24);
        assert!(report.max_rel < 1e-2, "{report}");
    }
}

// ---------------------------------------------------------------------------------
// Special points
// ---------------------------------------------------------------------------------

mod special {
    use super::*;

    kernels! {
        fn length_normalize3_k(a: DVec3) -> f64 { length(a) + dot(normalize(a), DVec3::new(1.0, 2.0, 3.0)) }
        fn length_normalize2_k(a: DVec2) -> f64 { length(a) + dot(normalize(a), DVec2::new(1.0, 2.0)) }
        fn length_normalize4_k(a: DVec4) -> f64 { length(a) + dot(normalize(a), DVec4::new(1.0, 2.0, 3.0, 4.0)) }
        fn length_normalize_quat_k(q: DQuat) -> f64 { length(q) + dot(normalize(q), DQuat::from_xyzw(1.0, 2.0, 3.0, 4.0)) }
        fn length_normalize_f32_k(a: Vec3) -> f32 { length(a) + dot(normalize(a), Vec3::new(1.0, 2.0, 3.0)) }
        fn roots_k(x: f64) -> f64 { sqrt(x) + cbrt(x) + sqrt(x * x) }
        fn inverse_trig_k(x: f64) -> f64 { asin(x) + acos(x) }
        fn atan2_origin_k(y: f64, x: f64) -> f64 { atan2(y, x) }
        fn pow_k(x: f64, y: f64) -> f64 { pow(x, y) }
        fn steps_k(x: f64) -> f64 { floor(x) + ceil(x) + round(x) + trunc(x) + sign(x) }
        fn abs_k(x: f64) -> f64 { abs(x) }
        fn min_k(a: f64, b: f64) -> f64 { min(a, b) }
        fn max_k(a: f64, b: f64) -> f64 { max(a, b) }
        fn clamp_k(x: f64, lo: f64, hi: f64) -> f64 { clamp(x, lo, hi) }
        fn min_vec_k(a: DVec3, b: DVec3) -> DVec3 { min(a, b) }
        fn max_vec_k(a: DVec3, b: DVec3) -> DVec3 { max(a, b) }
        fn clamp_vec_k(x: DVec3, lo: DVec3, hi: DVec3) -> DVec3 { clamp(x, lo, hi) }
        fn abs_vec_k(a: DVec3) -> DVec3 { abs(a) }
    }

    fn assert_all_finite(g: &[Vec<f64>], what: &str) {
        for (k, g) in g.iter().enumerate() {
            assert!(
                g.iter().all(|x| x.is_finite()),
                "{what}: gradient of input {k} is {g:?}"
            );
        }
    }

    #[test]
    fn length_and_normalize_at_zero_give_a_zero_gradient() {
        let g = tape_grads::<length_normalize3_k, _>(&[DVec3::ZERO], &[1.0]);
        assert_eq!(g, vec![vec![0.0; 3]]);
        let g = tape_grads::<length_normalize2_k, _>(&[DVec2::ZERO], &[1.0]);
        assert_eq!(g, vec![vec![0.0; 2]]);
        let g = tape_grads::<length_normalize4_k, _>(&[DVec4::ZERO], &[1.0]);
        assert_eq!(g, vec![vec![0.0; 4]]);
        let g = tape_grads::<length_normalize_quat_k, _>(&[<DQuat as Flat>::ZERO], &[1.0]);
        assert_eq!(g, vec![vec![0.0; 4]]);
        let g = tape_grads::<length_normalize_f32_k, _>(&[Vec3::ZERO], &[1.0]);
        assert_eq!(g, vec![vec![0.0; 3]]);
        // Next to zero the derivatives are large but finite and right (a step small
        // against the vector's length).
        for (a, step) in [
            (DVec3::new(1e-3, -2e-3, 5e-4), 1e-9),
            (DVec3::new(1e-6, 0.0, 0.0), 1e-10),
        ] {
            let tol = Tol {
                max_rel: 1e-5,
                step: Some(step),
            };
            check::<length_normalize3_k, _>(&[a], tol).unwrap();
        }
    }

    #[test]
    fn roots_and_inverse_trig_at_their_singular_points_are_finite() {
        // sqrt(0), cbrt(0), sqrt(0 * 0): infinite derivatives, defined as 0.
        let g = tape_grads::<roots_k, _>(&[0.0, -0.0], &[1.0, 1.0]);
        assert_eq!(g, vec![vec![0.0, 0.0]]);
        // asin, acos at ±1.
        let g = tape_grads::<inverse_trig_k, _>(&[1.0, -1.0], &[1.0, 1.0]);
        assert_eq!(g, vec![vec![0.0, 0.0]]);
        // atan2 at the origin.
        let g = tape_grads::<atan2_origin_k, _>(&[(0.0, 0.0)], &[1.0]);
        assert_eq!(g, vec![vec![0.0], vec![0.0]]);
        // pow where x^y is not differentiable (documented values), and a negative base
        // with an integer exponent (the formula for d/dx, no d/dy).
        let cases = [(0.0, 0.5), (0.0, 0.0), (0.0, 1.0), (0.0, 2.0), (-2.0, 3.0)];
        let g = tape_grads::<pow_k, _>(&cases, &[1.0; 5]);
        assert_eq!(g, vec![vec![0.0, 0.0, 1.0, 0.0, 12.0], vec![0.0; 5]]);
        // Steps at their jumps: zero, not NaN.
        let g = tape_grads::<steps_k, _>(&[0.0, 1.0, -2.0, 0.5, -1.5], &[1.0; 5]);
        assert_eq!(g, vec![vec![0.0; 5]]);
    }

    /// At a kink the tape's gradient is one of the one-sided derivatives (the gradient
    /// of one of the pieces that meet there), and next to it, that piece's.
    fn assert_one_of(g: &[f64], pieces: &[&[f64]], what: &str) {
        assert!(
            pieces.contains(&g),
            "{what}: gradient {g:?} is none of the one-sided derivatives {pieces:?}"
        );
    }

    #[test]
    fn min_max_at_and_around_the_kink() {
        let a = 0.7;
        let tiny = 1e-12;
        for (k, name) in [(0, "min"), (1, "max")] {
            let g = |x: (f64, f64)| {
                let g = if k == 0 {
                    tape_grads::<min_k, _>(&[x], &[1.0])
                } else {
                    tape_grads::<max_k, _>(&[x], &[1.0])
                };
                assert_all_finite(&g, name);
                vec![g[0][0], g[1][0]]
            };
            let pieces: &[&[f64]] = &[&[1.0, 0.0], &[0.0, 1.0]];
            assert_one_of(&g((a, a)), pieces, &format!("{name}(a, a)"));
            // Documented: ties go to the first argument.
            assert_eq!(g((a, a)), vec![1.0, 0.0], "{name} tie");
            let below = if k == 0 { [1.0, 0.0] } else { [0.0, 1.0] };
            let above = if k == 0 { [0.0, 1.0] } else { [1.0, 0.0] };
            assert_eq!(g((a - tiny, a)), below.to_vec(), "{name} just below");
            assert_eq!(g((a + tiny, a)), above.to_vec(), "{name} just above");
        }
        // Componentwise on vectors: tie, below, above in one vector.
        let (x, y) = (DVec3::new(0.5, 0.5 - tiny, 0.5 + tiny), DVec3::splat(0.5));
        let g = tape_grads::<min_vec_k, _>(&[(x, y)], &[1.0; 3]);
        assert_eq!(g, vec![vec![1.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]]);
        let g = tape_grads::<max_vec_k, _>(&[(x, y)], &[1.0; 3]);
        assert_eq!(g, vec![vec![1.0, 0.0, 1.0], vec![0.0, 1.0, 0.0]]);
    }

    #[test]
    fn clamp_at_and_around_its_bounds() {
        let (lo, hi) = (-0.5, 1.5);
        let tiny = 1e-12;
        let g = |x: f64, lo: f64, hi: f64| {
            let g = tape_grads::<clamp_k, _>(&[(x, lo, hi)], &[1.0]);
            assert_all_finite(&g, "clamp");
            vec![g[0][0], g[1][0], g[2][0]]
        };
        let (to_x, to_lo, to_hi): (&[f64], &[f64], &[f64]) =
            (&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0], &[0.0, 0.0, 1.0]);
        assert_one_of(&g(lo, lo, hi), &[to_x, to_lo], "clamp at lo");
        assert_one_of(&g(hi, lo, hi), &[to_x, to_hi], "clamp at hi");
        assert_one_of(
            &g(0.3, 0.3, 0.3),
            &[to_x, to_lo, to_hi],
            "clamp with lo = x = hi",
        );
        // Documented: the bounds are inclusive (x keeps the gradient).
        assert_eq!(g(lo, lo, hi), to_x);
        assert_eq!(g(hi, lo, hi), to_x);
        assert_eq!(g(lo - tiny, lo, hi), to_lo);
        assert_eq!(g(lo + tiny, lo, hi), to_x);
        assert_eq!(g(hi - tiny, lo, hi), to_x);
        assert_eq!(g(hi + tiny, lo, hi), to_hi);
        // Componentwise.
        let x = DVec3::new(lo - tiny, lo, hi + tiny);
        let g = tape_grads::<clamp_vec_k, _>(&[(x, DVec3::splat(lo), DVec3::splat(hi))], &[1.0; 3]);
        assert_eq!(
            g,
            vec![
                vec![0.0, 1.0, 0.0],
                vec![1.0, 0.0, 0.0],
                vec![0.0, 0.0, 1.0]
            ]
        );
    }

    #[test]
    fn abs_at_and_around_zero() {
        let g = |x: f64| tape_grads::<abs_k, _>(&[x], &[1.0])[0][0];
        // At 0 the one-sided derivatives are -1 and 1; abs gives 0 (documented), a
        // subgradient between them.
        for z in [0.0, -0.0] {
            let d = g(z);
            assert!((-1.0..=1.0).contains(&d), "abs'({z}) = {d}");
            assert_eq!(d, 0.0);
        }
        assert_eq!(g(1e-300), 1.0);
        assert_eq!(g(-1e-300), -1.0);
        let g = tape_grads::<abs_vec_k, _>(&[DVec3::new(-1e-300, 0.0, 1e-300)], &[1.0; 3]);
        assert_eq!(g, vec![vec![-1.0, 0.0, 1.0]]);
    }

    /// Integers, comparisons, integer builtins and random numbers in a differentiable
    /// kernel: they carry no gradient and leave the float path's gradient intact.
    /// Everything non-float here is piecewise constant in `x` (or independent of it),
    /// so finite differences away from the jumps see the same derivative.
    pub(super) const PTX_TABLE_3: &[weft_testkit::devices::KernelPtx] =
        &weft_testkit::ptx_of!(mixed);

    #[weft::kernel]
    fn mixed(x: &Array<f64>, counts: &Array<i32>, out: &mut Array<f64>) {
        let i = tid();
        let v = x[i];
        let k = (v * 3.0) as i32;
        let ik = abs(k) + min(k, 2) - max(k, -2) + clamp(k, -1, 1) + sign(k) + counts[i];
        let iv = abs(IVec3::new(k, -k, 1)) + IVec3::splat(counts[i]);
        let mut state = rand_init(7, i as u32);
        let r = randf(&mut state) as f64;
        let g = randn(&mut state) as f64;
        let u = randf_range(&mut state, -1.0, 1.0) as f64;
        let bits = randi(&mut state) % 5;
        let bigger = v > 0.25 && ik != 3;
        let m = if bigger { 2.0 as f64 } else { -1.0 as f64 };
        let mut acc = 0.0;
        for j in 0..iv.x + 1 {
            acc += v * (j as f64) * 0.1;
        }
        out[i] = v * v * m + (ik as f64) * v + r * sin(v) + g * v * v + u + (bits as f64) * v + acc;
    }

    /// `mixed` with a fixed integer array: only `x` is an input of the check.
    struct Mixed;

    impl Checked for Mixed {
        fn harness() -> Harness {
            let counts = |d: Device, n: usize| {
                Array::from_vec(d, (0..n as i32).map(|c| c % 3 - 1).collect())
            };
            Harness {
                name: "special::mixed",
                args: &["x"],
                inputs: vec![(1, true)],
                out: 1,
                forward: Box::new(move |d: Device, n: usize, x: &[Vec<f64>]| {
                    let xa = Array::from_slice(d, &x[0]);
                    let mut out = Array::zeros(d, [n]);
                    mixed::launch(n, &xa, &counts(d, n), &mut out).unwrap();
                    out.to_vec()
                }),
                backward: Box::new(move |d: Device, n: usize, x: &[Vec<f64>], seed: &[f64]| {
                    let xa = Array::from_slice(d, &x[0]).requires_grad();
                    let c = counts(d, n);
                    let mut out = Array::zeros(d, [n]).requires_grad();
                    let mut tape = Tape::new();
                    tape.record(|| mixed::launch(n, &xa, &c, &mut out)).unwrap();
                    tape.backward_from(&mut out, seed).unwrap();
                    vec![xa.grad_to_vec().unwrap()]
                }),
                ptx: mixed::PTX,
                adjoint_ptx: mixed::ADJOINT_PTX,
            }
        }
    }

    fn mixed_inputs() -> impl Strategy<Value = f64> {
        // `3v` away from integers (the jumps of `as i32`), `v` away from 0.25.
        off_integer(-6, 6, 0.02)
            .prop_map(|t| t / 3.0)
            .prop_filter("away from 0.25", |v| (v - 0.25).abs() > 0.01)
    }

    proptest! {
        #![proptest_config(cfg())]

        #[test]
        fn integers_comparisons_and_random_numbers_carry_no_gradient(c in batch(mixed_inputs())) {
            check::<Mixed, _>(&c, F64)?;
        }
    }

    kernels! {
        table = PTX_TABLE_2;
        /// The bit casts are not differentiable: the round trip cuts the gradient.
        fn bits_k(x: f64) -> f64 { f64_from_bits(f64_to_bits(x)) + x * (f32_from_bits(f32_to_bits(x as f32)) as f64) }
    }

    #[test]
    fn bit_casts_cut_the_gradient() {
        let x = [0.75, -2.5];
        assert_eq!(
            outputs::<bits_k, _>(&x),
            vec![0.75 + 0.75 * 0.75, -2.5 + 2.5 * 2.5]
        );
        // d/dx [bits(x) + x * c] with the bit casts constant: c = x.
        assert_eq!(
            tape_grads::<bits_k, _>(&x, &[1.0, 1.0]),
            vec![vec![0.75, -2.5]]
        );
    }
}

// ---------------------------------------------------------------------------------
// The harness itself
// ---------------------------------------------------------------------------------

mod harness {
    use super::*;

    /// `sin` with a gradient 1e-7 too large: a rule computed in f32 errs by this much.
    #[weft::func(adjoint = slightly_wrong_adjoint)]
    fn slightly_wrong_sin(x: f64) -> f64 {
        sin(x)
    }

    fn slightly_wrong_adjoint(x: f64, adj_result: f64) -> (f64,) {
        (adj_result * x.cos() * (1.0 + 1e-7),)
    }

    /// `atan2` with the second argument's gradient negated.
    #[weft::func(adjoint = wrong_atan2_adjoint)]
    fn wrong_atan2(y: f64, x: f64) -> f64 {
        atan2(y, x)
    }

    fn wrong_atan2_adjoint(y: f64, x: f64, adj_result: f64) -> (f64, f64) {
        let r2 = x * x + y * y;
        (adj_result * x / r2, adj_result * y / r2)
    }

    kernels! {
        fn slightly_wrong_k(x: f64) -> f64 { slightly_wrong_sin(x) }
        fn wrong_second_k(y: f64, x: f64) -> f64 { wrong_atan2(y, x) }
        fn right_k(x: f64) -> f64 { sin(x) }
        fn right_second_k(y: f64, x: f64) -> f64 { atan2(y, x) }
    }

    #[test]
    fn catches_wrong_gradients() {
        let e = check::<slightly_wrong_k, _>(&[0.3, -1.2, 2.0], F64).unwrap_err();
        assert!(e.to_string().contains("d/dx[0]"), "{e}");
        let e = check::<wrong_second_k, _>(&[(0.5, 1.0), (-0.7, 0.2)], F64).unwrap_err();
        assert!(e.to_string().contains("d/dx[0]"), "{e}");
        // And passes the right ones.
        check::<right_k, _>(&[0.3, -1.2, 2.0], F64).unwrap();
        check::<right_second_k, _>(&[(0.5, 1.0), (-0.7, 0.2)], F64).unwrap();
    }
}

// ---------------------------------------------------------------------------------
// Completeness
// ---------------------------------------------------------------------------------

mod completeness {
    use super::*;
    use weft_ir::builtins::{BUILTINS, doc};

    /// Every kernel of this file has PTX and adjoint PTX (assembled by ptxas with
    /// `WEFT_PTXAS`), except adjoints calling funcs with a Rust-only adjoint.
    #[test]
    fn every_kernel_here_has_ptx() {
        let mut all = [
            scalar::PTX_TABLE,
            operators::PTX_TABLE,
            vector::PTX_TABLE,
            matrix::PTX_TABLE,
            quaternion::PTX_TABLE,
            transform::PTX_TABLE,
            spatial::PTX_TABLE,
            funcs::PTX_TABLE,
            f32_paths::PTX_TABLE,
            special::PTX_TABLE,
            special::PTX_TABLE_2,
            harness::PTX_TABLE,
        ]
        .concat();
        all.extend(f32_paths::PTX_TABLE_2);
        all.extend(special::PTX_TABLE_3);
        weft_testkit::devices::check_all_ptx(
            &all,
            &[
                // Funcs whose adjoint is a plain Rust function (`#[weft::func(adjoint = ..)]`).
                (
                    "builtin_gradients::harness::slightly_wrong_k",
                    "slightly_wrong_sin",
                ),
                ("builtin_gradients::harness::wrong_second_k", "wrong_atan2"),
            ],
        );
    }

    #[test]
    fn every_differentiable_builtin_has_a_kernel_level_check() {
        let covered: Vec<&str> = [
            scalar::COVERED,
            vector::COVERED,
            matrix::COVERED,
            quaternion::COVERED,
            transform::COVERED,
            spatial::COVERED,
        ]
        .concat();
        let missing: Vec<&str> = BUILTINS
            .iter()
            .filter(|b| b.differentiable && !covered.contains(&b.name))
            .map(|b| b.name)
            .collect();
        assert!(
            missing.is_empty(),
            "differentiable builtins without a kernel-level gradient check: {missing:?}"
        );
        // The lists name differentiable builtins that this file calls.
        let source = include_str!("builtin_gradients.rs");
        for name in covered {
            assert!(
                doc(name).is_some_and(|d| d.differentiable),
                "`{name}` is not a differentiable builtin"
            );
            assert!(
                source.contains(&format!(" {name}(")),
                "`{name}` is listed but never called"
            );
        }
    }
}
