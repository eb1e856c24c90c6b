//! Funcs emitted out of line: a `.func` the kernel calls instead of a copy
//! of the func's body at every call site.
//!
//! Everything else is inlined, which keeps registers in registers and lets
//! `ptxas` fold constants across calls. But a kernel that reaches the same
//! large func through many call sites (every `sin`, `cos` and quaternion of
//! an angle carries a Payne–Hanek reduction, ~500 instructions, for
//! arguments beyond ±400) grows with each copy, and `ptxas` time grows
//! faster than the text: a joint solver's adjoint took minutes to assemble.
//! The funcs listed in [`OUTLINED`] are the large paths that run rarely, so
//! a call's cost does not matter. In adjoints (`Options::outline_replays`)
//! the user's pure scalar funcs that reach an elementary function go out of
//! line too: an adjoint replays a func's forward body once per level of
//! loop and call nesting around it, and a joint solver's adjoint held six
//! copies of every angle decomposition. Forward kernels inline everything.
//! Out-of-line funcs take and return scalars only and touch no memory.

use super::emitter::{Em, Res};
use super::layout::{self, Comp};
use super::regs::{Class, Code, Reg};
use crate::ir::{Expr, Function, Stmt};
use crate::types::{Scalar, Type};

/// The funcs always emitted as a `.func` of their own (weft-math's rare
/// paths).
const OUTLINED: [&str; 2] = ["__weft_h_rem_pio2_large_f32", "__weft_h_rem_pio2_large_f64"];

/// Whether `f` takes and returns scalars only (vectors, matrices,
/// quaternions and tuples of them; no `bool`, arrays or structures of
/// arrays).
fn scalar_signature(f: &Function) -> bool {
    let scalar = |t: &Type| {
        layout::flatten(t, &f.structs)
            .iter()
            .all(|c| matches!(c, Comp::Scalar(s) if *s != Scalar::Bool))
    };
    f.params.iter().all(|p| scalar(&p.ty)) && scalar(&f.ret)
}

/// The builtins that inline one of weft-math's elementary functions, besides
/// those named like one (`sin` for `__weft_sin_f32`).
const ELEMENTARY_BUILTINS: [&str; 1] = ["quat_from_axis_angle"];

impl Em<'_> {
    /// Whether a forward call of func `name` (`f`) goes out of line: those
    /// in [`OUTLINED`], and under [`Options::outline_replays`](super::Options)
    /// the user's funcs with a scalar signature whose body (with the funcs it
    /// calls) touches no memory, thread index or random state and reaches an
    /// elementary function — the large pure ones an adjoint would otherwise
    /// copy at every replay.
    pub(super) fn goes_out_of_line(&mut self, name: &str, f: &Function) -> bool {
        if OUTLINED.contains(&name) {
            return scalar_signature(f);
        }
        if !self.options.outline_replays || name.starts_with("__weft_") {
            return false;
        }
        if let Some(&yes) = self.outline_cache.get(name) {
            return yes;
        }
        let yes = scalar_signature(f) && self.pure_reach(f, 0) == Some(true);
        self.outline_cache.insert(name.to_string(), yes);
        yes
    }

    /// `None` if `f` (or a func it calls) touches memory, the thread index,
    /// random state or the adjoint stack; else whether it reaches an
    /// elementary function.
    fn pure_reach(&self, f: &Function, depth: usize) -> Option<bool> {
        if depth > 32 {
            return None;
        }
        let mut pure = true;
        let mut reaches = false;
        let mut calls = Vec::new();
        f.body.for_each_stmt(&mut |s| match s {
            Stmt::Store(..)
            | Stmt::GradAdd(..)
            | Stmt::LocalArray(..)
            | Stmt::LocalStore(..)
            | Stmt::Save(..)
            | Stmt::Restore(..) => pure = false,
            Stmt::Def(_, e) => match e {
                Expr::Tid(_)
                | Expr::Atomic(..)
                | Expr::Load(..)
                | Expr::Len(..)
                | Expr::LocalLoad(..)
                | Expr::GradRead(..)
                | Expr::Rng(..)
                | Expr::Adjoint(..)
                | Expr::FuncAdjoint { .. } => pure = false,
                Expr::Builtin(b, _)
                    if ELEMENTARY_BUILTINS.contains(b)
                        || self.func(&format!("__weft_{b}_f32")).is_some() =>
                {
                    reaches = true;
                }
                Expr::Call { name, .. } => calls.push(name.clone()),
                _ => {}
            },
            _ => {}
        });
        if !pure {
            return None;
        }
        for c in calls {
            reaches |= self.pure_reach(self.func(&c)?, depth + 1)?;
        }
        Some(reaches)
    }

    /// A call of the out-of-line func `name` (`f`) with the scalars `args`:
    /// its result's registers. The first call emits the `.func`.
    pub(super) fn call_outlined(
        &mut self,
        name: &str,
        f: &Function,
        args: Vec<Vec<Reg>>,
        ret: &Type,
    ) -> Res<Vec<Reg>> {
        if !self.outlined.iter().any(|(n, _)| n == name) {
            self.emit_outlined(name, f)?;
        }
        let args: Vec<Reg> = args.into_iter().flatten().collect();
        let comps = layout::flatten(ret, &f.structs);
        let out = self.fresh(&comps);
        let (offsets, size) = result_layout(&out);
        self.c.text.push_str("\t{\n");
        self.c.ins(format!(".param .align 8 .b8 __r[{size}]"));
        for (i, a) in args.iter().enumerate() {
            self.c.ins(format!(".param {} __a{i}", a.class.decl()));
            self.c
                .ins(format!("st.param{} [__a{i}], {a}", a.class.decl()));
        }
        let names: Vec<String> = (0..args.len()).map(|i| format!("__a{i}")).collect();
        self.c
            .ins(format!("call.uni (__r), {name}, ({})", names.join(", ")));
        for (r, off) in out.iter().zip(&offsets) {
            self.c
                .ins(format!("ld.param{} {r}, [__r+{off}]", r.class.decl()));
        }
        self.c.text.push_str("\t}\n");
        Ok(out)
    }

    /// Emits `f` as `.func name` into `self.outlined` (after the funcs its
    /// body calls out of line, which PTX must see declared first): scalar
    /// parameters `__p0, __p1, ...` and one result `__q`, the result's
    /// scalars packed in order (one `.param` result keeps the calling
    /// convention, which `ptxas` gives up for several).
    fn emit_outlined(&mut self, name: &str, f: &Function) -> Res<()> {
        let kernel = std::mem::take(&mut self.c);
        let mut params = Vec::new();
        let mut decl_in = Vec::new();
        for p in &f.params {
            let regs: Vec<Reg> = layout::flatten(&p.ty, &f.structs)
                .iter()
                .map(|c| self.c.reg(class_of(*c)))
                .collect();
            for r in &regs {
                let i = decl_in.len();
                decl_in.push(format!(".param {} __p{i}", r.class.decl()));
                self.c
                    .ins(format!("ld.param{} {r}, [__p{i}]", r.class.decl()));
            }
            params.push(regs);
        }
        let comps = layout::flatten(&f.ret, &f.structs);
        let out = self.fresh(&comps);
        let body = self.func_body(f, params, &out);
        let (offsets, size) = result_layout(&out);
        for (r, off) in out.iter().zip(&offsets) {
            self.c
                .ins(format!("st.param{} [__q+{off}], {r}", r.class.decl()));
        }
        self.c.ins("ret");
        let code: Code = std::mem::replace(&mut self.c, kernel);
        body?;
        let text = format!(
            ".func (.param .align 8 .b8 __q[{size}]) {name}({})\n{{\n{}{}}}\n\n",
            decl_in.join(", "),
            code.decls(),
            code.text
        );
        self.outlined.push((name.to_string(), text));
        Ok(())
    }

    /// The `.func`s of the module, in declaration order.
    pub(super) fn outlined_text(&self) -> String {
        self.outlined.iter().map(|(_, t)| t.as_str()).collect()
    }
}

/// Byte offsets of `regs` packed in order, each aligned to its size, and
/// the total (at least 1).
fn result_layout(regs: &[Reg]) -> (Vec<usize>, usize) {
    let mut at = 0usize;
    let mut offsets = Vec::new();
    for r in regs {
        let n = if matches!(r.class, Class::B64 | Class::F64) {
            8
        } else {
            4
        };
        at = at.div_ceil(n) * n;
        offsets.push(at);
        at += n;
    }
    (offsets, at.max(1))
}

/// The register class of a scalar component.
fn class_of(c: Comp) -> Class {
    match c {
        Comp::Ptr => Class::B64,
        Comp::Scalar(s) => Class::of(s),
    }
}
