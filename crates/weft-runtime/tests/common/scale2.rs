//! A hand-written PTX kernel, `scale2`, and its argument block: shared by the CUDA
//! runtime's tests and its launch-overhead benchmark.

use weft_runtime::Array;

/// `y[i] = 2 * x[i]` for `i < n`; arguments: x (u64 at 0), y (u64 at 8), n (u32 at 16).
pub const SCALE2: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry scale2(
    .param .align 8 .b8 __args[24]
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<3>;

    ld.param.u64 %rd1, [__args+0];
    ld.param.u64 %rd2, [__args+8];
    ld.param.u32 %r1, [__args+16];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    add.f32 %f2, %f1, %f1;
    st.global.f32 [%rd5], %f2;
DONE:
    ret;
}
"#;

/// The argument block of `scale2` reading `x` and writing `y` (`n` = `x.len()`).
pub fn scale2_args(x: &Array<f32>, y: &mut Array<f32>) -> Vec<u8> {
    let mut a = Vec::new();
    a.extend_from_slice(&x.device_ptr().unwrap().to_ne_bytes());
    a.extend_from_slice(&y.device_ptr().unwrap().to_ne_bytes());
    a.extend_from_slice(&(x.len() as u32).to_ne_bytes());
    a.extend_from_slice(&[0; 4]);
    a
}
