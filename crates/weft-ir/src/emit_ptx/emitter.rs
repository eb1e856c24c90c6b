//! Statements, control flow, memory and calls.

use std::collections::{HashMap, HashSet};

use super::layout::{self, Comp};
use super::regs::{Class, Code, Reg, bits};
use super::{Options, PtxKernel};
use crate::ir::*;
use crate::types::{Scalar, Type};

/// The line every kernel entry holds right after loading its launch header, before
/// any memory access: where a kernel launched as a programmatic dependent of the
/// previous one (Hopper's `griddepcontrol`) must wait for it. The runtime replaces
/// it with `griddepcontrol.wait; griddepcontrol.launch_dependents;` when it loads
/// the module on a device of compute capability 9.0 or later (the same text as
/// `weft_runtime::cuda::GRID_DEPENDENCY_MARK`); elsewhere it stays a comment.
pub const GRID_DEPENDENCY_MARK: &str = "\t// weft: grid dependency\n";

/// Layout of the device's error record (written by bounds checks): `u32` flag at 0
/// (set to 1 by the first failing thread), `u32` kernel id at 4, `u32` parameter
/// index at 8, `i64` index at 16, `i64` extent at 24.
pub const ERROR_RECORD: [(&str, usize); 5] = [
    ("flag", 0),
    ("kernel", 4),
    ("param", 8),
    ("index", 16),
    ("extent", 24),
];

pub(super) type Res<T> = Result<T, String>;

/// One function being emitted: the kernel, or a func inlined into it.
pub(super) struct Frame<'f> {
    pub f: &'f Function,
    pub vals: HashMap<ValueId, Vec<Reg>>,
    vars: HashMap<VarId, Vec<Reg>>,
    pub params: Vec<Vec<Reg>>,
    /// For an inlined func: where its result goes and the label after its body.
    ret: Option<(Vec<Reg>, String)>,
    /// Enclosing loops: (continue label, break label).
    loops: Vec<(String, String)>,
    /// Values some statement reads (an atomic whose old value nobody reads can be
    /// summed over the warp first).
    pub used: HashSet<ValueId>,
    /// Values known to equal the flat thread index (none inside inlined funcs).
    pub tid_vals: HashSet<ValueId>,
    /// Array parameters each thread touches only at its own `tid()` (or only
    /// reads): their gradients take plain adds.
    unsync: HashSet<usize>,
    /// Values defined as literals: an atomic add at literal indices (`loss[0]`)
    /// targets the same element in every iteration of the grid-stride loop.
    pub const_vals: HashSet<ValueId>,
    /// The `.local` symbol of each local array variable (see `local.rs`).
    pub locals: HashMap<VarId, String>,
}

impl<'f> Frame<'f> {
    pub fn ty(&self, v: ValueId) -> &'f Type {
        &self.f.values[v.0 as usize].ty
    }
    pub fn get(&self, v: ValueId) -> Res<Vec<Reg>> {
        self.vals
            .get(&v)
            .cloned()
            .ok_or_else(|| format!("internal: value {} used before definition", v.0))
    }
}

pub(super) struct Em<'a> {
    pub c: Code,
    funcs: &'a [&'a HashMap<String, Function>],
    pub(super) options: Options,
    /// The flat thread index (b32) and the launch extents.
    tid: Reg,
    dims: [Reg; 4],
    ndims: usize,
    err: Reg,
    /// Where a thread that stops goes (the barrier and flush, then `ret`).
    exit: String,
    /// Where a thread that returns from the kernel goes: its next index.
    next: String,
    depth: usize,
    /// The adjoint stack pointer (bytes, b32) and whether the stack was used.
    pub(super) sp: Reg,
    pub(super) stack_used: bool,
    /// The kernel's name (for module-scope symbols).
    pub(super) name: String,
    /// Block-level reduction slots: byte offset and the element's components.
    pub(super) red_slots: Vec<(u32, Vec<(usize, Scalar)>)>,
    /// Bytes of shared memory the slots take.
    pub(super) red_bytes: u32,
    /// Per-thread register sums of atomic adds at literal indices: the element's
    /// address (0 until the first add), its type and one register per component;
    /// added into the block's slots at the exit ([`Em::cache_flush`]).
    pub(super) red_caches: Vec<(Reg, Type, Vec<Reg>)>,
    /// Base addresses of the arrays no launch of this kernel writes: those of
    /// `&Array` parameters and of structures passed as `&S` (the type checker
    /// rejects writes through them, and a launch takes a shared borrow of each,
    /// so no other parameter of the launch writes the same memory). Loads from
    /// them go through the read-only data cache.
    pub(super) read_only: HashSet<Reg>,
    /// The local arrays' `.local` symbols and sizes in bytes (see `local.rs`).
    pub(super) locals: Vec<(String, u32)>,
    /// The funcs emitted out of line (`.func`), in the order they must be
    /// declared (see `outline.rs`): `(name, text)`.
    pub(super) outlined: Vec<(String, String)>,
    /// Per func name: whether its forward calls go out of line.
    pub(super) outline_cache: HashMap<String, bool>,
}

pub(super) fn emit_kernel(
    f: &Function,
    funcs: &[&HashMap<String, Function>],
    options: Options,
) -> Res<PtxKernel> {
    let mut c = Code::default();
    // Header: extents, total, error record.
    let args = "__args";
    let dims = [0, 1, 2, 3].map(|_| c.reg(Class::B32));
    for (k, d) in dims.iter().enumerate() {
        c.ins(format!(
            "ld.param.b32 {d}, [{args}+{}]",
            layout::HEADER_DIMS + 4 * k
        ));
    }
    let total = c.reg(Class::B32);
    c.ins(format!(
        "ld.param.b32 {total}, [{args}+{}]",
        layout::HEADER_TOTAL
    ));
    let err = c.reg(Class::B64);
    c.ins(format!(
        "ld.param.b64 {err}, [{args}+{}]",
        layout::HEADER_ERROR
    ));
    // Where a kernel launched as a programmatic dependent (sm_90 and later) waits
    // for the grid before it; the runtime turns the mark into instructions when it
    // loads the module on such a device, and it is a comment elsewhere.
    c.text.push_str(GRID_DEPENDENCY_MARK);
    // A grid-stride loop: tid = ctaid.x * ntid.x + tid.x, then + nctaid.x * ntid.x
    // until past the total. The runtime launches one thread per index (the loop
    // runs once) except for kernels with block-level reductions, which it launches
    // as one wave of blocks so each block's reduction covers many indices.
    let (a, b, t) = (c.reg(Class::B32), c.reg(Class::B32), c.reg(Class::B32));
    c.ins(format!("mov.u32 {a}, %ctaid.x"));
    c.ins(format!("mov.u32 {b}, %ntid.x"));
    c.ins(format!("mov.u32 {t}, %tid.x"));
    let tid = c.reg(Class::B32);
    c.ins(format!("mad.lo.u32 {tid}, {a}, {b}, {t}"));
    let stride = c.reg(Class::B32);
    c.ins(format!("mov.u32 {a}, %nctaid.x"));
    c.ins(format!("mul.lo.u32 {stride}, {a}, {b}"));
    let exit = c.label("exit");
    let (top, next) = (c.label("thread"), c.label("next_thread"));
    // Block-level reduction slots are zeroed here (code inserted once the body
    // is emitted), before the loop: every thread of the block passes here and
    // reaches the exit's barrier.
    let red_init_at = c.text.len();
    // Parameters.
    let mut comps = Vec::new();
    for p in &f.params {
        comps.extend(layout::flatten(&p.ty, &f.structs));
    }
    let (offs, size) = layout::arg_offsets(&comps);
    let mut params = Vec::new();
    let mut read_only = HashSet::new();
    let grads = gradient_params(f);
    let mut k = 0;
    for (i, p) in f.params.iter().enumerate() {
        let n = layout::flatten(&p.ty, &f.structs).len();
        let mut regs = Vec::new();
        // An adjoint's gradient structures (`adj_*`) are not `&mut` but are
        // added into: only the primal read-only parameters qualify.
        let ro = match &p.ty {
            Type::Array { access, .. } => *access == crate::types::Access::Read,
            Type::Struct(_) => !p.writable && !grads.contains(&i),
            _ => false,
        };
        for (comp, off) in comps[k..k + n].iter().zip(&offs[k..k + n]) {
            let r = load_param(&mut c, *comp, *off);
            if ro && *comp == Comp::Ptr {
                read_only.insert(r);
            }
            regs.push(r);
        }
        k += n;
        params.push(regs);
    }
    c.place(&top);
    let p = c.reg(Class::Pred);
    c.ins(format!("setp.ge.u32 {p}, {tid}, {total}"));
    c.ins(format!("@{p} bra {exit}"));
    // Prefetches of the next strides' elements go here (inserted once the body is
    // emitted, for kernels that loop).
    let prefetch_at = c.text.len();
    let sp = c.reg(Class::B32);
    c.ins(format!("mov.u32 {sp}, 0"));
    let mut em = Em {
        c,
        funcs,
        options,
        tid,
        dims,
        ndims: f.launch_dims.max(1) as usize,
        err,
        exit: exit.clone(),
        next: next.clone(),
        depth: 0,
        sp,
        stack_used: false,
        name: f.name.clone(),
        red_slots: Vec::new(),
        red_bytes: 0,
        red_caches: Vec::new(),
        read_only,
        locals: Vec::new(),
        outlined: Vec::new(),
        outline_cache: HashMap::new(),
    };
    let mut frame = Frame {
        f,
        vals: HashMap::new(),
        vars: HashMap::new(),
        params,
        ret: None,
        loops: Vec::new(),
        used: f.used_values(),
        tid_vals: crate::emit_rust::tid_values(f),
        unsync: crate::emit_rust::unsync_arrays(f),
        const_vals: super::reduce::literal_values(&f.body),
        locals: HashMap::new(),
    };
    em.zero_vars(&mut frame);
    em.block(&mut frame, &f.body)?;
    em.c.place(&next);
    em.c.ins(format!("add.u32 {tid}, {tid}, {stride}"));
    em.c.ins(format!("bra.uni {top}"));
    em.c.place(&exit);
    em.cache_flush(&frame);
    if em.red_bytes > 0 {
        em.red_flush();
        // Later position first: inserting there leaves `red_init_at` valid.
        let streamed = super::prefetch::streamed_params(f);
        let prefetches = em.prefetches(
            &frame.params,
            &streamed,
            stride,
            super::prefetch::STRIDES_AHEAD,
        );
        em.c.text.insert_str(prefetch_at, &prefetches);
        let init = em.red_init() + &em.cache_init();
        em.c.text.insert_str(red_init_at, &init);
    } else if super::prefetch::updates_own_gradients(f) {
        // One index per thread, but an adjoint reads its primal values and the
        // outputs' gradients, then read-modify-writes the inputs' gradients: one
        // memory latency after another. Asking for all of them up front overlaps
        // those latencies.
        let streamed = super::prefetch::streamed_params(f);
        let prefetches = em.prefetches(&frame.params, &streamed, stride, 0);
        em.c.text.insert_str(prefetch_at, &prefetches);
    }
    em.c.ins("ret");
    // Up to 4,352 bytes of parameters need PTX ISA 8.0 (CUDA 12.0 drivers);
    // more (a kernel or adjoint taking a large structure, such as a model and
    // its gradients) needs 8.1, which allows 32,764 bytes (CUDA 12.1 drivers).
    let version = if size > 4352 { "8.1" } else { "8.0" };
    let text = format!(
        "//\n// Generated by Weft from kernel `{name}`.\n//\n.version {version}\n.target sm_80\n.address_size 64\n\n{shared}{funcs}.visible .entry {name}(\n\t.param .align 8 .b8 {args}[{size}]\n)\n{{\n{decls}{body}}}\n",
        name = f.name,
        shared = em.red_decl(),
        funcs = em.outlined_text(),
        decls = em.c.decls() + &em.stack_decl() + &em.local_decls(),
        body = em.c.text,
    );
    Ok(PtxKernel {
        text,
        args_size: size,
    })
}

/// The parameters whose arrays hold gradients that `f` reads or adds into (an
/// adjoint's `adj_*` parameters).
fn gradient_params(f: &Function) -> HashSet<usize> {
    let sources = crate::access::array_sources(f, &f.body);
    let mut out = HashSet::new();
    f.body.for_each_stmt(&mut |s| {
        let g = match s {
            Stmt::GradAdd(g, ..) | Stmt::Def(_, Expr::GradRead(g, ..)) => g,
            _ => return,
        };
        if let Some(src) = sources.get(g) {
            out.insert(src.param);
        }
    });
    out
}

fn load_param(c: &mut Code, comp: Comp, off: usize) -> Reg {
    match comp {
        Comp::Ptr => {
            let r = c.reg(Class::B64);
            c.ins(format!("ld.param.b64 {r}, [__args+{off}]"));
            r
        }
        Comp::Scalar(Scalar::Bool) => {
            let t = c.reg(Class::B32);
            c.ins(format!("ld.param.b32 {t}, [__args+{off}]"));
            let p = c.reg(Class::Pred);
            c.ins(format!("setp.ne.b32 {p}, {t}, 0"));
            p
        }
        Comp::Scalar(s) => {
            let r = c.reg(Class::of(s));
            c.ins(format!("ld.param.{} {r}, [__args+{off}]", bits(s)));
            r
        }
    }
}

impl<'a> Em<'a> {
    /// The PTX that asks the L2 for the element `strides` grid strides past the
    /// current index of each `(parameter, element size)` in
    /// `streamed` (skipping indices past the extent and absent gradient arrays), as
    /// text to insert at the top of the grid-stride loop.
    fn prefetches(
        &mut self,
        params: &[Vec<Reg>],
        streamed: &[(usize, usize)],
        stride: Reg,
        strides: u32,
    ) -> String {
        if streamed.is_empty() {
            return String::new();
        }
        let body = std::mem::take(&mut self.c.text);
        let ahead = self.c.reg(Class::B32);
        let tid = self.tid;
        self.c
            .ins(format!("mad.lo.u32 {ahead}, {stride}, {strides}, {tid}"));
        for &(i, size) in streamed {
            let (ptr, ext) = (params[i][0], params[i][1]);
            let p = self.c.reg(Class::Pred);
            self.c.ins(format!("setp.lt.u32 {p}, {ahead}, {ext}"));
            self.c.ins(format!("setp.ne.and.u64 {p}, {ptr}, 0, {p}"));
            let addr = self.c.reg(Class::B64);
            self.c.ins(format!("mul.wide.u32 {addr}, {ahead}, {size}"));
            self.c.ins(format!("add.s64 {addr}, {addr}, {ptr}"));
            self.c.ins(format!("@{p} prefetch.global.L2 [{addr}]"));
        }
        std::mem::replace(&mut self.c.text, body)
    }

    pub fn flat(&self, fr: &Frame, t: &Type) -> Vec<Comp> {
        layout::flatten(t, &fr.f.structs)
    }

    pub fn fresh(&mut self, comps: &[Comp]) -> Vec<Reg> {
        comps
            .iter()
            .map(|c| match c {
                Comp::Ptr => self.c.reg(Class::B64),
                Comp::Scalar(s) => self.c.reg(Class::of(*s)),
            })
            .collect()
    }

    pub fn mov(&mut self, dst: Reg, src: Reg) {
        let t = match dst.class {
            Class::Pred => "pred",
            Class::B32 => "b32",
            Class::B64 => "b64",
            Class::F32 => "f32",
            Class::F64 => "f64",
        };
        self.c.ins(format!("mov.{t} {dst}, {src}"));
    }

    pub fn var_regs(&mut self, fr: &mut Frame, var: VarId) -> Vec<Reg> {
        if let Some(r) = fr.vars.get(&var) {
            return r.clone();
        }
        let t = fr.f.vars[var.0 as usize].ty.clone();
        let comps = self.flat(fr, &t);
        let r = self.fresh(&comps);
        fr.vars.insert(var, r.clone());
        r
    }

    /// Adjoint functions (hoisted) read their accumulators before assigning them, as
    /// the Rust emitter's zero-initialised declarations allow: start them at zero.
    fn zero_vars(&mut self, fr: &mut Frame) {
        if !fr.f.hoisted {
            return;
        }
        for i in 0..fr.f.vars.len() {
            if matches!(fr.f.vars[i].ty, Type::LocalArray { .. }) {
                continue;
            }
            let regs = self.var_regs(fr, VarId(i as u32));
            for r in regs {
                let z = match r.class {
                    Class::Pred => {
                        self.c.ins(format!("setp.ne.b32 {r}, 0, 0"));
                        continue;
                    }
                    // Adjoint accumulators start from `-0.0` (`-0.0 + x == x`).
                    Class::F32 => super::regs::float_lit(-0.0, Scalar::F32),
                    Class::F64 => super::regs::float_lit(-0.0, Scalar::F64),
                    _ => "0".into(),
                };
                let t = match r.class {
                    Class::B32 => "b32",
                    Class::B64 => "b64",
                    Class::F32 => "f32",
                    _ => "f64",
                };
                self.c.ins(format!("mov.{t} {r}, {z}"));
            }
        }
    }

    pub fn block(&mut self, fr: &mut Frame, b: &Block) -> Res<()> {
        for s in &b.0 {
            self.stmt(fr, s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, fr: &mut Frame, s: &Stmt) -> Res<()> {
        match s {
            // An atomic add whose old value nobody reads, at an index other than
            // the thread's own: summed over the warp first.
            Stmt::Def(v, Expr::Atomic(op @ (AtomicOp::Add | AtomicOp::Sub), arr, idx, x))
                if !(fr.used.contains(v) || (idx.len() == 1 && fr.tid_vals.contains(&idx[0]))) =>
            {
                let t = fr.ty(*x).clone();
                let addr = self.address(fr, *arr, idx)?;
                let mut val = fr.get(*x)?;
                if *op == AtomicOp::Sub {
                    let s = super::ops::scalar_of(&t)?;
                    val = val
                        .into_iter()
                        .map(|r| self.unary(UnOp::Neg, s, r))
                        .collect();
                }
                if idx.iter().all(|i| fr.const_vals.contains(i)) {
                    self.cached_add(fr, &t, addr, &val);
                } else {
                    self.warp_reduced_add(fr, &t, addr, &val);
                }
                fr.vals.insert(*v, val);
            }
            Stmt::Def(v, e) => {
                let t = fr.ty(*v).clone();
                let r = self.expr(fr, e, &t)?;
                fr.vals.insert(*v, r);
            }
            Stmt::Let(var, v) | Stmt::Assign(var, v) => {
                let dst = self.var_regs(fr, *var);
                let src = fr.get(*v)?;
                for (d, s) in dst.into_iter().zip(src) {
                    self.mov(d, s);
                }
            }
            Stmt::Declare(var) => {
                self.var_regs(fr, *var);
            }
            Stmt::LocalArray(var, v) => self.local_fill(fr, *var, *v)?,
            Stmt::LocalStore(var, i, v) => self.local_store(fr, *var, *i, *v)?,
            Stmt::Store(arr, idx, v) => {
                let t = fr.ty(*v).clone();
                let addr = self.address(fr, *arr, idx)?;
                let val = fr.get(*v)?;
                self.store(fr, &t, addr, &val);
            }
            Stmt::If(c, a, b) => {
                let p = fr.get(*c)?[0];
                let (els, end) = (self.c.label("else"), self.c.label("endif"));
                self.c.ins(format!("@!{p} bra {els}"));
                self.block(fr, a)?;
                self.c.ins(format!("bra.uni {end}"));
                self.c.place(&els);
                self.block(fr, b)?;
                self.c.place(&end);
            }
            Stmt::For(var, start, end, body) => {
                self.for_loop(fr, *var, *start, *end, body, false)?
            }
            Stmt::ForRev(var, start, end, body) => {
                self.for_loop(fr, *var, *start, *end, body, true)?
            }
            Stmt::While(cb, c, body) => {
                let (top, end) = (self.c.label("while"), self.c.label("endwhile"));
                self.c.place(&top);
                self.block(fr, cb)?;
                let p = fr.get(*c)?[0];
                self.c.ins(format!("@!{p} bra {end}"));
                fr.loops.push((top.clone(), end.clone()));
                self.block(fr, body)?;
                fr.loops.pop();
                self.c.ins(format!("bra.uni {top}"));
                self.c.place(&end);
            }
            Stmt::Break => {
                let l = fr
                    .loops
                    .last()
                    .ok_or("internal: break outside a loop")?
                    .1
                    .clone();
                self.c.ins(format!("bra.uni {l}"));
            }
            Stmt::Continue => {
                let l = fr
                    .loops
                    .last()
                    .ok_or("internal: continue outside a loop")?
                    .0
                    .clone();
                self.c.ins(format!("bra.uni {l}"));
            }
            Stmt::Return(v) => match &fr.ret {
                None => {
                    let l = self.next.clone();
                    self.c.ins(format!("bra.uni {l}"));
                }
                Some((dst, end)) => {
                    let (dst, end) = (dst.clone(), end.clone());
                    if let Some(v) = v {
                        let src = fr.get(*v)?;
                        for (d, s) in dst.into_iter().zip(src) {
                            self.mov(d, s);
                        }
                    }
                    self.c.ins(format!("bra.uni {end}"));
                }
            },
            Stmt::GradAdd(g, _p, idx, v) => {
                let t = fr.ty(*v).clone();
                let garr = fr.get(*g)?;
                let skip = self.c.label("nograd");
                let p = self.c.reg(Class::Pred);
                self.c.ins(format!("setp.eq.u64 {p}, {}, 0", garr[0]));
                self.c.ins(format!("@{p} bra {skip}"));
                let addr = self.address(fr, *g, idx)?;
                let val = fr.get(*v)?;
                let at_tid = idx.len() == 1 && fr.tid_vals.contains(&idx[0]);
                let owned = at_tid
                    && array_param_index(fr, *g).is_some_and(|i| fr.unsync.contains(&(i as usize)));
                if owned {
                    self.plain_add(fr, &t, addr, &val);
                } else if at_tid {
                    self.atomic_add_elem(fr, &t, addr, &val, false);
                } else if idx.iter().all(|i| fr.const_vals.contains(i)) {
                    self.cached_add(fr, &t, addr, &val);
                } else {
                    self.warp_reduced_add(fr, &t, addr, &val);
                }
                self.c.place(&skip);
            }
            Stmt::Save(vals) => self.save(fr, vals)?,
            Stmt::Restore(vars) => self.restore(fr, vars),
        }
        Ok(())
    }

    fn for_loop(
        &mut self,
        fr: &mut Frame,
        var: VarId,
        start: ValueId,
        end: ValueId,
        body: &Block,
        rev: bool,
    ) -> Res<()> {
        let t = fr.f.vars[var.0 as usize].ty.clone();
        let Type::Scalar(s) = t else {
            return Err("internal: non-scalar loop variable".into());
        };
        let ts = super::regs::ty(s);
        let (s0, e0) = (fr.get(start)?[0], fr.get(end)?[0]);
        let k = self.c.reg(Class::of(s));
        let (top, cont, done) = (
            self.c.label("for"),
            self.c.label("next"),
            self.c.label("endfor"),
        );
        let p = self.c.reg(Class::Pred);
        if rev {
            // k from end - 1 down to start.
            self.c.ins(format!("mov.{} {k}, {e0}", bits(s)));
            self.c.place(&top);
            self.c.ins(format!("setp.le.{ts} {p}, {k}, {s0}"));
            self.c.ins(format!("@{p} bra {done}"));
            self.c.ins(format!("sub.{ts} {k}, {k}, 1"));
        } else {
            self.c.ins(format!("mov.{} {k}, {s0}", bits(s)));
            self.c.place(&top);
            self.c.ins(format!("setp.ge.{ts} {p}, {k}, {e0}"));
            self.c.ins(format!("@{p} bra {done}"));
        }
        let v = self.var_regs(fr, var)[0];
        self.mov(v, k);
        fr.loops.push((cont.clone(), done.clone()));
        self.block(fr, body)?;
        fr.loops.pop();
        self.c.place(&cont);
        if !rev {
            self.c.ins(format!("add.{ts} {k}, {k}, 1"));
        }
        self.c.ins(format!("bra.uni {top}"));
        self.c.place(&done);
        Ok(())
    }

    /// The address of element `idx` of array value `arr` (bounds-checked in debug mode).
    pub fn address(&mut self, fr: &Frame, arr: ValueId, idx: &[ValueId]) -> Res<Reg> {
        let Type::Array { elem, .. } = fr.ty(arr) else {
            return Err("internal: indexing a non-array".into());
        };
        let a = fr.get(arr)?;
        let (size, _, _) = layout::elem_layout(elem, &fr.f.structs);
        // One 32-bit index: a widening multiply-add (nvcc's pattern, one
        // `IMAD.WIDE`), not a sign extension and a 64-bit multiply.
        if let [i] = idx {
            let s = fr.ty(*i).scalar().unwrap_or(Scalar::I32);
            if matches!(s, Scalar::I32 | Scalar::U32) {
                let ir = fr.get(*i)?[0];
                if self.options.bounds_checks {
                    let i64r = self.widen_i64(ir, fr.ty(*i));
                    self.bounds_check(fr, arr, i64r, a[1])?;
                }
                let sign = if s == Scalar::I32 { "s32" } else { "u32" };
                let off = self.c.reg(Class::B64);
                self.c.ins(format!("mul.wide.{sign} {off}, {ir}, {size}"));
                let addr = self.c.reg(Class::B64);
                self.c.ins(format!("add.s64 {addr}, {}, {off}", a[0]));
                return Ok(addr);
            }
        }
        // Row-major flat index in 64 bits.
        let flat = self.c.reg(Class::B64);
        self.c.ins(format!("mov.b64 {flat}, 0"));
        for (d, i) in idx.iter().enumerate() {
            let ext = a[1 + d];
            let ir = fr.get(*i)?[0];
            let i64r = self.widen_i64(ir, fr.ty(*i));
            if self.options.bounds_checks {
                self.bounds_check(fr, arr, i64r, ext)?;
            }
            let e64 = self.c.reg(Class::B64);
            self.c.ins(format!("cvt.s64.s32 {e64}, {ext}"));
            self.c
                .ins(format!("mad.lo.s64 {flat}, {flat}, {e64}, {i64r}"));
        }
        let addr = self.c.reg(Class::B64);
        self.c
            .ins(format!("mad.lo.s64 {addr}, {flat}, {size}, {}", a[0]));
        Ok(addr)
    }

    pub(super) fn widen_i64(&mut self, r: Reg, t: &Type) -> Reg {
        let s = t.scalar().unwrap_or(Scalar::I32);
        match s {
            Scalar::I64 | Scalar::U64 => r,
            Scalar::U32 => {
                let o = self.c.reg(Class::B64);
                self.c.ins(format!("cvt.u64.u32 {o}, {r}"));
                o
            }
            _ => {
                let o = self.c.reg(Class::B64);
                self.c.ins(format!("cvt.s64.s32 {o}, {r}"));
                o
            }
        }
    }

    fn bounds_check(&mut self, fr: &Frame, arr: ValueId, i: Reg, ext: Reg) -> Res<()> {
        let param = array_param_index(fr, arr).unwrap_or(u32::MAX);
        let e64 = self.c.reg(Class::B64);
        self.c.ins(format!("cvt.s64.s32 {e64}, {ext}"));
        let p = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.lt.u64 {p}, {i}, {e64}"));
        self.fail_unless(p, param, i, e64);
        Ok(())
    }

    /// Unless `ok`: the first failing thread writes the error record (`param`,
    /// `index`, `extent`; see [`ERROR_RECORD`]) and the thread stops.
    pub(super) fn fail_unless(&mut self, ok: Reg, param: u32, index: Reg, extent: Reg) {
        let pass = self.c.label("inbounds");
        self.c.ins(format!("@{ok} bra {pass}"));
        let (old, err) = (self.c.reg(Class::B32), self.err);
        let q = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.eq.u64 {q}, {err}, 0"));
        let exit = self.exit.clone();
        self.c.ins(format!("@{q} bra {exit}"));
        self.c
            .ins(format!("atom.global.cas.b32 {old}, [{err}], 0, 1"));
        self.c.ins(format!("setp.ne.b32 {q}, {old}, 0"));
        self.c.ins(format!("@{q} bra {exit}"));
        self.c.ins(format!(
            "st.global.u32 [{err}+4], {}",
            self.options.kernel_id
        ));
        self.c.ins(format!("st.global.u32 [{err}+8], {param}"));
        self.c.ins(format!("st.global.b64 [{err}+16], {index}"));
        self.c.ins(format!("st.global.b64 [{err}+24], {extent}"));
        self.c.ins(format!("bra.uni {exit}"));
        self.c.place(&pass);
    }

    /// Loads the element of type `t` at `addr`, an element's address in an array
    /// (so aligned to the largest power of two dividing the element's size, up to
    /// 256: allocations are 256-byte aligned). Runs of same-width components at
    /// suitably aligned offsets are read with one vector load (`.v2`, `.v4`, up to
    /// 16 bytes); `nc` reads through the read-only data cache (`ld.global.nc`),
    /// for arrays that nothing writes while the kernel runs.
    pub fn load(&mut self, fr: &Frame, t: &Type, addr: Reg, nc: bool) -> Vec<Reg> {
        let (size, _, comps) = layout::elem_layout(t, &fr.f.structs);
        let align = (1usize << size.trailing_zeros().min(8)).max(1);
        let space = if nc { "global.nc" } else { "global" };
        let mut out = Vec::with_capacity(comps.len());
        let mut k = 0;
        while k < comps.len() {
            let (off, s) = comps[k];
            if s == Scalar::Bool {
                let b = self.c.reg(Class::B32);
                self.c.ins(format!("ld.{space}.u8 {b}, [{addr}+{off}]"));
                let p = self.c.reg(Class::Pred);
                self.c.ins(format!("setp.ne.b32 {p}, {b}, 0"));
                out.push(p);
                k += 1;
                continue;
            }
            let w = s.size();
            // The longest run of 4, then 2 components that one vector load can take.
            let run = [4usize, 2]
                .into_iter()
                .find(|&n| {
                    let bytes = n * w;
                    bytes <= 16
                        && off % bytes == 0
                        && align >= bytes
                        && k + n <= comps.len()
                        && (1..n).all(|j| {
                            let (o, sj) = comps[k + j];
                            sj != Scalar::Bool && sj.size() == w && o == off + j * w
                        })
                })
                .unwrap_or(1);
            let regs: Vec<Reg> = comps[k..k + run]
                .iter()
                .map(|&(_, sj)| self.c.reg(Class::of(sj)))
                .collect();
            if run == 1 {
                let r = regs[0];
                self.c
                    .ins(format!("ld.{space}.{} {r}, [{addr}+{off}]", bits(s)));
            } else {
                // Mixed integer and float components share the bit type.
                let ty = if w == 8 { "b64" } else { "b32" };
                let list = regs
                    .iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                self.c
                    .ins(format!("ld.{space}.v{run}.{ty} {{{list}}}, [{addr}+{off}]"));
            }
            out.extend(regs);
            k += run;
        }
        out
    }

    pub fn store(&mut self, fr: &Frame, t: &Type, addr: Reg, val: &[Reg]) {
        let (_, _, comps) = layout::elem_layout(t, &fr.f.structs);
        for ((off, s), r) in comps.into_iter().zip(val) {
            match s {
                Scalar::Bool => {
                    let b = self.c.reg(Class::B32);
                    self.c.ins(format!("selp.b32 {b}, 1, 0, {r}"));
                    self.c.ins(format!("st.global.u8 [{addr}+{off}], {b}"));
                }
                s => self
                    .c
                    .ins(format!("st.global.{} [{addr}+{off}], {r}", bits(s))),
            }
        }
    }

    /// Atomically adds `val` componentwise to the element at `addr`; returns the old
    /// values when `want_old`.
    pub fn atomic_add_elem(
        &mut self,
        fr: &Frame,
        t: &Type,
        addr: Reg,
        val: &[Reg],
        want_old: bool,
    ) -> Vec<Reg> {
        let (_, _, comps) = layout::elem_layout(t, &fr.f.structs);
        let mut old = Vec::new();
        for ((off, s), r) in comps.into_iter().zip(val) {
            let o = self.c.reg(Class::of(s));
            let ts = super::reduce::red_type(s);
            if want_old {
                self.c
                    .ins(format!("atom.global.add.{ts} {o}, [{addr}+{off}], {r}"));
            } else {
                self.c
                    .ins(format!("red.global.add.{ts} [{addr}+{off}], {r}"));
            }
            old.push(o);
        }
        old
    }

    /// Inlines func `name` (its body, or with `adjoint` its adjoint) on `args`.
    pub fn call(
        &mut self,
        fr: &Frame,
        name: &str,
        args: &[ValueId],
        ret: &Type,
        adjoint: bool,
    ) -> Res<Vec<Reg>> {
        let arg_regs: Vec<Vec<Reg>> = args.iter().map(|a| fr.get(*a)).collect::<Res<_>>()?;
        self.inline(fr, name, arg_regs, ret, adjoint)
    }

    pub fn inline(
        &mut self,
        fr: &Frame,
        name: &str,
        args: Vec<Vec<Reg>>,
        ret: &Type,
        adjoint: bool,
    ) -> Res<Vec<Reg>> {
        let Some(f) = self.func(name) else {
            return Err(format!(
                "func `{name}` is not available to the CUDA back end"
            ));
        };
        if self.depth > 32 {
            return Err(format!(
                "func `{name}`: calls nested too deeply (recursion?)"
            ));
        }
        let adj;
        let f = if adjoint {
            let a = crate::autodiff::adjoint(f);
            if !a.blockers.is_empty() {
                return Err(a.blockers.join("; "));
            }
            adj = a.function;
            &adj
        } else {
            f
        };
        if !adjoint && self.goes_out_of_line(name, f) {
            return self.call_outlined(name, f, args, ret);
        }
        let comps = layout::flatten(ret, &fr.f.structs);
        let out = self.fresh(&comps);
        self.func_body(f, args, &out)?;
        Ok(out)
    }

    /// Func `f`'s body with its parameters in `args`, its result going to
    /// `out`.
    pub(super) fn func_body(&mut self, f: &Function, args: Vec<Vec<Reg>>, out: &[Reg]) -> Res<()> {
        let end = self.c.label("ret");
        let mut inner = Frame {
            f,
            vals: HashMap::new(),
            vars: HashMap::new(),
            params: args,
            ret: Some((out.to_vec(), end.clone())),
            loops: Vec::new(),
            used: f.used_values(),
            tid_vals: HashSet::new(),
            unsync: HashSet::new(),
            const_vals: HashSet::new(),
            locals: HashMap::new(),
        };
        self.zero_vars(&mut inner);
        self.depth += 1;
        let r = self.block(&mut inner, &f.body);
        self.depth -= 1;
        r?;
        self.c.place(&end);
        Ok(())
    }

    /// The flat thread index along launch dimension `d` of `self.ndims`.
    pub fn tid(&mut self, d: Option<u8>) -> Reg {
        let Some(d) = d else {
            return self.tid;
        };
        let d = d as usize;
        let mut stride: Option<Reg> = None;
        for k in (d + 1)..self.ndims {
            let s = match stride {
                None => self.dims[k],
                Some(s) => {
                    let r = self.c.reg(Class::B32);
                    self.c.ins(format!("mul.lo.u32 {r}, {s}, {}", self.dims[k]));
                    r
                }
            };
            stride = Some(s);
        }
        let q = match stride {
            None => self.tid,
            Some(s) => {
                let r = self.c.reg(Class::B32);
                self.c.ins(format!("div.u32 {r}, {}, {s}", self.tid));
                r
            }
        };
        let r = self.c.reg(Class::B32);
        self.c.ins(format!("rem.u32 {r}, {q}, {}", self.dims[d]));
        r
    }

    /// The func `name` from the first map that has it.
    pub fn func(&self, name: &str) -> Option<&'a Function> {
        self.funcs.iter().find_map(|m| m.get(name))
    }
}

/// The kernel parameter an array value comes from directly, if any.
fn array_param_index(fr: &Frame, arr: ValueId) -> Option<u32> {
    fn find(b: &Block, arr: ValueId) -> Option<u32> {
        for s in &b.0 {
            match s {
                Stmt::Def(v, Expr::Param(i)) if *v == arr => return Some(*i as u32),
                Stmt::If(_, a, c) => {
                    if let Some(i) = find(a, arr).or_else(|| find(c, arr)) {
                        return Some(i);
                    }
                }
                Stmt::For(_, _, _, b) | Stmt::ForRev(_, _, _, b) => {
                    if let Some(i) = find(b, arr) {
                        return Some(i);
                    }
                }
                Stmt::While(c, _, b) => {
                    if let Some(i) = find(c, arr).or_else(|| find(b, arr)) {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }
    if fr.ret.is_some() {
        return None;
    }
    find(&fr.f.body, arr)
}
