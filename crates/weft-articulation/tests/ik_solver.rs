//! The batched damped least-squares `IkSolver` on a 7-DoF arm (the
//! kinematics and limits of assets/robots/arm7.urdf): reachable position and
//! pose targets to < 1e-4 m, an unreachable target ending at the closest
//! reachable point without NaN, joint limits kept, bad input refused.

mod common;

use common::{Rng, body, builder};
use glam::{EulerRot, Quat, Vec3};
use weft::{Array, Device, Transform};
use weft_articulation::{IkSolver, IkTarget, eval_fk};
use weft_sim::{JointDesc, Model, State};

/// The hand's point on link 7 (the URDF's `ee_joint` origin).
const HAND: Vec3 = Vec3::new(0.0, 0.0, 0.12);

/// The 7-DoF arm of assets/robots/arm7.urdf (joint origins, axes and limits;
/// its links' masses with diagonal inertias), on a fixed base at the origin.
/// Returns the model and the last link's body.
fn arm7() -> (Model, usize) {
    // (origin xyz, rpy, lower, upper) of joints 1..7, each about its Z.
    let joints: [([f32; 3], [f32; 3], f32, f32); 7] = [
        ([0.0, 0.0, 0.3], [0.0, 0.0, 0.0], -2.8, 2.8),
        ([0.0, 0.0, 0.0], [-1.5707964, 0.0, 0.0], -1.7, 1.7),
        ([0.0, -0.35, 0.0], [1.5707964, 0.0, 0.0], -2.8, 2.8),
        ([0.08, 0.0, 0.0], [1.5707964, 0.0, 0.0], -3.0, -0.1),
        ([-0.08, 0.35, 0.0], [-1.5707964, 0.0, 0.0], -2.8, 2.8),
        ([0.0, 0.0, 0.0], [1.5707964, 0.0, 0.0], -0.1, 3.7),
        ([0.09, 0.0, 0.0], [1.5707964, 0.0, 0.0], -2.8, 2.8),
    ];
    let masses = [1.81, 3.89, 1.22, 2.67, 1.07, 0.58, 0.62];
    let mut b = builder(9.81);
    let mut parent = -1i32;
    let mut last = 0;
    for (k, (xyz, rpy, lo, hi)) in joints.into_iter().enumerate() {
        let link = body(&mut b, masses[k], Vec3::ZERO, Vec3::splat(0.01));
        let frame = Transform::new(
            Vec3::from(xyz),
            Quat::from_euler(EulerRot::ZYX, rpy[2], rpy[1], rpy[0]),
        );
        let mut j =
            JointDesc::revolute(parent, link, Vec3::Z).with_frames(frame, Transform::IDENTITY);
        j.angular[0] = j.angular[0].with_limits(lo, hi);
        b.add_joint(j).unwrap();
        parent = link as i32;
        last = link;
    }
    (b.finalize(Device::Cpu).unwrap(), last)
}

/// The hand's pose (point `HAND` of `link`, orientation of `link`) at `q`.
fn hand_pose(model: &Model, link: usize, q: &[f32]) -> (Vec3, Quat) {
    let mut s = State::new(model).unwrap();
    s.joint_q = Array::from_slice(Device::Cpu, q);
    eval_fk(model, &mut s).unwrap();
    let x = s.body_q.to_vec()[link];
    (x.p + x.q * HAND, x.q)
}

/// Random coordinates inside the arm's limits.
fn random_inside(model: &Model, rng: &mut Rng) -> Vec<f32> {
    let (lo, hi) = (
        model.joint_limit_lower.to_vec(),
        model.joint_limit_upper.to_vec(),
    );
    lo.iter()
        .zip(&hi)
        .map(|(&a, &b)| rng.range(a + 0.1, b - 0.1))
        .collect()
}

#[test]
fn arm_reaches_reachable_position_and_pose_targets() {
    let (model, link) = arm7();
    let n = 16;
    let mut rng = Rng(2026);
    let goals: Vec<Vec<f32>> = (0..n).map(|_| random_inside(&model, &mut rng)).collect();
    let (positions, orientations): (Vec<Vec3>, Vec<Quat>) =
        goals.iter().map(|g| hand_pose(&model, link, g)).unzip();
    // Position targets: every problem from the same bent pose. Pose targets
    // (six equations for seven joints): from the goal's coordinates moved by
    // up to 0.4 rad each, as a tracking controller would start.
    let bent: Vec<f32> = [0.0, 0.3, 0.0, -1.5, 0.0, 1.8, 0.0].repeat(n);
    let (lo, hi) = (
        model.joint_limit_lower.to_vec(),
        model.joint_limit_upper.to_vec(),
    );
    let near: Vec<f32> = goals
        .iter()
        .flat_map(|g| {
            g.iter()
                .enumerate()
                .map(|(i, &x)| (x + rng.range(-0.4, 0.4)).clamp(lo[i], hi[i]))
                .collect::<Vec<_>>()
        })
        .collect();
    for (what, target, start) in [
        ("position", IkTarget::position(link, HAND), bent),
        ("pose", IkTarget::pose(link, HAND), near),
    ] {
        let mut ik = IkSolver::new(&model, n, &[target]).unwrap();
        ik.iterations = 200;
        let mut q = Array::from_vec(Device::Cpu, start);
        ik.solve(
            &model,
            &mut q,
            &Array::from_slice(Device::Cpu, &positions),
            &Array::from_slice(Device::Cpu, &orientations),
        )
        .unwrap();
        let q = q.to_vec();
        let (mut wp, mut wr) = (0.0f32, 0.0f32);
        for p in 0..n {
            let qp = &q[p * 7..p * 7 + 7];
            assert!(qp.iter().all(|x| x.is_finite()), "{what}: {qp:?}");
            for i in 0..7 {
                assert!(qp[i] >= lo[i] && qp[i] <= hi[i], "{what}: q{i} = {}", qp[i]);
            }
            let (x, r) = hand_pose(&model, link, qp);
            wp = wp.max((x - positions[p]).length());
            let d = r * orientations[p].conjugate();
            wr = wr.max(2.0 * d.xyz().length().atan2(d.w.abs()));
        }
        println!("arm7 {what} targets, {n} problems: worst position error {wp:.1e} m");
        assert!(wp < 1e-4, "{what}: {wp}");
        if target.orientation {
            println!("arm7 {what} targets: worst orientation error {wr:.1e} rad");
            assert!(wr < 1e-4, "{what}: {wr}");
        }
    }
}

#[test]
fn unreachable_target_ends_at_the_closest_reachable_point() {
    let (model, link) = arm7();
    // 3 m from the shoulder: out of reach (the arm is about 1.1 m long).
    let goal = Vec3::new(2.0, 1.0, 2.5);
    let mut ik = IkSolver::new(&model, 1, &[IkTarget::position(link, HAND)]).unwrap();
    ik.iterations = 300;
    let mut q = Array::from_vec(Device::Cpu, vec![0.0, 0.3, 0.0, -1.5, 0.0, 1.8, 0.0]);
    ik.solve(
        &model,
        &mut q,
        &Array::from_slice(Device::Cpu, &[goal]),
        &Array::from_vec(Device::Cpu, vec![]),
    )
    .unwrap();
    let q = q.to_vec();
    assert!(q.iter().all(|x| x.is_finite()), "{q:?}");
    let got = (hand_pose(&model, link, &q).0 - goal).length();
    // No sampled configuration inside the limits comes closer.
    let mut rng = Rng(5);
    let best = (0..4000)
        .map(|_| (hand_pose(&model, link, &random_inside(&model, &mut rng)).0 - goal).length())
        .fold(f32::INFINITY, f32::min);
    // The closest point of the reachable set faces the goal: the shoulder
    // (joint 2's origin, 0.3 m up), the hand and the goal are in a line.
    let shoulder = Vec3::new(0.0, 0.0, 0.3);
    let hand = hand_pose(&model, link, &q).0;
    let off_line = (hand - shoulder)
        .normalize()
        .cross((goal - shoulder).normalize())
        .length();
    println!(
        "unreachable goal: distance {got:.4} m (best of 4000 samples {best:.4} m), hand off the shoulder–goal line by {off_line:.1e}"
    );
    assert!(got <= best + 1e-4, "{got} > {best}");
    assert!(off_line < 1e-3, "{off_line}");
}

#[test]
fn ik_solver_writes_into_the_callers_array() {
    // A state's joint_q shared with the solver's q sees the result, whatever
    // the number of iterations.
    let (model, link) = arm7();
    let goal = hand_pose(&model, link, &[0.3, 0.5, -0.2, -1.2, 0.1, 1.5, 0.4]).0;
    for iterations in [1, 40, 41] {
        let mut ik = IkSolver::new(&model, 1, &[IkTarget::position(link, HAND)]).unwrap();
        ik.iterations = iterations;
        let mut state = State::new(&model).unwrap();
        state.joint_q = Array::from_vec(Device::Cpu, vec![0.0, 0.3, 0.0, -1.5, 0.0, 1.8, 0.0]);
        let mut q = state.joint_q.share();
        ik.solve(
            &model,
            &mut q,
            &Array::from_slice(Device::Cpu, &[goal]),
            &Array::from_vec(Device::Cpu, vec![]),
        )
        .unwrap();
        assert_eq!(
            state.joint_q.to_vec(),
            q.to_vec(),
            "{iterations} iterations"
        );
        if iterations > 1 {
            let err = (hand_pose(&model, link, &state.joint_q.to_vec()).0 - goal).length();
            assert!(err < 1e-4, "{iterations} iterations: {err}");
        }
    }
}

#[test]
fn ik_solver_refuses_bad_input() {
    let (model, link) = arm7();
    let e = |r: Result<IkSolver, weft_sim::SimError>| r.err().map(|e| e.to_string());
    let msg = e(IkSolver::new(
        &model,
        2,
        &[IkTarget::position(99, Vec3::ZERO)],
    ))
    .unwrap();
    assert!(msg.contains("body 99 out of range"), "{msg}");
    assert!(e(IkSolver::new(&model, 0, &[IkTarget::position(link, HAND)])).is_some());
    assert!(e(IkSolver::new(&model, 1, &[])).is_some());
    let mut ik = IkSolver::new(&model, 2, &[IkTarget::pose(link, HAND)]).unwrap();
    let positions = Array::from_vec(Device::Cpu, vec![Vec3::ZERO; 2]);
    let orientations = Array::from_vec(Device::Cpu, vec![Quat::IDENTITY; 2]);
    // q for one problem instead of two.
    let mut q = Array::from_vec(Device::Cpu, vec![0.0f32; 7]);
    let msg = ik
        .solve(&model, &mut q, &positions, &orientations)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("q holds 7 values"), "{msg}");
    // Orientations missing for a pose target.
    let mut q = Array::from_vec(Device::Cpu, vec![0.0f32; 14]);
    let msg = ik
        .solve(
            &model,
            &mut q,
            &positions,
            &Array::from_vec(Device::Cpu, vec![]),
        )
        .unwrap_err()
        .to_string();
    assert!(msg.contains("orientations"), "{msg}");
    ik.damping = f32::NAN;
    assert!(ik.solve(&model, &mut q, &positions, &orientations).is_err());
}
