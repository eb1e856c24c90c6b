//! Articulations on CUDA against the CPU: forward kinematics, the mass
//! matrix, forward dynamics (composite rigid bodies and articulated bodies),
//! Featherstone rollouts with drives and limits (either forward dynamics),
//! inverse kinematics
//! (`eval_ik`, the batched `IkSolver`), and the gradients of the rollout and
//! of the articulated-body algorithm through the tape, and a two-link chain
//! and a free box in contact with a plane and each other (rollout and its
//! gradient), and joints as constraints in `XpbdRigid` (skipped without CUDA;
//! failing then when `WEFT_REQUIRE_CUDA=1`). Every kernel's PTX and adjoint
//! PTX are checked without a GPU too.

use weft::prelude::*;
use weft_articulation::{
    AbaLayout, ArticulationLayout, FeatherstoneSolver, ForwardDynamics, IkSolver, IkTarget,
    eval_fk, eval_ik, forward_dynamics, forward_dynamics_aba, mass_matrix,
};
use weft_sim::{BodyDesc, BodyMass, Control, JointDesc, Model, ModelBuilder, State};
use weft_testkit::devices::{assert_grads, cuda};

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

/// The robot stepped 60 times by `XpbdRigid` (joints as constraints, a
/// thread per joint of a colour on CUDA) under a control with feed-forward
/// efforts: the final body poses and the number of joint colours.
fn xpbd_results(device: Device) -> (Vec<f32>, usize) {
    let model = robot(device);
    let mut state = State::new(&model).unwrap();
    eval_fk(&model, &mut state).unwrap();
    let mut solver = weft_sim::XpbdRigid::new(&model, Default::default()).unwrap();
    let mut control = Control::new(&model).unwrap();
    let nd = model.joint_dof_count();
    control.joint_f = Array::from_vec(device, (0..nd).map(|i| 0.2 - 0.03 * i as f32).collect());
    let mut next = State::new(&model).unwrap();
    for _ in 0..60 {
        solver
            .step(&model, &mut state, &mut next, &control, 1.0 / 60.0)
            .unwrap();
        std::mem::swap(&mut state, &mut next);
    }
    let mut out = Vec::new();
    for x in state.body_q.to_vec() {
        out.extend([x.p.x, x.p.y, x.p.z, x.q.x, x.q.y, x.q.z, x.q.w]);
    }
    (out, solver.joint_color_count())
}

#[test]
fn cuda_xpbd_joints_match_cpu() {
    let (c, colors) = xpbd_results(Device::Cpu);
    assert!(c.iter().all(|v| v.is_finite()));
    assert_eq!(colors, 3, "joint colours");
    let Some(gpu) = cuda() else { return };
    let (g, _) = xpbd_results(gpu);
    let worst = c
        .iter()
        .zip(&g)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!("XPBD joints, 60 steps, CUDA vs CPU: worst difference {worst:.2e}");
    assert!(worst < 1e-3, "{worst}");
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
        aba, aba_derivatives, contacts, drives, dynamics, ik_kernels, integrate, joint_coords,
        kinematics, solve, tree,
    };
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(
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
            aba::eval_local_loads,
            aba::aba_forward_level,
            joint_coords::eval_joint_coords,
            ik_kernels::eval_batch_kinematics,
            ik_kernels::eval_target_errors,
            ik_kernels::eval_damped_step,
            ik_kernels::apply_ik_step,
            contacts::eval_link_states,
            contacts::eval_link_contacts,
            contacts::anchors_match,
            contacts::anchors_store,
            aba_derivatives::aba_derivatives_tree,
            tree::aba_tree,
            tree::aba_kinematics_tree,
            tree::kinematics_tree,
            tree::rnea_tree,
            tree::crba_tree,
            tree::inverse_dynamics_tree,
            tree::mass_matrix_tree,
            weft_sim::rigid::joint_taped_kernels::solve_joints_by_body,
            weft_sim::rigid::joint_kernels::solve_joints,
            weft_sim::rigid::joint_kernels::eval_dof_start,
        ),
        // One thread per articulation updates its arrays in place: these run
        // only while no tape records, and have no adjoint (the taped path runs
        // the level kernels above). XpbdRigid's in-place joint solve is declared
        // `forward_only` (a taped step runs `solve_joints_by_body`), so it has no
        // adjoint PTX either.
        &[
            ("contacts::anchors_match", "declared `forward_only`"),
            ("contacts::anchors_store", "declared `forward_only`"),
            (
                "aba_derivatives::aba_derivatives_tree",
                "declared `forward_only`",
            ),
            ("tree::aba_tree", "declared `forward_only`"),
            ("tree::aba_kinematics_tree", "declared `forward_only`"),
            ("tree::kinematics_tree", "declared `forward_only`"),
            ("tree::rnea_tree", "declared `forward_only`"),
            ("tree::crba_tree", "declared `forward_only`"),
            ("tree::inverse_dynamics_tree", "declared `forward_only`"),
            ("tree::mass_matrix_tree", "declared `forward_only`"),
            (
                "weft_sim::rigid::joint_kernels::solve_joints",
                "declared `forward_only`",
            ),
        ],
    );
}

/// A hinged two-link chain (capsules, self-collisions on: the links touch
/// only through their non-adjacent ends) swinging onto a plane, and a free
/// box dropped onto it: the contact scene of the CPU/CUDA comparisons.
fn contact_scene(device: Device) -> Model {
    use weft_collide::{Geometry, Material};
    let mut b = ModelBuilder::new();
    b.ground = None;
    let material = Material {
        ke: 2.0e4,
        kd: 50.0,
        kf: 200.0,
        mu: 0.8,
        ..Material::default()
    };
    b.add_body_shape_with(
        -1,
        Transform::IDENTITY,
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
        material,
    );
    let add = |b: &mut ModelBuilder, m: f32, c: Vec3| {
        let mut d = BodyDesc::new(Transform::IDENTITY);
        d.mass = BodyMass::Given(weft_geom::MassProperties {
            mass: m,
            com: c,
            inertia: Mat3::from_diagonal(Vec3::new(0.02, 0.02, 0.005) * m),
        });
        b.add_body(d)
    };
    let capsule = Geometry::Capsule {
        radius: 0.05,
        half_height: 0.2,
    };
    let down = Transform::from_translation(Vec3::new(0.0, 0.0, -0.25));
    let l1 = add(&mut b, 1.0, Vec3::new(0.0, 0.0, -0.25));
    let l2 = add(&mut b, 0.8, Vec3::new(0.0, 0.0, -0.25));
    for l in [l1, l2] {
        b.add_body_shape_with(l as i32, down, capsule.clone(), material);
    }
    b.add_joint(
        JointDesc::revolute(-1, l1, Vec3::Y)
            .with_frames(
                Transform::from_translation(Vec3::new(0.0, 0.0, 0.45)),
                Transform::IDENTITY,
            )
            .with_q(&[1.2]),
    )
    .unwrap();
    b.add_joint(
        JointDesc::revolute(l1 as i32, l2, Vec3::Y)
            .with_frames(
                Transform::from_translation(Vec3::new(0.0, 0.0, -0.5)),
                Transform::IDENTITY,
            )
            .with_q(&[0.8]),
    )
    .unwrap();
    let cube = add(&mut b, 0.5, Vec3::ZERO);
    b.add_body_shape_with(
        cube as i32,
        Transform::IDENTITY,
        Geometry::Box {
            half_extents: Vec3::splat(0.06),
        },
        material,
    );
    b.add_joint(
        JointDesc::free(cube)
            .with_q(&[0.6, 0.1, 0.2, 0.1, 0.0, 0.0, 0.995])
            .with_qd(&[-0.5, 0.0, -0.5, 0.0, 1.0, 0.0]),
    )
    .unwrap();
    b.finalize(device).unwrap()
}

/// 300 steps of 1 ms of the contact scene: final coordinates and velocities.
fn contact_results(device: Device) -> Vec<f32> {
    let model = contact_scene(device);
    let mut solver = FeatherstoneSolver::new(&model).unwrap();
    let control = Control::new(&model).unwrap();
    let (mut s, mut next) = (State::new(&model).unwrap(), State::new(&model).unwrap());
    for _ in 0..300 {
        solver.step(&model, &s, &mut next, &control, 1e-3).unwrap();
        std::mem::swap(&mut s, &mut next);
    }
    let report = solver.contact_report().unwrap();
    assert!(report.found > 0 && report.overflow == 0, "{report:?}");
    let mut out = s.joint_q.to_vec();
    out.extend(s.joint_qd.to_vec());
    out
}

#[test]
fn cuda_contacts_match_cpu() {
    let Some(gpu) = cuda() else { return };
    let (c, g) = (contact_results(Device::Cpu), contact_results(gpu));
    // Atomic sums of the contact wrenches differ in order: rounding, which
    // 300 steps of stiff contact amplify (a contact set that differs by one
    // grazing contact would show as a much larger difference).
    let worst = c
        .iter()
        .zip(&g)
        .map(|(a, b)| (a - b).abs() / a.abs().max(1.0))
        .fold(0.0f32, f32::max);
    println!("contact rollout, CUDA vs CPU: worst relative difference {worst:.2e}");
    assert!(worst < 1e-3, "{worst}");
}

/// The gradient of a 30-step contact rollout's final coordinates with
/// respect to the initial velocities, on `device`.
fn contact_gradient(device: Device) -> Vec<f32> {
    let model = contact_scene(device);
    let mut solver = FeatherstoneSolver::new(&model).unwrap();
    let mut states: Vec<State> = (0..=30)
        .map(|_| State::new(&model).unwrap().requires_grad())
        .collect();
    // Start in contact: 100 steps off the tape first.
    {
        let control = Control::new(&model).unwrap();
        let (mut s, mut next) = (State::new(&model).unwrap(), State::new(&model).unwrap());
        for _ in 0..100 {
            solver.step(&model, &s, &mut next, &control, 1e-3).unwrap();
            std::mem::swap(&mut s, &mut next);
        }
        states[0].joint_q = Array::from_vec(device, s.joint_q.to_vec()).requires_grad();
        states[0].joint_qd = Array::from_vec(device, s.joint_qd.to_vec()).requires_grad();
    }
    let control = Control::new(&model).unwrap();
    let mut tape = Tape::new();
    tape.record(|| {
        for k in 0..30 {
            let (done, next) = states.split_at_mut(k + 1);
            solver
                .step(&model, &done[k], &mut next[0], &control, 1e-3)
                .unwrap();
        }
    });
    let seed: Vec<f32> = (0..model.joint_coord_count())
        .map(|i| 1.0 - 0.05 * i as f32)
        .collect();
    tape.backward_from(&mut states[30].joint_q, &seed).unwrap();
    states[0].joint_qd.grad_to_vec().unwrap()
}

#[test]
fn cuda_contact_gradients_match_cpu() {
    let Some(gpu) = cuda() else { return };
    let c = contact_gradient(Device::Cpu);
    assert!(c.iter().any(|x| *x != 0.0));
    assert_grads("contact rollout gradient", &c, &contact_gradient(gpu));
}

#[test]
fn contact_scene_runs_on_the_cpu() {
    // The CPU half of the comparisons above, so they are known to run (and
    // to touch) before a GPU sees them.
    let r = contact_results(Device::Cpu);
    assert!(r.iter().all(|x| x.is_finite()), "{r:?}");
    let g = contact_gradient(Device::Cpu);
    assert!(
        g.iter().all(|x| x.is_finite()) && g.iter().any(|x| *x != 0.0),
        "{g:?}"
    );
    println!("contact scene on the CPU: final state {r:?}\ngradient by q̇₀ {g:?}");
}
