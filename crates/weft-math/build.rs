//! Turns the kernel-language sources of the elementary functions (`dsl/*.rs`)
//! into the plain Rust this crate compiles, so the CPU and the PTX back end
//! compile one source.
//!
//! The DSL files are Rust syntax already; the kernel language's semantics for
//! the subset they use (IEEE `+ - * /` without contraction, saturating `as`,
//! the builtins `abs sqrt trunc` and the bit casts, which `src/compiled.rs`
//! maps to this crate's functions) are Rust's. The only change is the
//! attribute: each `#[weft::func]` line becomes `#[inline]` (the functions
//! were `#[inline]` when they were written in Rust, so kernels that call them
//! from another crate still inline them). Any other `#[weft::…]` attribute is
//! refused, so the two readers of a file cannot silently diverge.

use std::path::Path;

fn main() {
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    for name in ["f32", "f64"] {
        let src_path = format!("dsl/{name}.rs");
        println!("cargo::rerun-if-changed={src_path}");
        let src = std::fs::read_to_string(&src_path)
            .unwrap_or_else(|e| panic!("weft-math: cannot read {src_path}: {e}"));
        let mut rust = String::with_capacity(src.len());
        for (n, line) in src.lines().enumerate() {
            if line.trim() == "#[weft::func]" {
                rust.push_str("#[inline]");
            } else if line.trim_start().starts_with("#[weft::") {
                panic!(
                    "weft-math: {src_path}:{}: only `#[weft::func]` may mark an item: {line}",
                    n + 1
                );
            } else {
                rust.push_str(line);
            }
            rust.push('\n');
        }
        std::fs::write(Path::new(&out).join(format!("{name}.rs")), rust)
            .expect("weft-math: cannot write OUT_DIR");
    }
    println!("cargo::rerun-if-changed=build.rs");
}
