//! [`Builder`]: constructs a [`Function`] statement by statement and type-checks every
//! operation as it is added, so every back end sees the same, already-checked IR and
//! every error carries the span of the offending token.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};

use crate::builtins;
use crate::ir::*;
use crate::types::{Access, Scalar, Type};

/// A type or usage error at a source span.
#[derive(Clone, Debug)]
pub struct Error {
    /// Where.
    pub span: Span,
    /// What is wrong and what is allowed instead.
    pub message: String,
    /// If the error came from a `let mut x = <literal>;` whose default type was
    /// wrong: the literal's key and the type it should have had. The front end
    /// then lowers the function again with that type (local type inference).
    pub retype: Option<(LitKey, Scalar)>,
}

/// Names an unsuffixed literal of the source the same way in every lowering of a
/// function (the front end numbers them in source order; see
/// [`Builder::key_literal`]), so an [`Error::retype`] hint from one attempt finds
/// its literal in the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LitKey(pub u32);

impl Error {
    /// A new error.
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        Error {
            span,
            retype: None,
            message: message.into(),
        }
    }
}

/// Result with an [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// The user structs and funcs visible to the function being built.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// Structs by name.
    pub structs: HashMap<String, StructDef>,
    /// Funcs by name.
    pub funcs: HashMap<String, FuncSig>,
}

/// The kind of an unsuffixed literal, which adapts to the type it meets.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Flex {
    Int(i128),
    Float(f64),
}

/// Builds and type-checks one function. See the module docs.
pub struct Builder<'e> {
    env: &'e Env,
    f: Function,
    stack: Vec<Block>,
    flex: HashMap<ValueId, Flex>,
    /// `let mut x = 0.0;` variables not read yet, with their literal: the first
    /// assignment may still choose their type (`x += y_f64` makes `x` an f64).
    flex_vars: HashMap<VarId, ValueId>,
    /// Every variable initialised with an unsuffixed literal, with that literal.
    flex_born: HashMap<VarId, ValueId>,
    /// Reads of such variables.
    flex_reads: HashMap<ValueId, VarId>,
    /// Literal types chosen by an earlier lowering attempt.
    hints: HashMap<LitKey, Scalar>,
    /// The source literal each flexible value comes from (itself, or negated).
    lit_keys: HashMap<ValueId, LitKey>,
    loop_depth: u32,
    /// Struct values reached from a `&mut S` parameter: their arrays are writable.
    writable: std::collections::HashSet<ValueId>,
}

fn mismatch(span: Span, expected: &Type, found: &Type) -> Error {
    Error::new(
        span,
        format!("mismatched types: expected `{expected}`, found `{found}`"),
    )
}

impl<'e> Builder<'e> {
    /// Starts a function with the given parameters and result type.
    pub fn new(env: &'e Env, name: &str, kind: FnKind, params: Vec<Param>, ret: Type) -> Self {
        Builder {
            env,
            f: Function {
                name: name.to_string(),
                kind,
                params,
                ret,
                values: Vec::new(),
                vars: Vec::new(),
                body: Block::default(),
                launch_dims: 1,
                structs: env.structs.clone(),
                hoisted: false,
            },
            stack: vec![Block::default()],
            flex: HashMap::new(),
            flex_vars: HashMap::new(),
            flex_born: HashMap::new(),
            flex_reads: HashMap::new(),
            hints: HashMap::new(),
            lit_keys: HashMap::new(),
            loop_depth: 0,
            writable: Default::default(),
        }
    }

    /// The environment (structs and funcs) this function sees.
    pub fn env(&self) -> &Env {
        self.env
    }

    /// The type of a value.
    pub fn ty(&self, v: ValueId) -> &Type {
        self.f.ty(v)
    }

    /// The span of a value.
    pub fn span(&self, v: ValueId) -> Span {
        self.f.values[v.0 as usize].span
    }

    /// Information about a variable.
    pub fn var(&self, v: VarId) -> &VarInfo {
        &self.f.vars[v.0 as usize]
    }

    /// The function's result type.
    pub fn ret_type(&self) -> &Type {
        &self.f.ret
    }

    /// The function's parameters.
    pub fn params(&self) -> &[Param] {
        &self.f.params
    }

    /// Whether the function is a kernel.
    pub fn is_kernel(&self) -> bool {
        self.f.kind == FnKind::Kernel
    }

    fn push(&mut self, s: Stmt) {
        self.stack.last_mut().expect("block stack").0.push(s);
    }

    fn def(&mut self, ty: Type, span: Span, e: Expr) -> ValueId {
        let id = ValueId(self.f.values.len() as u32);
        self.f.values.push(ValueInfo { ty, span });
        self.push(Stmt::Def(id, e));
        id
    }

    // ----- leaves ---------------------------------------------------------------

    /// The i-th parameter's value.
    pub fn param(&mut self, i: usize, span: Span) -> ValueId {
        let ty = self.f.params[i].ty.clone();
        let writable = self.f.params[i].writable;
        let v = self.def(ty, span, Expr::Param(i));
        if writable {
            self.writable.insert(v);
        }
        v
    }

    /// A `bool` literal.
    pub fn lit_bool(&mut self, b: bool, span: Span) -> ValueId {
        self.def(Type::BOOL, span, Expr::Lit(Lit::Bool(b)))
    }

    /// An integer literal; without a suffix it adapts to the type it meets (default `i32`).
    pub fn lit_int(&mut self, v: i128, suffix: Option<Scalar>, span: Span) -> Result<ValueId> {
        match suffix {
            Some(s) if s.is_float() => {
                Ok(self.def(Type::Scalar(s), span, Expr::Lit(Lit::Float(v as f64, s))))
            }
            Some(s) => {
                check_int_range(v, s, span)?;
                Ok(self.def(Type::Scalar(s), span, Expr::Lit(Lit::Int(v, s))))
            }
            None => {
                let id = self.def(Type::I32, span, Expr::Lit(Lit::Int(v, Scalar::I32)));
                self.flex.insert(id, Flex::Int(v));
                Ok(id)
            }
        }
    }

    /// A float literal; without a suffix it adapts to the float type it meets (default `f32`).
    pub fn lit_float(&mut self, v: f64, suffix: Option<Scalar>, span: Span) -> ValueId {
        let s = suffix.unwrap_or(Scalar::F32);
        let id = self.def(Type::Scalar(s), span, Expr::Lit(Lit::Float(v, s)));
        if suffix.is_none() {
            self.flex.insert(id, Flex::Float(v));
        }
        id
    }

    /// Converts `v` to type `want` if it already has it or is an unsuffixed literal that
    /// can take it; otherwise a "mismatched types" error at `v`'s span.
    pub fn coerce(&mut self, v: ValueId, want: &Type) -> Result<ValueId> {
        if self.ty(v) == want {
            return Ok(v);
        }
        // A writable array may be passed where a read-only one is wanted (as
        // `&mut T` coerces to `&T`): both are the same view.
        if let (
            Type::Array {
                elem,
                ndim,
                access: crate::types::Access::Write,
            },
            Type::Array {
                elem: we,
                ndim: wn,
                access: crate::types::Access::Read,
            },
        ) = (self.ty(v), want)
            && elem == we
            && ndim == wn
        {
            return Ok(v);
        }
        let span = self.span(v);
        if let (Some(fl), Type::Scalar(s)) = (self.flex.get(&v).copied(), want) {
            match fl {
                Flex::Int(i) if s.is_int() => {
                    check_int_range(i, *s, span)?;
                    return Ok(self.def(want.clone(), span, Expr::Lit(Lit::Int(i, *s))));
                }
                Flex::Float(x) if s.is_float() => {
                    return Ok(self.def(want.clone(), span, Expr::Lit(Lit::Float(x, *s))));
                }
                Flex::Int(_) if s.is_float() => {
                    return Err(Error::new(
                        span,
                        format!(
                            "expected `{want}`, found integer literal; write it as a float literal (e.g. `1.0`)"
                        ),
                    ));
                }
                _ => {}
            }
        }
        let mut e = mismatch(span, want, self.ty(v));
        e.retype = self.hint_to(v, want);
        Err(e)
    }

    /// A retype hint when `v` reads a variable born from an unsuffixed literal of the
    /// same kind as `want` (`let x: f64 = if c { 1.0 } else { 2.0 };`).
    fn hint_to(&self, v: ValueId, want: &Type) -> Option<(LitKey, Scalar)> {
        let var = self.flex_reads.get(&v)?;
        let lit = self.flex_born.get(var)?;
        let (Type::Scalar(cur), Type::Scalar(s)) = (self.ty(*lit), want) else {
            return None;
        };
        let key = *self.lit_keys.get(lit)?;
        (cur.is_float() == s.is_float() && cur.is_int() == s.is_int() && cur != s)
            .then_some((key, *s))
    }

    /// Marks a compiler-generated variable as holding an unsuffixed literal `lit`
    /// (the value of an `if` expression), so a later type mismatch retypes the literal.
    pub fn mark_flex_born(&mut self, var: VarId, lit: ValueId) {
        self.flex_born.insert(var, lit);
    }

    /// An unsuffixed literal given the type a previous attempt's hint asks for.
    pub fn hinted(&mut self, v: ValueId) -> Result<ValueId> {
        if self.flex.contains_key(&v)
            && let Some(s) = self.hint(v)
        {
            let fl = self.flex[&v];
            let r = self.coerce(v, &Type::Scalar(s))?;
            self.flex.insert(r, fl);
            self.inherit_key(v, r);
            return Ok(r);
        }
        Ok(v)
    }

    /// Makes two operands agree when one is an unsuffixed literal.
    fn unify_scalars(&mut self, a: ValueId, b: ValueId) -> Result<(ValueId, ValueId)> {
        let (fa, fb) = (self.flex.contains_key(&a), self.flex.contains_key(&b));
        if fa && !fb {
            if let Some(s) = self.ty(b).scalar() {
                let a = self.coerce(a, &Type::Scalar(s))?;
                return Ok((a, b));
            }
        } else if fb
            && !fa
            && let Some(s) = self.ty(a).scalar()
        {
            let b = self.coerce(b, &Type::Scalar(s))?;
            return Ok((a, b));
        }
        Ok((a, b))
    }

    // ----- operators ------------------------------------------------------------

    /// `-x` or `!x`.
    pub fn unary(&mut self, op: UnOp, a: ValueId, span: Span) -> Result<ValueId> {
        let t = self.ty(a).clone();
        let ok = match op {
            UnOp::Neg => match &t {
                Type::Scalar(s) => s.is_float() || s.is_signed_int(),
                Type::Vector(_, s) => s.is_float() || s.is_signed_int(),
                Type::Matrix(..)
                | Type::Quat(_)
                | Type::SpatialVector(_)
                | Type::SpatialMatrix(_) => true,
                _ => false,
            },
            UnOp::Not => matches!(&t, Type::Scalar(s) if *s == Scalar::Bool || s.is_int()),
        };
        if !ok {
            let what = if op == UnOp::Neg {
                "negate"
            } else {
                "apply `!` to"
            };
            return Err(Error::new(
                span,
                format!("cannot {what} a value of type `{t}`"),
            ));
        }
        if let (UnOp::Neg, Some(fl)) = (op, self.flex.get(&a).copied()) {
            // Keep `-1` flexible.
            let id = self.def(t, span, Expr::Unary(op, a));
            self.flex.insert(
                id,
                match fl {
                    Flex::Int(i) => Flex::Int(-i),
                    Flex::Float(x) => Flex::Float(-x),
                },
            );
            self.inherit_key(a, id);
            return Ok(id);
        }
        Ok(self.def(t, span, Expr::Unary(op, a)))
    }

    /// `a op b` with the operator typing rules of the kernel language.
    pub fn binary(&mut self, op: BinOp, a: ValueId, b: ValueId, span: Span) -> Result<ValueId> {
        let (a, b) = self.unify_scalars(a, b)?;
        let (ta, tb) = (self.ty(a).clone(), self.ty(b).clone());
        let hint = self.hint_for(a, b);
        let ty = binary_type(op, &ta, &tb).ok_or_else(|| {
            let mut e = Error::new(
                span,
                format!(
                    "no operator `{}` for `{ta}` and `{tb}`{}",
                    op.symbol(),
                    binary_hint(op, &ta, &tb)
                ),
            );
            e.retype = hint;
            e
        })?;
        Ok(self.def(ty, span, Expr::Binary(op, a, b)))
    }

    /// `x as T` between scalar types.
    pub fn cast(&mut self, v: ValueId, to: &Type, span: Span) -> Result<ValueId> {
        let Type::Scalar(s) = to else {
            return Err(Error::new(
                span,
                format!("`as` converts between scalar types only, not to `{to}`"),
            ));
        };
        let from = self.ty(v).clone();
        if !from.is_scalar() {
            return Err(Error::new(
                span,
                format!("`as` converts between scalar types only, not from `{from}`"),
            ));
        }
        if *s == Scalar::Bool && from != Type::BOOL {
            return Err(Error::new(
                span,
                "cannot cast to `bool`; compare instead (e.g. `x != 0`)",
            ));
        }
        if from == Type::BOOL && s.is_float() {
            return Err(Error::new(
                span,
                "cannot cast `bool` to a float; cast to an integer first",
            ));
        }
        Ok(self.def(to.clone(), span, Expr::Cast(v, *s)))
    }

    // ----- calls ----------------------------------------------------------------

    /// A builtin call, resolved through [`builtins::resolve`].
    pub fn builtin(&mut self, name: &str, args: Vec<ValueId>, span: Span) -> Result<ValueId> {
        let d = builtins::doc(name)
            .ok_or_else(|| Error::new(span, format!("`{name}` is not a builtin")))?;
        let args = self.unify_args(args)?;
        let tys: Vec<Type> = args.iter().map(|a| self.ty(*a).clone()).collect();
        let ret = builtins::resolve(name, &tys).map_err(|m| Error::new(span, m))?;
        Ok(self.def(ret, span, Expr::Builtin(d.name, args)))
    }

    /// Coerces unsuffixed literal arguments to the scalar type of the first typed argument.
    fn unify_args(&mut self, args: Vec<ValueId>) -> Result<Vec<ValueId>> {
        let Some(first) = args.iter().find(|a| !self.flex.contains_key(a)) else {
            return Ok(args);
        };
        let Some(s) = self.ty(*first).scalar() else {
            return Ok(args);
        };
        args.into_iter()
            .map(|a| {
                if self.flex.contains_key(&a) {
                    self.coerce(a, &Type::Scalar(s)).or(Ok(a))
                } else {
                    Ok(a)
                }
            })
            .collect()
    }

    /// A random-number builtin advancing the `u32` state in variable `state`.
    pub fn rng(
        &mut self,
        name: &str,
        state: VarId,
        args: Vec<ValueId>,
        span: Span,
    ) -> Result<ValueId> {
        let d = builtins::doc(name)
            .ok_or_else(|| Error::new(span, format!("`{name}` is not a builtin")))?;
        let info = self.var(state).clone();
        if info.ty != Type::U32 {
            return Err(Error::new(
                span,
                format!(
                    "`{name}` needs `&mut` a `u32` state from `rand_init`, found `{}`",
                    info.ty
                ),
            ));
        }
        if !info.mutable {
            return Err(Error::new(
                span,
                format!(
                    "the random state `{}` must be declared `let mut`",
                    info.name
                ),
            ));
        }
        let mut coerced = Vec::new();
        for a in args {
            coerced.push(self.coerce(a, &Type::F32).unwrap_or(a));
        }
        let mut tys = vec![Type::U32];
        tys.extend(coerced.iter().map(|a| self.ty(*a).clone()));
        let ret = builtins::resolve(name, &tys).map_err(|m| Error::new(span, m))?;
        Ok(self.def(ret, span, Expr::Rng(d.name, state, coerced)))
    }

    /// A call of a `#[func]` from the environment.
    pub fn call(
        &mut self,
        name: &str,
        path: TokenStream,
        args: Vec<ValueId>,
        span: Span,
    ) -> Result<ValueId> {
        let sig = self.env.funcs.get(name).cloned().ok_or_else(|| {
            Error::new(
                span,
                format!(
                    "cannot find function `{name}`: not a builtin and not a `#[func]` in scope"
                ),
            )
        })?;
        if sig.params.len() != args.len() {
            return Err(Error::new(
                span,
                format!(
                    "`{name}` takes {} argument(s), found {}",
                    sig.params.len(),
                    args.len()
                ),
            ));
        }
        let mut out = Vec::new();
        for (k, (a, (pname, t))) in args.into_iter().zip(&sig.params).enumerate() {
            let a = self.coerce(a, t)?;
            if sig.writable.get(k) == Some(&true)
                && matches!(t, Type::Struct(_))
                && !self.writable.contains(&a)
            {
                return Err(Error::new(
                    self.span(a),
                    format!(
                        "`{name}` takes `{pname}` as `&mut {t}`, and this structure is read-only; pass one reached from a `&mut` parameter"
                    ),
                ));
            }
            out.push(a);
        }
        let writes = (0..out.len())
            .map(|k| sig.writable.get(k) == Some(&true))
            .collect();
        Ok(self.def(
            sig.ret.clone(),
            span,
            Expr::Call {
                name: name.to_string(),
                path,
                args: out,
                writes,
            },
        ))
    }

    // ----- composite values -----------------------------------------------------

    /// The types of the parts of a composite type, as numbered by `Construct`/`Extract`.
    pub fn parts(&self, t: &Type) -> Option<Vec<Type>> {
        Some(match t {
            Type::Vector(n, s) => vec![Type::Scalar(*s); *n as usize],
            Type::Matrix(n, s) => vec![Type::Vector(*n, *s); *n as usize],
            Type::Quat(s) => vec![Type::Scalar(*s); 4],
            Type::Transform(s) => vec![Type::Vector(3, *s), Type::Quat(*s)],
            Type::SpatialVector(s) => vec![Type::Vector(3, *s), Type::Vector(3, *s)],
            Type::SpatialMatrix(s) => vec![Type::Scalar(*s); 36],
            Type::Tuple(ts) => ts.clone(),
            Type::Struct(n) => self
                .env
                .structs
                .get(n)?
                .fields
                .iter()
                .map(|(_, t)| t.clone())
                .collect(),
            _ => return None,
        })
    }

    /// Builds a composite value from its parts (see [`Expr::Construct`]).
    pub fn construct(&mut self, ty: Type, args: Vec<ValueId>, span: Span) -> Result<ValueId> {
        if let Type::Struct(n) = &ty
            && self.struct_has_arrays(n)
        {
            return Err(Error::new(
                span,
                format!(
                    "`{n}` holds arrays, so it cannot be built in a kernel; pass it as a parameter"
                ),
            ));
        }
        let parts = self
            .parts(&ty)
            .ok_or_else(|| Error::new(span, format!("cannot construct a value of type `{ty}`")))?;
        if parts.len() != args.len() {
            return Err(Error::new(
                span,
                format!(
                    "`{ty}` is built from {} part(s), found {}",
                    parts.len(),
                    args.len()
                ),
            ));
        }
        let mut out = Vec::new();
        for (a, t) in args.into_iter().zip(&parts) {
            out.push(self.coerce(a, t)?);
        }
        Ok(self.def(ty.clone(), span, Expr::Construct(ty, out)))
    }

    /// A vector with all components set to `v`.
    pub fn splat(&mut self, ty: Type, v: ValueId, span: Span) -> Result<ValueId> {
        let Type::Vector(_, s) = ty else {
            return Err(Error::new(
                span,
                format!("`splat` builds vectors, not `{ty}`"),
            ));
        };
        let v = self.coerce(v, &Type::Scalar(s))?;
        Ok(self.def(ty.clone(), span, Expr::Splat(ty, v)))
    }

    /// The part number of a named field (`x y z w`, `p q`, `top bottom`, struct fields,
    /// tuple `0 1 ..`, matrix columns `x_axis ..`).
    pub fn field_index(&self, t: &Type, name: &str, span: Span) -> Result<u32> {
        let idx = match t {
            Type::Vector(n, _) => ["x", "y", "z", "w"][..*n as usize]
                .iter()
                .position(|c| *c == name),
            Type::Quat(_) => ["x", "y", "z", "w"].iter().position(|c| *c == name),
            Type::Matrix(n, _) => ["x_axis", "y_axis", "z_axis", "w_axis"][..*n as usize]
                .iter()
                .position(|c| *c == name),
            Type::Transform(_) => ["p", "q"].iter().position(|c| *c == name),
            Type::SpatialVector(_) => ["top", "bottom"].iter().position(|c| *c == name),
            Type::Struct(s) => self
                .env
                .structs
                .get(s)
                .and_then(|d| d.fields.iter().position(|(f, _)| f == name)),
            Type::Tuple(ts) => name.parse::<usize>().ok().filter(|i| *i < ts.len()),
            _ => None,
        };
        idx.map(|i| i as u32).ok_or_else(|| {
            let avail = match t {
                Type::Vector(n, _) => ["x", "y", "z", "w"][..*n as usize].join(", "),
                Type::Quat(_) => "x, y, z, w".into(),
                Type::Matrix(n, _) => {
                    ["x_axis", "y_axis", "z_axis", "w_axis"][..*n as usize].join(", ")
                }
                Type::Transform(_) => "p, q".into(),
                Type::SpatialVector(_) => "top, bottom".into(),
                Type::Struct(s) => self
                    .env
                    .structs
                    .get(s)
                    .map(|d| {
                        d.fields
                            .iter()
                            .map(|(f, _)| f.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default(),
                Type::Tuple(ts) => (0..ts.len())
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                _ => String::new(),
            };
            if avail.is_empty() {
                Error::new(span, format!("type `{t}` has no fields"))
            } else {
                Error::new(
                    span,
                    format!("no field `{name}` on type `{t}`; available: {avail}"),
                )
            }
        })
    }

    /// `v.name`.
    pub fn field(&mut self, v: ValueId, name: &str, span: Span) -> Result<ValueId> {
        let t = self.ty(v).clone();
        let i = self.field_index(&t, name, span)?;
        self.extract(v, i, span)
    }

    /// Part `i` of a composite value.
    pub fn extract(&mut self, v: ValueId, i: u32, span: Span) -> Result<ValueId> {
        let t = self.ty(v).clone();
        let parts = self
            .parts(&t)
            .ok_or_else(|| Error::new(span, format!("type `{t}` has no parts")))?;
        let pt = parts
            .get(i as usize)
            .cloned()
            .ok_or_else(|| Error::new(span, format!("index {i} out of range for `{t}`")))?;
        let from_writable = self.writable.contains(&v);
        let pt = match pt {
            Type::Array { elem, ndim, .. } if from_writable => Type::Array {
                elem,
                ndim,
                access: Access::Write,
            },
            other => other,
        };
        let out = self.def(pt, span, Expr::Extract(v, i));
        if from_writable && matches!(self.ty(out), Type::Struct(_)) {
            self.writable.insert(out);
        }
        Ok(out)
    }

    /// Whether a struct type holds arrays (directly or in nested structs).
    pub fn struct_has_arrays(&self, name: &str) -> bool {
        struct_has_arrays(&self.env.structs, name)
    }

    /// `v` with part `i` replaced by `x`.
    pub fn insert(&mut self, v: ValueId, i: u32, x: ValueId, span: Span) -> Result<ValueId> {
        let t = self.ty(v).clone();
        let parts = self
            .parts(&t)
            .ok_or_else(|| Error::new(span, format!("type `{t}` has no parts")))?;
        let x = self.coerce(x, &parts[i as usize])?;
        Ok(self.def(t, span, Expr::Insert(v, i, x)))
    }

    /// `v[i]` on a vector (component), matrix (row, as a vector) — not arrays.
    pub fn index_value(&mut self, v: ValueId, i: ValueId, span: Span) -> Result<ValueId> {
        let i = self.index_int(i)?;
        match self.ty(v).clone() {
            Type::Vector(_, s) => Ok(self.def(Type::Scalar(s), span, Expr::DynIndex(v, i))),
            t => Err(Error::new(
                span,
                format!(
                    "cannot index a value of type `{t}`; only arrays and vectors can be indexed (matrices: `m[row][col]`)"
                ),
            )),
        }
    }

    /// `v` with component `i` (a run-time index) replaced by `x`.
    pub fn dyn_insert(
        &mut self,
        v: ValueId,
        i: ValueId,
        x: ValueId,
        span: Span,
    ) -> Result<ValueId> {
        let i = self.index_int(i)?;
        match self.ty(v).clone() {
            t @ Type::Vector(_, s) => {
                let x = self.coerce(x, &Type::Scalar(s))?;
                Ok(self.def(t, span, Expr::DynInsert(v, i, x)))
            }
            t => Err(Error::new(
                span,
                format!(
                    "cannot assign through `[]` into a value of type `{t}`; only arrays and vectors"
                ),
            )),
        }
    }

    /// `m[row][col]`.
    pub fn mat_elem(
        &mut self,
        m: ValueId,
        row: ValueId,
        col: ValueId,
        span: Span,
    ) -> Result<ValueId> {
        let row = self.index_int(row)?;
        let col = self.index_int(col)?;
        match self.ty(m).clone() {
            Type::Matrix(_, s) => Ok(self.def(Type::Scalar(s), span, Expr::MatElem(m, row, col))),
            t => Err(Error::new(
                span,
                format!("`[row][col]` needs a matrix, found `{t}`"),
            )),
        }
    }

    fn index_int(&mut self, i: ValueId) -> Result<ValueId> {
        if self.flex.contains_key(&i) {
            return self.coerce(i, &Type::I32);
        }
        match self.ty(i) {
            Type::Scalar(s) if s.is_int() => Ok(i),
            t => Err(Error::new(
                self.span(i),
                format!("indices must be integers (i32, u32, i64, u64), found `{t}`"),
            )),
        }
    }

    // ----- arrays ---------------------------------------------------------------

    fn array_parts(&self, arr: ValueId, span: Span) -> Result<(Type, u8, Access)> {
        match self.ty(arr) {
            Type::Array { elem, ndim, access } => Ok(((**elem).clone(), *ndim, *access)),
            t => Err(Error::new(
                span,
                format!("cannot index a value of type `{t}` as an array"),
            )),
        }
    }

    fn check_indices(&mut self, ndim: u8, idx: Vec<ValueId>, span: Span) -> Result<Vec<ValueId>> {
        if idx.len() != ndim as usize {
            return Err(Error::new(
                span,
                format!(
                    "this array has {ndim} dimension(s) but {} index(es) were given; write `a[i]`, `a[i][j]`, …",
                    idx.len()
                ),
            ));
        }
        idx.into_iter().map(|i| self.index_int(i)).collect()
    }

    /// Loads `arr[idx..]`.
    pub fn load(&mut self, arr: ValueId, idx: Vec<ValueId>, span: Span) -> Result<ValueId> {
        let (elem, ndim, _) = self.array_parts(arr, span)?;
        let idx = self.check_indices(ndim, idx, span)?;
        Ok(self.def(elem, span, Expr::Load(arr, idx)))
    }

    /// Stores `value` to `arr[idx..]`; the array must be writable.
    pub fn store(
        &mut self,
        arr: ValueId,
        idx: Vec<ValueId>,
        value: ValueId,
        span: Span,
    ) -> Result<()> {
        let (elem, ndim, access) = self.array_parts(arr, span)?;
        if access == Access::Read {
            return Err(Error::new(
                span,
                "cannot write to a read-only array; take it as `&mut Array<..>` (or the structure holding it as `&mut S`)",
            ));
        }
        let idx = self.check_indices(ndim, idx, span)?;
        let value = self.coerce(value, &elem)?;
        self.push(Stmt::Store(arr, idx, value));
        Ok(())
    }

    /// An atomic on `arr[idx..]`; yields the old value.
    pub fn atomic(
        &mut self,
        op: AtomicOp,
        arr: ValueId,
        idx: Vec<ValueId>,
        value: ValueId,
        span: Span,
    ) -> Result<ValueId> {
        let (elem, ndim, access) = self.array_parts(arr, span)?;
        if access == Access::Read {
            return Err(Error::new(
                span,
                format!(
                    "`{}` needs a writable array; declare the parameter as `&mut Array<..>`",
                    op.name()
                ),
            ));
        }
        let ok = match (&elem, op) {
            (Type::Scalar(s), _) => *s != Scalar::Bool,
            (Type::Vector(_, s), AtomicOp::Add | AtomicOp::Sub) => *s != Scalar::Bool,
            (Type::Vector(_, s), _) => *s != Scalar::Bool,
            _ => false,
        };
        if !ok {
            return Err(Error::new(
                span,
                format!(
                    "`{}` supports arrays of f32, f64, i32, u32, i64, u64 and their vectors, not `{elem}`",
                    op.name()
                ),
            ));
        }
        let idx = self.check_indices(ndim, idx, span)?;
        let value = self.coerce(value, &elem)?;
        Ok(self.def(elem, span, Expr::Atomic(op, arr, idx, value)))
    }

    /// `a.len()` (`dim = None`) or `a.shape(d)`, as `i32`.
    pub fn len(&mut self, arr: ValueId, dim: Option<u8>, span: Span) -> Result<ValueId> {
        let (_, ndim, _) = self.array_parts(arr, span)?;
        if let Some(d) = dim
            && d >= ndim
        {
            return Err(Error::new(
                span,
                format!("dimension {d} out of range for a {ndim}-D array"),
            ));
        }
        Ok(self.def(Type::I32, span, Expr::Len(arr, dim)))
    }

    /// The launch index: `tid()` (flat) or component `d` of a `dims`-D launch.
    pub fn tid(&mut self, dims: u8, span: Span) -> Result<Vec<ValueId>> {
        if !self.is_kernel() {
            return Err(Error::new(
                span,
                "`tid()` is only available in kernels; pass the index to the func",
            ));
        }
        if !(1..=4).contains(&dims) {
            return Err(Error::new(
                span,
                "`tid()` supports launches of 1 to 4 dimensions",
            ));
        }
        if dims > 1 {
            if self.f.launch_dims != 1 && self.f.launch_dims != dims {
                return Err(Error::new(
                    span,
                    "`tid()` is destructured with different dimension counts in one kernel",
                ));
            }
            self.f.launch_dims = dims;
            Ok((0..dims)
                .map(|d| self.def(Type::I32, span, Expr::Tid(Some(d))))
                .collect())
        } else {
            Ok(vec![self.def(Type::I32, span, Expr::Tid(None))])
        }
    }

    // ----- variables ------------------------------------------------------------

    /// Declares a variable initialised with `init` (coerced to `ty` if given).
    pub fn let_var(
        &mut self,
        name: &str,
        ty: Option<&Type>,
        init: ValueId,
        mutable: bool,
    ) -> Result<VarId> {
        let mut init = match ty {
            Some(t) => self.coerce(init, t)?,
            None => init,
        };
        if ty.is_none()
            && self.flex.contains_key(&init)
            && let Some(s) = self.hint(init)
        {
            let fl = self.flex[&init];
            let from = init;
            init = self.coerce(init, &Type::Scalar(s))?;
            self.flex.insert(init, fl);
            self.inherit_key(from, init);
        }
        let t = self.ty(init).clone();
        if !t.is_value() {
            let span = self.span(init);
            return Err(Error::new(
                span,
                format!("a local cannot hold a value of type `{t}`"),
            ));
        }
        let v = self.new_var(name, t, mutable);
        if ty.is_none() && self.flex.contains_key(&init) {
            if mutable {
                self.flex_vars.insert(v, init);
            }
            self.flex_born.insert(v, init);
        } else if ty.is_none()
            && let Some(lit) = self
                .flex_reads
                .get(&init)
                .and_then(|src| self.flex_born.get(src))
                .copied()
        {
            // `let k = if c { 1.0 } else { 2.0 };`: still the literal's type to adapt.
            self.flex_born.insert(v, lit);
        }
        self.push(Stmt::Let(v, init));
        Ok(v)
    }

    /// Declares a local array `[fill; len]` (see [`Type::LocalArray`]); `fill` must
    /// be a scalar and `len` within `1..=MAX_LOCAL_ARRAY_LEN`.
    pub fn local_array(
        &mut self,
        name: &str,
        fill: ValueId,
        len: u64,
        mutable: bool,
        span: Span,
    ) -> Result<VarId> {
        let fill = self.hinted(fill)?;
        let fill = self.settle(fill);
        let Type::Scalar(elem) = self.ty(fill).clone() else {
            let t = self.ty(fill).clone();
            return Err(Error::new(
                self.span(fill),
                format!(
                    "local arrays hold scalars (i32, u32, i64, u64, f32, f64, bool), not `{t}`"
                ),
            ));
        };
        if !(1..=MAX_LOCAL_ARRAY_LEN as u64).contains(&len) {
            return Err(Error::new(
                span,
                format!("a local array has 1 to {MAX_LOCAL_ARRAY_LEN} elements, not {len}"),
            ));
        }
        let v = self.new_var(
            name,
            Type::LocalArray {
                elem,
                len: len as u32,
            },
            mutable,
        );
        self.push(Stmt::LocalArray(v, fill));
        Ok(v)
    }

    /// `a[i]` on local array variable `a`.
    pub fn local_load(&mut self, var: VarId, i: ValueId, span: Span) -> Result<ValueId> {
        let Type::LocalArray { elem, .. } = self.var(var).ty else {
            return Err(Error::new(span, "internal: not a local array"));
        };
        let i = self.index_int(i)?;
        Ok(self.def(Type::Scalar(elem), span, Expr::LocalLoad(var, i)))
    }

    /// `a[i] = value` on local array variable `a`, which must be mutable.
    pub fn local_store(
        &mut self,
        var: VarId,
        i: ValueId,
        value: ValueId,
        span: Span,
    ) -> Result<()> {
        let info = self.var(var).clone();
        let Type::LocalArray { elem, .. } = info.ty else {
            return Err(Error::new(span, "internal: not a local array"));
        };
        if !info.mutable {
            return Err(Error::new(
                span,
                format!(
                    "cannot assign to an element of immutable local array `{}`; declare it with `let mut`",
                    info.name
                ),
            ));
        }
        let i = self.index_int(i)?;
        let value = self.coerce(value, &Type::Scalar(elem))?;
        self.push(Stmt::LocalStore(var, i, value));
        Ok(())
    }

    /// Declares a variable that is assigned later (e.g. the result of an `if` expression).
    pub fn declare_var(&mut self, name: &str, ty: Type) -> VarId {
        let v = self.new_var(name, ty, true);
        self.push(Stmt::Declare(v));
        v
    }

    /// Creates a compiler-generated variable without declaring it; declare it with
    /// [`Builder::push_declare`] in the block where it must live.
    pub fn hidden_var(&mut self, name: &str, ty: Type) -> VarId {
        self.new_var(name, ty, true)
    }

    /// Declares a variable created by [`Builder::hidden_var`].
    pub fn push_declare(&mut self, v: VarId) {
        self.push(Stmt::Declare(v));
    }

    /// Whether `v` is an unsuffixed literal that still adapts to its context.
    pub fn is_flexible(&self, v: ValueId) -> bool {
        self.flex.contains_key(&v)
    }

    fn new_var(&mut self, name: &str, ty: Type, mutable: bool) -> VarId {
        let v = VarId(self.f.vars.len() as u32);
        self.f.vars.push(VarInfo {
            name: name.to_string(),
            ty,
            mutable,
        });
        v
    }

    /// Reads a variable.
    pub fn read_var(&mut self, v: VarId, span: Span) -> ValueId {
        self.flex_vars.remove(&v);
        let t = self.var(v).ty.clone();
        let r = self.def(t, span, Expr::Var(v));
        if self.flex_born.contains_key(&v) {
            self.flex_reads.insert(r, v);
        }
        r
    }

    /// Literal types to use, from a previous attempt's [`Error::retype`] hints.
    pub fn set_hints(&mut self, hints: HashMap<LitKey, Scalar>) {
        self.hints = hints;
    }

    /// Names the unsuffixed literal `v` (just made by [`Builder::lit_int`] or
    /// [`Builder::lit_float`]) for retype hints; unnamed literals get none.
    pub fn key_literal(&mut self, v: ValueId, key: LitKey) {
        if self.flex.contains_key(&v) {
            self.lit_keys.insert(v, key);
        }
    }

    /// The type an earlier attempt chose for the literal `v` comes from.
    fn hint(&self, v: ValueId) -> Option<Scalar> {
        self.hints.get(self.lit_keys.get(&v)?).copied()
    }

    /// `to` stands for the same source literal as `from`.
    fn inherit_key(&mut self, from: ValueId, to: ValueId) {
        if let Some(&k) = self.lit_keys.get(&from) {
            self.lit_keys.insert(to, k);
        }
    }

    /// Turns a type mismatch between `a` and `b` into a retype hint when one side
    /// reads a variable initialised with an unsuffixed literal of the other kind.
    fn hint_for(&self, a: ValueId, b: ValueId) -> Option<(LitKey, Scalar)> {
        for (x, y) in [(a, b), (b, a)] {
            if let (Some(var), Some(s)) = (self.flex_reads.get(&x), self.ty(y).scalar())
                && let Some(lit) = self.flex_born.get(var)
                && let Type::Scalar(cur) = self.ty(*lit)
                && cur.is_float() == s.is_float()
                && cur.is_int() == s.is_int()
                && *cur != s
                && let Some(&key) = self.lit_keys.get(lit)
            {
                return Some((key, s));
            }
        }
        None
    }

    /// Gives a `let mut x = <unsuffixed literal>;` variable that has not been read
    /// yet the scalar type of the value first assigned to it, as Rust's inference
    /// would (`let mut sum = 0.0; sum += x_f64;`).
    pub fn retype_flex_var(&mut self, var: VarId, want: &Type) {
        let Some(&lit) = self.flex_vars.get(&var) else {
            return;
        };
        let Type::Scalar(s) = want else { return };
        let fits = match self.flex.get(&lit) {
            Some(Flex::Float(_)) => s.is_float(),
            Some(Flex::Int(i)) => s.is_int() && check_int_range(*i, *s, Span::call_site()).is_ok(),
            None => {
                // Settled: look at the literal itself.
                matches!(self.ty(lit), Type::Scalar(x) if x.is_float() == s.is_float() && x.is_int() == s.is_int())
            }
        };
        if !fits || self.var(var).ty == *want {
            return;
        }
        for b in self.stack.iter_mut() {
            for st in b.0.iter_mut() {
                if let Stmt::Def(v, Expr::Lit(l)) = st
                    && *v == lit
                {
                    *l = match *l {
                        Lit::Float(x, _) => Lit::Float(x, *s),
                        Lit::Int(i, _) => Lit::Int(i, *s),
                        other => other,
                    };
                }
            }
        }
        self.f.values[lit.0 as usize].ty = want.clone();
        self.f.vars[var.0 as usize].ty = want.clone();
        self.flex_vars.remove(&var);
    }

    /// Assigns a variable; it must be mutable and the value must have its type.
    pub fn assign(&mut self, v: VarId, value: ValueId, span: Span) -> Result<()> {
        let info = self.var(v).clone();
        if !info.mutable {
            return Err(Error::new(
                span,
                format!(
                    "cannot assign twice to immutable variable `{}`; declare it with `let mut`",
                    info.name
                ),
            ));
        }
        let value = self.coerce(value, &info.ty)?;
        self.push(Stmt::Assign(v, value));
        Ok(())
    }

    /// Assigns a compiler-generated variable (no mutability check).
    pub fn assign_internal(&mut self, v: VarId, value: ValueId) -> Result<()> {
        let t = self.var(v).ty.clone();
        let value = self.coerce(value, &t)?;
        self.push(Stmt::Assign(v, value));
        Ok(())
    }

    /// Fixes the type of an unsuffixed literal to its default (`i32` / `f32`), as a
    /// value stored in a variable or returned must have one type.
    pub fn settle(&mut self, v: ValueId) -> ValueId {
        self.flex.remove(&v);
        v
    }

    // ----- control flow ---------------------------------------------------------

    /// The unit value `()`.
    pub fn unit(&mut self, span: Span) -> ValueId {
        self.def(Type::Unit, span, Expr::Construct(Type::Unit, Vec::new()))
    }

    /// Whether every path through the innermost open block has returned.
    pub fn current_block_returns(&self) -> bool {
        always_returns(self.stack.last().expect("block"))
    }

    /// Opens a nested block (for a branch or loop body).
    pub fn begin_block(&mut self) {
        self.stack.push(Block::default());
    }

    /// Closes the innermost block and returns it.
    pub fn end_block(&mut self) -> Block {
        self.stack.pop().expect("unbalanced blocks")
    }

    /// Checks that `cond` is a `bool`.
    pub fn check_bool(&self, cond: ValueId, what: &str) -> Result<()> {
        if *self.ty(cond) != Type::BOOL {
            return Err(Error::new(
                self.span(cond),
                format!("{what} must be `bool`, found `{}`", self.ty(cond)),
            ));
        }
        Ok(())
    }

    /// Appends `if cond { then } else { otherwise }`.
    pub fn push_if(&mut self, cond: ValueId, then: Block, otherwise: Block) -> Result<()> {
        self.check_bool(cond, "an `if` condition")?;
        self.push(Stmt::If(cond, then, otherwise));
        Ok(())
    }

    /// Declares the induction variable of a `for` loop and checks its bounds; returns the
    /// (possibly coerced) bounds and the variable. Build the body next, then call
    /// [`Builder::push_for`].
    pub fn begin_for(
        &mut self,
        name: &str,
        start: ValueId,
        end: ValueId,
        span: Span,
    ) -> Result<(VarId, ValueId, ValueId)> {
        let (start, end) = self.unify_scalars(start, end)?;
        let t = self.ty(start).clone();
        if !t.is_int_scalar() || self.ty(end) != &t {
            return Err(Error::new(
                span,
                format!(
                    "`for` ranges need two integers of the same type, found `{t}` and `{}`",
                    self.ty(end)
                ),
            ));
        }
        let v = self.new_var(name, t, false);
        self.loop_depth += 1;
        Ok((v, start, end))
    }

    /// Appends a `for` loop started with [`Builder::begin_for`].
    pub fn push_for(&mut self, var: VarId, start: ValueId, end: ValueId, body: Block) {
        self.loop_depth -= 1;
        self.push(Stmt::For(var, start, end, body));
    }

    /// Marks entry into a `while` body (for `break`/`continue` checks).
    pub fn begin_while(&mut self) {
        self.loop_depth += 1;
    }

    /// Appends a `while` loop.
    pub fn push_while(&mut self, cond_block: Block, cond: ValueId, body: Block) -> Result<()> {
        self.loop_depth -= 1;
        self.check_bool(cond, "a `while` condition")?;
        self.push(Stmt::While(cond_block, cond, body));
        Ok(())
    }

    /// `break` or `continue`.
    pub fn push_jump(&mut self, is_break: bool, span: Span) -> Result<()> {
        if self.loop_depth == 0 {
            let w = if is_break { "break" } else { "continue" };
            return Err(Error::new(span, format!("`{w}` outside of a loop")));
        }
        self.push(if is_break {
            Stmt::Break
        } else {
            Stmt::Continue
        });
        Ok(())
    }

    /// `return` with an optional value, checked against the result type.
    pub fn push_return(&mut self, value: Option<ValueId>, span: Span) -> Result<()> {
        let ret = self.f.ret.clone();
        match value {
            None if ret == Type::Unit => self.push(Stmt::Return(None)),
            None => {
                return Err(Error::new(
                    span,
                    format!("this function must return a value of type `{ret}`"),
                ));
            }
            Some(v) if ret == Type::Unit => {
                let t = self.ty(v).clone();
                if t != Type::Unit {
                    let what = if self.is_kernel() {
                        "kernels"
                    } else {
                        "this func"
                    };
                    return Err(Error::new(
                        span,
                        format!("{what} return nothing, but a value of type `{t}` is returned"),
                    ));
                }
                self.push(Stmt::Return(None));
            }
            Some(v) => {
                let v = self.coerce(v, &ret)?;
                self.push(Stmt::Return(Some(v)));
            }
        }
        Ok(())
    }

    /// Finishes the function; checks that a func with a result returns on every path.
    pub fn finish(mut self, span: Span) -> Result<Function> {
        let body = self.stack.pop().expect("root block");
        assert!(self.stack.is_empty(), "unbalanced blocks");
        if self.f.ret != Type::Unit && !always_returns(&body) {
            return Err(Error::new(
                span,
                format!(
                    "not every path returns a value of type `{}`; add a final expression or `return`",
                    self.f.ret
                ),
            ));
        }
        self.f.body = body;
        Ok(self.f)
    }
}

/// The most elements a local array may have (`[x; n]`, `n <= 1024`).
pub const MAX_LOCAL_ARRAY_LEN: u32 = 1024;

/// Whether struct `name` holds arrays, directly or through nested structs.
pub fn struct_has_arrays(structs: &HashMap<String, StructDef>, name: &str) -> bool {
    structs.get(name).is_some_and(|d| {
        d.fields.iter().any(|(_, t)| match t {
            Type::Array { .. } => true,
            Type::Struct(n) => struct_has_arrays(structs, n),
            _ => false,
        })
    })
}

/// Whether every path through `b` ends in `return`.
pub fn always_returns(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Return(_) => true,
        Stmt::If(_, t, e) => always_returns(t) && always_returns(e),
        _ => false,
    })
}

fn check_int_range(v: i128, s: Scalar, span: Span) -> Result<()> {
    let (lo, hi): (i128, i128) = match s {
        Scalar::I32 => (i32::MIN as i128, i32::MAX as i128),
        Scalar::U32 => (0, u32::MAX as i128),
        Scalar::I64 => (i64::MIN as i128, i64::MAX as i128),
        Scalar::U64 => (0, u64::MAX as i128),
        _ => return Ok(()),
    };
    if v < lo || v > hi {
        return Err(Error::new(
            span,
            format!("literal {v} out of range for `{}`", s.name()),
        ));
    }
    Ok(())
}

/// The result type of `a op b`, or `None` if the operator does not apply.
pub fn binary_type(op: BinOp, a: &Type, b: &Type) -> Option<Type> {
    use BinOp::*;
    use Type as T;
    if op.is_comparison() {
        return match (a, b) {
            (T::Scalar(x), T::Scalar(y)) if x == y => {
                (matches!(op, Eq | Ne) || *x != Scalar::Bool).then_some(T::BOOL)
            }
            (T::Vector(..) | T::Quat(_) | T::Matrix(..), _) if a == b && matches!(op, Eq | Ne) => {
                Some(T::BOOL)
            }
            _ => None,
        };
    }
    match (op, a, b) {
        (BitAnd | BitOr | BitXor, T::Scalar(x), T::Scalar(y))
            if x == y && (x.is_int() || *x == Scalar::Bool) =>
        {
            Some(a.clone())
        }
        (Shl | Shr, T::Scalar(x), T::Scalar(y)) if x.is_int() && y.is_int() => Some(a.clone()),
        (Add | Sub | Mul | Div | Rem, T::Scalar(x), T::Scalar(y))
            if x == y && *x != Scalar::Bool =>
        {
            Some(a.clone())
        }
        // vectors
        (Add | Sub | Mul | Div | Rem, T::Vector(..), T::Vector(..)) if a == b => Some(a.clone()),
        (Mul | Div | Rem, T::Vector(_, s), T::Scalar(y)) if s == y => Some(a.clone()),
        (Mul, T::Scalar(x), T::Vector(_, s)) if s == x => Some(b.clone()),
        // matrices
        (Add | Sub, T::Matrix(..), T::Matrix(..)) if a == b => Some(a.clone()),
        (Mul, T::Matrix(..), T::Matrix(..)) if a == b => Some(a.clone()),
        (Mul, T::Matrix(n, s), T::Vector(m, t)) if n == m && s == t => Some(b.clone()),
        (Mul | Div, T::Matrix(_, s), T::Scalar(y)) if s == y => Some(a.clone()),
        (Mul, T::Scalar(x), T::Matrix(_, s)) if s == x => Some(b.clone()),
        // quaternions
        (Add | Sub | Mul, T::Quat(_), T::Quat(_)) if a == b => Some(a.clone()),
        (Mul, T::Quat(s), T::Vector(3, t)) if s == t => Some(b.clone()),
        (Mul | Div, T::Quat(s), T::Scalar(y)) if s == y => Some(a.clone()),
        // transforms
        (Mul, T::Transform(_), T::Transform(_)) if a == b => Some(a.clone()),
        // spatial algebra
        (Add | Sub, T::SpatialVector(_), T::SpatialVector(_)) if a == b => Some(a.clone()),
        (Mul | Div, T::SpatialVector(s), T::Scalar(y)) if s == y => Some(a.clone()),
        (Mul, T::Scalar(x), T::SpatialVector(s)) if s == x => Some(b.clone()),
        (Add | Sub | Mul, T::SpatialMatrix(_), T::SpatialMatrix(_)) if a == b => Some(a.clone()),
        (Mul, T::SpatialMatrix(s), T::SpatialVector(t)) if s == t => Some(b.clone()),
        (Mul, T::SpatialMatrix(s), T::Scalar(y)) if s == y => Some(a.clone()),
        (Mul, T::Scalar(x), T::SpatialMatrix(s)) if s == x => Some(b.clone()),
        _ => None,
    }
}

fn binary_hint(op: BinOp, a: &Type, b: &Type) -> String {
    match (a, b) {
        (Type::Scalar(x), Type::Scalar(y)) if x != y => {
            format!("; convert one side with `as` (e.g. `x as {}`)", x.name())
        }
        (Type::Vector(..), Type::Vector(..)) if op == BinOp::Mul => String::new(),
        (Type::Scalar(_), Type::Vector(..)) if op == BinOp::Div => {
            "; divide componentwise by splatting the scalar".into()
        }
        _ => String::new(),
    }
}
