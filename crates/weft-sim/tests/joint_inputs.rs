//! `ModelBuilder::add_joint` refuses joints that do not fit, with an error
//! naming the joint; and a valid tree becomes the model's flat joint arrays.

use glam::{Mat3, Quat, Vec3};
use weft::{Device, Transform};
use weft_geom::MassProperties;
use weft_sim::{BodyDesc, BodyKind, BodyMass, JointDesc, JointDof, ModelBuilder, State};

fn bodies(n: usize) -> ModelBuilder {
    let mut b = ModelBuilder::new();
    for _ in 0..n {
        let mut d = BodyDesc::new(Transform::IDENTITY);
        d.mass = BodyMass::Given(MassProperties {
            mass: 1.0,
            com: Vec3::ZERO,
            inertia: Mat3::from_diagonal(Vec3::splat(0.1)),
        });
        b.add_body(d);
    }
    b
}

/// The message of adding `j` to a builder of three bodies with a free joint
/// on body 0 and a hinge from 0 to 1.
fn refused(j: JointDesc) -> String {
    let mut b = bodies(3);
    b.add_joint(JointDesc::free(0)).unwrap();
    b.add_joint(JointDesc::revolute(0, 1, Vec3::X)).unwrap();
    let e = b.add_joint(j).unwrap_err().to_string();
    assert_eq!(b.joint_count(), 2, "a refused joint is not added");
    e
}

#[test]
fn bodies_out_of_range_are_named() {
    assert_eq!(
        refused(JointDesc::revolute(1, 7, Vec3::X).named("knee")),
        "joint 2 `knee`: child body 7 out of range (3 bodies)"
    );
    assert_eq!(
        refused(JointDesc::revolute(-3, 2, Vec3::X)),
        "joint 2: parent body -3 out of range (-1 for the world, or one of 3 bodies)"
    );
    assert_eq!(
        refused(JointDesc::revolute(2, 2, Vec3::X)),
        "joint 2: body 2 is its own parent"
    );
}

#[test]
fn second_parents_and_cycles_are_refused() {
    assert_eq!(
        refused(JointDesc::revolute(-1, 1, Vec3::X)),
        "joint 2: child body 1 already has a parent joint (joint 1); a body has one parent joint (close loops with `add_loop_joint`)"
    );
    assert_eq!(
        refused(JointDesc::revolute(1, 0, Vec3::X)),
        "joint 2: would close a cycle: child body 0 is an ancestor of parent body 1 (close loops with `add_loop_joint`)"
    );
    assert_eq!(
        refused(JointDesc::revolute(2, 1, Vec3::X)),
        "joint 2: child body 1 already has a parent joint (joint 1); a body has one parent joint (close loops with `add_loop_joint`)"
    );
}

#[test]
fn parents_must_come_first_and_articulations_stay_together() {
    let mut b = bodies(4);
    let e = b.add_joint(JointDesc::revolute(1, 2, Vec3::X)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "joint 0: parent body 1 is not the child of any joint; connect it to the world first (a free or fixed joint), parents before children"
    );
    b.add_joint(JointDesc::free(0)).unwrap();
    b.add_joint(JointDesc::free(1)).unwrap();
    let e = b.add_joint(JointDesc::revolute(0, 2, Vec3::X)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "joint 2: parent body 0 belongs to the articulation rooted at joint 0, but joint 1 started another; add each articulation's joints together"
    );
}

#[test]
fn static_children_are_refused() {
    let mut b = bodies(1);
    let mut d = BodyDesc::new(Transform::IDENTITY);
    d.kind = BodyKind::Static;
    b.add_body(d);
    let e = b.add_joint(JointDesc::fixed(-1, 1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "joint 0: child body 1 is Static; a joint's child must be dynamic"
    );
}

#[test]
fn bad_axes_are_refused() {
    assert_eq!(
        refused(JointDesc::revolute(1, 2, Vec3::ZERO)),
        "joint 2: angular axis 0 must be finite and non-zero, got Vec3(0.0, 0.0, 0.0)"
    );
    assert_eq!(
        refused(JointDesc::prismatic(1, 2, Vec3::new(f32::NAN, 0.0, 1.0))),
        "joint 2: linear axis 0 must be finite and non-zero, got Vec3(NaN, 0.0, 1.0)"
    );
    assert_eq!(
        refused(JointDesc::universal(
            1,
            2,
            Vec3::X,
            Vec3::new(-2.0, 0.0, 0.0)
        )),
        "joint 2: angular axes 0 and 1 are parallel (Vec3(1.0, 0.0, 0.0), Vec3(-1.0, 0.0, 0.0))"
    );
    let mut j = JointDesc::revolute(1, 2, Vec3::X);
    j.angular.push(JointDof::new(Vec3::Y));
    assert_eq!(
        refused(j),
        "joint 2: a revolute joint cannot have 0 linear and 2 angular axes"
    );
    let mut j = JointDesc::ball(1, 2);
    j.angular[0].axis = Vec3::new(1.0, 1.0, 0.0);
    assert_eq!(
        refused(j),
        "joint 2: a ball joint's axes are the joint frame's X, Y, Z (turn the frames instead)"
    );
    assert_eq!(
        refused(JointDesc::d6(1, 2, &[Vec3::X; 4], &[])),
        "joint 2: a D6 joint cannot have 4 linear and 0 angular axes"
    );
}

#[test]
fn nans_and_bad_numbers_are_refused() {
    let nan_frame = Transform::new(Vec3::new(0.0, f32::NAN, 0.0), Quat::IDENTITY);
    assert!(
        refused(JointDesc::revolute(1, 2, Vec3::X).with_frames(nan_frame, Transform::IDENTITY))
            .starts_with("joint 2: joint frames must be finite with non-zero rotations, got")
    );
    assert_eq!(
        refused(JointDesc::revolute(1, 2, Vec3::X).with_q(&[f32::NAN])),
        "joint 2: initial coordinates must be finite, got NaN"
    );
    assert_eq!(
        refused(JointDesc::revolute(1, 2, Vec3::X).with_q(&[0.1, 0.2])),
        "joint 2: a revolute joint has 1 position and 1 velocity coordinates, got 2 and 1"
    );
    assert_eq!(
        refused(JointDesc::ball(1, 2).with_q(&[0.0; 4])),
        "joint 2: the initial quaternion is zero"
    );
    let mut j = JointDesc::revolute(1, 2, Vec3::X);
    j.angular[0] = j.angular[0].with_limits(1.0, -1.0);
    assert_eq!(
        refused(j),
        "joint 2: angular axis 0: limits must satisfy lower ≤ upper (±inf: none), got 1 and -1"
    );
    let mut j = JointDesc::prismatic(1, 2, Vec3::X);
    j.linear[0].armature = -0.1;
    assert_eq!(
        refused(j),
        "joint 2: linear axis 0: armature must be finite and ≥ 0, got -0.1"
    );
    let mut j = JointDesc::prismatic(1, 2, Vec3::X);
    j.linear[0].drive.damping = f32::NAN;
    assert_eq!(
        refused(j),
        "joint 2: linear axis 0: drive damping must be finite and ≥ 0, got NaN"
    );
    let mut j = JointDesc::prismatic(1, 2, Vec3::X);
    j.linear[0].drive.effort_limit = -1.0;
    assert_eq!(
        refused(j),
        "joint 2: linear axis 0: drive effort_limit must be ≥ 0 (inf: none), got -1"
    );
    let mut j = JointDesc::ball(1, 2);
    j.angular[1] = j.angular[1].with_limits(-1.0, 1.0);
    assert_eq!(
        refused(j),
        "joint 2: a ball joint's limit is a cone: angular axis 0 takes lower 0 (or -inf) and upper the largest rotation angle (inf: none; see `JointDesc::with_cone_limit`), the other axes none; got [(-inf, inf), (-1.0, 1.0), (-inf, inf)]"
    );
    let mut j = JointDesc::revolute(1, 2, Vec3::X);
    j.limit_ke = -1.0;
    assert_eq!(
        refused(j),
        "joint 2: limit_ke must be finite and ≥ 0, got -1"
    );
}

#[test]
fn ball_cones_and_rotation_drives_are_stored_and_xpbd_refuses_them() {
    // A ball's cone: the first angular axis's limits; a free joint's drives.
    let mut b = bodies(3);
    b.add_joint(JointDesc::free(0)).unwrap();
    let mut ball = JointDesc::ball(0, 1).with_cone_limit(0.4);
    ball.angular[2].drive.stiffness = 5.0;
    b.add_joint(ball).unwrap();
    let mut free = JointDesc::free(2);
    free.linear[1].drive.stiffness = 3.0;
    let inf = f32::INFINITY;
    let mut bad = free.clone();
    bad.linear[0] = bad.linear[0].with_limits(-1.0, 1.0);
    assert_eq!(refused(bad), "joint 2: a free joint takes no limits");
    b.add_joint(free).unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    let (lo, hi) = (
        model.joint_limit_lower.to_vec(),
        model.joint_limit_upper.to_vec(),
    );
    assert_eq!(
        (&lo[6..9], &hi[6..9]),
        (&[0.0, -inf, -inf][..], &[0.4, inf, inf][..])
    );
    let e = weft_sim::XpbdRigid::new(&model, Default::default())
        .err()
        .expect("XpbdRigid refuses them")
        .to_string();
    assert!(
        e.contains("no drive, damping, friction or cone limit"),
        "{e}"
    );
}

#[test]
fn a_tree_becomes_flat_arrays() {
    let mut b = bodies(5);
    b.add_joint(JointDesc::free(0)).unwrap();
    b.add_joint(JointDesc::ball(0, 1)).unwrap();
    b.add_joint(JointDesc::universal(0, 2, Vec3::X, Vec3::Y).with_q(&[0.1, 0.2]))
        .unwrap();
    b.add_joint(JointDesc::revolute(-1, 3, Vec3::Z)).unwrap();
    b.add_joint(JointDesc::prismatic(3, 4, Vec3::new(0.0, 0.0, 2.0)))
        .unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    assert_eq!(model.joint_count(), 5);
    assert_eq!(model.articulation_start.to_vec(), vec![0, 3, 5]);
    assert_eq!(model.joint_q_start.to_vec(), vec![0, 7, 11, 13, 14, 15]);
    assert_eq!(model.joint_qd_start.to_vec(), vec![0, 6, 9, 11, 12, 13]);
    assert_eq!(model.joint_ancestor.to_vec(), vec![-1, 0, 0, -1, 3]);
    assert_eq!(model.joint_articulation.to_vec(), vec![0, 0, 0, 1, 1]);
    assert_eq!(
        model.joint_axis.to_vec()[12],
        Vec3::Z,
        "axes are normalised"
    );
    let q = model.joint_q.to_vec();
    assert_eq!(
        &q[..7],
        &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        "identity rotations by default"
    );
    assert_eq!(&q[11..13], &[0.1, 0.2]);
    let s = State::new(&model).unwrap();
    assert_eq!((s.joint_q.len(), s.joint_qd.len()), (15, 13));
}

#[test]
fn massless_links_are_joint_children_only() {
    // A massless link between the world and a massive body: allowed.
    let mut b = bodies(1);
    let mut link = BodyDesc::new(Transform::IDENTITY);
    link.mass = BodyMass::Given(MassProperties::ZERO);
    let link = b.add_body(link);
    b.add_joint(JointDesc::revolute(-1, link, Vec3::X)).unwrap();
    b.add_joint(JointDesc::revolute(link as i32, 0, Vec3::Y))
        .unwrap();
    assert_eq!((b.joint_coord_count(), b.joint_dof_count()), (2, 2));
    let model = b.finalize(Device::Cpu).unwrap();
    assert_eq!(model.body_mass.to_vec(), vec![1.0, 0.0]);
    assert_eq!(model.body_inv_mass.to_vec(), vec![1.0, 0.0]);
    // Without a parent joint a massless dynamic body is refused.
    let mut b = bodies(0);
    let mut free = BodyDesc::new(Transform::IDENTITY);
    free.mass = BodyMass::Given(MassProperties::ZERO);
    b.add_body(free);
    let e = b.finalize(Device::Cpu).unwrap_err().to_string();
    assert!(e.contains("mass properties"), "{e}");
}

/// The message of adding loop joint `j` to a builder of three bodies (body 2
/// static) with a free joint on body 0 and a hinge from 0 to 1.
fn loop_refused(j: JointDesc) -> String {
    let mut b = ModelBuilder::new();
    for k in 0..3 {
        let mut d = BodyDesc::new(Transform::IDENTITY);
        if k == 2 {
            d.kind = BodyKind::Static;
        } else {
            d.mass = BodyMass::Given(MassProperties {
                mass: 1.0,
                com: Vec3::ZERO,
                inertia: Mat3::from_diagonal(Vec3::splat(0.1)),
            });
        }
        b.add_body(d);
    }
    b.add_joint(JointDesc::free(0)).unwrap();
    b.add_joint(JointDesc::revolute(0, 1, Vec3::X)).unwrap();
    let e = b.add_loop_joint(j).unwrap_err().to_string();
    assert_eq!(b.loop_joint_count(), 0, "a refused loop joint is not added");
    e
}

#[test]
fn loop_joints_are_checked_like_joints() {
    assert_eq!(
        loop_refused(JointDesc::revolute(1, 7, Vec3::X).named("rod")),
        "loop joint 0 `rod`: child body 7 out of range (-1 for the world, or one of 3 bodies)"
    );
    assert_eq!(
        loop_refused(JointDesc::ball(1, 1)),
        "loop joint 0: joins body 1 to itself"
    );
    assert_eq!(
        loop_refused(JointDesc::fixed(-1, 2)),
        "loop joint 0: neither body -1 nor body 2 is dynamic; a loop joint needs one that moves"
    );
    assert_eq!(
        loop_refused(JointDesc::free(1)),
        "loop joint 0: a free joint constrains nothing; a loop joint is revolute, prismatic, ball, fixed, universal or D6"
    );
    assert_eq!(
        loop_refused(JointDesc::revolute(0, 1, Vec3::ZERO)),
        "loop joint 0: angular axis 0 must be finite and non-zero, got Vec3(0.0, 0.0, 0.0)"
    );
    assert_eq!(
        loop_refused(JointDesc::ball(1, 2).with_cone_limit(0.5)),
        "loop joint 0: a loop ball joint takes no cone limit (XpbdRigid has none; put it on a tree joint stepped by weft-articulation's FeatherstoneSolver)"
    );
    let mut j = JointDesc::revolute(1, 2, Vec3::X);
    j.angular[0].drive.stiffness = 10.0;
    assert_eq!(
        loop_refused(j),
        "loop joint 0: axis 0 has a drive, damping, friction or armature; a loop joint has no coordinates to act on (put them on a tree joint)"
    );
    let mut j = JointDesc::prismatic(0, 1, Vec3::Y);
    j.linear[0] = j.linear[0].with_limits(0.5, 0.1);
    let e = loop_refused(j);
    assert!(e.starts_with("loop joint 0: linear axis 0: "), "{e}");
    // A loop joint between two bodies that already have parents is fine, and
    // the model carries it.
    let mut b = bodies(2);
    b.add_joint(JointDesc::free(0)).unwrap();
    b.add_joint(JointDesc::revolute(0, 1, Vec3::X)).unwrap();
    let at = Transform::from_translation(Vec3::new(0.0, 0.3, 0.0));
    assert_eq!(
        b.add_loop_joint(JointDesc::universal(-1, 1, Vec3::X, Vec3::Y).with_frames(at, at))
            .unwrap(),
        0
    );
    let m = b.finalize(Device::Cpu).unwrap();
    assert_eq!(m.loop_joint_count(), 1);
    assert_eq!(m.loop_joints.dof_start.to_vec(), vec![0, 2]);
    assert_eq!(m.loop_joints.kind.to_vec(), vec![weft_sim::JOINT_UNIVERSAL]);
}
