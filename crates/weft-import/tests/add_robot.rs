//! `add_robot`: what each part of a description becomes in the model, the
//! handles it returns, the coordinate conversions, and what it refuses.

use glam::{Quat, Vec3};
use weft::{Device, Transform};
use weft_import::{
    DriveInput, RobotDescription, RobotModelError, RobotOptions, add_robot, parse_mjcf,
};
use weft_sim::{ModelBuilder, State};

fn mjcf(text: &str) -> RobotDescription {
    parse_mjcf(text, &Default::default()).unwrap()
}

fn build(d: &RobotDescription, base: Transform) -> (weft_import::RobotHandles, weft_sim::Model) {
    let mut b = ModelBuilder::new();
    b.ground = None;
    let h = add_robot(&mut b, d, base, &RobotOptions::default()).unwrap();
    (h, b.finalize(Device::Cpu).unwrap())
}

fn refused(text: &str) -> String {
    let mut b = ModelBuilder::new();
    match add_robot(
        &mut b,
        &mjcf(text),
        Transform::IDENTITY,
        &RobotOptions::default(),
    ) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted: {text}"),
    }
}

#[test]
fn the_humanoid_maps_joint_for_joint() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/robots/humanoid.xml"
    );
    let d = weft_import::load(path, &Default::default()).unwrap();
    let (h, model) = build(&d, Transform::IDENTITY);
    // Bodies with 2 or 3 hinges get 1 or 2 massless links each.
    let extra: usize = d
        .bodies
        .iter()
        .map(|b| b.joints.len().saturating_sub(1))
        .sum();
    assert_eq!(h.links.len(), extra);
    assert_eq!(model.body_count(), d.bodies.len() + extra);
    assert_eq!(
        (model.joint_coord_count(), model.joint_dof_count()),
        (d.nq(), d.nv())
    );
    assert_eq!((h.q_range.clone(), h.qd_range.clone()), (0..28, 0..27));
    let offsets = d.joint_offsets();
    assert_eq!(h.q_start, offsets.iter().map(|o| o.0).collect::<Vec<_>>());
    assert_eq!(h.qd_start, offsets.iter().map(|o| o.1).collect::<Vec<_>>());
    let masses = model.body_mass.to_vec();
    assert!(h.links.iter().all(|&l| masses[l] == 0.0));
    // Per-dof armature and damping from the classes.
    let armature = model.joint_armature.to_vec();
    let knee = h.qd_start[d.joint_index("right_knee").unwrap()];
    let hip = h.qd_start[d.joint_index("right_hip_y").unwrap()];
    assert_eq!((armature[knee], armature[hip]), (0.02, 0.05));
    assert_eq!(model.joint_damping.to_vec()[hip], 5.0);
    // Motors: feed-forward efforts, limited by gear · |ctrlrange|.
    assert_eq!(h.actuators.len(), 21);
    let a = &h.actuators[d
        .actuators
        .iter()
        .position(|a| a.name == "right_hip_y")
        .unwrap()];
    assert_eq!((a.dof, a.input, a.scale), (hip, DriveInput::Effort, 120.0));
    assert_eq!(model.joint_effort_limit.to_vec()[hip], 120.0);
    // The robot's shapes do not touch each other; the floor is static.
    let floor = h.shapes[0].unwrap();
    assert!(h.shapes.iter().flatten().filter(|&&s| s != floor).count() > 10);
}

#[test]
fn servos_become_drives_and_controls_feed_them() {
    let d = mjcf(
        r#"<mujoco><compiler angle="radian"/><worldbody><body>
          <joint name="a" axis="0 1 0"/><geom size="0.1"/>
          <body pos="0 0 -1"><joint name="b" axis="0 1 0"/><geom size="0.1"/></body>
        </body></worldbody><actuator>
          <position name="pa" joint="a" kp="100" kv="10" gear="2" ctrlrange="-1 1"/>
          <velocity name="vb" joint="b" kv="3"/>
          <motor name="mb" joint="b" gear="5" ctrlrange="-2 2"/>
        </actuator></mujoco>"#,
    );
    let (h, model) = build(&d, Transform::IDENTITY);
    assert_eq!(model.joint_target_ke.to_vec(), vec![400.0, 0.0]);
    assert_eq!(model.joint_target_kd.to_vec(), vec![40.0, 3.0]);
    assert_eq!(model.joint_effort_limit.to_vec()[1], 10.0);
    let (mut tp, mut tv, mut f) = (vec![0.0; 2], vec![0.0; 2], vec![0.0; 2]);
    h.apply_controls(&[3.0, 0.5, -1.0], &mut tp, &mut tv, &mut f);
    // The position target is clamped to ctrlrange, then divided by the gear.
    assert_eq!(
        (tp, tv, f),
        (vec![0.5, 0.0], vec![0.0, 0.5], vec![0.0, -5.0])
    );
}

#[test]
fn reference_angles_and_anchors_place_the_body() {
    // A hinge 0.2 above the body origin with ref = 0.5: at q = ref the body is
    // at its file pose; at q = ref + π/2 it has turned a quarter about the anchor.
    let d = mjcf(
        r#"<mujoco><compiler angle="radian"/><worldbody><body pos="1 0 0">
          <joint axis="0 1 0" pos="0 0 0.2" ref="0.5"/><geom size="0.1"/>
        </body></worldbody></mujoco>"#,
    );
    let (h, model) = build(&d, Transform::IDENTITY);
    let mut s = State::new(&model).unwrap();
    assert_eq!(s.joint_q.to_vec(), vec![0.5]);
    weft_articulation::eval_fk(&model, &mut s).unwrap();
    let x = s.body_q.to_vec()[h.bodies[0]];
    assert!((x.p - Vec3::X).length() < 1e-6 && x.q.angle_between(Quat::IDENTITY) < 1e-6);
    s.joint_q = weft::Array::from_vec(Device::Cpu, vec![0.5 + std::f32::consts::FRAC_PI_2]);
    weft_articulation::eval_fk(&model, &mut s).unwrap();
    let x = s.body_q.to_vec()[h.bodies[0]];
    // R_y(π/2) maps the origin's offset (0, 0, −0.2) from the anchor to (−0.2, 0, 0).
    assert!((x.p - Vec3::new(0.8, 0.0, 0.2)).length() < 1e-6, "{}", x.p);
}

#[test]
fn free_joint_coordinates_convert_through_the_base() {
    let d = mjcf(
        r#"<mujoco><worldbody><body pos="0 0 1"><freejoint/><geom size="0.1"/>
          <body pos="0.3 0 0"><joint type="ball"/><geom size="0.1"/></body>
        </body></worldbody></mujoco>"#,
    );
    let base = Transform::new(Vec3::new(1.0, 2.0, 0.5), Quat::from_rotation_z(0.7));
    let (h, model) = build(&d, base);
    let qpos = [0.5, -0.2, 1.5, 0.9, 0.1, -0.3, 0.2, 0.8, 0.0, 0.6, 0.0];
    let n = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut qpos = qpos.to_vec();
    let (a, b) = (n(&qpos[3..7]), n(&qpos[7..11]));
    qpos[3..7].iter_mut().for_each(|x| *x /= a);
    qpos[7..11].iter_mut().for_each(|x| *x /= b);
    let q = h.weft_q(&qpos);
    let back = h.mujoco_q(&q);
    assert!(
        back.iter().zip(&qpos).all(|(x, y)| (x - y).abs() < 1e-6),
        "{back:?}"
    );
    // The body lands at MuJoCo's world pose whatever the base.
    let mut s = State::new(&model).unwrap();
    s.joint_q = weft::Array::from_vec(Device::Cpu, q);
    weft_articulation::eval_fk(&model, &mut s).unwrap();
    let x = s.body_q.to_vec()[h.bodies[0]];
    assert!((x.p.as_dvec3() - glam::DVec3::new(0.5, -0.2, 1.5)).length() < 1e-6);
    let r = glam::DQuat::from_xyzw(qpos[4], qpos[5], qpos[6], qpos[3]);
    assert!(x.q.as_dquat().dot(r).abs() > 1.0 - 1e-6);
    let qvel = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
    let back = h.mujoco_qd(&h.weft_qd(&qvel));
    assert!(back.iter().zip(&qvel).all(|(x, y)| (x - y).abs() < 1e-6));
}

#[test]
fn a_ball_joint_range_becomes_a_cone_limit() {
    let d = mjcf(
        r#"<mujoco><worldbody>
          <body><joint name="cone" type="ball" range="0 30"/><geom size="0.1"/>
            <body pos="0 0 -0.5"><joint name="free" type="ball" range="0 30" limited="false"/>
              <geom size="0.1"/>
              <body pos="0 0 -0.5"><joint name="plain" type="ball" stiffness="2"/><geom size="0.1"/>
                <body pos="0 0 -0.5"><joint name="odd" type="ball" range="10 45"/><geom size="0.1"/>
          </body></body></body></body></worldbody></mujoco>"#,
    );
    let (h, model) = build(&d, Transform::IDENTITY);
    let (lo, hi) = (
        model.joint_limit_lower.to_vec(),
        model.joint_limit_upper.to_vec(),
    );
    let inf = f32::INFINITY;
    let cone = |j: usize| {
        let s = h.qd_start[j];
        (lo[s..s + 3].to_vec(), hi[s..s + 3].to_vec())
    };
    // Degrees (the default `<compiler angle>`) to radians, on the first axis.
    let max = 30f32.to_radians();
    assert_eq!(cone(0), (vec![0.0, -inf, -inf], vec![max, inf, inf]));
    assert_eq!(cone(1), (vec![-inf; 3], vec![inf; 3]));
    assert_eq!(cone(2), (vec![-inf; 3], vec![inf; 3]));
    assert_eq!(cone(3).1, vec![45f32.to_radians(), inf, inf]);
    // A ball spring pulls about all three axes toward the reference rotation.
    let s = h.qd_start[2];
    let (ke, target) = (
        model.joint_target_ke.to_vec(),
        model.joint_target_pos.to_vec(),
    );
    assert_eq!(
        (&ke[s..s + 3], &target[s..s + 3]),
        (&[2.0; 3][..], &[0.0; 3][..])
    );
    // Only the ignored first value of `odd`'s range is worth a warning.
    assert_eq!(
        h.warnings,
        vec![
            "joint `odd`: a ball joint's range starts at 0 (its second value is the largest rotation angle); the first value 0.17453292519943295 is ignored"
        ]
    );
}

#[test]
fn mass_from_geoms_uses_density_or_mass() {
    let d = mjcf(
        r#"<mujoco><worldbody><body><freejoint/>
          <geom type="sphere" size="0.1" density="500"/>
          <geom type="box" size="0.1 0.1 0.1" pos="1 0 0" mass="2"/>
        </body></worldbody></mujoco>"#,
    );
    let (_, model) = build(&d, Transform::IDENTITY);
    let sphere = 500.0 * 4.0 / 3.0 * std::f32::consts::PI * 1e-3;
    let m = model.body_mass.to_vec()[0];
    assert!((m - (sphere + 2.0)).abs() < 1e-5, "{m}");
    let com = model.body_com.to_vec()[0];
    assert!((com.x - 2.0 / (sphere + 2.0)).abs() < 1e-5, "{com}");
}

#[test]
fn what_weft_cannot_express_is_refused_by_name() {
    assert_eq!(
        refused(
            r#"<mujoco><worldbody><body><joint name="h"/><geom size="1"/>
            <body><freejoint name="f"/><geom size="1"/></body></body></worldbody></mujoco>"#
        ),
        "joint `f`: a free joint must be the only joint of a body whose parent is the world"
    );
    assert_eq!(
        refused(
            r#"<mujoco><worldbody><body><joint name="b" type="ball"/><geom size="1"/>
            </body></worldbody><actuator><motor name="m" joint="b"/></actuator></mujoco>"#
        ),
        "actuator `m`: drives joint `b` of kind Ball; actuators drive hinge and slide joints only"
    );
    assert_eq!(
        refused(
            r#"<mujoco><worldbody><body><joint name="j"/><geom size="1"/>
            </body></worldbody><actuator><motor name="m1" joint="j"/><motor name="m2" joint="j"/>
            </actuator></mujoco>"#
        ),
        "actuator `m2`: joint `j` already has its feed-forward effort set by actuator `m1`; one joint takes one position servo, one velocity servo (or a servo's kv) and one motor"
    );
    assert_eq!(
        refused(
            r#"<mujoco><worldbody><body name="b"><joint/><geom type="plane" size="1 1 1"/>
            <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body></worldbody></mujoco>"#
        ),
        "plane geom of body `b`: planes are static in Weft; put the plane in the worldbody"
    );
    let e = refused(
        r#"<mujoco><worldbody><body name="b"><joint/><inertial pos="0 0 0" mass="0"
        diaginertia="0 0 0"/></body></worldbody></mujoco>"#,
    );
    assert!(
        e.starts_with("body `b`: moves on its joints but neither it nor"),
        "{e}"
    );
    // The error type says which kind of problem it is.
    let mut b = ModelBuilder::new();
    let d = mjcf(
        r#"<mujoco><worldbody><body><joint type="ball"/><geom size="1"/></body></worldbody><actuator><motor joint="body0_joint0"/></actuator></mujoco>"#,
    );
    assert!(matches!(
        add_robot(&mut b, &d, Transform::IDENTITY, &RobotOptions::default()),
        Err(RobotModelError::Unsupported { .. })
    ));
}
