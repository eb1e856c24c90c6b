//! Coordinate and file-format conventions: MJCF quaternions (w, x, y, z), degrees
//! vs radians, Euler sequences, fromto capsules, default classes, URDF rpy and
//! package:// meshes.

use glam::{DMat3, DQuat, DVec3};
use std::f64::consts::{FRAC_PI_2, PI};
use weft_import::*;

fn fixture(path: &str) -> String {
    format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))
}

fn mjcf(body: &str) -> RobotDescription {
    parse_mjcf(
        &format!("<mujoco>{body}</mujoco>"),
        &ImportOptions::default(),
    )
    .unwrap()
}

fn same_rotation(a: DQuat, b: DQuat) -> bool {
    a.dot(b).abs() > 1.0 - 1e-12
}

#[test]
fn mjcf_quaternions_are_w_first() {
    let d = mjcf(
        r#"<worldbody><body quat="0.7071067811865476 0.7071067811865476 0 0"><geom size="1"/></body></worldbody>"#,
    );
    let r = d.bodies[0].pose.rot;
    assert!(same_rotation(r, DQuat::from_rotation_x(FRAC_PI_2)));
    assert!((r * DVec3::Y - DVec3::Z).length() < 1e-12);
    // Unnormalized quaternions are normalized, as MuJoCo does.
    let d = mjcf(r#"<worldbody><body quat="2 0 0 0"><geom size="1"/></body></worldbody>"#);
    assert_eq!(d.bodies[0].pose.rot, DQuat::IDENTITY);
}

#[test]
fn angles_are_degrees_unless_the_compiler_says_radian() {
    let deg = mjcf(
        r#"<worldbody><body euler="0 0 90"><joint range="-45 90" ref="10"/><geom size="1"/></body></worldbody>"#,
    );
    assert!(same_rotation(
        deg.bodies[0].pose.rot,
        DQuat::from_rotation_z(FRAC_PI_2)
    ));
    let j = &deg.joints[0];
    assert_eq!(j.limits, Some((-PI / 4.0, FRAC_PI_2)));
    assert!((j.reference - 10f64.to_radians()).abs() < 1e-15);
    let rad = mjcf(
        r#"<compiler angle="radian"/><worldbody><body axisangle="0 0 1 1.5707963267948966">
        <joint range="-1 1"/><joint type="slide" range="-90 90"/><geom size="1"/></body></worldbody>"#,
    );
    assert!(same_rotation(
        rad.bodies[0].pose.rot,
        DQuat::from_rotation_z(FRAC_PI_2)
    ));
    assert_eq!(rad.joints[0].limits, Some((-1.0, 1.0)));
    // Slide ranges are lengths: never converted.
    let deg_slide = mjcf(
        r#"<worldbody><body><joint type="slide" range="-90 90"/><geom size="1"/></body></worldbody>"#,
    );
    assert_eq!(deg_slide.joints[0].limits, Some((-90.0, 90.0)));
    assert_eq!(rad.joints[1].limits, Some((-90.0, 90.0)));
}

#[test]
fn euler_sequences_lowercase_intrinsic_uppercase_extrinsic() {
    let (a, b, c) = (0.1, 0.2, 0.3);
    let intrinsic = mjcf(&format!(
        r#"<compiler angle="radian" eulerseq="zyx"/><worldbody><body euler="{c} {b} {a}"><geom size="1"/></body></worldbody>"#
    ));
    let extrinsic = mjcf(&format!(
        r#"<compiler angle="radian" eulerseq="XYZ"/><worldbody><body euler="{a} {b} {c}"><geom size="1"/></body></worldbody>"#
    ));
    // Both are R = Rz(c) Ry(b) Rx(a), URDF's rpy = (a, b, c).
    let expected =
        DQuat::from_rotation_z(c) * DQuat::from_rotation_y(b) * DQuat::from_rotation_x(a);
    assert!(same_rotation(intrinsic.bodies[0].pose.rot, expected));
    assert!(same_rotation(extrinsic.bodies[0].pose.rot, expected));
    // MuJoCo's default sequence is xyz, intrinsic: R = Rx(a) Ry(b) Rz(c).
    let default = mjcf(&format!(
        r#"<compiler angle="radian"/><worldbody><body euler="{a} {b} {c}"><geom size="1"/></body></worldbody>"#
    ));
    let xyz = DQuat::from_rotation_x(a) * DQuat::from_rotation_y(b) * DQuat::from_rotation_z(c);
    assert!(same_rotation(default.bodies[0].pose.rot, xyz));
}

#[test]
fn xyaxes_and_zaxis_give_frames() {
    let d = mjcf(
        r#"<worldbody><body xyaxes="0 1 0 -1 0 0"><geom size="1"/></body><body zaxis="1 0 0"><geom size="1"/></body></worldbody>"#,
    );
    assert!(same_rotation(
        d.bodies[0].pose.rot,
        DQuat::from_rotation_z(FRAC_PI_2)
    ));
    assert!((d.bodies[1].pose.rot * DVec3::Z - DVec3::X).length() < 1e-12);
}

#[test]
fn fromto_capsules_are_centred_and_aligned() {
    let d = mjcf(
        r#"<worldbody><body><geom type="capsule" fromto="0 0 0 0 2 0" size="0.1"/></body></worldbody>"#,
    );
    let g = &d.geoms[0];
    assert_eq!(
        g.shape,
        Shape::Capsule {
            radius: 0.1,
            half_length: 1.0
        }
    );
    assert!((g.pose.pos - DVec3::new(0.0, 1.0, 0.0)).length() < 1e-12);
    assert!((g.pose.rot * DVec3::Z - DVec3::Y).length() < 1e-12);
    // Pointing down -Z: a half turn about X, like MuJoCo.
    let d = mjcf(
        r#"<worldbody><body><geom type="cylinder" fromto="0 0 0 0 0 -1" size="0.1"/></body></worldbody>"#,
    );
    assert!((d.geoms[0].pose.rot * DVec3::Z + DVec3::Z).length() < 1e-12);
    assert_eq!(
        d.geoms[0].shape,
        Shape::Cylinder {
            radius: 0.1,
            half_length: 0.5
        }
    );
}

#[test]
fn default_classes_inherit_and_childclass_applies_to_descendants() {
    let d = mjcf(
        r#"<default>
             <joint damping="1" armature="0.1"/>
             <geom type="box" size="1 2 3" rgba="1 0 0 1"/>
             <default class="a"><joint damping="2"/>
               <default class="b"><joint armature="0.3"/><geom type="sphere"/></default>
             </default>
           </default>
           <worldbody>
             <body name="p" childclass="a">
               <joint name="ja"/><geom/>
               <body name="c"><joint name="jc" class="b"/><joint name="jm" class="main"/><geom class="b" size="0.5"/></body>
             </body>
           </worldbody>"#,
    );
    let j = |n: &str| d.joints[d.joint_index(n).unwrap()].clone();
    assert_eq!((j("ja").damping, j("ja").armature), (2.0, 0.1));
    assert_eq!((j("jc").damping, j("jc").armature), (2.0, 0.3));
    assert_eq!((j("jm").damping, j("jm").armature), (1.0, 0.1));
    assert_eq!(
        d.geoms[0].shape,
        Shape::Box {
            half_extents: DVec3::new(1.0, 2.0, 3.0)
        }
    );
    assert_eq!(d.geoms[1].shape, Shape::Sphere { radius: 0.5 });
    assert_eq!(d.geoms[1].rgba, [1.0, 0.0, 0.0, 1.0]);
}

#[test]
fn inertials_diag_and_full_with_mujoco_order() {
    let d = mjcf(
        r#"<worldbody>
             <body><inertial pos="0 0 1" mass="2" diaginertia="1 2 3" quat="0.7071067811865476 0 0 0.7071067811865476"/></body>
             <body><inertial pos="0 0 0" mass="1" fullinertia="1 2 3 0.1 0.2 0.3"/></body>
             <body><geom size="0.1"/></body>
           </worldbody>"#,
    );
    let i0 = d.bodies[0].mass.explicit().unwrap();
    assert_eq!((i0.mass, i0.frame.pos), (2.0, DVec3::Z));
    // Principal axes turned a quarter about Z: the body-frame tensor swaps X and Y.
    let b = i0.inertia_in_body_frame();
    assert!((b - DMat3::from_diagonal(DVec3::new(2.0, 1.0, 3.0))).abs_diff_eq(DMat3::ZERO, 1e-12));
    let i1 = d.bodies[1].mass.explicit().unwrap().inertia;
    // fullinertia = ixx iyy izz ixy ixz iyz.
    assert_eq!(i1.row(0), DVec3::new(1.0, 0.1, 0.2));
    assert_eq!(i1.row(1), DVec3::new(0.1, 2.0, 0.3));
    assert_eq!(i1.row(2), DVec3::new(0.2, 0.3, 3.0));
    assert_eq!(d.bodies[2].mass, MassSource::FromGeoms);
}

#[test]
fn options_timestep_gravity_integrator_contacts() {
    let d = mjcf(
        r#"<option timestep="0.005" gravity="0 0 -1.62" integrator="RK4"><flag contact="disable"/></option><worldbody/>"#,
    );
    assert_eq!(d.options.timestep, Some(0.005));
    assert_eq!(d.options.gravity, DVec3::new(0.0, 0.0, -1.62));
    assert_eq!(d.options.integrator, Integrator::Rk4);
    assert!(!d.options.contacts);
}

#[test]
fn unsupported_input_is_listed_never_dropped_silently() {
    let d = mjcf(
        r#"<visual/><worldbody><light/><body><joint solreflimit="0 1"/><geom size="1" condim="4"/>
           <geom type="ellipsoid" size="1 2 3"/></body></worldbody><tendon/><sensor/>
           <actuator><general joint="x"/><motor tendon="t"/></actuator>"#,
    );
    let all = d.warnings.join("\n");
    for needle in [
        "<visual>",
        "<light>",
        "solreflimit",
        "condim",
        "ellipsoid",
        "<tendon>",
        "<sensor>",
        "<general",
        "tendon",
    ] {
        assert!(all.contains(needle), "no warning mentions {needle}:\n{all}");
    }
    assert!(all.contains("line 1"), "{all}");
    assert_eq!(d.geoms.len(), 1);
    assert!(d.actuators.is_empty());
}

#[test]
fn mjcf_meshes_through_meshdir_obj_and_stl() {
    let d = load_mjcf(fixture("mjcf/meshes.xml"), &ImportOptions::default()).unwrap();
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.meshes.len(), 2);
    assert_eq!(
        (d.meshes[0].name.as_str(), d.meshes[0].triangles.len()),
        ("cube", 12)
    );
    assert_eq!(
        (d.meshes[1].name.as_str(), d.meshes[1].triangles.len()),
        ("tetra", 4)
    );
    assert_eq!(
        d.geoms[0].shape,
        Shape::Mesh {
            mesh: 0,
            scale: DVec3::splat(0.2)
        }
    );
}

#[test]
fn mjcf_include_at_top_level_in_bodies_and_actuators() {
    let d = load_mjcf(fixture("mjcf/include_main.xml"), &ImportOptions::default()).unwrap();
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.bodies.len(), 2);
    assert_eq!(d.bodies[1].parent, Some(0));
    // The included class "leg" reaches the included child body through childclass.
    let knee = &d.joints[d.joint_index("knee").unwrap()];
    assert_eq!(
        (knee.axis, knee.limits, knee.damping),
        (DVec3::Y, Some((-1.0, 1.0)), 2.0)
    );
    assert_eq!(d.actuators[0].gear, 3.0);
}

#[test]
fn urdf_package_meshes_rpy_and_joint_kinds() {
    let path = fixture("weft_test_robot/urdf/gripper.urdf");
    let no_path = load_urdf(&path, &ImportOptions::default()).unwrap_err();
    assert!(
        matches!(no_path, ImportError::MeshNotFound { .. }),
        "{no_path}"
    );
    assert!(no_path.to_string().contains("package_paths"), "{no_path}");
    let opts = ImportOptions::default().with_package_path(fixture(""));
    let d = load_urdf(&path, &opts).unwrap();
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.meshes.len(), 2);
    assert_eq!(d.meshes[0].triangles.len(), 12);
    assert_eq!(d.meshes[1].triangles.len(), 4);
    let visual = d.geoms.iter().find(|g| g.role == GeomRole::Visual).unwrap();
    assert_eq!(
        visual.shape,
        Shape::Mesh {
            mesh: 0,
            scale: DVec3::splat(0.1)
        }
    );
    assert_eq!(visual.rgba, [0.0, 0.0, 1.0, 1.0]);
    // A package directory itself on the search path works too.
    let opts = ImportOptions::default().with_package_path(fixture("weft_test_robot"));
    assert!(load_urdf(&path, &opts).is_ok());
    let j = &d.joints[d.joint_index("finger_joint").unwrap()];
    assert_eq!(
        (j.kind, j.axis, j.limits),
        (JointKind::Prismatic, DVec3::Y, Some((0.0, 0.04)))
    );
    assert_eq!(
        (j.damping, j.friction, j.effort_limit, j.velocity_limit),
        (0.3, 0.05, Some(20.0), Some(0.1))
    );
    let finger = &d.bodies[j.body];
    let expected =
        DQuat::from_rotation_z(0.3) * DQuat::from_rotation_y(0.2) * DQuat::from_rotation_x(0.1);
    assert!(same_rotation(finger.pose.rot, expected));
    assert_eq!(
        d.joints[d.joint_index("plane_joint").unwrap()].kind,
        JointKind::Planar
    );
    assert_eq!(
        d.joints[d.joint_index("free_joint").unwrap()].kind,
        JointKind::Free
    );
    assert_eq!((d.nq(), d.nv()), (1 + 3 + 7, 1 + 3 + 6));
    let base = d.bodies[0].mass.explicit().unwrap();
    assert_eq!(base.inertia.row(0), DVec3::new(0.01, 0.001, 0.002));
    // Depth-first order: base, finger, slider, floater.
    let names: Vec<&str> = d.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["base", "finger", "slider", "floater"]);
}

#[test]
fn urdf_unsupported_elements_are_warned() {
    let d = parse_urdf(
        r#"<robot name="r"><link name="a"/><link name="b"/>
           <joint name="j" type="revolute"><parent link="a"/><child link="b"/><mimic joint="x"/></joint>
           <transmission name="t"/><gazebo/></robot>"#,
        &ImportOptions::default(),
    )
    .unwrap();
    let all = d.warnings.join("\n");
    for needle in [
        "<mimic>",
        "transmission",
        "<gazebo>",
        "no lower/upper limit",
    ] {
        assert!(all.contains(needle), "no warning mentions {needle}:\n{all}");
    }
}
