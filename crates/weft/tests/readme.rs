//! The README's builtin table names every builtin of the language.

fn contains_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_none_or(|c| !ident(c));
        let after = text[i + word.len()..]
            .chars()
            .next()
            .is_none_or(|c| !ident(c));
        before && after
    })
}

#[test]
fn readme_lists_every_builtin() {
    let readme = include_str!("../../../README.md");
    let table = &readme[readme.find("### Builtins").expect("builtins section")..];
    let missing: Vec<_> = weft_ir::builtins::BUILTINS
        .iter()
        .map(|b| b.name)
        .filter(|n| !contains_word(table, n))
        .collect();
    assert!(
        missing.is_empty(),
        "README builtins table misses {missing:?}"
    );
}
