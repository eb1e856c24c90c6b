//! Typed virtual registers and the PTX text being written.

use std::fmt::{self, Write};

use crate::types::Scalar;

/// A register class: PTX names registers by the prefix of their class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// `.pred %p`
    Pred,
    /// `.b32 %r` (i32, u32)
    B32,
    /// `.b64 %rd` (i64, u64, addresses)
    B64,
    /// `.f32 %f`
    F32,
    /// `.f64 %fd`
    F64,
}

impl Class {
    /// The class holding a scalar of the language.
    pub fn of(s: Scalar) -> Class {
        match s {
            Scalar::Bool => Class::Pred,
            Scalar::I32 | Scalar::U32 => Class::B32,
            Scalar::I64 | Scalar::U64 => Class::B64,
            Scalar::F32 => Class::F32,
            Scalar::F64 => Class::F64,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Class::Pred => "p",
            Class::B32 => "r",
            Class::B64 => "rd",
            Class::F32 => "f",
            Class::F64 => "fd",
        }
    }

    /// The PTX type of the class (`.pred`, `.b32`, ...).
    pub fn decl(self) -> &'static str {
        match self {
            Class::Pred => ".pred",
            Class::B32 => ".b32",
            Class::B64 => ".b64",
            Class::F32 => ".f32",
            Class::F64 => ".f64",
        }
    }

    const ALL: [Class; 5] = [Class::Pred, Class::B32, Class::B64, Class::F32, Class::F64];
}

/// A virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    /// Its class.
    pub class: Class,
    /// Its number within the class.
    pub n: u32,
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}{}", self.class.prefix(), self.n)
    }
}

/// The body of one PTX function being written: instructions, labels and the
/// registers they use.
#[derive(Default)]
pub struct Code {
    counts: [u32; 5],
    labels: u32,
    /// Instructions and labels, one per line.
    pub text: String,
}

impl Code {
    /// A fresh register.
    pub fn reg(&mut self, class: Class) -> Reg {
        let i = Class::ALL.iter().position(|c| *c == class).unwrap();
        self.counts[i] += 1;
        Reg {
            class,
            n: self.counts[i],
        }
    }

    /// A fresh label name.
    pub fn label(&mut self, hint: &str) -> String {
        self.labels += 1;
        format!("$L_{hint}_{}", self.labels)
    }

    /// Appends an instruction (`;` added).
    pub fn ins(&mut self, s: impl AsRef<str>) {
        let _ = writeln!(self.text, "\t{};", s.as_ref());
    }

    /// Places a label.
    pub fn place(&mut self, label: &str) {
        let _ = writeln!(self.text, "{label}:");
    }

    /// The register declarations for everything allocated.
    pub fn decls(&self) -> String {
        let mut s = String::new();
        for (i, c) in Class::ALL.iter().enumerate() {
            if self.counts[i] > 0 {
                let _ = writeln!(
                    s,
                    "\t.reg {} %{}<{}>;",
                    c.decl(),
                    c.prefix(),
                    self.counts[i] + 1
                );
            }
        }
        s
    }
}

/// The PTX type suffix of a scalar for arithmetic (`f32`, `s32`, `u64`, ...).
pub fn ty(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "pred",
        Scalar::I32 => "s32",
        Scalar::U32 => "u32",
        Scalar::I64 => "s64",
        Scalar::U64 => "u64",
        Scalar::F32 => "f32",
        Scalar::F64 => "f64",
    }
}

/// The untyped suffix for moves and memory (`b32`, `f64`, ...).
pub fn bits(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "pred",
        Scalar::I32 | Scalar::U32 => "b32",
        Scalar::I64 | Scalar::U64 => "b64",
        Scalar::F32 => "f32",
        Scalar::F64 => "f64",
    }
}

/// A float literal with its exact bits (`0f3F800000`, `0d3FF0000000000000`).
pub fn float_lit(x: f64, s: Scalar) -> String {
    match s {
        Scalar::F32 => format!("0f{:08X}", (x as f32).to_bits()),
        _ => format!("0d{:016X}", x.to_bits()),
    }
}
