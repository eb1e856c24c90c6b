//! Articulations on CUDA against the CPU: forward kinematics, the mass
//! matrix, forward dynamics (composite rigid bodies and articulated bodies),
//! Featherstone rollouts with drives and limits (either forward dynamics),
//! inverse kinematics
//! (`eval_ik`, the batched `IkSolver`), and the gradients of the rollout and
//! of the articulated-body algorithm through the tape (skipped without CUDA;
//! failing then when `WEFT_REQUIRE_CUDA=1`). Every kernel's PTX and adjoint
//! PTX are checked without a GPU too.

use weft::prelude::*;
use weft_articulation::{
    AbaLayout, ArticulationLayout, FeatherstoneSolver, ForwardDynamics, IkSolver, IkTarget,
    eval_fk, eval_ik, forward_dynamics, forward_dynamics_aba, mass_matrix,
};
use weft_examples::devices::{assert_grads, cuda};
use weft_sim::{BodyDesc, BodyMass, Control, JointDesc, Model, ModelBuilder, State};

/// A free base carrying a hinge, a ball, a universal, a slider and a D6
/// joint, with drives and limits on the hinge and the slider.
fn robot(device: Device) -> Model {
    let mut b = ModelBuilder::new();
    b.ground = None;
    let add = |b: &mut ModelBuilder, m: f32, c: Vec3| {
        let mut d = BodyDesc::new(Transform::IDENTITY);
        d.mass = BodyMass::Given(weft_geom::MassProperties {
            mass: m,
            com: c,
            inertia: Mat3::from_diagonal(Vec3::new(0.02, 0.03, 0.025) * m),
        });
        b.add_body(d)
    };
    let base = add(&mut b, 3.0, Vec3::new(0.02, 0.0, 0.01));
    let l: Vec<usize> = (0..5)
        .map(|k| {
            add(
                &mut b,
                0.5 + 0.1 * k as f32,
                Vec3::new(0.05, 0.02 * k as f32, -0.1),
            )
        })
        .collect();
    let at = |x: f32, y: f32, z: f32, turn: f32| {
        Transform::new(Vec3::new(x, y, z), Quat::from_rotation_y(turn))
    };
    b.add_joint(JointDesc::free(base).with_q(&[0.0, 0.0, 1.0, 0.1, 0.0, 0.0, 1.0]))
        .unwrap();
    let mut hinge = JointDesc::revolute(base as i32, l[0], Vec3::Y)
        .with_frames(at(0.2, 0.0, 0.0, 0.2), Transform::IDENTITY);
    hinge.angular[0] = hinge.angular[0].with_limits(-0.3, 0.3);
    hinge.angular[0].drive.stiffness = 50.0;
    hinge.angular[0].drive.damping = 2.0;
    hinge.angular[0].drive.target_pos = 0.5;
    b.add_joint(hinge).unwrap();
    b.add_joint(
        JointDesc::ball(l[0] as i32, l[1])
            .with_frames(at(0.0, 0.0, -0.3, 0.0), Transform::IDENTITY),
    )
    .unwrap();
    b.add_joint(
        JointDesc::universal(base as i32, l[2], Vec3::X, Vec3::Z)
            .with_frames(at(-0.2, 0.0, 0.0, -0.3), Transform::IDENTITY),
    )
    .unwrap();
    let mut slider = JointDesc::prismatic(l[2] as i32, l[3], Vec3::X)
        .with_frames(at(0.0, 0.1, -0.2, 0.0), Transform::IDENTITY);
    slider.linear[0].drive.damping = 5.0;
    slider.linear[0].drive.target_vel = 0.2;
    slider.linear[0].drive.effort_limit = 1.0;
    slider.linear[0].friction = 0.1;
    slider.linear[0].armature = 0.01;
    b.add_joint(slider).unwrap();
    b.add_joint(
        JointDesc::d6(l[3] as i32, l[4], &[Vec3::Z], &[Vec3::X, Vec3::Y])
            .with_frames(at(0.1, 0.0, 0.0, 0.4), Transform::IDENTITY)
            .with_q(&[0.05, 0.3, -0.2]),
    )
    .unwrap();
    b.finalize(device).unwrap()
}

/// Everything the tests compare, as flat floats, on `device`.
fn results(device: Device) -> Vec<f32> {
    let model = robot(device);
    let layout = ArticulationLayout::new(&model).unwrap();
    let mut s = State::new(&model).unwrap();
    eval_fk(&model, &mut s).unwrap();
    let mut out: Vec<f32> = Vec::new();
    out.extend(
        s.body_q
            .to_vec()
            .iter()
            .flat_map(|t| t.p.to_array().into_iter().chain(t.q.to_array())),
    );
    out.extend(s.body_qd.to_vec().iter().flat_map(|v| v.to_array()));
    out.extend(mass_matrix(&model, &layout, &s.joint_q).unwrap().to_vec());
    let tau = Array::from_vec(
        device,
        (0..model.joint_dof_count())
            .map(|i| 0.1 * i as f32 - 0.5)
            .collect(),
    );
    out.extend(
        forward_dynamics(&model, &layout, &s.joint_q, &s.joint_qd, &tau)
            .unwrap()
            .to_vec(),
    );
    let aba = AbaLayout::new(&model).unwrap();
    out.extend(
        forward_dynamics_aba(&model, &aba, &s.joint_q, &s.joint_qd, &tau)
            .unwrap()
            .to_vec(),
    );
    // Coordinates and velocities back from the poses (from zero coordinates,
    // identity quaternions).
    let mut back = State::new(&model).unwrap();
    back.body_q.copy_from(&s.body_q).unwrap();
    back.body_qd.copy_from(&s.body_qd).unwrap();
    eval_ik(&model, &mut back).unwrap();
    out.extend(back.joint_q.to_vec());
    out.extend(back.joint_qd.to_vec());
    // Four IK problems: the last link's pose to targets around its own.
    let tip = model.joint_child.to_vec()[5] as usize;
    let mut ik =
        IkSolver::new(&model, 4, &[IkTarget::pose(tip, Vec3::new(0.05, 0.0, 0.0))]).unwrap();
    ik.iterations = 20;
    let pose = s.body_q.to_vec()[tip];
    let goals: Vec<Vec3> = (0..4)
        .map(|k| {
            pose.p + pose.q * Vec3::new(0.05, 0.0, 0.0) + Vec3::new(0.02 * k as f32, -0.03, 0.01)
        })
        .collect();
    let turns: Vec<Quat> = (0..4)
        .map(|k| Quat::from_rotation_z(0.1 * k as f32) * pose.q)
        .collect();
    let mut q = Array::from_vec(device, s.joint_q.to_vec().repeat(4));
    ik.solve(
        &model,
        &mut q,
        &Array::from_vec(device, goals),
        &Array::from_vec(device, turns),
    )
    .unwrap();
    out.extend(q.to_vec());
    let control = Control::new(&model).unwrap();
    // 50 steps stepped with the articulated-body algorithm, from the same
    // state as the 200 below.
    let mut a = State::new(&model).unwrap();
    let mut a_next = State::new(&model).unwrap();
    let mut aba_solver =
        FeatherstoneSolver::with_dynamics(&model, ForwardDynamics::ArticulatedBody).unwrap();
    for _ in 0..50 {
        aba_solver
            .step(&model, &a, &mut a_next, &control, 2e-3)
            .unwrap();
        std::mem::swap(&mut a, &mut a_next);
    }
    out.extend(a.joint_q.to_vec());
    out.extend(a.joint_qd.to_vec());
    let mut solver = FeatherstoneSolver::new(&model).unwrap();
    let mut next = State::new(&model).unwrap();
    for _ in 0..200 {
        solver.step(&model, &s, &mut next, &control, 2e-3).unwrap();
        std::mem::swap(&mut s, &mut next);
    }
    out.extend(s.joint_q.to_vec());
    out.extend(s.joint_qd.to_vec());
    out
}

#[test]
fn cuda_matches_cpu() {
    let Some(gpu) = cuda() else { return };
    let (c, g) = (results(Device::Cpu), results(gpu));
    assert_eq!(c.len(), g.len());
    // The same operations in the same order; the f64 factorisation and
    // summation orders agree too, so the bound only covers rounding that 200
    // steps of a stiff drive can amplify.
    let worst = c
        .iter()
        .zip(&g)
        .map(|(a, b)| (a - b).abs() / a.abs().max(1.0))
        .fold(0.0f32, f32::max);
    println!("articulation results, CUDA vs CPU: worst relative difference {worst:.2e}");
    assert!(worst < 1e-4, "{worst}");
}

/// The gradient of a 20-step rollout's final coordinates with respect to the
/// initial ones and the efforts, on both devices.
fn rollout_gradient(device: Device) -> Vec<f32> {
    let model = robot(device);
    let mut solver = FeatherstoneSolver::new(&model).unwrap();
    let mut states: Vec<State> = (0..=20)
        .map(|_| State::new(&model).unwrap().requires_grad())
        .collect();
    let mut control = Control::new(&model).unwrap();
    control.joint_f = control.joint_f.requires_grad();
    let mut tape = Tape::new();
    tape.record(|| {
        for k in 0..20 {
            let (done, next) = states.split_at_mut(k + 1);
            solver
                .step(&model, &done[k], &mut next[0], &control, 2e-3)
                .unwrap();
        }
    });
    let seed: Vec<f32> = (0..model.joint_coord_count())
        .map(|i| 1.0 - 0.05 * i as f32)
        .collect();
    tape.backward_from(&mut states[20].joint_q, &seed).unwrap();
    let mut g = states[0].joint_q.grad_to_vec().unwrap();
    g.extend(states[0].joint_qd.grad_to_vec().unwrap());
    g.extend(control.joint_f.grad_to_vec().unwrap());
    g
}

#[test]
fn cuda_gradients_match_cpu() {
    let Some(gpu) = cuda() else { return };
    let c = rollout_gradient(Device::Cpu);
    assert!(c.iter().any(|x| *x != 0.0));
    assert_grads("Featherstone rollout gradient", &c, &rollout_gradient(gpu));
}

/// The gradient of a weighted sum of the articulated-body `q̈` with respect
/// to `q`, `q̇` and `τ`, on `device`.
fn aba_gradient(device: Device) -> Vec<f32> {
    let model = robot(device);
    let aba = AbaLayout::new(&model).unwrap();
    let nd = model.joint_dof_count();
    let q = Array::from_vec(device, model.joint_q.to_vec()).requires_grad();
    let qd =
        Array::from_vec(device, (0..nd).map(|i| 0.3 - 0.05 * i as f32).collect()).requires_grad();
    let tau =
        Array::from_vec(device, (0..nd).map(|i| 0.1 * i as f32 - 0.5).collect()).requires_grad();
    let mut tape = Tape::new();
    let mut qdd = tape.record(|| forward_dynamics_aba(&model, &aba, &q, &qd, &tau).unwrap());
    let seed: Vec<f32> = (0..nd).map(|i| 1.0 - 0.07 * i as f32).collect();
    tape.backward_from(&mut qdd, &seed).unwrap();
    let mut g = q.grad_to_vec().unwrap();
    g.extend(qd.grad_to_vec().unwrap());
    g.extend(tau.grad_to_vec().unwrap());
    g
}

#[test]
fn cuda_aba_gradients_match_cpu() {
    let Some(gpu) = cuda() else { return };
    let c = aba_gradient(Device::Cpu);
    assert!(c.iter().any(|x| *x != 0.0));
    assert_grads("articulated-body q̈ gradient", &c, &aba_gradient(gpu));
}

#[test]
fn every_articulation_kernel_has_ptx() {
    use weft_articulation::{
        aba, drives, dynamics, ik_kernels, integrate, joint_coords, kinematics, solve,
    };
    weft_examples::devices::check_all_ptx(
        &weft_examples::ptx_of!(
            kinematics::eval_joint_transforms,
            kinematics::eval_body_poses,
            kinematics::eval_motion_subspace,
            kinematics::eval_joint_velocities,
            kinematics::eval_body_velocities,
            kinematics::eval_jacobians,
            dynamics::eval_body_forces,
            dynamics::eval_joint_torques,
            dynamics::eval_composite_inertia,
            dynamics::eval_mass_matrix,
            solve::factor_and_invert,
            solve::eval_residual,
            solve::apply_refinement,
            solve::eval_rhs,
            drives::eval_joint_efforts,
            integrate::integrate_joints,
            integrate::advance_coordinates,
            aba::aba_backward_level,
            aba::eval_local_wrenches,
            aba::aba_forward_level,
            joint_coords::eval_joint_coords,
            ik_kernels::eval_batch_kinematics,
            ik_kernels::eval_target_errors,
            ik_kernels::eval_damped_step,
            ik_kernels::apply_ik_step,
        ),
        &[],
    );
}
