//! OBJ loading: every bad input gives a clear error naming what and where; good input
//! round-trips exactly.

use std::path::PathBuf;

use glam::Vec3;
use weft_geom::{GeomError, Mesh, generate};

/// A fresh temporary folder for this test process.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-geom-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(name: &str, text: &str) -> PathBuf {
    let path = temp_dir(name).join(format!("{name}.obj"));
    std::fs::write(&path, text).unwrap();
    path
}

const TWO_TRIS: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n";

#[test]
fn loads_triangles_and_polygons() {
    let m = Mesh::load_obj(write("good", TWO_TRIS)).unwrap();
    assert_eq!(m.num_points(), 4);
    assert_eq!(m.indices(), &[[0, 1, 2], [0, 2, 3]]);
    // A pentagon with texcoords and normals becomes a fan of 3 triangles; the
    // normal/uv indices do not split vertices.
    let text = "v 0 0 0\nv 1 0 0\nv 2 1 0\nv 1 2 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n\
                f 1/1/1 2/1/1 3/1/1 4/1/1 5/1/1\n";
    let m = Mesh::load_obj(write("pentagon", text)).unwrap();
    assert_eq!(m.num_faces(), 3);
    assert_eq!(m.num_points(), 5);
}

#[test]
fn merges_objects_and_welds_shared_positions() {
    let text = "o a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\
                o b\nv 1 0 0\nv 0 1 0\nv 1 1 -0\nf 4 6 5\n";
    let m = Mesh::load_obj(write("objects", text)).unwrap();
    assert_eq!(m.num_faces(), 2);
    assert_eq!(m.num_points(), 4, "(1,0,0) and (0,1,0) are welded");
    let unwelded = Mesh::load_obj_with(
        write("objects2", text),
        weft_geom::obj::ObjOptions { weld: false },
    )
    .unwrap();
    assert_eq!(unwelded.num_points(), 6);
}

#[test]
fn missing_file_names_the_path() {
    let path = temp_dir("missing").join("nope.obj");
    let e = Mesh::load_obj(&path).unwrap_err();
    assert!(matches!(e, GeomError::Io { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("nope.obj") && msg.contains("cannot read"),
        "{msg}"
    );
}

#[test]
fn out_of_range_index_names_line_and_face() {
    let path = write("oob", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\nf 1 2 9\n");
    let e = Mesh::load_obj(&path).unwrap_err();
    match &e {
        GeomError::ObjFaceIndex {
            line,
            face,
            index,
            num_vertices,
            ..
        } => assert_eq!((*line, *face, *index, *num_vertices), (6, 2, 9, 3)),
        other => panic!("wrong error {other:?}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains("oob.obj") && msg.contains("line 6") && msg.contains("face 2"),
        "{msg}"
    );
}

#[test]
fn zero_and_negative_out_of_range_indices_are_errors() {
    let e = Mesh::load_obj(write("zero", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n")).unwrap_err();
    assert!(
        matches!(
            e,
            GeomError::ObjFaceIndex {
                index: 0,
                face: 1,
                ..
            }
        ),
        "{e}"
    );
    let e = Mesh::load_obj(write("neg", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n")).unwrap_err();
    assert!(
        matches!(e, GeomError::ObjFaceIndex { index: -4, .. }),
        "{e}"
    );
    // Negative indices in range are fine.
    let m = Mesh::load_obj(write("negok", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n")).unwrap();
    assert_eq!(m.indices(), &[[0, 1, 2]]);
}

#[test]
fn unparsable_index_names_the_line() {
    let e = Mesh::load_obj(write("junk", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n")).unwrap_err();
    match &e {
        GeomError::ObjSyntax { line, message, .. } => {
            assert_eq!(*line, Some(4));
            assert!(message.contains("`x`"), "{message}");
        }
        other => panic!("wrong error {other:?}"),
    }
}

#[test]
fn empty_mesh_is_an_error_naming_the_file() {
    for (name, text) in [
        ("empty", ""),
        ("noface", "v 0 0 0\nv 1 0 0\nv 0 1 0\n"),
        ("lines", "v 0 0 0\nv 1 0 0\nl 1 2\n"),
    ] {
        let e = Mesh::load_obj(write(name, text)).unwrap_err();
        assert!(matches!(e, GeomError::EmptyMesh { .. }), "{name}: {e:?}");
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("{name}.obj")) && msg.contains("no triangles"),
            "{msg}"
        );
    }
}

#[test]
fn nan_and_inf_vertices_name_the_vertex_and_line() {
    for (name, text, vertex, line) in [
        ("nan", "# c\nv 0 0 0\nv 1 nan 0\nv 0 1 0\nf 1 2 3\n", 2, 3),
        ("inf", "v 0 0 0\nv 1 0 0\nv 0 1 -inf\nf 1 2 3\n", 3, 3),
    ] {
        let e = Mesh::load_obj(write(name, text)).unwrap_err();
        match &e {
            GeomError::ObjNonFinite {
                vertex: v, line: l, ..
            } => assert_eq!((*v, *l), (vertex, line), "{name}"),
            other => panic!("{name}: wrong error {other:?}"),
        }
        assert!(e.to_string().contains("not finite"), "{e}");
    }
}

#[test]
fn degenerate_triangles_load() {
    let m = Mesh::load_obj(write(
        "degenerate",
        "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\nf 1 1 2\n",
    ))
    .unwrap();
    assert_eq!(m.num_faces(), 2);
    assert_eq!(m.degenerate_faces(), vec![0, 1]);
}

#[test]
fn write_then_read_is_exact() {
    let mut m = generate::icosphere(1.3, 2);
    m.points_mut()[5] = Vec3::new(1e-30, -3.4e38, 0.1);
    let path = temp_dir("roundtrip").join("sphere.obj");
    m.save_obj(&path).unwrap();
    let back = Mesh::load_obj(&path).unwrap();
    assert_eq!(back, m);
}

#[test]
fn committed_assets_match_their_generators() {
    // Found relative to the crate, or through WEFT_GEOM_ASSETS on another machine.
    let dir = std::env::var_os("WEFT_GEOM_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets"));
    for (name, mesh) in weft_geom::generate::assets() {
        let loaded = Mesh::load_obj(dir.join(format!("{name}.obj"))).unwrap_or_else(|e| {
            panic!("{e} (regenerate with `cargo run -p weft-geom --example gen_assets`)")
        });
        assert_eq!(
            loaded, mesh,
            "{name}.obj is stale; rerun the gen_assets example"
        );
    }
}
