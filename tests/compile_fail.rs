//! Kernels outside the language are compile errors that point at the offending token
//! (expected messages in `tests/ui/*.stderr`).

#[test]
fn compile_errors_point_at_the_token() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
