//! Local arrays (`let mut s = [0i32; 32];`) in the thread's local memory.
//!
//! Each array variable of each inlined instance of a function gets its own
//! `.local` symbol, declared at the top of the kernel. An index is checked
//! against the length when bounds checks are on (the error record names a local
//! array: [`LOCAL_ARRAY_PARAM`]); without them it is clamped into range, so an
//! out-of-range index reads or overwrites an element of the same array, never
//! other memory.

use super::emitter::{Em, Frame, Res};
use super::regs::{Class, Reg};
use crate::ir::{ValueId, VarId};
use crate::types::{Scalar, Type};

/// The parameter index the error record holds for an out-of-range local-array
/// index (index: the index, extent: the array's length).
pub const LOCAL_ARRAY_PARAM: u32 = u32::MAX - 2;

/// Bytes an element takes (booleans as 32-bit words).
fn elem_bytes(s: Scalar) -> u32 {
    match s {
        Scalar::Bool => 4,
        s => s.size() as u32,
    }
}

/// The PTX type suffix of a load or store of a scalar held as `s`.
fn suffix(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool | Scalar::I32 | Scalar::U32 => "b32",
        Scalar::I64 | Scalar::U64 => "b64",
        Scalar::F32 => "f32",
        Scalar::F64 => "f64",
    }
}

impl Em<'_> {
    /// The `.local` declarations of the local arrays used so far.
    pub(super) fn local_decls(&self) -> String {
        self.locals
            .iter()
            .map(|(name, bytes)| format!("\t.local .align 16 .b8 {name}[{bytes}];\n"))
            .collect()
    }

    /// The element type, length and symbol of local array `var` in this frame,
    /// declaring its symbol on first use.
    fn local_array(&mut self, fr: &mut Frame, var: VarId) -> Res<(Scalar, u32, String)> {
        let Type::LocalArray { elem, len } = fr.f.vars[var.0 as usize].ty else {
            return Err("internal: local array access on another type".into());
        };
        if let Some(sym) = fr.locals.get(&var) {
            return Ok((elem, len, sym.clone()));
        }
        let sym = format!("__weft_local{}", self.locals.len());
        self.locals.push((sym.clone(), len * elem_bytes(elem)));
        fr.locals.insert(var, sym.clone());
        Ok((elem, len, sym))
    }

    /// The local address of element `i` of `var`, after the bounds check (or
    /// clamp).
    fn local_address(&mut self, fr: &mut Frame, var: VarId, i: ValueId) -> Res<(Scalar, Reg)> {
        let (elem, len, sym) = self.local_array(fr, var)?;
        let ir = fr.get(i)?[0];
        let k = self.widen_i64(ir, fr.ty(i));
        let n = self.c.reg(Class::B64);
        self.c.ins(format!("mov.u64 {n}, {len}"));
        if self.options.bounds_checks {
            let ok = self.c.reg(Class::Pred);
            self.c.ins(format!("setp.lt.u64 {ok}, {k}, {n}"));
            self.fail_unless(ok, LOCAL_ARRAY_PARAM, k, n);
        } else {
            // Unsigned: a negative index clamps to the last element too.
            let c = self.c.reg(Class::B64);
            self.c.ins(format!("min.u64 {c}, {k}, {}", len - 1));
            return self.local_element(elem, &sym, c);
        }
        self.local_element(elem, &sym, k)
    }

    fn local_element(&mut self, elem: Scalar, sym: &str, k: Reg) -> Res<(Scalar, Reg)> {
        let (base, addr) = (self.c.reg(Class::B64), self.c.reg(Class::B64));
        self.c.ins(format!("mov.u64 {base}, {sym}"));
        self.c.ins(format!(
            "mad.lo.s64 {addr}, {k}, {}, {base}",
            elem_bytes(elem)
        ));
        Ok((elem, addr))
    }

    /// `var[i]`.
    pub(super) fn local_load(&mut self, fr: &mut Frame, var: VarId, i: ValueId) -> Res<Vec<Reg>> {
        let (elem, addr) = self.local_address(fr, var, i)?;
        let r = self.c.reg(Class::of(elem));
        if elem == Scalar::Bool {
            let w = self.c.reg(Class::B32);
            self.c.ins(format!("ld.local.b32 {w}, [{addr}]"));
            self.c.ins(format!("setp.ne.b32 {r}, {w}, 0"));
        } else {
            self.c
                .ins(format!("ld.local.{} {r}, [{addr}]", suffix(elem)));
        }
        Ok(vec![r])
    }

    /// `var[i] = v`.
    pub(super) fn local_store(
        &mut self,
        fr: &mut Frame,
        var: VarId,
        i: ValueId,
        v: ValueId,
    ) -> Res<()> {
        let (elem, addr) = self.local_address(fr, var, i)?;
        let r = self.local_word(elem, fr.get(v)?[0]);
        self.c
            .ins(format!("st.local.{} [{addr}], {r}", suffix(elem)));
        Ok(())
    }

    /// The register a store writes for `r` (booleans as a 0/1 word).
    fn local_word(&mut self, elem: Scalar, r: Reg) -> Reg {
        if elem != Scalar::Bool {
            return r;
        }
        let w = self.c.reg(Class::B32);
        self.c.ins(format!("selp.b32 {w}, 1, 0, {r}"));
        w
    }

    /// Declares `var` with every element set to `v`: a loop over the elements,
    /// 16 bytes per store where they divide the array.
    pub(super) fn local_fill(&mut self, fr: &mut Frame, var: VarId, v: ValueId) -> Res<()> {
        let (elem, len, sym) = self.local_array(fr, var)?;
        let r = self.local_word(elem, fr.get(v)?[0]);
        let bytes = len * elem_bytes(elem);
        let (a, end) = (self.c.reg(Class::B64), self.c.reg(Class::B64));
        self.c.ins(format!("mov.u64 {a}, {sym}"));
        self.c.ins(format!("add.u64 {end}, {a}, {bytes}"));
        let top = self.c.label("fill");
        self.c.place(&top);
        let step = if bytes.is_multiple_of(16) {
            let lanes = 16 / elem_bytes(elem);
            let regs = vec![r.to_string(); lanes as usize].join(", ");
            let v = if lanes == 4 { "v4" } else { "v2" };
            self.c
                .ins(format!("st.local.{v}.{} [{a}], {{{regs}}}", suffix(elem)));
            16
        } else {
            self.c.ins(format!("st.local.{} [{a}], {r}", suffix(elem)));
            elem_bytes(elem)
        };
        self.c.ins(format!("add.u64 {a}, {a}, {step}"));
        let more = self.c.reg(Class::Pred);
        self.c.ins(format!("setp.lt.u64 {more}, {a}, {end}"));
        self.c.ins(format!("@{more} bra {top}"));
        Ok(())
    }
}
