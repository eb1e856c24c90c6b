//! Run-time support for adjoint kernels: zero values, adjoint accumulation, the
//! per-thread stack of loop snapshots, and gradient-array access.

use std::mem::MaybeUninit;

use weft_types::*;

use crate::{ArrayView, AtomicElem, Elem, Offset};

/// The zero of a kernel value type (adjoint accumulators start at zero; adjoint
/// functions declare every value up front).
pub trait KernelZero: Copy {
    /// Zero.
    fn zero() -> Self;

    /// The additive identity adjoints start from: `-0.0` in every float component
    /// (`-0.0 + x == x` for every `x`, `+0.0 + x` is not for `x = -0.0`), so the
    /// compiler can drop the first addition into a fresh accumulator. Zero for
    /// integers and booleans.
    #[inline(always)]
    fn adj_zero() -> Self {
        Self::zero()
    }
}

macro_rules! zero_via_zeroable {
    ($($t:ty),*) => {$(
        impl KernelZero for $t {
            #[inline(always)]
            fn zero() -> Self {
                <$t as bytemuck::Zeroable>::zeroed()
            }
        }
    )*};
}
/// Float-based value types: `adj_zero` is `-0.0` in every word.
macro_rules! zero_floats {
    ($w:ty: $($t:ty),*) => {$(
        impl KernelZero for $t {
            #[inline(always)]
            fn zero() -> Self {
                <$t as bytemuck::Zeroable>::zeroed()
            }
            #[inline(always)]
            fn adj_zero() -> Self {
                const N: usize = std::mem::size_of::<$t>() / std::mem::size_of::<$w>();
                bytemuck::cast([-0.0 as $w; N])
            }
        }
    )*};
}
zero_floats!(f32: f32, Vec2, Vec3, Vec4, Mat2, Mat3, Mat4, Quat, SpatialVector, SpatialMatrix);
zero_floats!(f64: f64, DVec2, DVec3, DVec4, DMat2, DMat3, DMat4, DQuat, DSpatialVector,
    DSpatialMatrix);

// Transforms have padding between `p` and `q`.
impl KernelZero for Transform {
    #[inline(always)]
    fn zero() -> Self {
        <Transform as bytemuck::Zeroable>::zeroed()
    }
    #[inline(always)]
    fn adj_zero() -> Self {
        Transform::new(Vec3::adj_zero(), Quat::adj_zero())
    }
}

impl KernelZero for DTransform {
    #[inline(always)]
    fn zero() -> Self {
        <DTransform as bytemuck::Zeroable>::zeroed()
    }
    #[inline(always)]
    fn adj_zero() -> Self {
        DTransform::new(DVec3::adj_zero(), DQuat::adj_zero())
    }
}

zero_via_zeroable!(
    bool, i32, u32, i64, u64, IVec2, IVec3, IVec4, UVec2, UVec3, UVec4, I64Vec2, I64Vec3, I64Vec4,
    U64Vec2, U64Vec3, U64Vec4
);

impl KernelZero for () {
    #[inline(always)]
    fn zero() {}
}

impl<T, const N: usize> KernelZero for ArrayView<T, N> {
    /// A view of nothing: every access fails the bounds check.
    #[inline(always)]
    fn zero() -> Self {
        ArrayView::null()
    }
}

/// Componentwise addition of adjoints.
pub trait Accum: Copy {
    /// `a + b`, componentwise.
    fn accum(a: Self, b: Self) -> Self;
}

macro_rules! accum_via_add {
    ($($t:ty),*) => {$(
        impl Accum for $t {
            #[inline(always)]
            fn accum(a: Self, b: Self) -> Self {
                a + b
            }
        }
    )*};
}
accum_via_add!(
    f32,
    f64,
    Vec2,
    Vec3,
    Vec4,
    DVec2,
    DVec3,
    DVec4,
    Mat2,
    Mat3,
    Mat4,
    DMat2,
    DMat3,
    DMat4,
    Quat,
    DQuat,
    SpatialVector,
    DSpatialVector,
    SpatialMatrix,
    DSpatialMatrix
);

impl Accum for Transform {
    #[inline(always)]
    fn accum(a: Self, b: Self) -> Self {
        Transform::new(a.p + b.p, a.q + b.q)
    }
}

impl Accum for DTransform {
    #[inline(always)]
    fn accum(a: Self, b: Self) -> Self {
        DTransform::new(a.p + b.p, a.q + b.q)
    }
}

/// Integers and booleans carry no gradient: accumulating keeps the first value
/// (their adjoint slots in tuples and structures stay zero).
macro_rules! accum_none {
    ($($t:ty),*) => {$(
        impl Accum for $t {
            #[inline(always)]
            fn accum(a: Self, _b: Self) -> Self {
                a
            }
        }
    )*};
}
accum_none!(
    i32, u32, i64, u64, bool, IVec2, IVec3, IVec4, UVec2, UVec3, UVec4, I64Vec2, I64Vec3, I64Vec4,
    U64Vec2, U64Vec3, U64Vec4
);

impl Accum for () {
    #[inline(always)]
    fn accum(_: Self, _: Self) -> Self {}
}

macro_rules! tuples {
    ($(($($n:ident $i:tt),*)),*) => {$(
        impl<$($n: KernelZero),*> KernelZero for ($($n,)*) {
            #[inline(always)]
            fn zero() -> Self {
                ($($n::zero(),)*)
            }
            #[inline(always)]
            fn adj_zero() -> Self {
                ($($n::adj_zero(),)*)
            }
        }
        impl<$($n: Accum),*> Accum for ($($n,)*) {
            #[inline(always)]
            fn accum(a: Self, b: Self) -> Self {
                ($($n::accum(a.$i, b.$i),)*)
            }
        }
    )*};
}
// Up to `MAX_TUPLE` (16) elements, the most a kernel-language tuple may hold.
tuples!(
    (A 0),
    (A 0, B 1),
    (A 0, B 1, C 2),
    (A 0, B 1, C 2, D 3),
    (A 0, B 1, C 2, D 3, E 4),
    (A 0, B 1, C 2, D 3, E 4, F 5),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14),
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14, P 15)
);

/// The adjoint of `splat(x)`: the sum of the components of the result's adjoint.
#[inline(always)]
pub fn adj_splat<V: SplatSum>(adj: V) -> V::Scalar {
    adj.component_sum()
}

/// Vectors whose components can be summed (for [`adj_splat`]).
pub trait SplatSum {
    /// Component type.
    type Scalar;
    /// `x + y + …`, left to right.
    fn component_sum(self) -> Self::Scalar;
}

macro_rules! splat_sum {
    ($($t:ty: $s:ty, [$($c:ident),*]);*) => {$(
        impl SplatSum for $t {
            type Scalar = $s;
            #[inline(always)]
            fn component_sum(self) -> $s {
                let v = self.to_array();
                let mut s = 0.0;
                for x in v {
                    s += x;
                }
                let _ = [$(stringify!($c)),*];
                s
            }
        }
    )*};
}
splat_sum!(Vec2: f32, [x, y]; Vec3: f32, [x, y, z]; Vec4: f32, [x, y, z, w];
    DVec2: f64, [x, y]; DVec3: f64, [x, y, z]; DVec4: f64, [x, y, z, w]);

/// `m` with element `[row][col]` replaced by `x`.
#[inline(always)]
pub fn with_mat_elem<M: MatrixSet>(m: M, row: i64, col: i64, x: M::Scalar) -> M {
    let n = M::N as i64;
    if row < 0 || row >= n || col < 0 || col >= n {
        panic!("matrix index [{row}][{col}] out of range for a {n}x{n} matrix");
    }
    m.set(row as usize, col as usize, x)
}

/// Matrices whose elements can be replaced.
pub trait MatrixSet: Copy {
    /// Component type.
    type Scalar;
    /// Rows (= columns).
    const N: usize;
    /// The matrix with `[row][col]` set to `x`.
    fn set(self, row: usize, col: usize, x: Self::Scalar) -> Self;
}

macro_rules! matrix_set {
    ($($m:ty: $s:ty, $n:literal);*) => {$(
        impl MatrixSet for $m {
            type Scalar = $s;
            const N: usize = $n;
            #[inline(always)]
            fn set(mut self, row: usize, col: usize, x: $s) -> Self {
                self.col_mut(col)[row] = x;
                self
            }
        }
    )*};
}
matrix_set!(Mat2: f32, 2; Mat3: f32, 3; Mat4: f32, 4; DMat2: f64, 2; DMat3: f64, 3; DMat4: f64, 4);

/// The per-thread stack of an adjoint kernel: loop snapshots pushed during the
/// replay and popped, last first, while iterations are reversed.
#[derive(Default)]
pub struct AdjointStack {
    bytes: Vec<MaybeUninit<u8>>,
}

impl AdjointStack {
    /// An empty stack (allocates on first push).
    #[inline(always)]
    pub fn new() -> Self {
        AdjointStack { bytes: Vec::new() }
    }

    /// Pushes a value.
    #[inline(always)]
    pub fn push<T: Copy>(&mut self, v: T) {
        let n = std::mem::size_of::<T>();
        let at = self.bytes.len();
        self.bytes.resize(at + n, MaybeUninit::uninit());
        // SAFETY: `at..at + n` is in bounds; the buffer holds `MaybeUninit<u8>`, so
        // any bytes of `T` (padding included) may be written; unaligned write.
        unsafe { (self.bytes.as_mut_ptr().add(at) as *mut T).write_unaligned(v) };
    }

    /// Pops the value pushed last.
    ///
    /// # Panics
    /// If the stack holds fewer bytes than a `T` (a bug in the generated adjoint).
    #[inline(always)]
    pub fn pop<T: Copy>(&mut self) -> T {
        let n = std::mem::size_of::<T>();
        let at = self
            .bytes
            .len()
            .checked_sub(n)
            .expect("adjoint stack underflow");
        // SAFETY: the bytes at `at..at + n` were written by `push::<T>` (the generated
        // code pops in exactly the reverse order of its pushes, with the same types).
        let v = unsafe { (self.bytes.as_ptr().add(at) as *const T).read_unaligned() };
        self.bytes.truncate(at);
        v
    }
}

impl<T: Elem, const N: usize> ArrayView<T, N> {
    /// The gradient stored for an element (zero if this gradient array is absent).
    /// `o` is the element's offset in the primal array of the same shape.
    #[inline(always)]
    pub fn grad_read(&self, o: Offset) -> T
    where
        T: KernelZero,
    {
        if self.is_null() {
            T::adj_zero()
        } else {
            self.read(o)
        }
    }

    /// Reads the gradient of an element and resets it to zero: the adjoint of a
    /// store, whose overwritten value did not reach the output. This keeps
    /// gradients right when an array is written twice, and leaves the gradients of
    /// intermediate arrays zero after a backward pass (no clearing pass needed).
    #[inline(always)]
    pub fn grad_take(&self, o: Offset) -> T
    where
        T: KernelZero,
    {
        if self.is_null() {
            T::adj_zero()
        } else {
            let g = self.read(o);
            self.write(o, T::zero());
            g
        }
    }
}

impl<T: GradElem, const N: usize> ArrayView<T, N> {
    /// Adds to the gradient of an element (nothing if this gradient array is absent).
    #[inline(always)]
    pub fn grad_add(&self, o: Offset, v: T) {
        if !self.is_null() {
            // SAFETY: `o` passed the bounds check of the primal array, which has this
            // gradient array's shape (checked at the adjoint launch).
            unsafe { T::grad_atomic_add(self.ptr().add(o.index()), v) }
        }
    }

    /// [`grad_add`](Self::grad_add) with plain (non-atomic) adds.
    ///
    /// # Safety
    /// No other thread may access this element during the launch (the generated
    /// code uses it only for arrays every thread accesses at its own `tid()`).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn grad_add_unsync(&self, o: Offset, v: T) {
        if !self.is_null() {
            // SAFETY: in bounds as in `grad_add`; race-free by the caller's contract.
            unsafe { T::grad_plain_add(self.ptr().add(o.index()), v) }
        }
    }
}

impl<T: Elem + KernelZero, const N: usize> ArrayView<T, N> {
    /// [`grad_read`](Self::grad_read) with a plain load.
    ///
    /// # Safety
    /// As for [`grad_add_unsync`](Self::grad_add_unsync).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn grad_read_unsync(&self, o: Offset) -> T {
        if self.is_null() {
            T::adj_zero()
        } else {
            // SAFETY: race-free by the caller's contract.
            unsafe { self.read_unsync(o) }
        }
    }

    /// [`grad_take`](Self::grad_take) with a plain load and store.
    ///
    /// # Safety
    /// As for [`grad_add_unsync`](Self::grad_add_unsync).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn grad_take_unsync(&self, o: Offset) -> T {
        if self.is_null() {
            T::adj_zero()
        } else {
            // SAFETY: race-free by the caller's contract.
            unsafe {
                let g = self.read_unsync(o);
                self.write_unsync(o, T::zero());
                g
            }
        }
    }
}

/// Element types whose gradients can be accumulated atomically: every float-based
/// value type, componentwise (each float is added atomically on its own).
///
/// # Safety
/// `grad_atomic_add` must only touch the bytes of the one element at `p`.
pub unsafe trait GradElem: Elem {
    /// Atomically adds `v` to the element at `p`, componentwise.
    ///
    /// # Safety
    /// `p` must be valid and aligned.
    unsafe fn grad_atomic_add(p: *mut Self, v: Self);
    /// Adds `v` to the element at `p` with plain loads and stores.
    ///
    /// # Safety
    /// `p` must be valid and aligned, and no other thread may access it meanwhile.
    unsafe fn grad_plain_add(p: *mut Self, v: Self);
}

macro_rules! grad_words {
    ($w:ty: $($t:ty),*) => {$(
        unsafe impl GradElem for $t {
            #[inline(always)]
            unsafe fn grad_atomic_add(p: *mut Self, v: Self) {
                const N: usize = std::mem::size_of::<$t>() / std::mem::size_of::<$w>();
                let words: [$w; N] = bytemuck::cast(v);
                let base = p as *mut $w;
                for (i, x) in words.into_iter().enumerate() {
                    if x != 0.0 {
                        // SAFETY: the element is N consecutive floats.
                        unsafe { <$w as AtomicElem>::atomic_add(base.add(i), x) };
                    }
                }
            }
            #[inline(always)]
            unsafe fn grad_plain_add(p: *mut Self, v: Self) {
                const N: usize = std::mem::size_of::<$t>() / std::mem::size_of::<$w>();
                let words: [$w; N] = bytemuck::cast(v);
                let base = p as *mut $w;
                for (i, x) in words.into_iter().enumerate() {
                    // SAFETY: the element is N consecutive floats, owned by this thread.
                    unsafe { *base.add(i) += x };
                }
            }
        }
    )*};
}
grad_words!(f32: f32, Vec2, Vec3, Vec4, Mat2, Mat3, Mat4, Quat, SpatialVector, SpatialMatrix);
grad_words!(f64: f64, DVec2, DVec3, DVec4, DMat2, DMat3, DMat4, DQuat, DSpatialVector, DSpatialMatrix, DTransform);

unsafe impl GradElem for Transform {
    #[inline(always)]
    unsafe fn grad_atomic_add(p: *mut Self, v: Self) {
        // SAFETY: field pointers of a valid, aligned Transform.
        unsafe {
            Vec3::grad_atomic_add(std::ptr::addr_of_mut!((*p).p), v.p);
            Quat::grad_atomic_add(std::ptr::addr_of_mut!((*p).q), v.q);
        }
    }
    #[inline(always)]
    unsafe fn grad_plain_add(p: *mut Self, v: Self) {
        // SAFETY: field pointers of a valid, aligned Transform owned by this thread.
        unsafe {
            Vec3::grad_plain_add(std::ptr::addr_of_mut!((*p).p), v.p);
            Quat::grad_plain_add(std::ptr::addr_of_mut!((*p).q), v.q);
        }
    }
}
