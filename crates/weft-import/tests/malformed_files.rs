//! Malformed files give an `Err` naming the element and, where known, the line —
//! never a panic (issue 26 point 4).

use weft_import::*;

fn fixture(path: &str) -> String {
    format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))
}

fn mjcf_err(text: &str) -> ImportError {
    parse_mjcf(text, &ImportOptions::default()).expect_err("should be rejected")
}

fn urdf_err(text: &str) -> ImportError {
    parse_urdf(text, &ImportOptions::default()).expect_err("should be rejected")
}

/// The error's line, and its message containing every needle.
fn check(e: &ImportError, line: Option<u32>, needles: &[&str]) {
    let msg = e.to_string();
    assert_eq!(e.location().and_then(|l| l.line), line, "{msg}");
    for n in needles {
        assert!(msg.contains(n), "{msg:?} does not mention {n:?}");
    }
}

const LINK: &str = r#"<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>"#;

fn urdf(joints: &str) -> String {
    format!(
        "<robot name=\"r\">\n<link name=\"a\">{LINK}</link>\n<link name=\"b\"/>\n<link name=\"c\"/>\n{joints}\n</robot>"
    )
}

fn joint(name: &str, kind: &str, parent: &str, child: &str) -> String {
    format!(
        r#"<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/></joint>"#
    )
}

#[test]
fn xml_syntax_errors_give_the_line() {
    let e = mjcf_err("<mujoco>\n<worldbody>\n<body>\n</worldbody>\n</mujoco>");
    assert!(matches!(e, ImportError::Xml { .. }));
    check(&e, Some(4), &["XML syntax"]);
    let e = urdf_err("<robot name=\"r\">\n<link name=\"a\"\n</robot>");
    check(&e, Some(3), &["XML syntax"]);
}

#[test]
fn wrong_root_elements_are_named() {
    check(&mjcf_err("<robot/>"), Some(1), &["<robot>", "<mujoco>"]);
    check(&urdf_err("<mujoco/>"), Some(1), &["<mujoco>", "<robot>"]);
}

#[test]
fn urdf_cycles_missing_parents_and_second_parents() {
    let cycle = urdf(
        &[
            joint("j1", "fixed", "b", "c"),
            joint("j2", "fixed", "c", "b"),
        ]
        .join("\n"),
    );
    let e = urdf_err(&cycle);
    assert!(matches!(e, ImportError::NotATree { .. }));
    check(&e, Some(3), &["cycle", "\"b\""]);
    let e = urdf_err(&urdf(
        &[
            joint("j1", "fixed", "a", "b"),
            joint("j2", "fixed", "b", "a"),
            joint("j3", "fixed", "b", "c"),
        ]
        .join("\n"),
    ));
    check(&e, None, &["cycle"]);
    let e = urdf_err(&urdf(
        &[
            joint("j1", "fixed", "a", "b"),
            joint("j2", "fixed", "nowhere", "c"),
        ]
        .join("\n"),
    ));
    assert!(matches!(e, ImportError::UnknownReference { .. }));
    check(&e, Some(6), &["j2", "\"nowhere\""]);
    let e = urdf_err(&urdf(
        &[
            joint("j1", "fixed", "a", "b"),
            joint("j2", "fixed", "a", "b"),
            joint("j3", "fixed", "a", "c"),
        ]
        .join("\n"),
    ));
    check(&e, Some(6), &["two parent joints", "j1", "j2"]);
    let e = urdf_err(&urdf(&joint("j1", "fixed", "a", "a")));
    check(&e, Some(5), &["itself"]);
    let e = urdf_err(&urdf(&joint("j1", "fixed", "a", "b")));
    check(&e, Some(4), &["several root links", "a, c"]);
}

#[test]
fn urdf_bad_numbers_name_element_attribute_and_line() {
    let e = urdf_err(&urdf(
        r#"<joint name="j" type="revolute"><parent link="a"/><child link="b"/>
        <origin xyz="0 0 one"/></joint>"#,
    ));
    assert!(matches!(e, ImportError::BadNumber { .. }));
    check(&e, Some(6), &["<origin>", "xyz", "one"]);
    let e = urdf_err(
        r#"<robot name="r"><link name="a"><inertial><mass value="heavy"/></inertial></link></robot>"#,
    );
    check(&e, Some(1), &["<mass>", "value", "heavy"]);
    let e = urdf_err(
        r#"<robot name="r"><link name="a"><visual><geometry><box size="1 2"/></geometry></visual></link></robot>"#,
    );
    check(&e, Some(1), &["<box>", "size", "expected 3 numbers"]);
    let e = urdf_err(
        r#"<robot name="r"><link name="a"><visual><geometry><sphere radius="-1"/></geometry></visual></link></robot>"#,
    );
    check(&e, Some(1), &["sphere", "radius", "positive"]);
    let bad_limits = r#"<joint name="j" type="revolute"><parent link="a"/><child link="b"/>
        <limit lower="1" upper="-1" effort="1" velocity="1"/></joint>"#;
    let e = urdf_err(&urdf(&format!(
        "{bad_limits}\n{}",
        joint("k", "fixed", "a", "c")
    )));
    check(&e, Some(5), &["lower limit above upper"]);
    let e = urdf_err(&urdf(
        r#"<joint name="j" type="revolute"><parent link="a"/><child link="b"/><limit lower="-1" upper="1"/></joint>"#,
    ));
    check(&e, Some(5), &["<limit>", "'effort'"]);
}

#[test]
fn urdf_unknown_joint_type_missing_attributes_and_duplicates() {
    let e = urdf_err(&urdf(&joint("j", "hinge", "a", "b")));
    assert!(matches!(e, ImportError::UnknownJointType { .. }));
    check(&e, Some(5), &["joint name=\"j\"", "\"hinge\""]);
    let e = urdf_err("<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"a\"/>\n</robot>");
    assert!(matches!(e, ImportError::DuplicateName { .. }));
    check(&e, Some(3), &["duplicate link", "\"a\"", "line 2"]);
    let e = urdf_err(&urdf(
        &[joint("j", "fixed", "a", "b"), joint("j", "fixed", "a", "c")].join("\n"),
    ));
    check(&e, Some(6), &["duplicate joint"]);
    let e = urdf_err(&urdf(
        r#"<joint name="j" type="fixed"><child link="b"/></joint>"#,
    ));
    check(&e, Some(5), &["<parent>"]);
    let e = urdf_err("<robot name=\"r\"><link/></robot>");
    check(&e, Some(1), &["'name'"]);
    let e = urdf_err("<robot name=\"r\"/>");
    check(&e, Some(1), &["<link>"]);
    let e = urdf_err(
        r#"<robot name="r"><link name="a"><visual><geometry><plane/></geometry></visual></link></robot>"#,
    );
    check(&e, Some(1), &["unknown geometry"]);
}

#[test]
fn urdf_missing_and_broken_meshes() {
    let text = "<robot name=\"r\">\n<link name=\"a\"><visual><geometry><mesh filename=\"package://nope/m.stl\"/>\
                </geometry></visual></link>\n</robot>";
    let opts = ImportOptions::default().with_package_path(fixture(""));
    let e = parse_urdf(text, &opts).unwrap_err();
    assert!(matches!(e, ImportError::MeshNotFound { .. }));
    check(&e, Some(2), &["package://nope/m.stl", "nope/m.stl"]);
    for broken in ["broken.obj", "broken.stl"] {
        let text = format!(
            r#"<robot name="r"><link name="a"><visual><geometry><mesh filename="package://weft_test_robot/meshes/{broken}"/></geometry></visual></link></robot>"#
        );
        let e = parse_urdf(&text, &opts).unwrap_err();
        assert!(matches!(e, ImportError::BadMesh { .. }), "{broken}: {e}");
        check(&e, Some(1), &[broken]);
    }
}

#[test]
fn mjcf_bad_numbers_and_values() {
    let e = mjcf_err("<mujoco>\n<worldbody>\n<body pos=\"0 0 x\"/>\n</worldbody>\n</mujoco>");
    assert!(matches!(e, ImportError::BadNumber { .. }));
    check(&e, Some(3), &["<body>", "pos", "\"x\""]);
    let e =
        mjcf_err("<mujoco><worldbody><body><geom size=\"0.1 nan\"/></body></worldbody></mujoco>");
    check(&e, Some(1), &["size", "nan"]);
    let e = mjcf_err("<mujoco><worldbody><body><joint range=\"1\"/></body></worldbody></mujoco>");
    check(&e, Some(1), &["range", "expected 2 numbers"]);
    let e =
        mjcf_err("<mujoco><worldbody><body><joint range=\"1 -1\"/></body></worldbody></mujoco>");
    check(&e, Some(1), &["range", "lower bound"]);
    let e = mjcf_err(
        "<mujoco><worldbody><body quat=\"1 0 0 0\" euler=\"0 0 1\"/></worldbody></mujoco>",
    );
    check(&e, Some(1), &["one orientation"]);
    let e = mjcf_err("<mujoco><worldbody><body quat=\"0 0 0 0\"/></worldbody></mujoco>");
    check(&e, Some(1), &["zero"]);
    let e = mjcf_err("<mujoco><compiler angle=\"gradian\"/></mujoco>");
    check(&e, Some(1), &["angle", "degree or radian"]);
    let e = mjcf_err("<mujoco><compiler eulerseq=\"xyw\"/></mujoco>");
    check(&e, Some(1), &["eulerseq"]);
    let e = mjcf_err("<mujoco><option timestep=\"-1\"/></mujoco>");
    check(&e, Some(1), &["timestep"]);
    let e = mjcf_err(
        "<mujoco><worldbody><body><inertial mass=\"-1\" diaginertia=\"1 1 1\"/></body></worldbody></mujoco>",
    );
    check(&e, Some(1), &["mass"]);
    let e = mjcf_err("<mujoco><worldbody><body><inertial mass=\"1\"/></body></worldbody></mujoco>");
    check(&e, Some(1), &["diaginertia or fullinertia"]);
    let e = mjcf_err(
        "<mujoco><worldbody><body><geom type=\"capsule\" fromto=\"0 0 0 0 0 0\" size=\"0.1\"/></body></worldbody></mujoco>",
    );
    check(&e, Some(1), &["fromto", "coincide"]);
}

#[test]
fn mjcf_unknown_types_missing_sizes_and_references() {
    let e =
        mjcf_err("<mujoco><worldbody><body>\n<joint type=\"hing\"/></body></worldbody></mujoco>");
    assert!(matches!(e, ImportError::UnknownJointType { .. }));
    check(&e, Some(2), &["\"hing\""]);
    let e = mjcf_err(
        "<mujoco><worldbody><body><geom type=\"blob\" size=\"1\"/></body></worldbody></mujoco>",
    );
    check(&e, Some(1), &["unknown geom type"]);
    let e = mjcf_err(
        "<mujoco><worldbody><body><geom type=\"box\" size=\"1 1\"/></body></worldbody></mujoco>",
    );
    check(&e, Some(1), &["at least 3 numbers"]);
    let e = mjcf_err("<mujoco><worldbody><body><geom/></body></worldbody></mujoco>");
    check(&e, Some(1), &["size"]);
    let e = mjcf_err(
        "<mujoco><worldbody><body><geom class=\"nope\" size=\"1\"/></body></worldbody></mujoco>",
    );
    check(&e, Some(1), &["default class", "\"nope\""]);
    let e = mjcf_err("<mujoco><worldbody><body childclass=\"nope\"/></worldbody></mujoco>");
    check(&e, Some(1), &["\"nope\""]);
    let e = mjcf_err(
        "<mujoco><worldbody><body><geom type=\"mesh\" mesh=\"m\"/></body></worldbody></mujoco>",
    );
    check(&e, Some(1), &["mesh", "\"m\""]);
    let e = mjcf_err("<mujoco><worldbody/><actuator>\n<motor joint=\"j\"/></actuator></mujoco>");
    assert!(matches!(e, ImportError::UnknownReference { .. }));
    check(&e, Some(2), &["<motor>", "joint \"j\""]);
    let e = mjcf_err("<mujoco><worldbody/><actuator><motor/></actuator></mujoco>");
    check(&e, Some(1), &["'joint'"]);
    let e = mjcf_err("<mujoco><worldbody><joint/></worldbody></mujoco>");
    check(&e, Some(1), &["belong in a <body>"]);
    let e =
        mjcf_err("<mujoco><worldbody><body><joint limited=\"true\"/></body></worldbody></mujoco>");
    check(&e, Some(1), &["range"]);
}

#[test]
fn mjcf_duplicate_names() {
    let e = mjcf_err(
        "<mujoco><worldbody>\n<body name=\"a\"/>\n<body name=\"a\"/></worldbody></mujoco>",
    );
    assert!(matches!(e, ImportError::DuplicateName { .. }));
    check(&e, Some(3), &["duplicate body", "line 2"]);
    let e = mjcf_err(
        "<mujoco><worldbody><body><joint name=\"j\"/>\n<joint name=\"j\"/></body></worldbody></mujoco>",
    );
    check(&e, Some(2), &["duplicate joint"]);
    let e = mjcf_err(
        "<mujoco><asset><mesh file=\"a.stl\"/>\n<mesh file=\"b/a.obj\"/></asset></mujoco>",
    );
    check(&e, Some(2), &["duplicate mesh", "\"a\""]);
    let e = mjcf_err(
        "<mujoco><default><default class=\"x\"/>\n<default class=\"x\"/></default></mujoco>",
    );
    check(&e, Some(2), &["duplicate default class"]);
}

#[test]
fn mjcf_missing_meshes_and_includes() {
    let e = mjcf_err(
        "<mujoco><asset><mesh file=\"missing.stl\"/></asset>\n<worldbody><geom type=\"mesh\" mesh=\"missing\"/></worldbody></mujoco>",
    );
    assert!(matches!(e, ImportError::MeshNotFound { .. }));
    check(&e, Some(1), &["missing.stl"]);
    let e = load_mjcf(fixture("mjcf/include_cycle.xml"), &ImportOptions::default()).unwrap_err();
    check(&e, Some(2), &["include cycle"]);
    let e = mjcf_err("<mujoco><include file=\"/nonexistent/x.xml\"/></mujoco>");
    assert!(matches!(e, ImportError::Io { .. }), "{e}");
    let e = load_mjcf("/nonexistent/robot.xml", &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/robot.xml"));
}
