//! The typed IR: SSA values plus mutable local variables, with structured control
//! flow (blocks, `if`, `for`, `while`), produced by the front end through
//! [`crate::Builder`] and consumed by the emitters and by autodiff.

use crate::types::{Scalar, Type};
use proc_macro2::{Span, TokenStream};

/// An SSA value: defined once by [`Stmt::Def`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

/// A mutable (or immutable) local variable, read with [`Expr::Var`] and written with
/// [`Stmt::Assign`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// Whether a function is a kernel (launched over a grid) or a func (called from kernels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FnKind {
    /// `#[kernel]`
    Kernel,
    /// `#[func]`
    Func,
}

/// A function parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// Name as written.
    pub name: String,
    /// Type.
    pub ty: Type,
    /// Span of the parameter, for messages.
    pub span: Span,
    /// For struct parameters: passed as `&mut S`, so the struct's arrays are writable.
    pub writable: bool,
}

/// Static information about an SSA value.
#[derive(Clone, Debug)]
pub struct ValueInfo {
    /// Its type.
    pub ty: Type,
    /// The source span it came from.
    pub span: Span,
}

/// Static information about a local variable.
#[derive(Clone, Debug)]
pub struct VarInfo {
    /// Source name (for readable generated code).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Whether it was declared `let mut` (or is compiler-generated and assigned).
    pub mutable: bool,
}

/// A literal constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    /// `true` / `false`
    Bool(bool),
    /// An integer of the given scalar type.
    Int(i128, Scalar),
    /// A float of the given scalar type (stored as f64; f32 literals are exact in f64).
    Float(f64, Scalar),
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `!x` (bool not, or integer bitwise not)
    Not,
}

/// Binary operators (short-circuit `&&`/`||` are lowered to `if`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl BinOp {
    /// Whether the result is `bool`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
    /// The operator's Rust symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }
}

/// Array atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `atomic_add`
    Add,
    /// `atomic_sub`
    Sub,
    /// `atomic_min`
    Min,
    /// `atomic_max`
    Max,
}

impl AtomicOp {
    /// The builtin's name.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomic_add",
            AtomicOp::Sub => "atomic_sub",
            AtomicOp::Min => "atomic_min",
            AtomicOp::Max => "atomic_max",
        }
    }
}

/// A pure (or, for loads/atomics/rng, effectful) computation producing one value.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A literal.
    Lit(Lit),
    /// The i-th parameter.
    Param(usize),
    /// The current value of a local variable.
    Var(VarId),
    /// A unary operation.
    Unary(UnOp, ValueId),
    /// A binary operation (operand types checked by the builder).
    Binary(BinOp, ValueId, ValueId),
    /// `x as T` between scalar types.
    Cast(ValueId, Scalar),
    /// A builtin function (see [`crate::builtins`]).
    Builtin(&'static str, Vec<ValueId>),
    /// A random-number builtin that advances the `u32` state held in a variable.
    Rng(&'static str, VarId, Vec<ValueId>),
    /// A call of a `#[func]`: its name, the path as written (for the Rust emitter), args.
    Call {
        /// The func's name.
        name: String,
        /// The path as written at the call site.
        path: TokenStream,
        /// Arguments.
        args: Vec<ValueId>,
        /// Per argument: whether the func takes it `&mut` (an array or a structure
        /// of arrays it may write).
        writes: Vec<bool>,
    },
    /// Builds a value of a composite type from its parts (vector components, matrix
    /// columns, quaternion x y z w, transform p q, spatial top bottom, struct fields,
    /// tuple elements).
    Construct(Type, Vec<ValueId>),
    /// A vector with all components equal.
    Splat(Type, ValueId),
    /// The i-th part of a composite value (same numbering as [`Expr::Construct`]).
    Extract(ValueId, u32),
    /// A composite value with its i-th part replaced.
    Insert(ValueId, u32, ValueId),
    /// A vector component picked by a run-time index.
    DynIndex(ValueId, ValueId),
    /// A vector with the component at a run-time index replaced.
    DynInsert(ValueId, ValueId, ValueId),
    /// A matrix element `m[row][col]` with run-time indices.
    MatElem(ValueId, ValueId, ValueId),
    /// An array element load (array value, one index per dimension).
    Load(ValueId, Vec<ValueId>),
    /// An array's length along a dimension (`None`: total element count), as `i32`.
    Len(ValueId, Option<u8>),
    /// An atomic read-modify-write of an array element; yields the old value.
    Atomic(AtomicOp, ValueId, Vec<ValueId>, ValueId),
    /// The thread index along launch dimension `d` (`None`: the flat 1-D index).
    Tid(Option<u8>),
    /// A matrix with element `[row][col]` replaced (adjoints of `m[r][c]`).
    MatInsert(ValueId, ValueId, ValueId, ValueId),
    /// The zero of a type (adjoint accumulators).
    Zero(Type),
    /// Componentwise sum of two values of one float-based type (adjoint accumulation).
    Accum(ValueId, ValueId),
    /// The adjoint rule of a builtin or operator (`add sub mul div rem neg`, `splat`):
    /// forward arguments then the result's adjoint; yields the arguments' adjoints
    /// (one value, or a tuple for several arguments).
    Adjoint(&'static str, Vec<ValueId>),
    /// The adjoint of a `#[func]`: forward arguments then the result's adjoint; yields
    /// a tuple with one adjoint per parameter (`()` for non-differentiable ones).
    FuncAdjoint {
        /// The func's name.
        name: String,
        /// The path of the func as written at the call site.
        path: TokenStream,
        /// Arguments.
        args: Vec<ValueId>,
    },
    /// Reads the gradient of an array element: `(gradient array, primal array,
    /// indices, take)`; zero when the gradient array is absent. With `take` the
    /// element's gradient is reset to zero after the read: the adjoint of a store,
    /// since the value the store overwrote did not reach the output.
    GradRead(ValueId, ValueId, Vec<ValueId>, bool),
    /// An element of a local array variable ([`Type::LocalArray`]) at a run-time
    /// index.
    LocalLoad(VarId, ValueId),
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// Defines an SSA value.
    Def(ValueId, Expr),
    /// Declares a local variable with its initial value.
    Let(VarId, ValueId),
    /// Declares a local variable without a value (assigned on every path before use).
    Declare(VarId),
    /// Assigns a local variable.
    Assign(VarId, ValueId),
    /// Stores into an array element.
    Store(ValueId, Vec<ValueId>, ValueId),
    /// `if cond { then } else { otherwise }`
    If(ValueId, Block, Block),
    /// `for var in start..end { body }` (integer range, step 1).
    For(VarId, ValueId, ValueId, Block),
    /// `while { cond_block; cond } { body }`: the condition is recomputed by `cond_block`.
    While(Block, ValueId, Block),
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `return` (with a value in funcs that have one).
    Return(Option<ValueId>),
    /// `for var in (start..end).rev() { body }` (adjoints of loops).
    ForRev(VarId, ValueId, ValueId, Block),
    /// Pushes values onto the thread's adjoint stack (loop snapshots).
    Save(Vec<ValueId>),
    /// Pops values from the thread's adjoint stack into variables (reverse order of
    /// the matching `Save`).
    Restore(Vec<VarId>),
    /// Adds to the gradient of an array element: `(gradient array, primal array,
    /// indices, value)`; nothing when the gradient array is absent.
    GradAdd(ValueId, ValueId, Vec<ValueId>, ValueId),
    /// Declares a local array variable ([`Type::LocalArray`]) with every element
    /// set to the value.
    LocalArray(VarId, ValueId),
    /// Stores the value into a local array variable's element: `(array, index,
    /// value)`.
    LocalStore(VarId, ValueId, ValueId),
}

/// A sequence of statements.
#[derive(Clone, Debug, Default)]
pub struct Block(pub Vec<Stmt>);

impl Block {
    /// Calls `f` on every statement, in order, descending into the blocks of `if`,
    /// `for` and `while` statements (after the statement that holds them).
    pub fn for_each_stmt(&self, f: &mut impl FnMut(&Stmt)) {
        for s in &self.0 {
            f(s);
            match s {
                Stmt::If(_, x, y) => {
                    x.for_each_stmt(f);
                    y.for_each_stmt(f);
                }
                Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => body.for_each_stmt(f),
                Stmt::While(c, _, body) => {
                    c.for_each_stmt(f);
                    body.for_each_stmt(f);
                }
                _ => {}
            }
        }
    }
}

/// A user struct usable in kernels.
#[derive(Clone, Debug)]
pub struct StructDef {
    /// Name.
    pub name: String,
    /// Fields in order.
    pub fields: Vec<(String, Type)>,
}

/// The signature of a `#[func]`, as seen by callers.
#[derive(Clone, Debug)]
pub struct FuncSig {
    /// Name.
    pub name: String,
    /// Parameter types.
    pub params: Vec<(String, Type)>,
    /// Per parameter: taken `&mut` (an array or a structure of arrays it may write).
    pub writable: Vec<bool>,
    /// Result type.
    pub ret: Type,
}

/// A lowered kernel or func.
#[derive(Clone, Debug)]
pub struct Function {
    /// Name.
    pub name: String,
    /// Kernel or func.
    pub kind: FnKind,
    /// Parameters.
    pub params: Vec<Param>,
    /// Result type (`Unit` for kernels).
    pub ret: Type,
    /// Every SSA value's type and span, indexed by [`ValueId`].
    pub values: Vec<ValueInfo>,
    /// Every local variable, indexed by [`VarId`].
    pub vars: Vec<VarInfo>,
    /// The body.
    pub body: Block,
    /// Launch dimensionality the kernel expects (1 unless `tid()` is destructured).
    pub launch_dims: u8,
    /// The user structs this function can see, by name.
    pub structs: std::collections::HashMap<String, StructDef>,
    /// Declare every value and variable at the top (zero-initialised) instead of at
    /// its definition: adjoints use values across blocks and redefine them when
    /// they replay a loop body.
    pub hoisted: bool,
}

impl Function {
    /// The type of a value.
    pub fn ty(&self, v: ValueId) -> &Type {
        &self.values[v.0 as usize].ty
    }
    /// Every value some statement or expression of the body reads.
    pub fn used_values(&self) -> std::collections::HashSet<ValueId> {
        fn walk(b: &Block, out: &mut std::collections::HashSet<ValueId>) {
            for s in &b.0 {
                match s {
                    Stmt::Def(_, e) => out.extend(e.operands()),
                    Stmt::Let(_, v) | Stmt::Assign(_, v) | Stmt::Return(Some(v)) => {
                        out.insert(*v);
                    }
                    Stmt::Store(a, idx, v) => {
                        out.insert(*a);
                        out.insert(*v);
                        out.extend(idx);
                    }
                    Stmt::GradAdd(g, p, idx, v) => {
                        out.extend([*g, *p, *v]);
                        out.extend(idx);
                    }
                    Stmt::If(c, a, b) => {
                        out.insert(*c);
                        walk(a, out);
                        walk(b, out);
                    }
                    Stmt::For(_, lo, hi, body) | Stmt::ForRev(_, lo, hi, body) => {
                        out.extend([*lo, *hi]);
                        walk(body, out);
                    }
                    Stmt::While(c, v, body) => {
                        out.insert(*v);
                        walk(c, out);
                        walk(body, out);
                    }
                    Stmt::Save(vs) => out.extend(vs),
                    Stmt::LocalArray(_, v) => {
                        out.insert(*v);
                    }
                    Stmt::LocalStore(_, i, v) => {
                        out.insert(*i);
                        out.insert(*v);
                    }
                    Stmt::Declare(_)
                    | Stmt::Break
                    | Stmt::Continue
                    | Stmt::Return(None)
                    | Stmt::Restore(_) => {}
                }
            }
        }
        let mut out = std::collections::HashSet::new();
        walk(&self.body, &mut out);
        out
    }
}

impl Expr {
    /// The values this expression reads.
    pub fn operands(&self) -> Vec<ValueId> {
        match self {
            Expr::Unary(_, a)
            | Expr::Cast(a, _)
            | Expr::Splat(_, a)
            | Expr::Extract(a, _)
            | Expr::LocalLoad(_, a) => {
                vec![*a]
            }
            Expr::Binary(_, a, b) | Expr::DynIndex(a, b) | Expr::Insert(a, _, b) => vec![*a, *b],
            Expr::DynInsert(a, b, c) | Expr::MatElem(a, b, c) => vec![*a, *b, *c],
            Expr::Builtin(_, args) | Expr::Rng(_, _, args) | Expr::Construct(_, args) => {
                args.clone()
            }
            Expr::Call { args, .. } => args.clone(),
            Expr::Load(a, idx) => std::iter::once(*a).chain(idx.iter().copied()).collect(),
            Expr::Atomic(_, a, idx, v) => std::iter::once(*a)
                .chain(idx.iter().copied())
                .chain([*v])
                .collect(),
            Expr::Len(a, _) => vec![*a],
            Expr::MatInsert(a, b, c, d) => vec![*a, *b, *c, *d],
            Expr::Accum(a, b) => vec![*a, *b],
            Expr::Adjoint(_, args) | Expr::FuncAdjoint { args, .. } => args.clone(),
            Expr::GradRead(g, p, idx, _) => {
                [*g, *p].into_iter().chain(idx.iter().copied()).collect()
            }
            Expr::Lit(_) | Expr::Param(_) | Expr::Var(_) | Expr::Tid(_) | Expr::Zero(_) => vec![],
        }
    }
}
