//! The lines of the IR's builtin table (`table! { … }` in `weft-ir/src/builtins.rs`),
//! read from its source next to this crate, for the tests that check coverage of it.

/// The path of the IR's builtin table source.
const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../weft-ir/src/builtins.rs");

/// The `"name": "…"` entries of the table as `(name, line)`.
///
/// Panics when the file or its `table! {` block is missing: a coverage test that cannot
/// find what it covers must fail, not pass.
pub fn entries() -> Vec<(String, String)> {
    let src = std::fs::read_to_string(PATH)
        .unwrap_or_else(|e| panic!("cannot read the IR's builtin table {PATH}: {e}"));
    let start = src
        .find("table! {")
        .unwrap_or_else(|| panic!("no `table! {{` in {PATH}: was the table renamed?"));
    let body = &src[start..];
    let end = body
        .find("\n}")
        .unwrap_or_else(|| panic!("the `table! {{` in {PATH} is not closed by a `}}` line"));
    body[..end]
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix('"')?;
            let name = &rest[..rest.find("\": \"")?];
            Some((name.to_string(), l.trim_end().to_string()))
        })
        .collect()
}
