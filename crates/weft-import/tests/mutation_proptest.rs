//! Mutated robot files (attributes deleted, duplicated or corrupted; elements and
//! lines deleted or duplicated; bytes replaced) are read as `Ok` or `Err`, never a
//! panic (issue 26 point 4).

use proptest::prelude::*;
use weft_import::{ImportOptions, parse_mjcf, parse_urdf};

const VALUES: [&str; 34] = [
    "",
    "x",
    "nan",
    "inf",
    "-1",
    "0",
    "1e308",
    "1 2",
    "0 0 0",
    "0 0 0 0",
    "1 2 3 4 5 6 7",
    "hinge",
    "free",
    "ball",
    "slide",
    "revolute",
    "floating",
    "capsule",
    "mesh",
    "plane",
    "box",
    "main",
    "nope",
    "torso",
    "base",
    "link1",
    "true",
    "false",
    "auto",
    "radian",
    "package://weft_test_robot/meshes/cube.obj",
    "-1 1",
    "1 -1",
    "&amp;",
];
const BYTES: &[u8] = b"<>\"=/ a0\n-";

#[derive(Clone, Debug)]
enum Mutation {
    DeleteAttribute(usize),
    DuplicateAttribute(usize),
    CorruptAttribute(usize, usize),
    DeleteElement(usize),
    DuplicateElement(usize),
    DeleteLine(usize),
    DuplicateLine(usize),
    ReplaceByte(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let i = any::<usize>();
    prop_oneof![
        i.prop_map(Mutation::DeleteAttribute),
        i.prop_map(Mutation::DuplicateAttribute),
        (i, 0..VALUES.len()).prop_map(|(a, v)| Mutation::CorruptAttribute(a, v)),
        i.prop_map(Mutation::DeleteElement),
        i.prop_map(Mutation::DuplicateElement),
        i.prop_map(Mutation::DeleteLine),
        i.prop_map(Mutation::DuplicateLine),
        (i, 0..BYTES.len()).prop_map(|(p, b)| Mutation::ReplaceByte(p, b)),
    ]
}

/// Spans of ` name="value"` (whole, and the value alone).
fn attributes(text: &str) -> Vec<((usize, usize), (usize, usize))> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(k) = text[i..].find("=\"").map(|k| k + i) {
        let mut s = k;
        while s > 0 && (b[s - 1].is_ascii_alphanumeric() || b"_:-".contains(&b[s - 1])) {
            s -= 1;
        }
        let Some(end) = text[k + 2..].find('"').map(|e| e + k + 2) else {
            break;
        };
        if s > 0 && s < k && b[s - 1].is_ascii_whitespace() {
            out.push(((s - 1, end + 1), (k + 2, end)));
        }
        i = end + 1;
    }
    out
}

/// Spans of self-closing elements `<tag .../>`.
fn elements(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(s) = text[i..].find('<').map(|s| s + i) {
        let Some(e) = text[s..].find('>').map(|e| e + s) else {
            break;
        };
        if text[s..e].ends_with('/') && text[s + 1..].starts_with(|c: char| c.is_ascii_alphabetic())
        {
            out.push((s, e + 1));
        }
        i = e + 1;
    }
    out
}

fn apply(text: &str, m: &Mutation) -> String {
    let pick = |n: usize, k: usize| if n == 0 { None } else { Some(k % n) };
    let mut t = text.to_owned();
    match *m {
        Mutation::DeleteAttribute(k)
        | Mutation::DuplicateAttribute(k)
        | Mutation::CorruptAttribute(k, _) => {
            let attrs = attributes(text);
            let Some(i) = pick(attrs.len(), k) else {
                return t;
            };
            let ((s, e), (vs, ve)) = attrs[i];
            match *m {
                Mutation::DeleteAttribute(_) => t.replace_range(s..e, ""),
                Mutation::DuplicateAttribute(_) => t.insert_str(e, &text[s..e]),
                Mutation::CorruptAttribute(_, v) => t.replace_range(vs..ve, VALUES[v]),
                _ => unreachable!(),
            }
        }
        Mutation::DeleteElement(k) | Mutation::DuplicateElement(k) => {
            let els = elements(text);
            let Some(i) = pick(els.len(), k) else {
                return t;
            };
            let (s, e) = els[i];
            if matches!(m, Mutation::DeleteElement(_)) {
                t.replace_range(s..e, "");
            } else {
                t.insert_str(e, &text[s..e]);
            }
        }
        Mutation::DeleteLine(k) | Mutation::DuplicateLine(k) => {
            let mut lines: Vec<&str> = text.lines().collect();
            let Some(i) = pick(lines.len(), k) else {
                return t;
            };
            if matches!(m, Mutation::DeleteLine(_)) {
                lines.remove(i);
            } else {
                lines.insert(i, lines[i]);
            }
            t = lines.join("\n");
        }
        Mutation::ReplaceByte(p, b) => {
            let Some(i) = pick(t.len(), p) else { return t };
            if t.is_char_boundary(i) && t.is_char_boundary(i + 1) {
                t.replace_range(i..i + 1, std::str::from_utf8(&BYTES[b..b + 1]).unwrap());
            }
        }
    }
    t
}

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn options() -> ImportOptions {
    ImportOptions::default()
        .with_package_path(format!("{}/tests/fixtures", env!("CARGO_MANIFEST_DIR")))
}

fn mjcf_files() -> Vec<String> {
    ["cartpole", "double_pendulum", "arm7", "ant", "humanoid"]
        .iter()
        .map(|m| read(&format!("../../assets/robots/{m}.xml")))
        .chain([read("tests/fixtures/mjcf/include_main.xml")])
        .collect()
}

fn urdf_files() -> Vec<String> {
    vec![
        read("../../assets/robots/arm7.urdf"),
        read("tests/fixtures/weft_test_robot/urdf/gripper.urdf"),
    ]
}

#[test]
fn unmutated_files_are_read() {
    for f in mjcf_files().iter().take(5) {
        parse_mjcf(f, &options()).unwrap();
    }
    for f in urdf_files() {
        parse_urdf(
            &f.replace("../meshes/", "package://weft_test_robot/meshes/"),
            &options(),
        )
        .unwrap();
    }
}

#[test]
fn mutation_helpers_find_attributes_and_elements() {
    let t = r#"<a x="1"><b y="2" z="3"/></a>"#;
    assert_eq!(attributes(t).len(), 3);
    assert_eq!(elements(t), vec![(9, 25)]);
    assert_eq!(
        apply(t, &Mutation::DeleteAttribute(1)),
        r#"<a x="1"><b z="3"/></a>"#
    );
    assert_eq!(
        apply(t, &Mutation::CorruptAttribute(0, 1)),
        r#"<a x="x"><b y="2" z="3"/></a>"#
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_mjcf_never_panics(file in 0..6usize, ms in prop::collection::vec(mutation(), 1..4)) {
        let mut text = mjcf_files().swap_remove(file);
        for m in &ms {
            text = apply(&text, m);
        }
        let _ = parse_mjcf(&text, &options());
    }

    #[test]
    fn mutated_urdf_never_panics(file in 0..2usize, ms in prop::collection::vec(mutation(), 1..4)) {
        let mut text = urdf_files().swap_remove(file);
        for m in &ms {
            text = apply(&text, m);
        }
        let _ = parse_urdf(&text, &options());
    }
}
