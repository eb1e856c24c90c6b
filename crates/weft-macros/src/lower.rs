//! Lowers a `syn` function body to the IR through [`weft_ir::Builder`].
//!
//! Everything outside the kernel subset is rejected here with the span of the
//! offending token and a message that says what is allowed instead.

use std::collections::HashMap;

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use weft_ir::builtins::{self, RNG_BUILTINS};
use weft_ir::{AtomicOp, BinOp, Builder, Error, Result, Scalar, Type, UnOp, ValueId, VarId};

use crate::infer::LiteralKeys;
use crate::types::{last_ident, lower_type, suffix_scalar};

#[derive(Clone, Copy)]
enum Local {
    Param(usize),
    Var(VarId),
}

/// A place that can be assigned.
enum Place {
    Var(VarId),
    Field(Box<Place>, u32),
    Component(Box<Place>, ValueId),
    Array(ValueId, Vec<ValueId>),
    /// An element of a local array variable.
    Local(VarId, ValueId),
}

/// Lowering state for one function body.
pub struct Lower<'e> {
    /// The IR builder.
    pub b: Builder<'e>,
    scopes: Vec<HashMap<String, Local>>,
    /// The body's literals, named for retype hints.
    keys: &'e LiteralKeys,
}

fn err<T>(span: Span, msg: impl Into<String>) -> Result<T> {
    Err(Error::new(span, msg))
}

/// Method names that map to builtins with the receiver as first argument.
fn method_builtin(name: &str) -> Option<&'static str> {
    Some(match name {
        "powf" => "pow",
        "ln" => "log",
        "length_squared" => "length_sq",
        "determinant" => "determinant",
        "transpose" => "transpose",
        "inverse" => "inverse",
        n => return builtins::doc(n).map(|d| d.name),
    })
}

impl<'e> Lower<'e> {
    /// Starts lowering with the builder's parameters in scope; `keys` names the
    /// body's literals.
    pub fn new(b: Builder<'e>, keys: &'e LiteralKeys) -> Self {
        let mut scope = HashMap::new();
        for (i, p) in b.params().iter().enumerate() {
            scope.insert(p.name.clone(), Local::Param(i));
        }
        Lower {
            b,
            scopes: vec![scope],
            keys,
        }
    }

    fn lookup(&self, name: &str) -> Option<Local> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn bind(&mut self, name: String, l: Local) {
        self.scopes.last_mut().expect("scope").insert(name, l);
    }

    /// Makes a parameter declared `mut x: T` a mutable local.
    pub fn make_param_mutable(&mut self, i: usize, span: Span) -> Result<()> {
        let name = self.b.params()[i].name.clone();
        let v = self.b.param(i, span);
        let var = self.b.let_var(&name, None, v, true)?;
        self.bind(name, Local::Var(var));
        Ok(())
    }

    /// Lowers a function body; returns its tail value (if any and not unit).
    pub fn body(&mut self, block: &syn::Block) -> Result<Option<ValueId>> {
        self.block_inner(block)
    }

    fn block_inner(&mut self, block: &syn::Block) -> Result<Option<ValueId>> {
        self.scopes.push(HashMap::new());
        let mut tail = None;
        let n = block.stmts.len();
        for (k, s) in block.stmts.iter().enumerate() {
            let last = k + 1 == n;
            match s {
                syn::Stmt::Local(l) => self.local(l)?,
                syn::Stmt::Expr(e, semi) => {
                    let v = self.expr_stmt(e)?;
                    if last && semi.is_none() {
                        tail = v;
                    }
                }
                syn::Stmt::Item(i) => {
                    return err(
                        i.span(),
                        "items (fn, struct, use, …) cannot be declared inside a kernel; define them outside with `#[weft::func]` / `#[weft::structure]`",
                    );
                }
                syn::Stmt::Macro(m) => {
                    return err(m.span(), "macros are not supported inside kernels");
                }
            }
        }
        self.scopes.pop();
        Ok(tail)
    }

    /// Lowers an expression in statement position; returns its value if it has one.
    fn expr_stmt(&mut self, e: &syn::Expr) -> Result<Option<ValueId>> {
        match e {
            syn::Expr::If(i) => self.if_expr(i),
            syn::Expr::ForLoop(f) => self.for_loop(f).map(|_| None),
            syn::Expr::While(w) => self.while_loop(w).map(|_| None),
            syn::Expr::Loop(l) => self.loop_expr(l).map(|_| None),
            syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                self.block_inner(&b.block)
            }
            syn::Expr::Assign(a) => self.assign(&a.left, None, &a.right, a.span()).map(|_| None),
            syn::Expr::Binary(bin) if compound_op(&bin.op).is_some() => self
                .assign(&bin.left, compound_op(&bin.op), &bin.right, bin.span())
                .map(|_| None),
            syn::Expr::Return(r) => {
                let v = match &r.expr {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                self.b.push_return(v, r.span())?;
                Ok(None)
            }
            syn::Expr::Break(b) => {
                if b.label.is_some() || b.expr.is_some() {
                    return err(
                        b.span(),
                        "labelled `break` and `break value` are not supported; use a plain `break`",
                    );
                }
                self.b.push_jump(true, b.span())?;
                Ok(None)
            }
            syn::Expr::Continue(c) => {
                if c.label.is_some() {
                    return err(
                        c.span(),
                        "labelled `continue` is not supported; use a plain `continue`",
                    );
                }
                self.b.push_jump(false, c.span())?;
                Ok(None)
            }
            _ => {
                let v = self.expr(e)?;
                Ok(if *self.b.ty(v) == Type::Unit {
                    None
                } else {
                    Some(v)
                })
            }
        }
    }

    fn local(&mut self, l: &syn::Local) -> Result<()> {
        if !l.attrs.is_empty() {
            return err(l.attrs[0].span(), "attributes are not supported here");
        }
        let (pat, ty) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(lower_type(self.b.env(), &pt.ty, false)?)),
            p => (p, None),
        };
        let Some(init) = &l.init else {
            let syn::Pat::Ident(pi) = pat else {
                return err(pat.span(), "a `let` without a value must name one variable");
            };
            let Some(ty) = ty else {
                return err(
                    pat.span(),
                    "a `let` without a value needs a type: `let x: f32;`",
                );
            };
            let v = self.b.hidden_var(&pi.ident.to_string(), ty);
            self.b.push_declare(v);
            self.bind(pi.ident.to_string(), Local::Var(v));
            return Ok(());
        };
        if let Some((e, _)) = &init.diverge {
            return err(e.span(), "`let … else` is not supported in kernels");
        }
        // `let (i, j) = tid();`
        if let (syn::Pat::Tuple(t), syn::Expr::Call(c)) = (pat, &*init.expr)
            && is_plain_call(c, "tid")
        {
            if !c.args.is_empty() {
                return err(c.args.span(), "`tid()` takes no arguments");
            }
            let ids = self.b.tid(t.elems.len() as u8, c.span())?;
            for (p, v) in t.elems.iter().zip(ids) {
                self.bind_pattern(p, v, None)?;
            }
            return Ok(());
        }
        if let syn::Expr::Repeat(r) = &*init.expr {
            return self.local_array(pat, &l.pat, r);
        }
        let v = self.expr(&init.expr)?;
        self.bind_pattern(pat, v, ty.as_ref())
    }

    /// `let [mut] name = [fill; len];` (an optional type must be `[T; len]`).
    fn local_array(&mut self, pat: &syn::Pat, full: &syn::Pat, r: &syn::ExprRepeat) -> Result<()> {
        let syn::Pat::Ident(pi) = pat else {
            return err(
                pat.span(),
                "a local array is bound to one name: `let mut s = [0; 8];`",
            );
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            return err(
                pi.span(),
                "only plain `let x` / `let mut x` bindings are supported",
            );
        }
        let len = match &*r.len {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => n
                .base10_parse::<u64>()
                .map_err(|e| Error::new(n.span(), e.to_string()))?,
            other => {
                return err(
                    other.span(),
                    "the length of a local array must be an integer literal",
                );
            }
        };
        let mut fill = self.expr(&r.expr)?;
        if let syn::Pat::Type(pt) = full {
            let syn::Type::Array(at) = &*pt.ty else {
                return err(pt.ty.span(), "a local array's type is written `[T; N]`");
            };
            let elem = lower_type(self.b.env(), &at.elem, false)?;
            let n = match &at.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n
                    .base10_parse::<u64>()
                    .map_err(|e| Error::new(n.span(), e.to_string()))?,
                other => return err(other.span(), "the length must be an integer literal"),
            };
            if n != len {
                return err(
                    at.len.span(),
                    format!("the type says {n} elements, the value has {len}"),
                );
            }
            fill = self.b.coerce(fill, &elem)?;
        }
        let name = pi.ident.to_string();
        let var = self
            .b
            .local_array(&name, fill, len, pi.mutability.is_some(), r.span())?;
        self.bind(name, Local::Var(var));
        Ok(())
    }

    /// The local array variable `e` names, if it names one.
    fn local_array_var(&self, e: &syn::Expr) -> Option<VarId> {
        let syn::Expr::Path(p) = e else { return None };
        let name = p.path.get_ident()?.to_string();
        match self.lookup(&name) {
            Some(Local::Var(v)) if matches!(self.b.var(v).ty, Type::LocalArray { .. }) => Some(v),
            _ => None,
        }
    }

    fn bind_pattern(&mut self, pat: &syn::Pat, v: ValueId, ty: Option<&Type>) -> Result<()> {
        match pat {
            syn::Pat::Ident(pi) => {
                if pi.by_ref.is_some() || pi.subpat.is_some() {
                    return err(
                        pi.span(),
                        "only plain `let x` / `let mut x` bindings are supported",
                    );
                }
                if matches!(self.b.ty(v), Type::Array { .. }) {
                    return err(
                        pi.span(),
                        "arrays cannot be bound to locals; index the parameter directly",
                    );
                }
                if *self.b.ty(v) == Type::Unit {
                    return err(pi.span(), "this expression has no value to bind");
                }
                let v = match ty {
                    Some(t) => self.b.coerce(v, t)?,
                    None => v,
                };
                let var = self
                    .b
                    .let_var(&pi.ident.to_string(), ty, v, pi.mutability.is_some())?;
                self.b.settle(v);
                self.bind(pi.ident.to_string(), Local::Var(var));
                Ok(())
            }
            syn::Pat::Wild(_) => Ok(()),
            syn::Pat::Tuple(t) => {
                let parts = self.tuple_parts(v, t.elems.len(), t.span(), "destructure it as")?;
                for (p, part) in t.elems.iter().zip(parts) {
                    self.bind_pattern(p, part, None)?;
                }
                Ok(())
            }
            syn::Pat::Type(pt) => {
                let t = lower_type(self.b.env(), &pt.ty, false)?;
                self.bind_pattern(&pt.pat, v, Some(&t))
            }
            other => err(
                other.span(),
                "only `x`, `mut x`, `_` and tuple patterns are supported",
            ),
        }
    }

    // ----- places and assignment -----------------------------------------------

    fn place(&mut self, e: &syn::Expr) -> Result<Place> {
        match e {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = p.path.get_ident().expect("ident").to_string();
                match self.lookup(&name) {
                    Some(Local::Var(v)) => Ok(Place::Var(v)),
                    Some(Local::Param(i)) => {
                        let ty = &self.b.params()[i].ty;
                        if matches!(ty, Type::Array { .. }) {
                            err(
                                e.span(),
                                "cannot assign to an array parameter; assign to its elements (`a[i] = …`)",
                            )
                        } else {
                            err(
                                e.span(),
                                format!(
                                    "cannot assign to parameter `{name}`; declare it `mut {name}` or copy it into a `let mut`"
                                ),
                            )
                        }
                    }
                    None => err(e.span(), format!("cannot find `{name}` in this scope")),
                }
            }
            syn::Expr::Field(f) => {
                let inner = self.place(&f.base)?;
                let ty = self.place_type(&inner);
                let name = member_name(&f.member);
                let i = self.b.field_index(&ty, &name, f.member.span())?;
                Ok(Place::Field(Box::new(inner), i))
            }
            syn::Expr::Index(ix) => {
                if let Some(var) = self.local_array_var(&ix.expr) {
                    let i = self.expr(&ix.index)?;
                    return Ok(Place::Local(var, i));
                }
                if let Some((arr, idx)) = self.array_index(e)? {
                    return Ok(Place::Array(arr, idx));
                }
                let inner = self.place(&ix.expr)?;
                match self.place_type(&inner) {
                    Type::Vector(..) => {
                        let i = self.expr(&ix.index)?;
                        Ok(Place::Component(Box::new(inner), i))
                    }
                    t => err(
                        e.span(),
                        format!(
                            "cannot assign through `[]` into a value of type `{t}`; only arrays and vectors"
                        ),
                    ),
                }
            }
            syn::Expr::Paren(p) => self.place(&p.expr),
            _ => err(e.span(), "this expression cannot be assigned to"),
        }
    }

    fn place_type(&self, p: &Place) -> Type {
        match p {
            Place::Var(v) => self.b.var(*v).ty.clone(),
            Place::Field(inner, i) => {
                let t = self.place_type(inner);
                self.b.parts(&t).expect("composite")[*i as usize].clone()
            }
            Place::Array(a, _) => match self.b.ty(*a) {
                Type::Array { elem, .. } => (**elem).clone(),
                _ => unreachable!(),
            },
            Place::Component(inner, _) => match self.place_type(inner) {
                Type::Vector(_, s) => Type::Scalar(s),
                _ => unreachable!(),
            },
            Place::Local(var, _) => match self.b.var(*var).ty {
                Type::LocalArray { elem, .. } => Type::Scalar(elem),
                _ => unreachable!(),
            },
        }
    }

    fn read_place(&mut self, p: &Place, span: Span) -> Result<ValueId> {
        match p {
            Place::Var(v) => Ok(self.b.read_var(*v, span)),
            Place::Field(inner, i) => {
                let base = self.read_place(inner, span)?;
                self.b.extract(base, *i, span)
            }
            Place::Array(a, idx) => self.b.load(*a, idx.clone(), span),
            Place::Component(inner, i) => {
                let base = self.read_place(inner, span)?;
                self.b.index_value(base, *i, span)
            }
            Place::Local(var, i) => self.b.local_load(*var, *i, span),
        }
    }

    fn write_place(&mut self, p: &Place, v: ValueId, span: Span) -> Result<()> {
        match p {
            Place::Var(var) => self.b.assign(*var, v, span),
            Place::Field(inner, i) => {
                let base = self.read_place(inner, span)?;
                let updated = self.b.insert(base, *i, v, span)?;
                self.write_place(inner, updated, span)
            }
            Place::Array(a, idx) => self.b.store(*a, idx.clone(), v, span),
            Place::Local(var, i) => self.b.local_store(*var, *i, v, span),
            Place::Component(inner, i) => {
                let base = self.read_place(inner, span)?;
                let updated = self.b.dyn_insert(base, *i, v, span)?;
                self.write_place(inner, updated, span)
            }
        }
    }

    fn assign(
        &mut self,
        lhs: &syn::Expr,
        op: Option<BinOp>,
        rhs: &syn::Expr,
        span: Span,
    ) -> Result<()> {
        if let syn::Expr::Tuple(t) = lhs {
            return self.assign_tuple(t, op, rhs);
        }
        let place = self.place(lhs)?;
        let value = self.expr(rhs)?;
        if let Place::Var(v) = &place {
            let t = self.b.ty(value).clone();
            self.b.retype_flex_var(*v, &t);
        }
        let value = match op {
            None => value,
            Some(op) => {
                let cur = self.read_place(&place, lhs.span())?;
                self.b.binary(op, cur, value, span)?
            }
        };
        self.write_place(&place, value, span)
    }

    /// `(a, b, _) = value;`: destructuring assignment of a tuple value to places
    /// (any nesting; `_` discards an element). The value is computed before any
    /// place is written, as in Rust.
    fn assign_tuple(
        &mut self,
        t: &syn::ExprTuple,
        op: Option<BinOp>,
        rhs: &syn::Expr,
    ) -> Result<()> {
        if op.is_some() {
            return err(
                t.span(),
                "compound assignment (`+=`, …) to a tuple is not supported; assign the elements one by one",
            );
        }
        let value = self.expr(rhs)?;
        self.write_tuple(t, value)
    }

    /// Writes the elements of tuple `value` to the places of `t`.
    fn write_tuple(&mut self, t: &syn::ExprTuple, value: ValueId) -> Result<()> {
        let parts = self.tuple_parts(value, t.elems.len(), t.span(), "assign it to")?;
        for (e, part) in t.elems.iter().zip(parts) {
            match e {
                syn::Expr::Infer(_) => {}
                syn::Expr::Tuple(inner) => self.write_tuple(inner, part)?,
                _ => {
                    let place = self.place(e)?;
                    if let Place::Var(v) = &place {
                        let t = self.b.ty(part).clone();
                        self.b.retype_flex_var(*v, &t);
                    }
                    self.write_place(&place, part, e.span())?;
                }
            }
        }
        Ok(())
    }

    /// The `n` elements of tuple `v`, or the error at `span` for a value that is not
    /// a tuple of `n` (`what`: what the code does with it, for the message).
    fn tuple_parts(
        &mut self,
        v: ValueId,
        n: usize,
        span: Span,
        what: &str,
    ) -> Result<Vec<ValueId>> {
        let vt = self.b.ty(v).clone();
        let Type::Tuple(parts) = &vt else {
            return err(
                span,
                format!("cannot {what} a tuple: the value has type `{vt}`"),
            );
        };
        if parts.len() != n {
            return err(
                span,
                format!("expected a tuple of {} elements, found {n}", parts.len()),
            );
        }
        (0..n).map(|i| self.b.extract(v, i as u32, span)).collect()
    }

    /// If `e` is `a[i]`, `a[i][j]`, … on an array, returns the array value and indices.
    fn array_index(&mut self, e: &syn::Expr) -> Result<Option<(ValueId, Vec<ValueId>)>> {
        let mut chain = Vec::new();
        let mut cur = e;
        while let syn::Expr::Index(ix) = cur {
            chain.push(&*ix.index);
            cur = &ix.expr;
        }
        if chain.is_empty() {
            return Ok(None);
        }
        // Only arrays are indexed this way: find out what the root is without emitting
        // code for non-arrays twice.
        let root_is_array = match cur {
            syn::Expr::Path(p) => {
                match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    Some(Local::Param(i)) => matches!(self.b.params()[i].ty, Type::Array { .. }),
                    _ => false,
                }
            }
            syn::Expr::Field(_) => {
                // A struct field may be an array: lower it and look.
                let v = self.expr(cur)?;
                if let Type::Array { ndim, .. } = self.b.ty(v).clone() {
                    if chain.len() > ndim as usize {
                        return Ok(None);
                    }
                    return self.finish_array_index(v, ndim, chain, e).map(Some);
                }
                return Ok(None);
            }
            _ => false,
        };
        if !root_is_array {
            return Ok(None);
        }
        let ndim = match cur {
            syn::Expr::Path(p) => {
                match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    Some(Local::Param(i)) => match &self.b.params()[i].ty {
                        Type::Array { ndim, .. } => *ndim,
                        _ => unreachable!(),
                    },
                    _ => unreachable!(),
                }
            }
            _ => unreachable!(),
        };
        if chain.len() > ndim as usize {
            return Ok(None);
        }
        let arr = self.expr(cur)?;
        self.finish_array_index(arr, ndim, chain, e).map(Some)
    }

    fn finish_array_index(
        &mut self,
        arr: ValueId,
        ndim: u8,
        mut chain: Vec<&syn::Expr>,
        e: &syn::Expr,
    ) -> Result<(ValueId, Vec<ValueId>)> {
        chain.reverse();
        if chain.len() < ndim as usize {
            return err(
                e.span(),
                format!("this array has {ndim} dimensions; index every one: `a[i][j]…`"),
            );
        }
        // Indices past the array's dimensions address components of its elements
        // (`a[i][k]` on an array of vectors); `array_index_place` handles those.
        chain.truncate(ndim as usize);
        let idx = chain
            .into_iter()
            .map(|i| self.expr(i))
            .collect::<Result<Vec<_>>>()?;
        Ok((arr, idx))
    }

    /// Number of `[..]` levels of `e` and the number the array root consumes, if the
    /// root is an array.
    fn index_depth(e: &syn::Expr) -> usize {
        let mut n = 0;
        let mut cur = e;
        while let syn::Expr::Index(ix) = cur {
            n += 1;
            cur = &ix.expr;
        }
        n
    }

    // ----- expressions ---------------------------------------------------------

    /// Lowers an expression to a value.
    pub fn expr(&mut self, e: &syn::Expr) -> Result<ValueId> {
        match e {
            syn::Expr::Lit(l) => self.lit(&l.lit),
            syn::Expr::Paren(p) => self.expr(&p.expr),
            syn::Expr::Group(g) => self.expr(&g.expr),
            syn::Expr::Path(p) => self.path_expr(p),
            syn::Expr::Unary(u) => {
                let op = match u.op {
                    syn::UnOp::Neg(_) => UnOp::Neg,
                    syn::UnOp::Not(_) => UnOp::Not,
                    _ => return err(u.op.span(), "dereferencing is not supported in kernels"),
                };
                let v = self.expr(&u.expr)?;
                self.b.unary(op, v, u.span())
            }
            syn::Expr::Binary(bin) => self.binary(bin),
            syn::Expr::Cast(c) => {
                let v = self.expr(&c.expr)?;
                let t = lower_type(self.b.env(), &c.ty, false)?;
                self.b.cast(v, &t, c.span())
            }
            syn::Expr::Field(f) => {
                let v = self.expr(&f.base)?;
                self.b.field(v, &member_name(&f.member), f.member.span())
            }
            syn::Expr::Index(ix) => {
                if let Some(var) = self.local_array_var(&ix.expr) {
                    let i = self.expr(&ix.index)?;
                    return self.b.local_load(var, i, e.span());
                }
                if let Some((arr, idx)) = self.array_index(e)? {
                    return self.b.load(arr, idx, e.span());
                }
                // `a[i][k]`: component k of an array element.
                if Self::index_depth(&ix.expr) > 0
                    && let Some((arr, idx)) = self.array_index(&ix.expr)?
                {
                    let elem = self.b.load(arr, idx, ix.expr.span())?;
                    let k = self.expr(&ix.index)?;
                    return self.b.index_value(elem, k, ix.span());
                }
                // `m[r][c]` on a matrix, `v[i]` on a vector.
                if let syn::Expr::Index(inner) = &*ix.expr {
                    let m = self.expr(&inner.expr)?;
                    if matches!(self.b.ty(m), Type::Matrix(..)) {
                        let r = self.expr(&inner.index)?;
                        let c = self.expr(&ix.index)?;
                        return self.b.mat_elem(m, r, c, e.span());
                    }
                    let ri = self.expr_index(&inner.index)?;
                    let row = self.b.index_value(m, ri, inner.span())?;
                    let i = self.expr(&ix.index)?;
                    return self.b.index_value(row, i, ix.span());
                }
                let v = self.expr(&ix.expr)?;
                if matches!(self.b.ty(v), Type::Matrix(..)) {
                    return err(ix.span(), "index matrices with two indices: `m[row][col]`");
                }
                let i = self.expr(&ix.index)?;
                self.b.index_value(v, i, ix.span())
            }
            syn::Expr::Call(c) => self.call(c),
            syn::Expr::MethodCall(m) => self.method(m),
            syn::Expr::If(i) => match self.if_expr(i)? {
                Some(v) => Ok(v),
                None => Ok(self.unit(i.span())),
            },
            syn::Expr::Block(b) if b.label.is_none() => match self.block_inner(&b.block)? {
                Some(v) => Ok(v),
                None => Ok(self.unit(b.span())),
            },
            syn::Expr::Tuple(t) => {
                if t.elems.is_empty() {
                    return Ok(self.unit(t.span()));
                }
                if t.elems.len() > weft_ir::MAX_TUPLE {
                    return err(
                        t.span(),
                        format!(
                            "a tuple holds at most {} values, this one {}",
                            weft_ir::MAX_TUPLE,
                            t.elems.len()
                        ),
                    );
                }
                let vals = t
                    .elems
                    .iter()
                    .map(|x| self.expr(x))
                    .collect::<Result<Vec<_>>>()?;
                let vals: Vec<_> = vals.into_iter().map(|v| self.b.settle(v)).collect();
                let tys = vals.iter().map(|v| self.b.ty(*v).clone()).collect();
                self.b.construct(Type::Tuple(tys), vals, t.span())
            }
            syn::Expr::Struct(s) => self.struct_lit(s),
            syn::Expr::Assign(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::While(_)
            | syn::Expr::Loop(_)
            | syn::Expr::Return(_)
            | syn::Expr::Break(_)
            | syn::Expr::Continue(_) => {
                self.expr_stmt(e)?;
                Ok(self.unit(e.span()))
            }
            syn::Expr::Macro(m) => err(m.span(), "macros are not supported inside kernels"),
            syn::Expr::Closure(c) => err(
                c.span(),
                "closures are not supported in kernels; write a `#[weft::func]`",
            ),
            syn::Expr::Match(m) => err(
                m.match_token.span,
                "`match` is not supported in kernels; use `if`/`else if`",
            ),
            syn::Expr::Reference(r) => err(
                r.span(),
                "references are only allowed as the first argument of `atomic_*` (`&mut a[i]`) and random-number builtins (`&mut state`)",
            ),
            syn::Expr::Array(a) => err(
                a.span(),
                "array literals are not supported in kernels; use vector constructors such as `Vec3::new`, or a local array `let mut s = [0; 8];`",
            ),
            syn::Expr::Repeat(r) => err(
                r.span(),
                "`[x; n]` is only allowed as the value of a `let`: `let mut s = [0; 8];`",
            ),
            syn::Expr::Range(r) => err(r.span(), "ranges are only allowed as `for` loop bounds"),
            syn::Expr::Try(t) => err(t.question_token.span, "`?` is not supported in kernels"),
            syn::Expr::Unsafe(u) => {
                err(u.unsafe_token.span, "`unsafe` is not supported in kernels")
            }
            other => err(other.span(), "this expression is not supported in kernels"),
        }
    }

    fn expr_index(&mut self, e: &syn::Expr) -> Result<ValueId> {
        self.expr(e)
    }

    fn unit(&mut self, span: Span) -> ValueId {
        self.b.unit(span)
    }

    /// Names literal value `v`, lowered from `l`, for retype hints.
    fn key_literal(&mut self, v: ValueId, l: &syn::Lit) {
        if let Some(k) = self.keys.get(l) {
            self.b.key_literal(v, k);
        }
    }

    fn lit(&mut self, l: &syn::Lit) -> Result<ValueId> {
        match l {
            syn::Lit::Bool(b) => Ok(self.b.lit_bool(b.value, b.span())),
            syn::Lit::Int(i) => {
                let suffix = match i.suffix() {
                    "" => None,
                    s => Some(suffix_scalar(s).ok_or_else(|| {
                        Error::new(i.span(), format!("unsupported literal suffix `{s}`"))
                    })?),
                };
                let v: i128 = i
                    .base10_parse()
                    .map_err(|e| Error::new(i.span(), e.to_string()))?;
                let v = self.b.lit_int(v, suffix, i.span())?;
                self.key_literal(v, l);
                Ok(v)
            }
            syn::Lit::Float(f) => {
                let suffix = match f.suffix() {
                    "" => None,
                    "f32" => Some(Scalar::F32),
                    "f64" => Some(Scalar::F64),
                    s => return err(f.span(), format!("unsupported literal suffix `{s}`")),
                };
                let v: f64 = f
                    .base10_parse()
                    .map_err(|e| Error::new(f.span(), e.to_string()))?;
                let v = self.b.lit_float(v, suffix, f.span());
                self.key_literal(v, l);
                Ok(v)
            }
            other => err(
                other.span(),
                "only bool, integer and float literals are supported in kernels",
            ),
        }
    }

    fn path_expr(&mut self, p: &syn::ExprPath) -> Result<ValueId> {
        let span = p.span();
        if let Some(id) = p.path.get_ident() {
            let name = id.to_string();
            return match self.lookup(&name) {
                Some(Local::Param(i)) => Ok(self.b.param(i, span)),
                Some(Local::Var(v)) if matches!(self.b.var(v).ty, Type::LocalArray { .. }) => err(
                    span,
                    format!(
                        "local array `{name}` can only be indexed (`{name}[i]`); it cannot be copied, passed or returned"
                    ),
                ),
                Some(Local::Var(v)) => Ok(self.b.read_var(v, span)),
                None => err(span, format!("cannot find value `{name}` in this scope")),
            };
        }
        // Associated constants: `Vec3::ZERO`, `f32::MAX`, `std::f32::consts::PI`, …
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let n = segs.len();
        let (owner, name) = (&segs[n - 2], &segs[n - 1]);
        if owner == "consts" && n >= 3 {
            let s = Scalar::from_name(&segs[n - 3]).filter(|s| s.is_float());
            if let (Some(s), Some(x)) = (s, float_const(name)) {
                return Ok(self.b.lit_float(x, Some(s), span));
            }
        }
        if let Some(s) = Scalar::from_name(owner) {
            return self.scalar_const(s, name, span);
        }
        if let Some(t) = Type::from_builtin_name(owner) {
            return self.type_const(&t, name, span);
        }
        err(
            span,
            format!("cannot find `{}` in kernels", p.path.to_token_stream()),
        )
    }

    fn scalar_const(&mut self, s: Scalar, name: &str, span: Span) -> Result<ValueId> {
        if s.is_float() {
            let (max, min_pos, eps) = if s == Scalar::F32 {
                (
                    f32::MAX as f64,
                    f32::MIN_POSITIVE as f64,
                    f32::EPSILON as f64,
                )
            } else {
                (f64::MAX, f64::MIN_POSITIVE, f64::EPSILON)
            };
            let x = match name {
                "MAX" => max,
                "MIN" => -max,
                "MIN_POSITIVE" => min_pos,
                "EPSILON" => eps,
                "INFINITY" => f64::INFINITY,
                "NEG_INFINITY" => f64::NEG_INFINITY,
                "NAN" => f64::NAN,
                _ => return err(span, format!("unknown constant `{}::{name}`", s.name())),
            };
            return Ok(self.b.lit_float(x, Some(s), span));
        }
        let (min, max): (i128, i128) = match s {
            Scalar::I32 => (i32::MIN as i128, i32::MAX as i128),
            Scalar::U32 => (0, u32::MAX as i128),
            Scalar::I64 => (i64::MIN as i128, i64::MAX as i128),
            Scalar::U64 => (0, u64::MAX as i128),
            Scalar::Bool | Scalar::F32 | Scalar::F64 => return err(span, "unknown constant"),
        };
        match name {
            "MAX" => self.b.lit_int(max, Some(s), span),
            "MIN" => self.b.lit_int(min, Some(s), span),
            _ => err(span, format!("unknown constant `{}::{name}`", s.name())),
        }
    }

    fn type_const(&mut self, t: &Type, name: &str, span: Span) -> Result<ValueId> {
        let s = t.scalar().expect("numeric type");
        let zero = |l: &mut Self| {
            if s.is_float() {
                l.b.lit_float(0.0, Some(s), span)
            } else {
                l.b.lit_int(0, Some(s), span).expect("0")
            }
        };
        let one = |l: &mut Self| {
            if s.is_float() {
                l.b.lit_float(1.0, Some(s), span)
            } else {
                l.b.lit_int(1, Some(s), span).expect("1")
            }
        };
        match (t, name) {
            (Type::Vector(n, _), "ZERO" | "ONE") => {
                let c = if name == "ZERO" {
                    zero(self)
                } else {
                    one(self)
                };
                let parts = vec![c; *n as usize];
                self.b.construct(t.clone(), parts, span)
            }
            (Type::Vector(n, _), "X" | "Y" | "Z" | "W" | "NEG_X" | "NEG_Y" | "NEG_Z" | "NEG_W") => {
                let axis = ["X", "Y", "Z", "W"]
                    .iter()
                    .position(|a| name.ends_with(a))
                    .expect("axis");
                if axis >= *n as usize {
                    return err(span, format!("`{t}` has no `{name}`"));
                }
                let z = zero(self);
                let mut o = one(self);
                if name.starts_with("NEG_") {
                    o = self.b.unary(UnOp::Neg, o, span)?;
                }
                let parts = (0..*n as usize)
                    .map(|i| if i == axis { o } else { z })
                    .collect();
                self.b.construct(t.clone(), parts, span)
            }
            (Type::Matrix(n, sc), "IDENTITY" | "ZERO") => {
                let cols = (0..*n as usize)
                    .map(|c| {
                        let parts = (0..*n as usize)
                            .map(|r| {
                                if name == "IDENTITY" && r == c {
                                    one(self)
                                } else {
                                    zero(self)
                                }
                            })
                            .collect();
                        self.b.construct(Type::Vector(*n, *sc), parts, span)
                    })
                    .collect::<Result<Vec<_>>>()?;
                self.b.construct(t.clone(), cols, span)
            }
            (Type::Quat(_), "IDENTITY") => {
                let (z, o) = (zero(self), one(self));
                self.b.construct(t.clone(), vec![z, z, z, o], span)
            }
            (Type::Transform(sc), "IDENTITY") => {
                let p = self.type_const(&Type::Vector(3, *sc), "ZERO", span)?;
                let q = self.type_const(&Type::Quat(*sc), "IDENTITY", span)?;
                self.b.construct(t.clone(), vec![p, q], span)
            }
            (Type::SpatialVector(sc), "ZERO") => {
                let z = self.type_const(&Type::Vector(3, *sc), "ZERO", span)?;
                self.b.construct(t.clone(), vec![z, z], span)
            }
            (Type::SpatialMatrix(_), "ZERO" | "IDENTITY") => {
                let parts = (0..36)
                    .map(|i| {
                        if name == "IDENTITY" && i % 7 == 0 {
                            one(self)
                        } else {
                            zero(self)
                        }
                    })
                    .collect();
                self.b.construct(t.clone(), parts, span)
            }
            _ => err(span, format!("unknown constant `{t}::{name}`")),
        }
    }

    fn binary(&mut self, bin: &syn::ExprBinary) -> Result<ValueId> {
        use syn::BinOp as B;
        if compound_op(&bin.op).is_some() {
            self.assign(&bin.left, compound_op(&bin.op), &bin.right, bin.span())?;
            return Ok(self.unit(bin.span()));
        }
        let op = match bin.op {
            B::And(_) | B::Or(_) => return self.short_circuit(bin),
            B::Add(_) => BinOp::Add,
            B::Sub(_) => BinOp::Sub,
            B::Mul(_) => BinOp::Mul,
            B::Div(_) => BinOp::Div,
            B::Rem(_) => BinOp::Rem,
            B::BitAnd(_) => BinOp::BitAnd,
            B::BitOr(_) => BinOp::BitOr,
            B::BitXor(_) => BinOp::BitXor,
            B::Shl(_) => BinOp::Shl,
            B::Shr(_) => BinOp::Shr,
            B::Eq(_) => BinOp::Eq,
            B::Ne(_) => BinOp::Ne,
            B::Lt(_) => BinOp::Lt,
            B::Le(_) => BinOp::Le,
            B::Gt(_) => BinOp::Gt,
            B::Ge(_) => BinOp::Ge,
            _ => return err(bin.op.span(), "unsupported operator"),
        };
        let a = self.expr(&bin.left)?;
        let b = self.expr(&bin.right)?;
        self.b.binary(op, a, b, bin.op.span())
    }

    /// `a && b` / `a || b`: `b` is evaluated only when needed.
    fn short_circuit(&mut self, bin: &syn::ExprBinary) -> Result<ValueId> {
        let is_and = matches!(bin.op, syn::BinOp::And(_));
        let a = self.expr(&bin.left)?;
        self.b.check_bool(a, "an operand of `&&`/`||`")?;
        let var = self.b.hidden_var("cond", Type::BOOL);
        self.b.begin_block();
        let b = self.expr(&bin.right)?;
        self.b.check_bool(b, "an operand of `&&`/`||`")?;
        self.b.assign_internal(var, b)?;
        let eval_b = self.b.end_block();
        self.b.begin_block();
        let konst = self.b.lit_bool(!is_and, bin.op.span());
        self.b.assign_internal(var, konst)?;
        let skip = self.b.end_block();
        self.b.push_declare(var);
        if is_and {
            self.b.push_if(a, eval_b, skip)?;
        } else {
            self.b.push_if(a, skip, eval_b)?;
        }
        Ok(self.b.read_var(var, bin.span()))
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Result<Option<ValueId>> {
        if let syn::Expr::Let(l) = &*i.cond {
            return err(l.span(), "`if let` is not supported in kernels");
        }
        let cond = self.expr(&i.cond)?;
        self.b.check_bool(cond, "an `if` condition")?;
        self.b.begin_block();
        let tv = self.block_inner(&i.then_branch)?;
        let then_diverges = self.b.current_block_returns();
        let (then_blk, else_blk, result);
        match &i.else_branch {
            None => {
                then_blk = self.b.end_block();
                else_blk = weft_ir::Block::default();
                result = None;
            }
            Some((_, e)) => {
                // Decide the result type from the then-branch (or the else-branch if the
                // then-branch has no value).
                let var = match tv {
                    Some(v) => {
                        let v = self.b.hinted(v)?;
                        let flexible = self.b.is_flexible(v);
                        let v = self.b.settle(v);
                        let t = self.b.ty(v).clone();
                        let var = self.b.hidden_var("if_value", t);
                        if flexible {
                            // A later mismatch retypes the literal (`let x: f64 = if ..`).
                            self.b.mark_flex_born(var, v);
                        }
                        Some((var, v))
                    }
                    None => None,
                };
                if let Some((var, v)) = var {
                    self.b.assign_internal(var, v)?;
                }
                then_blk = self.b.end_block();
                self.b.begin_block();
                let ev = match &**e {
                    syn::Expr::Block(b) => self.block_inner(&b.block)?,
                    syn::Expr::If(nested) => self.if_expr(nested)?,
                    other => Some(self.expr(other)?),
                };
                match (var, ev) {
                    (Some((var, _)), Some(ev)) => {
                        self.b.assign_internal(var, ev)?;
                        result = Some(var);
                    }
                    (Some((var, _)), None) => {
                        if !self.b.current_block_returns() {
                            return err(
                                e.span(),
                                format!(
                                    "this `else` branch has no value but the `if` branch has type `{}`",
                                    self.b.var(var).ty
                                ),
                            );
                        }
                        result = Some(var);
                    }
                    (None, Some(ev)) if then_diverges => {
                        let _ = ev;
                        result = None;
                    }
                    (None, Some(ev)) => {
                        let t = self.b.ty(ev).clone();
                        if t != Type::Unit {
                            return err(
                                e.span(),
                                format!(
                                    "the `if` branch has no value but this `else` branch has type `{t}`"
                                ),
                            );
                        }
                        result = None;
                    }
                    (None, None) => result = None,
                }
                else_blk = self.b.end_block();
            }
        }
        if let Some(var) = result {
            self.b.push_declare(var);
        }
        self.b.push_if(cond, then_blk, else_blk)?;
        Ok(result.map(|var| self.b.read_var(var, i.span())))
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Result<()> {
        if f.label.is_some() {
            return err(f.span(), "labelled loops are not supported");
        }
        let syn::Pat::Ident(pi) = &*f.pat else {
            return err(f.pat.span(), "the loop variable must be a plain name");
        };
        let name = pi.ident.to_string();
        // `for i in unroll(a..b)`: literal bounds, body repeated.
        if let syn::Expr::Call(c) = &*f.expr
            && is_plain_call(c, "unroll")
        {
            let (lo, hi) = match c.args.first() {
                Some(syn::Expr::Range(r)) if c.args.len() == 1 => (
                    literal_bound(&r.start, r.span())?,
                    literal_bound(&r.end, r.span())?,
                ),
                _ => return err(c.span(), "`unroll` takes a literal range: `unroll(0..4)`"),
            };
            if hi - lo > 64 {
                return err(
                    c.span(),
                    "`unroll` is limited to 64 iterations; use a plain `for` loop",
                );
            }
            for k in lo..hi {
                self.scopes.push(HashMap::new());
                let v = self.b.lit_int(k, Some(Scalar::I32), pi.span())?;
                let var = self.b.let_var(&name, None, v, false)?;
                self.bind(name.clone(), Local::Var(var));
                self.block_inner(&f.body)?;
                self.scopes.pop();
            }
            return Ok(());
        }
        let syn::Expr::Range(r) = &*f.expr else {
            return err(
                f.expr.span(),
                "`for` loops iterate over integer ranges `a..b` (or `unroll(a..b)`)",
            );
        };
        if matches!(r.limits, syn::RangeLimits::Closed(_)) {
            return err(
                r.span(),
                "inclusive ranges `a..=b` are not supported; write `a..b + 1`",
            );
        }
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            return err(r.span(), "`for` ranges need both bounds: `a..b`");
        };
        let s = self.expr(start)?;
        let e = self.expr(end)?;
        let (var, s, e) = self.b.begin_for(&name, s, e, r.span())?;
        self.b.begin_block();
        self.scopes.push(HashMap::new());
        self.bind(name, Local::Var(var));
        self.block_inner(&f.body)?;
        self.scopes.pop();
        let body = self.b.end_block();
        self.b.push_for(var, s, e, body);
        Ok(())
    }

    fn while_loop(&mut self, w: &syn::ExprWhile) -> Result<()> {
        if w.label.is_some() {
            return err(w.span(), "labelled loops are not supported");
        }
        if let syn::Expr::Let(l) = &*w.cond {
            return err(l.span(), "`while let` is not supported in kernels");
        }
        self.b.begin_block();
        let c = self.expr(&w.cond)?;
        let cb = self.b.end_block();
        self.b.begin_while();
        self.b.begin_block();
        self.block_inner(&w.body)?;
        let body = self.b.end_block();
        self.b.push_while(cb, c, body)
    }

    fn loop_expr(&mut self, l: &syn::ExprLoop) -> Result<()> {
        if l.label.is_some() {
            return err(l.span(), "labelled loops are not supported");
        }
        self.b.begin_block();
        let c = self.b.lit_bool(true, l.loop_token.span);
        let cb = self.b.end_block();
        self.b.begin_while();
        self.b.begin_block();
        self.block_inner(&l.body)?;
        let body = self.b.end_block();
        self.b.push_while(cb, c, body)
    }

    fn struct_lit(&mut self, s: &syn::ExprStruct) -> Result<ValueId> {
        if let Some(r) = &s.rest {
            return err(r.span(), "`..base` is not supported in struct literals");
        }
        let name = last_ident(&s.path);
        let Some(def) = self.b.env().structs.get(&name).cloned() else {
            return err(
                s.path.span(),
                format!(
                    "unknown struct `{name}`; structs used in kernels are declared with `#[weft::structure]`"
                ),
            );
        };
        let mut vals: Vec<Option<ValueId>> = vec![None; def.fields.len()];
        for fv in &s.fields {
            let fname = member_name(&fv.member);
            let Some(i) = def.fields.iter().position(|(n, _)| *n == fname) else {
                return err(
                    fv.member.span(),
                    format!("struct `{name}` has no field `{fname}`"),
                );
            };
            let v = self.expr(&fv.expr)?;
            vals[i] = Some(v);
        }
        let mut out = Vec::new();
        for (i, v) in vals.into_iter().enumerate() {
            match v {
                Some(v) => out.push(v),
                None => {
                    return err(
                        s.span(),
                        format!("missing field `{}` in `{name}`", def.fields[i].0),
                    );
                }
            }
        }
        self.b.construct(Type::Struct(name), out, s.span())
    }

    fn args(
        &mut self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
    ) -> Result<Vec<ValueId>> {
        args.iter().map(|a| self.expr(a)).collect()
    }

    fn call(&mut self, c: &syn::ExprCall) -> Result<ValueId> {
        let syn::Expr::Path(fp) = &*c.func else {
            return err(
                c.func.span(),
                "only named functions can be called in kernels",
            );
        };
        let path = &fp.path;
        let span = c.span();
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        // Type constructors: `Vec3::new(..)`, `Mat3::from_cols(..)`, …
        if segs.len() >= 2
            && let Some(t) = Type::from_builtin_name(&segs[segs.len() - 2])
        {
            return self.constructor(&t, &segs[segs.len() - 1], c);
        }
        let name = segs.last().cloned().unwrap_or_default();
        if segs.len() == 1 {
            if let Some(t) = short_constructor(&name) {
                let args = self.args(&c.args)?;
                return self.b.construct(t, args, span);
            }
            match name.as_str() {
                "tid" => {
                    if !c.args.is_empty() {
                        return err(c.args.span(), "`tid()` takes no arguments");
                    }
                    return Ok(self.b.tid(1, span)?[0]);
                }
                "atomic_add" | "atomic_sub" | "atomic_min" | "atomic_max" => {
                    return self.atomic(&name, c);
                }
                "unroll" => {
                    return err(span, "`unroll(a..b)` is only allowed as a `for` loop range");
                }
                _ => {}
            }
            if RNG_BUILTINS.contains(&name.as_str()) {
                return self.rng(&name, c);
            }
            if builtins::doc(&name).is_some() && !self.b.env().funcs.contains_key(&name) {
                let args = self.args(&c.args)?;
                return self.b.builtin(&name, args, span);
            }
            if self.lookup(&name).is_some() {
                return err(
                    c.func.span(),
                    format!("`{name}` is a local value, not a function"),
                );
            }
        }
        let args = self.args(&c.args)?;
        let args: Vec<_> = args.into_iter().collect();
        self.b.call(&name, path.to_token_stream(), args, span)
    }

    fn constructor(&mut self, t: &Type, ctor: &str, c: &syn::ExprCall) -> Result<ValueId> {
        let span = c.span();
        let args = self.args(&c.args)?;
        match (t, ctor) {
            (Type::Vector(..), "new")
            | (Type::Quat(_), "from_xyzw")
            | (Type::Matrix(..), "from_cols")
            | (Type::Transform(_), "new")
            | (Type::SpatialVector(_), "new") => self.b.construct(t.clone(), args, span),
            (Type::Vector(..), "splat") if args.len() == 1 => {
                self.b.splat(t.clone(), args[0], span)
            }
            (Type::Quat(_), "from_axis_angle") => {
                self.b.builtin("quat_from_axis_angle", args, span)
            }
            (Type::Quat(_), "from_mat3") => self.b.builtin("quat_from_matrix", args, span),
            (Type::Matrix(3, _), "from_quat") => self.b.builtin("quat_to_matrix", args, span),
            (Type::Matrix(_, _), "from_diagonal") => self.b.builtin("diag", args, span),
            (Type::Scalar(_), _) => err(
                span,
                format!("`{t}::{ctor}` is not supported; use `as` or a builtin"),
            ),
            _ => err(
                span,
                format!(
                    "unknown constructor `{t}::{ctor}`; use `new` (vectors, Transform, SpatialVector), `splat`, `from_cols` (matrices), `from_xyzw` / `from_axis_angle` (Quat)"
                ),
            ),
        }
    }

    fn atomic(&mut self, name: &str, c: &syn::ExprCall) -> Result<ValueId> {
        let op = match name {
            "atomic_add" => AtomicOp::Add,
            "atomic_sub" => AtomicOp::Sub,
            "atomic_min" => AtomicOp::Min,
            _ => AtomicOp::Max,
        };
        if c.args.len() != 2 {
            return err(
                c.span(),
                format!("`{name}` takes two arguments: `{name}(&mut a[i], value)`"),
            );
        }
        let target = &c.args[0];
        let syn::Expr::Reference(r) = target else {
            return err(
                target.span(),
                format!("the first argument of `{name}` is an array element: `&mut a[i]`"),
            );
        };
        if r.mutability.is_none() {
            return err(
                r.span(),
                format!("write `&mut a[i]` as the first argument of `{name}`"),
            );
        }
        let Some((arr, idx)) = self.array_index(&r.expr)? else {
            return err(
                r.expr.span(),
                format!("the first argument of `{name}` must be an array element `&mut a[i]`"),
            );
        };
        let v = self.expr(&c.args[1])?;
        self.b.atomic(op, arr, idx, v, c.span())
    }

    fn rng(&mut self, name: &str, c: &syn::ExprCall) -> Result<ValueId> {
        let Some(syn::Expr::Reference(r)) = c.args.first() else {
            return err(
                c.span(),
                format!("`{name}` takes the random state first: `{name}(&mut state, …)`"),
            );
        };
        let state = match &*r.expr {
            syn::Expr::Path(p) if r.mutability.is_some() => {
                p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
            }
            _ => None,
        };
        let Some(Local::Var(state)) = state else {
            return err(
                r.span(),
                format!(
                    "`{name}` needs `&mut state` where `state` is a `let mut` local from `rand_init`"
                ),
            );
        };
        let rest = c
            .args
            .iter()
            .skip(1)
            .map(|a| self.expr(a))
            .collect::<Result<Vec<_>>>()?;
        self.b.rng(name, state, rest, c.span())
    }

    fn method(&mut self, m: &syn::ExprMethodCall) -> Result<ValueId> {
        if let Some(t) = &m.turbofish {
            return err(t.span(), "generic arguments are not supported in kernels");
        }
        let name = m.method.to_string();
        let span = m.method.span();
        let recv = self.expr(&m.receiver)?;
        let rty = self.b.ty(recv).clone();
        if let Type::Array { .. } = rty {
            return match name.as_str() {
                "len" if m.args.is_empty() => self.b.len(recv, None, span),
                "shape" if m.args.len() == 1 => {
                    let d = literal_bound(&Some(Box::new(m.args[0].clone())), m.args.span())?;
                    self.b.len(recv, Some(d as u8), span)
                }
                _ => err(
                    span,
                    format!("arrays have `len()` and `shape(d)` in kernels, not `{name}`"),
                ),
            };
        }
        match (&rty, name.as_str()) {
            (Type::Matrix(..), "row" | "col") if m.args.len() == 1 => {
                let i = self.expr(&m.args[0])?;
                return self.mat_row_col(recv, i, name == "col", m.span());
            }
            (Type::Scalar(s), "powi") if s.is_float() => {
                let e = self.expr(&m.args[0])?;
                let e = self.b.cast(e, &rty, m.span())?;
                return self.b.builtin("pow", vec![recv, e], span);
            }
            _ => {}
        }
        let Some(b) = method_builtin(&name).filter(|b| !RNG_BUILTINS.contains(b)) else {
            return err(span, format!("no method `{name}` on `{rty}` in kernels"));
        };
        let mut args = vec![recv];
        args.extend(self.args(&m.args)?);
        // Receiver literals like `2.0.sqrt()` default to f32.
        self.b.builtin(b, args, span)
    }

    fn mat_row_col(&mut self, m: ValueId, i: ValueId, col: bool, span: Span) -> Result<ValueId> {
        let Type::Matrix(n, s) = self.b.ty(m).clone() else {
            unreachable!()
        };
        let parts = (0..n as i128)
            .map(|k| {
                let k = self.b.lit_int(k, Some(Scalar::I32), span)?;
                if col {
                    self.b.mat_elem(m, k, i, span)
                } else {
                    self.b.mat_elem(m, i, k, span)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        self.b.construct(Type::Vector(n, s), parts, span)
    }
}

fn member_name(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(i) => i.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => BinOp::Add,
        B::SubAssign(_) => BinOp::Sub,
        B::MulAssign(_) => BinOp::Mul,
        B::DivAssign(_) => BinOp::Div,
        B::RemAssign(_) => BinOp::Rem,
        B::BitAndAssign(_) => BinOp::BitAnd,
        B::BitOrAssign(_) => BinOp::BitOr,
        B::BitXorAssign(_) => BinOp::BitXor,
        B::ShlAssign(_) => BinOp::Shl,
        B::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}

fn is_plain_call(c: &syn::ExprCall, name: &str) -> bool {
    matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident(name))
}

fn literal_bound(e: &Option<Box<syn::Expr>>, span: Span) -> Result<i128> {
    match e.as_deref() {
        Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        })) => i
            .base10_parse()
            .map_err(|e| Error::new(i.span(), e.to_string())),
        Some(syn::Expr::Unary(u)) if matches!(u.op, syn::UnOp::Neg(_)) => {
            Ok(-literal_bound(&Some(u.expr.clone()), span)?)
        }
        Some(other) => err(other.span(), "expected an integer literal"),
        None => err(span, "expected an integer literal bound"),
    }
}

fn short_constructor(name: &str) -> Option<Type> {
    use Scalar::*;
    Some(match name {
        "vec2" => Type::Vector(2, F32),
        "vec3" => Type::Vector(3, F32),
        "vec4" => Type::Vector(4, F32),
        "dvec2" => Type::Vector(2, F64),
        "dvec3" => Type::Vector(3, F64),
        "dvec4" => Type::Vector(4, F64),
        "ivec2" => Type::Vector(2, I32),
        "ivec3" => Type::Vector(3, I32),
        "ivec4" => Type::Vector(4, I32),
        "uvec2" => Type::Vector(2, U32),
        "uvec3" => Type::Vector(3, U32),
        "uvec4" => Type::Vector(4, U32),
        "quat" => Type::Quat(F32),
        _ => return None,
    })
}

fn float_const(name: &str) -> Option<f64> {
    use std::f64::consts as c;
    Some(match name {
        "PI" => c::PI,
        "TAU" => c::TAU,
        "E" => c::E,
        "FRAC_PI_2" => c::FRAC_PI_2,
        "FRAC_PI_3" => c::FRAC_PI_3,
        "FRAC_PI_4" => c::FRAC_PI_4,
        "FRAC_PI_6" => c::FRAC_PI_6,
        "FRAC_PI_8" => c::FRAC_PI_8,
        "FRAC_1_PI" => c::FRAC_1_PI,
        "FRAC_2_PI" => c::FRAC_2_PI,
        "SQRT_2" => c::SQRT_2,
        "FRAC_1_SQRT_2" => c::FRAC_1_SQRT_2,
        "LN_2" => c::LN_2,
        "LN_10" => c::LN_10,
        "LOG2_E" => c::LOG2_E,
        "LOG10_E" => c::LOG10_E,
        _ => return None,
    })
}
