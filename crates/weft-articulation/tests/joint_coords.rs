//! `eval_ik` (joint coordinates and velocities from body poses and
//! velocities) as the inverse of `eval_fk`: round trips on random states of
//! every joint kind, the branch nearest the current coordinates, and bad
//! input.

mod common;

use common::{Rng, body, builder, mixed_model, random_dofs, random_q};
use glam::{Quat, Vec3};
use weft::{Array, Device, Transform};
use weft_articulation::{eval_fk, eval_ik};
use weft_sim::{JointDesc, Model, ModelBuilder, State};

/// A free base carrying a D6 joint with three linear and three angular axes
/// (not orthogonal), a universal joint with oblique axes and a hinge.
fn d6_model() -> Model {
    let mut b: ModelBuilder = builder(9.81);
    let base = body(&mut b, 2.0, Vec3::new(0.1, 0.0, 0.0), Vec3::splat(0.1));
    let l1 = body(&mut b, 1.0, Vec3::new(0.0, 0.1, 0.0), Vec3::splat(0.02));
    let l2 = body(&mut b, 0.5, Vec3::new(0.0, 0.0, 0.1), Vec3::splat(0.01));
    let l3 = body(&mut b, 0.3, Vec3::new(0.05, 0.0, 0.0), Vec3::splat(0.005));
    let at = |p: Vec3, axis: Vec3, angle: f32| {
        Transform::new(p, Quat::from_axis_angle(axis.normalize(), angle))
    };
    b.add_joint(JointDesc::free(base)).unwrap();
    b.add_joint(
        JointDesc::d6(
            base as i32,
            l1,
            &[Vec3::X, Vec3::new(0.3, 1.0, 0.0), Vec3::Z],
            &[Vec3::Z, Vec3::new(1.0, 0.2, 0.0), Vec3::new(0.0, 0.3, 1.0)],
        )
        .with_frames(
            at(Vec3::new(0.2, 0.0, 0.1), Vec3::Y, 0.4),
            at(Vec3::new(0.0, -0.1, 0.0), Vec3::X, -0.3),
        ),
    )
    .unwrap();
    b.add_joint(
        JointDesc::universal(l1 as i32, l2, Vec3::new(1.0, 0.0, 0.3), Vec3::Y).with_frames(
            at(Vec3::new(0.0, 0.3, 0.0), Vec3::Z, 0.2),
            at(Vec3::new(0.0, 0.0, -0.05), Vec3::Y, 0.1),
        ),
    )
    .unwrap();
    b.add_joint(
        JointDesc::revolute(l2 as i32, l3, Vec3::new(0.0, 1.0, 1.0)).with_frames(
            at(Vec3::new(0.0, 0.0, 0.2), Vec3::X, 0.5),
            Transform::IDENTITY,
        ),
    )
    .unwrap();
    b.finalize(Device::Cpu).unwrap()
}

/// Joint kind of each coordinate: whether it is a quaternion entry (compared
/// up to sign, per quaternion).
fn quaternion_entries(model: &Model) -> Vec<bool> {
    let kinds = model.joint_type.to_vec();
    let qs = model.joint_q_start.to_vec();
    let mut out = vec![false; model.joint_coord_count()];
    for (j, &k) in kinds.iter().enumerate() {
        let s = match k {
            weft_sim::JOINT_BALL => qs[j] as usize,
            weft_sim::JOINT_FREE => qs[j] as usize + 3,
            _ => continue,
        };
        out[s..s + 4].iter_mut().for_each(|x| *x = true);
    }
    out
}

/// Worst coordinate and velocity error of `eval_ik(eval_fk(q, qd))` over
/// `n` random states, quaternions compared up to sign; the reference
/// coordinates `eval_ik` starts from are `start(q)`.
fn round_trip(
    model: &Model,
    n: usize,
    seed: u64,
    start: impl Fn(&[f32]) -> Vec<f32>,
) -> (f32, f32) {
    let mut rng = Rng(seed);
    let quat = quaternion_entries(model);
    let mut state = State::new(model).unwrap();
    let (mut wq, mut wqd) = (0.0f32, 0.0f32);
    for _ in 0..n {
        let q = random_q(model, &mut rng);
        let qd = random_dofs(model, &mut rng, 2.0);
        state.joint_q = Array::from_slice(Device::Cpu, &q);
        state.joint_qd = Array::from_slice(Device::Cpu, &qd);
        eval_fk(model, &mut state).unwrap();
        state.joint_q = Array::from_vec(Device::Cpu, start(&q));
        state.joint_qd = Array::zeros(Device::Cpu, [qd.len()]);
        eval_ik(model, &mut state).unwrap();
        let (got, got_d) = (state.joint_q.to_vec(), state.joint_qd.to_vec());
        let mut k = 0;
        while k < q.len() {
            if quat[k] {
                let (a, b) = (&got[k..k + 4], &q[k..k + 4]);
                let plus = (0..4).map(|i| (a[i] - b[i]).abs()).fold(0.0, f32::max);
                let minus = (0..4).map(|i| (a[i] + b[i]).abs()).fold(0.0, f32::max);
                wq = wq.max(plus.min(minus));
                k += 4;
            } else {
                wq = wq.max((got[k] - q[k]).abs());
                k += 1;
            }
        }
        for (a, b) in got_d.iter().zip(&qd) {
            wqd = wqd.max((a - b).abs());
        }
    }
    (wq, wqd)
}

#[test]
fn eval_ik_inverts_eval_fk_for_every_joint_kind() {
    // From the model's initial coordinates (angles 0, identity quaternions):
    // random angles in (−1, 1) are the nearest branch.
    for (name, model) in [
        (
            "mixed tree + double pendulum",
            mixed_model(Device::Cpu, 9.81),
        ),
        ("free + 3×3 D6 + universal + hinge", d6_model()),
    ] {
        let initial = model.joint_q.to_vec();
        let (wq, wqd) = round_trip(&model, 50, 7, |_| initial.clone());
        println!("{name}: eval_ik(eval_fk(q, q̇)) worst |Δq| {wq:.1e}, |Δq̇| {wqd:.1e}");
        assert!(wq < 2e-5, "{name}: coordinates {wq}");
        assert!(wqd < 1e-4, "{name}: velocities {wqd}");
    }
}

#[test]
fn eval_ik_returns_the_branch_nearest_the_current_coordinates() {
    // Angles far from 0 (several turns): eval_ik from a reference near them
    // finds them, not their value in (−π, π].
    let model = d6_model();
    let quat = quaternion_entries(&model);
    let turns = |q: &[f32]| -> Vec<f32> {
        q.iter()
            .zip(&quat)
            .enumerate()
            .map(|(i, (&x, &is_quat))| {
                if is_quat || i < 10 {
                    // quaternions, the free base's position and the D6 offsets
                    x
                } else {
                    x + 6.2831855 * (i as f32 % 3.0 - 1.0) * 2.0
                }
            })
            .collect()
    };
    // The reference is the wound-up coordinates plus noise: the result must
    // be them (the round trip compares with `q`, so wind `q` first).
    let mut rng = Rng(99);
    let mut state = State::new(&model).unwrap();
    let mut worst = 0.0f32;
    for _ in 0..20 {
        let q = turns(&random_q(&model, &mut rng));
        state.joint_q = Array::from_slice(Device::Cpu, &q);
        state.joint_qd = Array::zeros(Device::Cpu, [model.joint_dof_count()]);
        eval_fk(&model, &mut state).unwrap();
        let near: Vec<f32> = q
            .iter()
            .zip(&quat)
            .map(|(&x, &is_quat)| if is_quat { x } else { x + rng.range(-0.3, 0.3) })
            .collect();
        state.joint_q = Array::from_vec(Device::Cpu, near);
        eval_ik(&model, &mut state).unwrap();
        for (k, (a, b)) in state.joint_q.to_vec().iter().zip(&q).enumerate() {
            if !quat[k] {
                worst = worst.max((a - b).abs());
            }
        }
    }
    println!("wound-up angles recovered to {worst:.1e}");
    assert!(worst < 1e-4, "{worst}");
}

#[test]
fn eval_ik_refuses_states_of_another_shape() {
    let model = mixed_model(Device::Cpu, 9.81);
    let mut state = State::new(&model).unwrap();
    state.body_q = Array::zeros(Device::Cpu, [model.body_count() - 1]);
    let e = eval_ik(&model, &mut state).unwrap_err().to_string();
    assert!(e.contains("body_q"), "{e}");
    let mut state = State::new(&model).unwrap();
    state.joint_q = Array::zeros(Device::Cpu, [3]);
    let e = eval_ik(&model, &mut state).unwrap_err().to_string();
    assert!(e.contains("joint_q"), "{e}");
}
