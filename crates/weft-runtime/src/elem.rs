//! Element types of arrays, and how kernels read, write and update them.
//!
//! CPU kernels run many threads over one array. Plain loads and stores from several
//! threads to one element would be a data race (undefined behaviour in Rust), so
//! every element access goes through relaxed atomic loads and stores of the element's
//! 4- or 8-byte words. On x86-64 and AArch64 these compile to ordinary moves, so the
//! cost is nil, but a racy kernel reads some value that was written rather than
//! causing undefined behaviour.

use std::sync::atomic::{
    AtomicBool, AtomicI32, AtomicI64, AtomicU32, AtomicU64, Ordering::Relaxed,
};

use weft_types::*;

/// A type that can be stored in an [`crate::Array`].
///
/// # Safety
/// `read`/`write` must access exactly the bytes of one `Self` at a valid, aligned
/// pointer, without creating references to the memory (other threads may access it).
pub unsafe trait Elem: Copy + Send + Sync + bytemuck::Zeroable + 'static {
    /// Reads one element.
    ///
    /// # Safety
    /// `p` must be valid for reads of `Self` and aligned.
    unsafe fn read(p: *const Self) -> Self;
    /// Writes one element.
    ///
    /// # Safety
    /// `p` must be valid for writes of `Self` and aligned.
    unsafe fn write(p: *mut Self, v: Self);
    /// Whether the element holds floats: the NaN check of launches
    /// ([`crate::set_check_nan`]) scans only arrays of such elements.
    const FLOATS: bool = false;
    /// The first of the element's floats that is NaN or infinite (as `f64`), if any.
    #[inline]
    fn non_finite(&self) -> Option<f64> {
        None
    }
}

/// An element type that supports `atomic_add/sub/min/max` (scalars and, componentwise,
/// vectors).
///
/// # Safety
/// Same contract as [`Elem`].
pub unsafe trait AtomicElem: Elem {
    /// Atomically adds `v`; returns the previous value.
    ///
    /// # Safety
    /// `p` must be valid and aligned.
    unsafe fn atomic_add(p: *mut Self, v: Self) -> Self;
    /// Atomically subtracts `v`; returns the previous value.
    ///
    /// # Safety
    /// `p` must be valid and aligned.
    unsafe fn atomic_sub(p: *mut Self, v: Self) -> Self;
    /// Atomically stores the minimum; returns the previous value.
    ///
    /// # Safety
    /// `p` must be valid and aligned.
    unsafe fn atomic_min(p: *mut Self, v: Self) -> Self;
    /// Atomically stores the maximum; returns the previous value.
    ///
    /// # Safety
    /// `p` must be valid and aligned.
    unsafe fn atomic_max(p: *mut Self, v: Self) -> Self;
}

/// Implements [`Elem`] for padding-free types made of 4-byte (`AtomicU32`) or 8-byte
/// (`AtomicU64`) words; `floats f32:` marks types made of floats of that type.
macro_rules! elem_words {
    ($atomic:ty, $word:ty: $($t:ty),* $(,)?) => {$(
        elem_words!(@one $atomic, $word, $t, {});
    )*};
    ($atomic:ty, $word:ty, floats $f:ty: $($t:ty),* $(,)?) => {$(
        elem_words!(@one $atomic, $word, $t, {
            const FLOATS: bool = true;
            #[inline]
            fn non_finite(&self) -> Option<f64> {
                bytemuck::cast_slice::<$t, $f>(std::slice::from_ref(self))
                    .iter()
                    .find(|x| !x.is_finite())
                    .map(|&x| x as f64)
            }
        });
    )*};
    (@one $atomic:ty, $word:ty, $t:ty, { $($extra:tt)* }) => {
        unsafe impl Elem for $t {
            $($extra)*
            #[inline(always)]
            unsafe fn read(p: *const Self) -> Self {
                const N: usize = std::mem::size_of::<$t>() / std::mem::size_of::<$word>();
                const _: () = assert!(N * std::mem::size_of::<$word>() == std::mem::size_of::<$t>());
                let mut out = [0 as $word; N];
                let w = p as *const $atomic;
                for (i, o) in out.iter_mut().enumerate() {
                    // SAFETY: `p` points to a live, aligned `Self` made of N words.
                    *o = unsafe { (*w.add(i)).load(Relaxed) };
                }
                bytemuck::cast(out)
            }
            #[inline(always)]
            unsafe fn write(p: *mut Self, v: Self) {
                const N: usize = std::mem::size_of::<$t>() / std::mem::size_of::<$word>();
                let words: [$word; N] = bytemuck::cast(v);
                let w = p as *const $atomic;
                for (i, x) in words.into_iter().enumerate() {
                    // SAFETY: as in `read`.
                    unsafe { (*w.add(i)).store(x, Relaxed) };
                }
            }
        }
    };
}

elem_words!(AtomicU32, u32, floats f32: f32, Vec2, Vec3, Vec4, Mat2, Mat3, Mat4, Quat,
    SpatialVector, SpatialMatrix);
elem_words!(AtomicU32, u32: i32, u32, IVec2, IVec3, IVec4, UVec2, UVec3, UVec4);
elem_words!(AtomicU64, u64, floats f64: f64, DVec2, DVec3, DVec4, DMat2, DMat3, DMat4, DQuat,
    DSpatialVector, DSpatialMatrix, DTransform);
elem_words!(AtomicU64, u64: i64, u64);

unsafe impl Elem for bool {
    #[inline(always)]
    unsafe fn read(p: *const Self) -> Self {
        // SAFETY: caller guarantees a valid, aligned bool.
        unsafe { (*(p as *const AtomicBool)).load(Relaxed) }
    }
    #[inline(always)]
    unsafe fn write(p: *mut Self, v: Self) {
        // SAFETY: as above.
        unsafe { (*(p as *const AtomicBool)).store(v, Relaxed) }
    }
}

// `Transform` has 4 bytes of padding between `p` and `q`: access the fields.
unsafe impl Elem for Transform {
    #[inline(always)]
    unsafe fn read(p: *const Self) -> Self {
        // SAFETY: field pointers of a valid, aligned Transform.
        unsafe {
            Transform::new(
                Vec3::read(std::ptr::addr_of!((*p).p)),
                Quat::read(std::ptr::addr_of!((*p).q)),
            )
        }
    }
    #[inline(always)]
    unsafe fn write(p: *mut Self, v: Self) {
        // SAFETY: as above.
        unsafe {
            Vec3::write(std::ptr::addr_of_mut!((*p).p), v.p);
            Quat::write(std::ptr::addr_of_mut!((*p).q), v.q);
        }
    }
    const FLOATS: bool = true;
    #[inline]
    fn non_finite(&self) -> Option<f64> {
        self.p.non_finite().or_else(|| self.q.non_finite())
    }
}

macro_rules! atomic_int {
    ($($t:ty => $a:ty),*) => {$(
        unsafe impl AtomicElem for $t {
            #[inline(always)]
            unsafe fn atomic_add(p: *mut Self, v: Self) -> Self {
                // SAFETY: valid, aligned element.
                unsafe { (*(p as *const $a)).fetch_add(v, Relaxed) }
            }
            #[inline(always)]
            unsafe fn atomic_sub(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { (*(p as *const $a)).fetch_sub(v, Relaxed) }
            }
            #[inline(always)]
            unsafe fn atomic_min(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { (*(p as *const $a)).fetch_min(v, Relaxed) }
            }
            #[inline(always)]
            unsafe fn atomic_max(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { (*(p as *const $a)).fetch_max(v, Relaxed) }
            }
        }
    )*};
}
atomic_int!(i32 => AtomicI32, u32 => AtomicU32, i64 => AtomicI64, u64 => AtomicU64);

macro_rules! atomic_float {
    ($($t:ty => $a:ty),*) => {$(
        unsafe impl AtomicElem for $t {
            #[inline(always)]
            unsafe fn atomic_add(p: *mut Self, v: Self) -> Self {
                // SAFETY: valid, aligned element.
                unsafe { cas(p as *const $a, |x| x + v) }
            }
            #[inline(always)]
            unsafe fn atomic_sub(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { cas(p as *const $a, |x| x - v) }
            }
            #[inline(always)]
            unsafe fn atomic_min(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above. NaN in `v` is ignored, like IEEE minNum.
                unsafe { cas(p as *const $a, |x| if v < x { v } else { x }) }
            }
            #[inline(always)]
            unsafe fn atomic_max(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { cas(p as *const $a, |x| if v > x { v } else { x }) }
            }
        }
    )*};
}
atomic_float!(f32 => AtomicU32, f64 => AtomicU64);

/// A compare-and-swap loop applying `f` to a float stored as bits.
trait FloatBits: Sized {
    type F: Copy;
    fn load_f(&self) -> Self::F;
    fn cas_f(&self, old: Self::F, new: Self::F) -> Result<Self::F, Self::F>;
}

impl FloatBits for AtomicU32 {
    type F = f32;
    #[inline(always)]
    fn load_f(&self) -> f32 {
        f32::from_bits(self.load(Relaxed))
    }
    #[inline(always)]
    fn cas_f(&self, old: f32, new: f32) -> Result<f32, f32> {
        self.compare_exchange_weak(old.to_bits(), new.to_bits(), Relaxed, Relaxed)
            .map(f32::from_bits)
            .map_err(f32::from_bits)
    }
}

impl FloatBits for AtomicU64 {
    type F = f64;
    #[inline(always)]
    fn load_f(&self) -> f64 {
        f64::from_bits(self.load(Relaxed))
    }
    #[inline(always)]
    fn cas_f(&self, old: f64, new: f64) -> Result<f64, f64> {
        self.compare_exchange_weak(old.to_bits(), new.to_bits(), Relaxed, Relaxed)
            .map(f64::from_bits)
            .map_err(f64::from_bits)
    }
}

#[inline(always)]
unsafe fn cas<A: FloatBits>(a: *const A, f: impl Fn(A::F) -> A::F) -> A::F {
    // SAFETY: caller guarantees `a` is valid and aligned.
    let a = unsafe { &*a };
    let mut old = a.load_f();
    loop {
        match a.cas_f(old, f(old)) {
            Ok(prev) => return prev,
            Err(cur) => old = cur,
        }
    }
}

/// Componentwise atomics for vectors: each component is updated atomically on its own
/// (as on GPUs), so the whole vector is not updated as one unit.
macro_rules! atomic_vec {
    ($($t:ty: $s:ty, [$($c:ident),*]);* $(;)?) => {$(
        unsafe impl AtomicElem for $t {
            #[inline(always)]
            unsafe fn atomic_add(p: *mut Self, v: Self) -> Self {
                // SAFETY: component pointers of a valid, aligned vector.
                unsafe { <$t>::new($(<$s>::atomic_add(std::ptr::addr_of_mut!((*p).$c), v.$c)),*) }
            }
            #[inline(always)]
            unsafe fn atomic_sub(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$t>::new($(<$s>::atomic_sub(std::ptr::addr_of_mut!((*p).$c), v.$c)),*) }
            }
            #[inline(always)]
            unsafe fn atomic_min(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$t>::new($(<$s>::atomic_min(std::ptr::addr_of_mut!((*p).$c), v.$c)),*) }
            }
            #[inline(always)]
            unsafe fn atomic_max(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$t>::new($(<$s>::atomic_max(std::ptr::addr_of_mut!((*p).$c), v.$c)),*) }
            }
        }
    )*};
}
atomic_vec!(
    Vec2: f32, [x, y]; Vec3: f32, [x, y, z];
    DVec2: f64, [x, y]; DVec3: f64, [x, y, z]; DVec4: f64, [x, y, z, w];
    IVec2: i32, [x, y]; IVec3: i32, [x, y, z]; IVec4: i32, [x, y, z, w];
    UVec2: u32, [x, y]; UVec3: u32, [x, y, z]; UVec4: u32, [x, y, z, w];
);

// Vec4 is a SIMD type in glam: its components are reached through `Deref`, so go
// through a `[f32; 4]` view of the same memory.
unsafe impl AtomicElem for Vec4 {
    #[inline(always)]
    unsafe fn atomic_add(p: *mut Self, v: Self) -> Self {
        // SAFETY: Vec4 is four consecutive f32.
        unsafe { vec4_op(p, v, |a, b| f32::atomic_add(a, b)) }
    }
    #[inline(always)]
    unsafe fn atomic_sub(p: *mut Self, v: Self) -> Self {
        // SAFETY: as above.
        unsafe { vec4_op(p, v, |a, b| f32::atomic_sub(a, b)) }
    }
    #[inline(always)]
    unsafe fn atomic_min(p: *mut Self, v: Self) -> Self {
        // SAFETY: as above.
        unsafe { vec4_op(p, v, |a, b| f32::atomic_min(a, b)) }
    }
    #[inline(always)]
    unsafe fn atomic_max(p: *mut Self, v: Self) -> Self {
        // SAFETY: as above.
        unsafe { vec4_op(p, v, |a, b| f32::atomic_max(a, b)) }
    }
}

#[inline(always)]
unsafe fn vec4_op(p: *mut Vec4, v: Vec4, f: impl Fn(*mut f32, f32) -> f32) -> Vec4 {
    let base = p as *mut f32;
    let v = v.to_array();
    // SAFETY: caller guarantees a valid Vec4 (four f32).
    unsafe {
        Vec4::new(
            f(base, v[0]),
            f(base.add(1), v[1]),
            f(base.add(2), v[2]),
            f(base.add(3), v[3]),
        )
    }
}
