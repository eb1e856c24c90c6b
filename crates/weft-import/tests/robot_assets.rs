//! The robots in `assets/robots/` load without warnings and have the expected
//! structure (issue 26 point 5).

use weft_import::{
    ActuatorKind, ImportOptions, JointKind, MassSource, RobotDescription, Shape, load,
};

fn robot(file: &str) -> RobotDescription {
    let path = format!("{}/../../assets/robots/{file}", env!("CARGO_MANIFEST_DIR"));
    let d = load(&path, &ImportOptions::default()).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(d.warnings.is_empty(), "{file}: {:#?}", d.warnings);
    for (i, b) in d.bodies.iter().enumerate() {
        assert!(
            b.parent.is_none_or(|p| p < i),
            "{file}: body {} before its parent",
            b.name
        );
    }
    d
}

fn count(d: &RobotDescription, kind: JointKind) -> usize {
    d.joints.iter().filter(|j| j.kind == kind).count()
}

#[test]
fn cartpole_is_a_slider_and_a_hinge() {
    let d = robot("cartpole.xml");
    assert_eq!(
        (d.nq(), d.nv(), d.bodies.len(), d.actuators.len()),
        (2, 2, 2, 1)
    );
    assert_eq!(d.joints[0].kind, JointKind::Prismatic);
    assert_eq!(d.joints[0].limits, Some((-2.0, 2.0)));
    assert_eq!(d.joints[1].kind, JointKind::Revolute);
    assert_eq!(d.options.timestep, Some(0.01));
    assert_eq!(d.sites[0].name, "tip");
}

#[test]
fn double_pendulum_has_two_hinges_about_y() {
    let d = robot("double_pendulum.xml");
    assert_eq!((d.nq(), d.nv()), (2, 2));
    assert!(
        d.joints
            .iter()
            .all(|j| j.axis == glam::DVec3::Y && j.limits.is_none())
    );
    let m: f64 = d
        .bodies
        .iter()
        .map(|b| b.mass.explicit().unwrap().mass)
        .sum();
    assert!((m - 2.0).abs() < 1e-9);
}

#[test]
fn arm_mjcf_and_urdf_describe_the_same_seven_joints() {
    let x = robot("arm7.xml");
    let u = robot("arm7.urdf");
    assert_eq!((x.nq(), x.nv(), x.actuators.len()), (7, 7, 7));
    assert_eq!((u.nq(), u.nv()), (7, 7));
    assert_eq!(count(&u, JointKind::Revolute), 7);
    assert_eq!(count(&u, JointKind::Fixed), 1);
    assert!(matches!(
        x.actuators[0].kind,
        ActuatorKind::Position {
            kp: 100.0,
            kv: 10.0
        }
    ));
    // World poses at q = 0 agree body by body (the URDF has an extra "ee" link).
    let (px, pu) = (x.reference_poses(), u.reference_poses());
    for (i, b) in x.bodies.iter().enumerate() {
        let j = u.body_index(&b.name).unwrap();
        assert!((px[i].pos - pu[j].pos).length() < 1e-12, "{}", b.name);
        assert!(px[i].rot.dot(pu[j].rot).abs() > 1.0 - 1e-12, "{}", b.name);
        let (ix, iu) = (
            b.mass.explicit().unwrap(),
            u.bodies[j].mass.explicit().unwrap(),
        );
        assert_eq!(ix.mass, iu.mass);
        assert!(
            (ix.inertia_in_body_frame() - iu.inertia_in_body_frame())
                .abs_diff_eq(glam::DMat3::ZERO, 1e-15)
        );
    }
    // The site "ee" sits where the URDF's fixed "ee" link does.
    let ee = &x.sites[0];
    let site_world = px[ee.body.unwrap()].mul(&ee.pose);
    let link_world = pu[u.body_index("ee").unwrap()];
    assert!((site_world.pos - link_world.pos).length() < 1e-12);
    assert!(site_world.rot.dot(link_world.rot).abs() > 1.0 - 1e-12);
    assert!(matches!(
        u.bodies[u.body_index("ee").unwrap()].mass,
        MassSource::Massless
    ));
}

#[test]
fn ant_has_a_free_torso_and_eight_actuated_hinges() {
    let d = robot("ant.xml");
    assert_eq!((d.nq(), d.nv(), d.actuators.len()), (15, 14, 8));
    assert_eq!(count(&d, JointKind::Free), 1);
    assert_eq!(count(&d, JointKind::Revolute), 8);
    assert_eq!(d.bodies.len(), 9);
    assert!(matches!(d.geoms[0].shape, Shape::Plane { .. }) && d.geoms[0].body.is_none());
    // Default class: every hinge limited, damping 1, armature 0.5; ranges in degrees.
    let ankle = &d.joints[d.joint_index("ankle_1").unwrap()];
    let (lo, hi) = ankle.limits.unwrap();
    assert!((lo - 30f64.to_radians()).abs() < 1e-12 && (hi - 70f64.to_radians()).abs() < 1e-12);
    assert_eq!((ankle.damping, ankle.armature), (1.0, 0.5));
    assert!(
        d.actuators
            .iter()
            .all(|a| a.gear == 40.0 && a.ctrl_range == Some((-1.0, 1.0)))
    );
}

#[test]
fn humanoid_has_the_benchmark_shape() {
    let d = robot("humanoid.xml");
    assert_eq!((d.nq(), d.nv(), d.actuators.len()), (28, 27, 21));
    assert_eq!(count(&d, JointKind::Free), 1);
    assert_eq!(count(&d, JointKind::Revolute), 21);
    assert_eq!(d.options.timestep, Some(0.005));
    assert!(
        d.geoms
            .iter()
            .filter(|g| g.body.is_some())
            .any(|g| matches!(g.shape, Shape::Capsule { .. }))
    );
    // childclass "arm" and class "big" override the main defaults.
    let elbow = &d.joints[d.joint_index("right_elbow").unwrap()];
    assert_eq!((elbow.damping, elbow.armature), (0.2, 0.01));
    let hip = &d.joints[d.joint_index("left_hip_y").unwrap()];
    assert_eq!((hip.damping, hip.armature), (5.0, 0.05));
    let knee = &d.joints[d.joint_index("left_knee").unwrap()];
    assert_eq!((knee.damping, knee.armature), (0.5, 0.02));
    let m: f64 = d
        .bodies
        .iter()
        .map(|b| b.mass.explicit().unwrap().mass)
        .sum();
    assert!((30.0..60.0).contains(&m), "total mass {m}");
}
