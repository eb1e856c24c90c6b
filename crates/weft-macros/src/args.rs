//! The arguments of the three attributes: `crate = path` on any of them (where
//! generated code finds the runtime), `adjoint = path` on funcs (a user-supplied
//! adjoint).

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Path, Token};
use weft_ir::Error;

use crate::chain::Kind;

/// The parsed arguments of `#[kernel(..)]`, `#[func(..)]` or `#[structure(..)]`.
#[derive(Clone, Default)]
pub struct Args {
    /// `crate = path`: the crate (or module) whose `__private` module generated
    /// code uses; the facade `::weft` when absent.
    pub krate: Option<Path>,
    /// `adjoint = path` (funcs only): the func's adjoint, written by the user.
    pub adjoint: Option<Path>,
}

impl Args {
    /// Parses `attr` for an item of `kind`.
    pub fn parse(kind: Kind, attr: &TokenStream) -> Result<Args, Error> {
        let bad = |span| {
            Error::new(
                span,
                if kind == Kind::Func {
                    "expected `adjoint = path::to::fn` (a user-supplied adjoint), \
                     `crate = path` (where Weft's runtime is) or nothing"
                } else {
                    "expected `crate = path` (where Weft's runtime is) or nothing"
                },
            )
        };
        let list = Punctuated::<Arg, Token![,]>::parse_terminated
            .parse2(attr.clone())
            .map_err(|e| bad(e.span()))?;
        let mut args = Args::default();
        for arg in list {
            let slot = match arg.key.to_string().as_str() {
                "crate" => &mut args.krate,
                "adjoint" if kind == Kind::Func => &mut args.adjoint,
                _ => return Err(bad(arg.key.span())),
            };
            if slot.is_some() {
                return Err(Error::new(
                    arg.key.span(),
                    format!("`{}` is given twice", arg.key),
                ));
            }
            *slot = Some(arg.value);
        }
        Ok(args)
    }

    /// The runtime's `__private` module as generated code names it.
    pub fn runtime(&self) -> TokenStream {
        match &self.krate {
            Some(k) => quote!(#k::__private),
            None => quote!(::weft::__private),
        }
    }
}

/// One `key = path` argument (`crate` is a keyword, hence no `syn::MetaNameValue`).
struct Arg {
    key: proc_macro2::Ident,
    value: Path,
}

impl Parse for Arg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = if input.peek(Token![crate]) {
            let k: Token![crate] = input.parse()?;
            proc_macro2::Ident::new("crate", k.span())
        } else {
            input.parse()?
        };
        input.parse::<Token![=]>()?;
        let value = if input.peek(syn::LitStr) {
            // `crate = "path"`, as serde spells it.
            input.parse::<syn::LitStr>()?.parse()?
        } else {
            Path::parse_mod_style(input)?
        };
        Ok(Arg { key, value })
    }
}
