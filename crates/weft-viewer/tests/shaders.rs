//! Every WGSL shader parses and validates with naga (the front end wgpu uses), and
//! every file in `shaders/` is one the renderer compiles in.

use std::path::PathBuf;

use weft_viewer::shaders::{COMMON, SHADERS, compose};

fn validate(name: &str, source: &str) {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.emit_to_string(source)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{name} does not validate:\n{}", e.emit_to_string(source)));
}

#[test]
fn common_validates_alone() {
    validate("common.wgsl", COMMON);
}

#[test]
fn every_shader_validates_with_common() {
    for (name, _) in SHADERS {
        validate(name, &compose(name));
    }
}

/// The shaders directory, found from the working directory (cargo runs tests in the
/// crate's directory) so that a test binary copied elsewhere still finds it.
fn shader_dir() -> PathBuf {
    for base in [
        PathBuf::from("."),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")),
    ] {
        let dir = base.join("../../shaders");
        if dir.is_dir() {
            return dir;
        }
    }
    panic!(
        "cannot find the shaders/ directory from {:?}",
        std::env::current_dir()
    );
}

#[test]
fn every_file_in_shaders_is_compiled_in_and_current() {
    let dir = shader_dir();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".wgsl"))
        .collect();
    on_disk.sort();
    let mut known: Vec<String> = SHADERS.iter().map(|(n, _)| n.to_string()).collect();
    known.push("common.wgsl".into());
    known.sort();
    assert_eq!(
        on_disk, known,
        "shaders/ and renderer::shaders::SHADERS disagree"
    );
    for name in &on_disk {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        validate(
            name,
            &if name == "common.wgsl" {
                text
            } else {
                format!("{COMMON}\n{text}")
            },
        );
    }
}
