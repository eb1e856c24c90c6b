//! The elementary functions in the kernel language (`weft_math::dsl`), lowered to
//! IR for the PTX emitter.
//!
//! The same files are weft-math's Rust source (its build script compiles them), so
//! they always parse as Rust; what can still go wrong here is a func outside the
//! kernel subset (a method call, a `const`, …). That is an error of every kernel
//! compiled with this weft, naming the func and its file: never a silent gap that
//! surfaces later as a builtin with no PTX.

use std::collections::HashMap;
use std::rc::Rc;

use quote::quote;

use crate::chain::{Def, Kind};
use crate::env::build_env;
use crate::infer::lower_fn;

/// The funcs of the elementary functions' sources, by name, as IR.
pub type MathFuncs = HashMap<String, weft_ir::Function>;

/// The kernel-language versions of the elementary functions (`weft_math::dsl`),
/// lowered to IR once per compilation, for the PTX emitter; or why one of them
/// does not lower (naming the func and its file).
pub fn math_funcs() -> Result<Rc<MathFuncs>, String> {
    thread_local! {
        static FUNCS: std::cell::OnceCell<Result<Rc<MathFuncs>, String>> =
            const { std::cell::OnceCell::new() };
    }
    FUNCS.with(|c| {
        c.get_or_init(|| {
            lower_sources(&[
                ("crates/weft-math/dsl/f32.rs", weft_math::dsl::F32),
                ("crates/weft-math/dsl/f64.rs", weft_math::dsl::F64),
            ])
            .map(Rc::new)
        })
        .clone()
    })
}

/// Lowers every func of every `(file, text)` source; the first failure is an
/// error naming the func, its file and the reason.
fn lower_sources(sources: &[(&str, &str)]) -> Result<MathFuncs, String> {
    let mut out = HashMap::new();
    for (file, src) in sources {
        out.extend(lower_source(file, src)?);
    }
    Ok(out)
}

/// The funcs of one source file, lowered.
fn lower_source(file: &str, src: &str) -> Result<MathFuncs, String> {
    let fail = |func: &str, why: &dyn std::fmt::Display| {
        format!(
            "weft-math's elementary functions are not valid kernel code: func `{func}` \
             ({file}): {why}"
        )
    };
    let parsed = syn::parse_file(src).map_err(|e| {
        let func = unparsable_func(src).unwrap_or_else(|| "?".into());
        fail(&func, &e)
    })?;
    let mut defs: Vec<(Def, syn::Item)> = Vec::new();
    for item in parsed.items {
        let syn::Item::Fn(mut f) = item else {
            let what = quote!(#item).to_string();
            let what: String = what.chars().take(40).collect();
            return Err(fail(&what, &"only funcs may appear in this file"));
        };
        f.attrs
            .retain(|a| a.path().segments.last().is_none_or(|s| s.ident != "func"));
        let tokens = quote!(#f);
        defs.push((
            Def {
                kind: Kind::Func,
                item: tokens,
                via: None,
            },
            syn::Item::Fn(f),
        ));
    }
    let env = build_env(&defs, None).map_err(|e| {
        // Name the func whose signature is at fault.
        let func = defs
            .iter()
            .find(|d| build_env(std::slice::from_ref(*d), None).is_err())
            .map_or_else(|| "?".into(), |(_, item)| item_name(item));
        fail(&func, &e.message)
    })?;
    let mut funcs = HashMap::new();
    for (_, item) in &defs {
        let syn::Item::Fn(f) = item else { continue };
        let name = f.sig.ident.to_string();
        let mut env = env.clone();
        env.funcs.remove(&name);
        let ir = lower_fn(&env, f, weft_ir::FnKind::Func).map_err(|e| fail(&name, &e.message))?;
        funcs.insert(name, ir);
    }
    Ok(funcs)
}

/// The name of a parsed func item.
fn item_name(item: &syn::Item) -> String {
    match item {
        syn::Item::Fn(f) => f.sig.ident.to_string(),
        _ => "?".into(),
    }
}

/// The first func of `src` that does not parse on its own, by name. The files
/// mark every func with a `#[weft::func]` line; each stretch from one mark to the
/// next (less the next func's doc comment) is parsed by itself.
fn unparsable_func(src: &str) -> Option<String> {
    let lines: Vec<&str> = src.lines().collect();
    let marks: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim() == "#[weft::func]")
        .collect();
    for (k, &start) in marks.iter().enumerate() {
        let mut end = marks.get(k + 1).copied().unwrap_or(lines.len());
        while end > start + 1 && {
            let l = lines[end - 1].trim_start();
            l.is_empty() || l.starts_with("//")
        } {
            end -= 1;
        }
        let chunk = lines[start + 1..end].join("\n");
        if syn::parse_str::<syn::ItemFn>(&chunk).is_err() {
            let name = lines[start + 1..end]
                .iter()
                .find_map(|l| l.split("fn ").nth(1))
                .map(|rest| rest.split(['(', '<', ' ']).next().unwrap_or(rest));
            return Some(name.unwrap_or("?").to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_elementary_function_lowers() {
        let funcs = math_funcs().unwrap_or_else(|e| panic!("{e}"));
        for b in weft_math::dsl::BUILTINS {
            for double in [false, true] {
                let name = weft_math::dsl::func_name(b, double).unwrap();
                assert!(funcs.contains_key(name), "`{name}` missing");
            }
        }
        let defined = [weft_math::dsl::F32, weft_math::dsl::F64]
            .iter()
            .map(|s| s.lines().filter(|l| *l == "#[weft::func]").count())
            .sum::<usize>();
        assert_eq!(funcs.len(), defined);
    }

    const GOOD: &str = "
/// Doubles.
#[weft::func]
pub fn __weft_h_twice_f32(x: f32) -> f32 {
    x + x
}
";

    #[test]
    fn a_func_outside_the_kernel_language_is_named() {
        let bad = "
/// Uses a method, which kernels cannot call on an `f32`.
#[weft::func]
pub fn __weft_h_method_f32(x: f32) -> f32 {
    x.sin() + __weft_h_twice_f32(x)
}
";
        let err = lower_sources(&[("good.rs", GOOD), ("bad.rs", bad)]).unwrap_err();
        assert!(
            err.contains("func `__weft_h_method_f32` (bad.rs)"),
            "unexpected error: {err}"
        );
        // The good file alone lowers, and so does a call between files' funcs.
        assert_eq!(lower_sources(&[("good.rs", GOOD)]).unwrap().len(), 1);
    }

    #[test]
    fn a_func_that_does_not_parse_is_named() {
        let bad = format!(
            "{GOOD}
/// Misses a parenthesis.
#[weft::func]
pub fn __weft_h_broken_f32(x: f32) -> f32 {{
    (x + 1.0_f32
}}

/// Fine again.
#[weft::func]
pub fn __weft_h_after_f32(x: f32) -> f32 {{
    x
}}
"
        );
        let err = lower_sources(&[("broken.rs", &bad)]).unwrap_err();
        assert!(
            err.contains("func `__weft_h_broken_f32` (broken.rs)"),
            "unexpected error: {err}"
        );
    }

    #[test]
    fn a_bad_signature_is_named() {
        let bad = format!(
            "{GOOD}
/// A parameter of a type kernels do not have.
#[weft::func]
pub fn __weft_h_string_f32(x: String) -> f32 {{
    1.0_f32
}}
"
        );
        let err = lower_sources(&[("sig.rs", &bad)]).unwrap_err();
        assert!(
            err.contains("func `__weft_h_string_f32` (sig.rs)"),
            "unexpected error: {err}"
        );
    }

    #[test]
    fn only_funcs_may_appear() {
        let bad = format!("{GOOD}\npub const K: f32 = 1.0;\n");
        let err = lower_sources(&[("const.rs", &bad)]).unwrap_err();
        assert!(
            err.contains("only funcs may appear"),
            "unexpected error: {err}"
        );
    }
}
