//! Flattening of every value type to `f64` components, random inputs built from a flat
//! source of numbers, and the central finite-difference check of adjoint functions.

use proptest::prelude::*;
use std::fmt::Debug;
use weft_types::*;

/// A value type viewed as a list of scalar components (read back rounded to its type).
pub trait Flat: Copy + Debug {
    /// Number of scalar components.
    const N: usize;
    /// Whether the components are `f32` (the finite-difference check is then looser).
    const F32: bool;
    /// Appends the components to `out`.
    fn write(self, out: &mut Vec<f64>);
    /// Builds a value from the first `N` entries of `s`.
    fn read(s: &[f64]) -> Self;

    /// The components as `f64`.
    fn flat(self) -> Vec<f64> {
        let mut v = Vec::with_capacity(Self::N);
        self.write(&mut v);
        v
    }
}

impl Flat for f32 {
    const N: usize = 1;
    const F32: bool = true;
    fn write(self, out: &mut Vec<f64>) {
        out.push(self as f64);
    }
    fn read(s: &[f64]) -> Self {
        s[0] as f32
    }
}

impl Flat for f64 {
    const N: usize = 1;
    const F32: bool = false;
    fn write(self, out: &mut Vec<f64>) {
        out.push(self);
    }
    fn read(s: &[f64]) -> Self {
        s[0]
    }
}

macro_rules! flat_array {
    ($($t:ident: $s:ident, $n:literal, $to:ident, $from:ident;)*) => {$(
        impl Flat for $t {
            const N: usize = $n;
            const F32: bool = <$s as Flat>::F32;
            fn write(self, out: &mut Vec<f64>) {
                out.extend(self.$to().iter().map(|&c| c as f64));
            }
            fn read(s: &[f64]) -> Self {
                let a: [$s; $n] = core::array::from_fn(|i| s[i] as $s);
                $t::$from(&a)
            }
        }
    )*};
}

flat_array! {
    Vec2: f32, 2, to_array, from_slice;
    Vec3: f32, 3, to_array, from_slice;
    Vec4: f32, 4, to_array, from_slice;
    DVec2: f64, 2, to_array, from_slice;
    DVec3: f64, 3, to_array, from_slice;
    DVec4: f64, 4, to_array, from_slice;
    Quat: f32, 4, to_array, from_slice;
    DQuat: f64, 4, to_array, from_slice;
    Mat2: f32, 4, to_cols_array, from_cols_slice;
    Mat3: f32, 9, to_cols_array, from_cols_slice;
    Mat4: f32, 16, to_cols_array, from_cols_slice;
    DMat2: f64, 4, to_cols_array, from_cols_slice;
    DMat3: f64, 9, to_cols_array, from_cols_slice;
    DMat4: f64, 16, to_cols_array, from_cols_slice;
}

macro_rules! flat_struct {
    ($($t:ident: $s:ident, $n:literal, |$v:ident| $to:expr, |$a:ident| $from:expr;)*) => {$(
        impl Flat for $t {
            const N: usize = $n;
            const F32: bool = <$s as Flat>::F32;
            fn write(self, out: &mut Vec<f64>) {
                let $v = self;
                out.extend($to.iter().map(|&c| c as f64));
            }
            fn read(s: &[f64]) -> Self {
                let $a: [$s; $n] = core::array::from_fn(|i| s[i] as $s);
                $from
            }
        }
    )*};
}

flat_struct! {
    SpatialVector: f32, 6, |v| v.to_array(), |a| SpatialVector::from_array(a);
    DSpatialVector: f64, 6, |v| v.to_array(), |a| DSpatialVector::from_array(a);
    SpatialMatrix: f32, 36, |v| v.m.concat(), |a| SpatialMatrix::from_rows(rows(a));
    DSpatialMatrix: f64, 36, |v| v.m.concat(), |a| DSpatialMatrix::from_rows(rows(a));
    Transform: f32, 7, |v| [v.p.x, v.p.y, v.p.z, v.q.x, v.q.y, v.q.z, v.q.w],
        |a| Transform::new(Vec3::new(a[0], a[1], a[2]), Quat::from_xyzw(a[3], a[4], a[5], a[6]));
    DTransform: f64, 7, |v| [v.p.x, v.p.y, v.p.z, v.q.x, v.q.y, v.q.z, v.q.w],
        |a| DTransform::new(DVec3::new(a[0], a[1], a[2]), DQuat::from_xyzw(a[3], a[4], a[5], a[6]));
}

/// 36 row-major elements as 6 rows.
fn rows<S: Copy>(a: [S; 36]) -> [[S; 6]; 6] {
    core::array::from_fn(|r| core::array::from_fn(|c| a[6 * r + c]))
}

impl<A: Flat, B: Flat> Flat for (A, B) {
    const N: usize = A::N + B::N;
    const F32: bool = A::F32;
    fn write(self, out: &mut Vec<f64>) {
        self.0.write(out);
        self.1.write(out);
    }
    fn read(s: &[f64]) -> Self {
        (A::read(s), B::read(&s[A::N..]))
    }
}

impl<A: Flat, B: Flat, C: Flat> Flat for (A, B, C) {
    const N: usize = A::N + B::N + C::N;
    const F32: bool = A::F32;
    fn write(self, out: &mut Vec<f64>) {
        self.0.write(out);
        self.1.write(out);
        self.2.write(out);
    }
    fn read(s: &[f64]) -> Self {
        (A::read(s), B::read(&s[A::N..]), C::read(&s[A::N + B::N..]))
    }
}

/// A stream of random numbers in `[-1, 1)` from which test inputs of any [`Flat`] type are
/// taken in turn (so one proptest case can feed every overload of a builtin).
#[derive(Clone, Debug)]
pub struct Source {
    values: Vec<f64>,
    next: usize,
}

/// A [`Source`] of 256 numbers (reused cyclically if a case takes more).
pub fn source() -> impl Strategy<Value = Source> {
    proptest::collection::vec(-1.0f64..1.0, 256).prop_map(|values| Source { values, next: 0 })
}

impl Source {
    /// The next `X::N` numbers mapped from `[-1, 1)` to `[lo, hi)`, as an `X`.
    pub fn take<X: Flat>(&mut self, lo: f64, hi: f64) -> X {
        let v: Vec<f64> = (0..X::N)
            .map(|_| {
                let u = self.values[self.next % self.values.len()];
                self.next += 1;
                lo + (u + 1.0) * 0.5 * (hi - lo)
            })
            .collect();
        X::read(&v)
    }

    /// [`Source::take`] in `[-2, 2)`.
    pub fn any<X: Flat>(&mut self) -> X {
        self.take(-2.0, 2.0)
    }
}

/// Central finite-difference check of an adjoint: for each scalar component `i` of the
/// argument `x` (a tuple for several arguments), compares `adj_x[i]` with
/// `⟨adj_r, (f(x + h eᵢ) - f(x - h eᵢ)) / 2h⟩`.
///
/// f64: `h = 1e-6 max(1, |xᵢ|)`, tolerance `1e-6` relative; f32: `h = 1e-3 max(1, |xᵢ|)`
/// (the step actually taken after rounding to f32), tolerance `1e-2` relative. Both also
/// allow the finite difference's own rounding error (a few ulps of `Σ|adj_r f|` over `2h`)
/// and a small fraction of the largest gradient component.
#[track_caller]
pub fn check<X: Flat, Y: Flat>(name: &str, f: impl Fn(X) -> Y, x: X, adj_r: Y, adj_x: X) {
    let (h_rel, rtol, eps) = if X::F32 {
        (1e-3, 1e-2, f32::EPSILON as f64)
    } else {
        (1e-6, 1e-6, f64::EPSILON)
    };
    let x0 = x.flat();
    let g = adj_r.flat();
    let an = adj_x.flat();
    assert_eq!(an.len(), x0.len());
    let an_max = an.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut fd = vec![0.0; x0.len()];
    let mut ok = true;
    let mut report = String::new();
    for i in 0..x0.len() {
        let h = h_rel * x0[i].abs().max(1.0);
        let mut xp = x0.clone();
        let mut xm = x0.clone();
        xp[i] += h;
        xm[i] -= h;
        let (xp, xm) = (X::read(&xp), X::read(&xm));
        let step = xp.flat()[i] - xm.flat()[i];
        let (fp, fm) = (f(xp).flat(), f(xm).flat());
        let mut diff = 0.0;
        let mut mag = 0.0;
        for j in 0..g.len() {
            diff += g[j] * (fp[j] - fm[j]);
            mag += g[j].abs() * (fp[j].abs() + fm[j].abs());
        }
        fd[i] = diff / step;
        let noise = 16.0 * eps * mag / step;
        let tol = rtol * fd[i].abs().max(an[i].abs()).max(0.01 * an_max) + noise;
        let err = (fd[i] - an[i]).abs();
        if err.is_nan() || err > tol {
            ok = false;
            report += &format!(
                "\n  component {i}: adjoint {} vs finite difference {} (tol {tol:.3e})",
                an[i], fd[i]
            );
        }
    }
    assert!(
        ok,
        "{name}::<{}>: adjoint disagrees with finite differences at x = {x:?}, \
         adj_r = {adj_r:?}{report}\n  adjoint {an:?}\n  fd      {fd:?}",
        std::any::type_name::<X>()
    );
}

/// Asserts that no component of `x` is NaN.
#[track_caller]
pub fn assert_no_nan<X: Flat>(what: &str, x: X) {
    assert!(x.flat().iter().all(|c| !c.is_nan()), "{what}: NaN in {x:?}");
}

/// Proptest config of the adjoint tests: 64 cases in debug builds, 256 in release, or
/// `PROPTEST_CASES` when set (for longer stress runs).
pub fn adjoint_config() -> ProptestConfig {
    let default = if cfg!(debug_assertions) { 64 } else { 256 };
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(default),
        failure_persistence: None,
        ..Default::default()
    }
}
