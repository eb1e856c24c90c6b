//! The OBJ reader on mutated valid files (byte flips, truncation, inserted garbage
//! tokens and lines, huge/negative/zero face indices, NaN/inf coordinates, faces
//! removed): it never panics, and every mesh it returns is valid (face indices in
//! range, finite points). Failing cases are kept in `proptest-regressions/`.

use proptest::prelude::*;
use weft_geom::Mesh;
use weft_geom::obj::ObjOptions;

/// Two objects sharing an edge, a quad, texture coordinates, normals, negative
/// indices, comments and groups: most of what the reader handles.
const BASE: &str = "# test\n\
mtllib none.mtl\n\
o first\n\
v 0 0 0\n\
v 1 0 0\n\
v 1 1 0\n\
v 0 1 0\n\
vt 0 0\n\
vt 1 0\n\
vn 0 0 1\n\
g quad\n\
usemtl red\n\
s off\n\
f 1/1/1 2/2/1 3/1/1 4/2/1\n\
o second\n\
v 1 0 0\n\
v 2 0 0\n\
v 1.5 1e-3 -2.5e1\n\
f -3 -2 -1\n\
f 5//1 6//1 7//1\n\
l 1 2\n\
p 3\n";

/// Tokens and lines that readers trip over.
const GARBAGE: &[&str] = &[
    "f",
    "v",
    "vt",
    "vn",
    "o",
    "g",
    "s",
    "l",
    "p",
    "w",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e39",
    "-1e39",
    "0",
    "-0",
    "-1",
    "-7",
    "-99999999",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "99999999999999999999999",
    "1/",
    "/1",
    "//",
    "1//",
    "1/2/3/4",
    "#",
    "\\",
    "\u{0}",
    "é",
    "\t",
    "\r",
    "f 0 0 0",
    "f 1 1 1",
    "f -1 -1 -1",
    "f 1 2",
    "f 4294967295 1 2",
    "f 1 2 -4294967296",
    "f -99999999 1 2",
    "v nan 0 0",
    "v inf inf inf",
    "v 1 2",
    "v 1 2 3 4",
    "v 1e39 0 0",
    "vt nan",
    "vn inf 0 0",
    "f 1/99 2/99 3/99",
    "f 1//99 2//99 3//99",
    "mtllib",
    "usemtl",
    "o",
    "g",
    "\n",
    "\n\n",
    "f 1 2 3 4 5 6 7 8 9",
    "f a b c",
];

#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the byte at (position modulo length) with this value.
    Flip(usize, u8),
    /// Cut the text at (position modulo length).
    Truncate(usize),
    /// Insert garbage token `k` (with spaces around) at (position modulo length).
    Insert(usize, usize),
    /// Replace the `n`-th whitespace-separated word with garbage token `k`.
    ReplaceWord(usize, usize),
    /// Drop every `f` line.
    DropFaces,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Flip(p, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 0..GARBAGE.len()).prop_map(|(p, k)| Mutation::Insert(p, k)),
        (any::<usize>(), 0..GARBAGE.len()).prop_map(|(n, k)| Mutation::ReplaceWord(n, k)),
        Just(Mutation::DropFaces),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len().max(1);
    match *m {
        Mutation::Flip(p, b) => {
            if !bytes.is_empty() {
                bytes[p % len] = b;
            }
        }
        Mutation::Truncate(p) => bytes.truncate(p % len),
        Mutation::Insert(p, k) => {
            let at = p % (bytes.len() + 1);
            let token = format!(" {} ", GARBAGE[k]);
            bytes.splice(at..at, token.into_bytes());
        }
        Mutation::ReplaceWord(n, k) => {
            // Word spans are byte ranges of the (lossily decoded) text.
            let mut text = String::from_utf8_lossy(bytes).into_owned();
            let words = word_spans(&text);
            if let Some(&(s, e)) = words.get(n % words.len().max(1)) {
                text.replace_range(s..e, GARBAGE[k]);
            }
            *bytes = text.into_bytes();
        }
        Mutation::DropFaces => {
            let text = String::from_utf8_lossy(bytes).into_owned();
            let kept: Vec<&str> = text
                .split('\n')
                .filter(|l| !l.trim_start().starts_with('f'))
                .collect();
            *bytes = kept.join("\n").into_bytes();
        }
    }
}

/// Byte ranges of the words of `text`.
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, text.len()));
    }
    spans
}

fn assert_valid(mesh: &Mesh, text: &str) {
    let n = mesh.num_points();
    for tri in mesh.indices() {
        assert!(
            tri.iter().all(|&i| (i as usize) < n),
            "face {tri:?} indexes past {n} points; input:\n{text}"
        );
    }
    for p in mesh.points() {
        assert!(p.is_finite(), "point {p} is not finite; input:\n{text}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_obj_files_give_an_error_or_a_valid_mesh(
        mutations in prop::collection::vec(mutation(), 1..6),
        weld in any::<bool>(),
    ) {
        let mut bytes = BASE.as_bytes().to_vec();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let path = std::env::temp_dir().join(format!(
            "weft-geom-obj-fuzz-{}-{:?}.obj",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&path, &bytes).unwrap();
        let from_file = Mesh::load_obj_with(&path, ObjOptions { weld });
        let _ = std::fs::remove_file(&path);
        if let Ok(mesh) = &from_file {
            assert_valid(mesh, &text);
        }
        if let Ok(mesh) = Mesh::from_obj_str(&text, "fuzz") {
            assert_valid(&mesh, &text);
        }
    }
}

/// The unmutated base file loads: the mutations start from a valid mesh.
#[test]
fn the_base_file_is_valid() {
    let mesh = Mesh::from_obj_str(BASE, "base").unwrap();
    assert_eq!(mesh.num_faces(), 4);
    assert_valid(&mesh, BASE);
}

/// Inputs the fuzzing found or that readers often mishandle, one by one.
#[test]
fn known_hostile_inputs_give_an_error_or_a_valid_mesh() {
    let cases = [
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4294967295\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4294967296\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n",
        "v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
        "v 1e39 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\n",
        "f 1 2 3\n",
        "",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/99/99 2/99/99 3/99/99\n",
    ];
    for text in cases {
        if let Ok(mesh) = Mesh::from_obj_str(text, "case") {
            assert_valid(&mesh, text);
        }
    }
}

/// The mutations reach both outcomes (so the property above sees meshes, not only
/// errors): over 200 deterministic cases, some files load and some are refused.
#[test]
fn mutations_reach_both_outcomes() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = prop::collection::vec(mutation(), 1..6);
    let (mut meshes, mut errors) = (0, 0);
    for _ in 0..200 {
        let mutations = strategy.new_tree(&mut runner).unwrap().current();
        let mut bytes = BASE.as_bytes().to_vec();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        match Mesh::from_obj_str(&String::from_utf8_lossy(&bytes), "fuzz") {
            Ok(_) => meshes += 1,
            Err(_) => errors += 1,
        }
    }
    assert!(
        meshes >= 20 && errors >= 20,
        "{meshes} meshes, {errors} errors"
    );
}
