//! The elementary functions as kernel-language source: the one source of this
//! crate's `sin`, `exp`, … (compiled as Rust) and of the PTX back end's (which
//! compiles them like any other func).
//!
//! [`F32`] and [`F64`] are sequences of `#[weft::func]` items (no `use`, no
//! constants, no other items), so a back end that compiles them with correctly
//! rounded `+ - * /` (no contraction into fused multiply-adds) reproduces this
//! crate's results bit for bit. Public entry points are named
//! `__weft_<name>_f32` / `__weft_<name>_f64` (see [`func_name`]); helpers
//! `__weft_h_<name>_f32` / `__weft_h_<name>_f64`. The builtins that are
//! native instructions (`sqrt floor ceil round trunc abs`) have no entry
//! here.

/// The `f32` functions: `sin cos tan asin acos atan atan2 sinh cosh tanh exp
/// exp2 log log2 log10 pow cbrt` and their helpers, as `#[weft::func]` items.
pub const F32: &str = include_str!("../dsl/f32.rs");

/// The `f64` functions (same list as [`F32`]), as `#[weft::func]` items.
pub const F64: &str = include_str!("../dsl/f64.rs");

/// The builtins implemented by [`F32`] and [`F64`], by their kernel name.
pub const BUILTINS: &[&str] = &[
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp", "exp2",
    "log", "log2", "log10", "pow", "cbrt",
];

/// The name of the func in [`F32`] (`double == false`) or [`F64`] that
/// implements builtin `builtin`, or `None` if it has none (native
/// instructions such as `sqrt`, and non-math builtins).
///
/// ```
/// assert_eq!(weft_math::dsl::func_name("sin", false), Some("__weft_sin_f32"));
/// assert_eq!(weft_math::dsl::func_name("atan2", true), Some("__weft_atan2_f64"));
/// assert_eq!(weft_math::dsl::func_name("sqrt", false), None);
/// ```
pub fn func_name(builtin: &str, double: bool) -> Option<&'static str> {
    let (f32_name, f64_name) = match builtin {
        "sin" => ("__weft_sin_f32", "__weft_sin_f64"),
        "cos" => ("__weft_cos_f32", "__weft_cos_f64"),
        "tan" => ("__weft_tan_f32", "__weft_tan_f64"),
        "asin" => ("__weft_asin_f32", "__weft_asin_f64"),
        "acos" => ("__weft_acos_f32", "__weft_acos_f64"),
        "atan" => ("__weft_atan_f32", "__weft_atan_f64"),
        "atan2" => ("__weft_atan2_f32", "__weft_atan2_f64"),
        "sinh" => ("__weft_sinh_f32", "__weft_sinh_f64"),
        "cosh" => ("__weft_cosh_f32", "__weft_cosh_f64"),
        "tanh" => ("__weft_tanh_f32", "__weft_tanh_f64"),
        "exp" => ("__weft_exp_f32", "__weft_exp_f64"),
        "exp2" => ("__weft_exp2_f32", "__weft_exp2_f64"),
        "log" => ("__weft_log_f32", "__weft_log_f64"),
        "log2" => ("__weft_log2_f32", "__weft_log2_f64"),
        "log10" => ("__weft_log10_f32", "__weft_log10_f64"),
        "pow" => ("__weft_pow_f32", "__weft_pow_f64"),
        "cbrt" => ("__weft_cbrt_f32", "__weft_cbrt_f64"),
        _ => return None,
    };
    Some(if double { f64_name } else { f32_name })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_has_a_func_in_both_sources() {
        for b in BUILTINS {
            for (double, src) in [(false, F32), (true, F64)] {
                let name = func_name(b, double).unwrap();
                let defined = src.match_indices(name).any(|(i, _)| {
                    src[..i].ends_with("pub fn ") && src[i + name.len()..].starts_with('(')
                });
                assert!(defined, "`{name}` is not defined");
            }
        }
    }

    #[test]
    fn sources_hold_only_funcs() {
        for src in [F32, F64] {
            let mut attr = false;
            for line in src.lines() {
                // Top-level lines: comments, `#[weft::func]`, then `pub fn`.
                if line.is_empty() || line.starts_with(' ') || line.starts_with("//") || line == "}"
                {
                    continue;
                }
                if line == "#[weft::func]" {
                    attr = true;
                    continue;
                }
                assert!(
                    attr && line.starts_with("pub fn __weft_"),
                    "not a func: {line}"
                );
                attr = false;
            }
        }
    }
}
