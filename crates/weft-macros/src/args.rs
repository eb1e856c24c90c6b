//! The arguments of the three attributes: `crate = path` on any of them (where
//! generated code finds the runtime), `adjoint = path` on funcs (a user-supplied
//! adjoint), the bare flag `forward_only` on kernels (no adjoint at all).

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Path, Token};
use weft_ir::Error;

use crate::chain::Kind;

/// Why a `forward_only` kernel has no adjoint: its `ADJOINT_PTX` error, and the
/// start of the error of a launch on a tape (see [`FORWARD_ONLY_ON_TAPE`]).
pub const FORWARD_ONLY: &str = "it is declared `forward_only`, so no adjoint was generated";

/// The reason in the `Error::Gradient` of a `forward_only` kernel launched while a
/// tape records and an array it reads or writes carries a gradient.
pub const FORWARD_ONLY_ON_TAPE: &str = "it is declared `forward_only`, so no adjoint was generated; \
     it cannot run while a tape records and an array it reads or writes has a gradient \
     (launch it outside `Tape::record` or in `Tape::pause`, or launch a taped alternative)";

/// The parsed arguments of `#[kernel(..)]`, `#[func(..)]` or `#[structure(..)]`.
#[derive(Clone, Default)]
pub struct Args {
    /// `crate = path`: the crate (or module) whose `__private` module generated
    /// code uses; the facade `::weft` when absent.
    pub krate: Option<Path>,
    /// `adjoint = path` (funcs only): the func's adjoint, written by the user.
    pub adjoint: Option<Path>,
    /// `forward_only` (kernels only): generate no adjoint (neither Rust nor PTX);
    /// launching the kernel while a tape records with gradients is an error.
    pub forward_only: bool,
}

impl Args {
    /// Parses `attr` for an item of `kind`.
    pub fn parse(kind: Kind, attr: &TokenStream) -> Result<Args, Error> {
        let bad = |span| {
            Error::new(
                span,
                match kind {
                    Kind::Func => {
                        "expected `adjoint = path::to::fn` (a user-supplied adjoint), \
                         `crate = path` (where Weft's runtime is) or nothing"
                    }
                    Kind::Kernel => {
                        "expected `crate = path` (where Weft's runtime is), \
                         `forward_only` (no adjoint) or nothing"
                    }
                    Kind::Struct => "expected `crate = path` (where Weft's runtime is) or nothing",
                },
            )
        };
        let list = Punctuated::<Arg, Token![,]>::parse_terminated
            .parse2(attr.clone())
            .map_err(|e| bad(e.span()))?;
        let mut args = Args::default();
        for arg in list {
            let key = arg.key.to_string();
            if key == "forward_only" {
                if kind != Kind::Kernel {
                    let item = if kind == Kind::Func {
                        "funcs"
                    } else {
                        "structures"
                    };
                    return Err(Error::new(
                        arg.key.span(),
                        format!(
                            "`forward_only` applies to kernels (`#[weft::kernel(forward_only)]`), not to {item}"
                        ),
                    ));
                }
                if arg.valued {
                    return Err(Error::new(
                        arg.key.span(),
                        "`forward_only` takes no value: write `#[weft::kernel(forward_only)]`",
                    ));
                }
                if args.forward_only {
                    return Err(Error::new(arg.key.span(), "`forward_only` is given twice"));
                }
                args.forward_only = true;
                continue;
            }
            let slot = match key.as_str() {
                "crate" => &mut args.krate,
                "adjoint" if kind == Kind::Func => &mut args.adjoint,
                _ => return Err(bad(arg.key.span())),
            };
            let Some(value) = arg.value else {
                return Err(bad(arg.key.span()));
            };
            if slot.is_some() {
                return Err(Error::new(
                    arg.key.span(),
                    format!("`{}` is given twice", arg.key),
                ));
            }
            *slot = Some(value);
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

/// One `key = path` argument, `key = value` (of a flag or an unknown key: an
/// error once the key is known) or a bare `key` (a flag); `crate` is a keyword,
/// hence no `syn::Meta`.
struct Arg {
    key: proc_macro2::Ident,
    /// The path after `=`, if that is one.
    value: Option<Path>,
    /// Whether `= ...` follows the key.
    valued: bool,
}

impl Parse for Arg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = if input.peek(Token![crate]) {
            let k: Token![crate] = input.parse()?;
            proc_macro2::Ident::new("crate", k.span())
        } else {
            input.parse()?
        };
        if !input.peek(Token![=]) {
            return Ok(Arg {
                key,
                value: None,
                valued: false,
            });
        }
        input.parse::<Token![=]>()?;
        let value = if input.peek(syn::LitStr) {
            // `crate = "path"`, as serde spells it.
            input.parse::<syn::LitStr>()?.parse()?
        } else if key == "crate" || key == "adjoint" {
            Path::parse_mod_style(input)?
        } else {
            // `forward_only = true` and the like: reported by key.
            input.parse::<syn::Expr>()?;
            return Ok(Arg {
                key,
                value: None,
                valued: true,
            });
        };
        Ok(Arg {
            key,
            value: Some(value),
            valued: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(kind: Kind, attr: &str) -> Result<Args, String> {
        Args::parse(kind, &attr.parse().unwrap()).map_err(|e| e.message)
    }

    #[test]
    fn forward_only_is_a_kernel_flag() {
        assert!(!parse(Kind::Kernel, "").unwrap().forward_only);
        assert!(parse(Kind::Kernel, "forward_only").unwrap().forward_only);
        let a = parse(Kind::Kernel, "crate = ::weft_runtime, forward_only").unwrap();
        assert!(a.forward_only && a.krate.is_some());
        let a = parse(Kind::Kernel, "forward_only, crate = \"::weft\",").unwrap();
        assert!(a.forward_only && a.krate.is_some());
    }

    #[test]
    fn bad_forms_of_forward_only_are_errors() {
        let e = |kind, attr| parse(kind, attr).err().unwrap();
        assert_eq!(
            e(Kind::Kernel, "forward_only, forward_only"),
            "`forward_only` is given twice"
        );
        assert!(e(Kind::Kernel, "forward_only = true").contains("takes no value"));
        assert!(e(Kind::Func, "forward_only").contains("applies to kernels"));
        assert!(e(Kind::Struct, "forward_only").contains("not to structures"));
        assert!(e(Kind::Kernel, "crate").starts_with("expected `crate = path`"));
        assert!(e(Kind::Kernel, "fast").contains("`forward_only`"));
    }
}
