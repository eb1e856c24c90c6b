//! The per-thread adjoint stack on the GPU: the values a loop carries from one
//! iteration to the next, saved during the adjoint's replay and restored, in
//! reverse, while the loop is walked backwards (`Stmt::Save` / `Stmt::Restore`).
//!
//! It lives in each thread's local memory: [`ADJOINT_STACK_BYTES`] bytes, 4 per
//! 32-bit component or predicate and 8 per 64-bit one (stored as two 32-bit
//! halves, so no slot needs more than 4-byte alignment). A thread that would overflow it writes the
//! error record (parameter [`STACK_OVERFLOW_PARAM`], the bytes it needed and the
//! capacity) and stops, so the next synchronisation reports the kernel by name
//! instead of returning a wrong gradient.

use super::emitter::{Em, Frame};
use super::regs::{Class, Reg};
use crate::ir::{ValueId, VarId};

/// Bytes of adjoint stack per GPU thread (local memory): 2048 32-bit
/// components, e.g. 512 iterations of a loop carrying a `Vec3` and an `f32`.
/// A loop's snapshot holds every variable its body reads or writes, loop
/// invariants included, so nested neighbour loops need a few KiB: the SPH force
/// adjoint takes 60–120 bytes per iteration, about 3 KiB for a cell of 17
/// particles. The driver backs it for every resident thread (8 KiB × 2048
/// threads × 132 SMs ≈ 2.2 GB on an H200) once a kernel that uses it launches.
pub const ADJOINT_STACK_BYTES: u32 = 8192;

/// The error record's parameter index for an adjoint-stack overflow.
pub const STACK_OVERFLOW_PARAM: u32 = u32::MAX - 1;

/// Name of the local array.
const STACK: &str = "__weft_stack";

/// Bytes a component takes on the stack.
fn slot_bytes(r: &Reg) -> u32 {
    match r.class {
        Class::B64 | Class::F64 => 8,
        Class::Pred | Class::B32 | Class::F32 => 4,
    }
}

/// Bytes of a snapshot of `regs`.
fn snapshot_bytes(regs: &[Reg]) -> u32 {
    regs.iter().map(slot_bytes).sum()
}

impl Em<'_> {
    /// The `.local` declaration, when the kernel used the stack.
    pub(super) fn stack_decl(&self) -> String {
        if self.stack_used {
            format!("\t.local .align 8 .b8 {STACK}[{ADJOINT_STACK_BYTES}];\n")
        } else {
            String::new()
        }
    }

    /// Pushes every component of `vals`, in order.
    pub(super) fn save(&mut self, fr: &Frame, vals: &[ValueId]) -> Result<(), String> {
        self.stack_used = true;
        let regs: Vec<Reg> = vals
            .iter()
            .map(|v| fr.get(*v))
            .collect::<Result<Vec<_>, _>>()?
            .concat();
        let n = snapshot_bytes(&regs);
        self.stack_room(n);
        let base = self.stack_top();
        let mut off = 0;
        for r in &regs {
            match r.class {
                Class::Pred => {
                    let b = self.c.reg(Class::B32);
                    self.c.ins(format!("selp.b32 {b}, 1, 0, {r}"));
                    self.c.ins(format!("st.local.b32 [{base}+{off}], {b}"));
                }
                Class::B32 | Class::F32 => self.c.ins(format!("st.local.b32 [{base}+{off}], {r}")),
                Class::B64 | Class::F64 => {
                    let (lo, hi) = (self.c.reg(Class::B32), self.c.reg(Class::B32));
                    self.c.ins(format!("mov.b64 {{{lo}, {hi}}}, {r}"));
                    self.c.ins(format!("st.local.b32 [{base}+{off}], {lo}"));
                    self.c
                        .ins(format!("st.local.b32 [{base}+{}], {hi}", off + 4));
                }
            }
            off += slot_bytes(r);
        }
        let sp = self.sp;
        self.c.ins(format!("add.u32 {sp}, {sp}, {n}"));
        Ok(())
    }

    /// Pops into `vars`: the components of the matching `save`, last first.
    pub(super) fn restore(&mut self, fr: &mut Frame, vars: &[VarId]) {
        let regs: Vec<Reg> = vars.iter().flat_map(|v| self.var_regs(fr, *v)).collect();
        let n = snapshot_bytes(&regs);
        let sp = self.sp;
        self.c.ins(format!("sub.u32 {sp}, {sp}, {n}"));
        let base = self.stack_top();
        let mut off = 0;
        for r in &regs {
            match r.class {
                Class::Pred => {
                    let b = self.c.reg(Class::B32);
                    self.c.ins(format!("ld.local.b32 {b}, [{base}+{off}]"));
                    self.c.ins(format!("setp.ne.b32 {r}, {b}, 0"));
                }
                Class::B32 | Class::F32 => self.c.ins(format!("ld.local.b32 {r}, [{base}+{off}]")),
                Class::B64 | Class::F64 => {
                    let (lo, hi) = (self.c.reg(Class::B32), self.c.reg(Class::B32));
                    self.c.ins(format!("ld.local.b32 {lo}, [{base}+{off}]"));
                    self.c
                        .ins(format!("ld.local.b32 {hi}, [{base}+{}]", off + 4));
                    self.c.ins(format!("mov.b64 {r}, {{{lo}, {hi}}}"));
                }
            }
            off += slot_bytes(r);
        }
    }

    /// The local address of the stack's top.
    fn stack_top(&mut self) -> Reg {
        let (base, off, addr) = (
            self.c.reg(Class::B64),
            self.c.reg(Class::B64),
            self.c.reg(Class::B64),
        );
        self.c.ins(format!("mov.u64 {base}, {STACK}"));
        self.c.ins(format!("cvt.u64.u32 {off}, {}", self.sp));
        self.c.ins(format!("add.u64 {addr}, {base}, {off}"));
        addr
    }

    /// Stops the thread with an error record unless `n` more bytes fit.
    fn stack_room(&mut self, n: u32) {
        let need = self.c.reg(Class::B32);
        self.c.ins(format!("add.u32 {need}, {}, {n}", self.sp));
        let ok = self.c.reg(Class::Pred);
        self.c
            .ins(format!("setp.le.u32 {ok}, {need}, {ADJOINT_STACK_BYTES}"));
        let (need64, cap64) = (self.c.reg(Class::B64), self.c.reg(Class::B64));
        self.c.ins(format!("cvt.u64.u32 {need64}, {need}"));
        self.c
            .ins(format!("mov.u64 {cap64}, {ADJOINT_STACK_BYTES}"));
        self.fail_unless(ok, STACK_OVERFLOW_PARAM, need64, cap64);
    }
}
