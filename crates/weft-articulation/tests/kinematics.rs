//! Forward kinematics against hand formulas, Jacobians against finite
//! differences of forward kinematics, and body velocities against the
//! Jacobians.

mod common;

use common::{Rng, body, builder, mixed_model, random_dofs, random_q};
use glam::{Quat, Vec3};
use weft::{Array, Device, Transform};
use weft_articulation::{ArticulationLayout, advance_coordinates, eval_fk, eval_jacobian};
use weft_sim::{JointDesc, State};

/// Two links in the XY plane hinged about Z: the first at the origin, the
/// second at the end of the first (length `l1`).
#[test]
fn planar_arm_matches_hand_formulas() {
    let (l1, l2) = (0.7f32, 0.4f32);
    let mut b = builder(9.81);
    let a = body(
        &mut b,
        1.0,
        Vec3::new(l1 / 2.0, 0.0, 0.0),
        Vec3::splat(0.01),
    );
    let c = body(
        &mut b,
        1.0,
        Vec3::new(l2 / 2.0, 0.0, 0.0),
        Vec3::splat(0.01),
    );
    b.add_joint(JointDesc::revolute(-1, a, Vec3::Z)).unwrap();
    b.add_joint(JointDesc::revolute(a as i32, c, Vec3::Z).with_frames(
        Transform::from_translation(Vec3::new(l1, 0.0, 0.0)),
        Transform::IDENTITY,
    ))
    .unwrap();
    let model = b.finalize(Device::Cpu).unwrap();
    let mut state = State::new(&model).unwrap();
    let mut worst = (0.0f32, 0.0f32);
    for (q1, q2, w1, w2) in [
        (0.3f32, -1.1f32, 0.5f32, 2.0f32),
        (2.5, 0.7, -1.0, 0.3),
        (-0.9, 3.0, 0.0, -2.0),
    ] {
        state.joint_q = Array::from_slice(Device::Cpu, &[q1, q2]);
        state.joint_qd = Array::from_slice(Device::Cpu, &[w1, w2]);
        eval_fk(&model, &mut state).unwrap();
        let (x, v) = (state.body_q.to_vec(), state.body_qd.to_vec());
        let elbow = Vec3::new(l1 * q1.cos(), l1 * q1.sin(), 0.0);
        let dir2 = Vec3::new((q1 + q2).cos(), (q1 + q2).sin(), 0.0);
        let hand = elbow + dir2 * l2;
        // Poses.
        worst.0 = worst.0.max((x[0].p - Vec3::ZERO).length());
        worst.0 = worst.0.max((x[1].p - elbow).length());
        worst.0 = worst
            .0
            .max((x[1].q * Vec3::new(l2, 0.0, 0.0) + x[1].p - hand).length());
        worst.0 = worst.0.max(x[0].q.angle_between(Quat::from_rotation_z(q1)));
        worst.0 = worst
            .0
            .max(x[1].q.angle_between(Quat::from_rotation_z(q1 + q2)));
        // Velocities of the centres of mass: ω × r summed down the chain.
        let z = Vec3::Z;
        let v1 = (z * w1).cross(Vec3::new(q1.cos(), q1.sin(), 0.0) * (l1 / 2.0));
        let v2 = (z * w1).cross(elbow) + (z * (w1 + w2)).cross(dir2 * (l2 / 2.0));
        worst.1 = worst
            .1
            .max((v[0].top - v1).length())
            .max((v[1].top - v2).length());
        worst.1 = worst
            .1
            .max((v[0].bottom - z * w1).length())
            .max((v[1].bottom - z * (w1 + w2)).length());
    }
    println!(
        "planar arm: worst pose error {:.2e}, worst velocity error {:.2e}",
        worst.0, worst.1
    );
    assert!(worst.0 < 2e-6 && worst.1 < 1e-5, "{worst:?}");
}

/// Each Jacobian column against central differences of the poses along that
/// degree of freedom (quaternion joints moved on the manifold).
#[test]
fn jacobians_match_finite_differences_of_fk() {
    let model = mixed_model(Device::Cpu, 9.81);
    let layout = ArticulationLayout::new(&model).unwrap();
    let mut rng = Rng(7);
    let q = Array::from_vec(Device::Cpu, random_q(&model, &mut rng));
    let jac = eval_jacobian(&model, &layout, &q).unwrap().to_vec();
    let child = model.joint_child.to_vec();
    let poses = |q: &Array<f32>| {
        let mut s = State::new(&model).unwrap();
        s.joint_q = q.clone();
        eval_fk(&model, &mut s).unwrap();
        s.body_q.to_vec()
    };
    let nd = model.joint_dof_count();
    let h = 1e-3f32;
    let mut worst = 0.0f32;
    let mut nonzero = 0;
    for a in 0..layout.articulation_count() {
        let (dofs, joints) = (layout.dofs(a), layout.joints(a));
        let block = &jac[layout.jacobian_range(a)];
        for d in dofs.clone() {
            let mut e = vec![0.0f32; nd];
            e[d] = 1.0;
            let e = Array::from_vec(Device::Cpu, e);
            let plus = poses(&advance_coordinates(&model, &q, &e, h).unwrap());
            let minus = poses(&advance_coordinates(&model, &q, &e, -h).unwrap());
            for (row, j) in joints.clone().enumerate() {
                let b = child[j] as usize;
                let col = block[row * dofs.len() + d - dofs.start];
                let v = (plus[b].p - minus[b].p) / (2.0 * h);
                let w = (plus[b].q * minus[b].q.inverse()).to_scaled_axis() / (2.0 * h);
                worst = worst
                    .max((v - col.top).length())
                    .max((w - col.bottom).length());
                if col.bottom.length() + col.top.length() > 0.0 {
                    nonzero += 1;
                }
            }
        }
    }
    println!(
        "Jacobians: {nonzero} non-zero columns, worst error against central differences {worst:.2e}"
    );
    assert!(nonzero > 20);
    assert!(worst < 2e-3, "worst {worst}");
}

/// `J q̇` equals the body velocities forward kinematics gives (at the body
/// origins: `v_com − ω × (com − origin)`).
#[test]
fn body_velocities_are_jacobian_times_joint_velocities() {
    let model = mixed_model(Device::Cpu, 9.81);
    let layout = ArticulationLayout::new(&model).unwrap();
    let mut rng = Rng(11);
    let mut state = State::new(&model).unwrap();
    state.joint_q = Array::from_vec(Device::Cpu, random_q(&model, &mut rng));
    let qd = random_dofs(&model, &mut rng, 2.0);
    state.joint_qd = Array::from_slice(Device::Cpu, &qd);
    eval_fk(&model, &mut state).unwrap();
    let jac = eval_jacobian(&model, &layout, &state.joint_q)
        .unwrap()
        .to_vec();
    let (x, v, com, child) = (
        state.body_q.to_vec(),
        state.body_qd.to_vec(),
        model.body_com.to_vec(),
        model.joint_child.to_vec(),
    );
    let mut worst = 0.0f32;
    for a in 0..layout.articulation_count() {
        let (dofs, joints) = (layout.dofs(a), layout.joints(a));
        let block = &jac[layout.jacobian_range(a)];
        for (row, j) in joints.enumerate() {
            let b = child[j] as usize;
            let (mut lin, mut ang) = (Vec3::ZERO, Vec3::ZERO);
            for d in dofs.clone() {
                let col = block[row * dofs.len() + d - dofs.start];
                lin += col.top * qd[d];
                ang += col.bottom * qd[d];
            }
            let origin_v = v[b].top - v[b].bottom.cross(x[b].q * com[b]);
            worst = worst
                .max((lin - origin_v).length())
                .max((ang - v[b].bottom).length());
        }
    }
    println!("J q̇ against FK velocities: worst {worst:.2e}");
    assert!(worst < 1e-5, "worst {worst}");
}

/// Off the tape `eval_fk` runs one thread per articulation; on it, one
/// thread per joint summing over ancestors: both give the same poses and
/// velocities.
#[test]
fn fk_off_and_on_the_tape_agree() {
    let model = mixed_model(Device::Cpu, 9.81);
    let mut rng = Rng(41);
    let (mut dp, mut dv) = (0.0f32, 0.0f32);
    for _ in 0..20 {
        let mut a = State::new(&model).unwrap();
        a.joint_q = Array::from_vec(Device::Cpu, random_q(&model, &mut rng));
        a.joint_qd = Array::from_vec(Device::Cpu, random_dofs(&model, &mut rng, 2.0));
        let mut b = State::new(&model).unwrap();
        b.joint_q = a.joint_q.clone();
        b.joint_qd = a.joint_qd.clone();
        eval_fk(&model, &mut a).unwrap();
        let mut tape = weft::Tape::new();
        tape.record(|| eval_fk(&model, &mut b)).unwrap();
        for (x, y) in a.body_q.to_vec().iter().zip(b.body_q.to_vec()) {
            dp = dp.max((x.p - y.p).abs().max_element());
            dp = dp.max(glam::Vec4::from(x.q - y.q).abs().max_element());
        }
        for (x, y) in a.body_qd.to_vec().iter().zip(b.body_qd.to_vec()) {
            dv = dv.max((x.top - y.top).abs().max_element());
            dv = dv.max((x.bottom - y.bottom).abs().max_element());
        }
    }
    println!("eval_fk per tree vs per joint (taped): poses {dp:.1e}, velocities {dv:.1e}");
    assert!(dp < 1e-5 && dv < 1e-4, "{dp} {dv}");
}
