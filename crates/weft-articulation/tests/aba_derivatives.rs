//! `aba_derivatives` (analytic ∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂τ) against the tape's
//! Jacobians of `forward_dynamics` (one reverse pass per degree of freedom,
//! the quaternion entries' gradients chained onto the tangent convention)
//! on random states of trees with every joint kind FeatherstoneSolver
//! supports, with armature and damping; and bad input.
//!
//! Error measure: per matrix, `max |analytic − tape| / max |tape|`.

mod common;

use common::{Rng, random_dofs, random_q};
use glam::{DQuat, DVec3, Quat, Vec3};
use weft::prelude::*;
use weft_articulation::{ArticulationLayout, aba_derivatives, forward_dynamics};
use weft_sim::{JOINT_BALL, JOINT_FREE, Model};

/// The bound on each Jacobian, relative to its largest entry.
const TOLERANCE: f64 = 1e-4;

/// `∂q̈/∂q` (tangent), `∂q̈/∂q̇`, `∂q̈/∂τ` of `forward_dynamics` from the tape:
/// full `nd × nd` matrices over the whole model, row-major, row = q̈ entry.
fn tape_jacobians(model: &Model, q: &[f32], qd: &[f32], tau: &[f32]) -> [Vec<f64>; 3] {
    let layout = ArticulationLayout::new(model).unwrap();
    let nd = model.joint_dof_count();
    let qa = Array::from_vec(Device::Cpu, q.to_vec()).requires_grad();
    let qda = Array::from_vec(Device::Cpu, qd.to_vec()).requires_grad();
    let taua = Array::from_vec(Device::Cpu, tau.to_vec()).requires_grad();
    let mut tape = Tape::new();
    let mut qdd = tape.record(|| forward_dynamics(model, &layout, &qa, &qda, &taua).unwrap());
    let kinds = model.joint_type.to_vec();
    let qs = model.joint_q_start.to_vec();
    let ds = model.joint_qd_start.to_vec();
    let mut out = [vec![0.0; nd * nd], vec![0.0; nd * nd], vec![0.0; nd * nd]];
    for i in 0..nd {
        tape.zero();
        let mut seed = vec![0.0f32; nd];
        seed[i] = 1.0;
        tape.backward_from(&mut qdd, &seed).unwrap();
        let gq: Vec<f64> = qa
            .grad_to_vec()
            .unwrap()
            .iter()
            .map(|&x| x as f64)
            .collect();
        for (c, g) in qda.grad_to_vec().unwrap().iter().enumerate() {
            out[1][i * nd + c] = *g as f64;
        }
        for (c, g) in taua.grad_to_vec().unwrap().iter().enumerate() {
            out[2][i * nd + c] = *g as f64;
        }
        for (j, &kind) in kinds.iter().enumerate() {
            let (s, v, nv) = (qs[j] as usize, ds[j] as usize, (ds[j + 1] - ds[j]) as usize);
            let rot = match kind {
                JOINT_FREE => {
                    for a in 0..3 {
                        out[0][i * nd + v + a] = gq[s + a];
                    }
                    Some((s + 3, v + 3))
                }
                JOINT_BALL => Some((s, v)),
                _ => {
                    for a in 0..nv {
                        out[0][i * nd + v + a] = gq[s + a];
                    }
                    None
                }
            };
            // Rotations: r ⊗ exp(δ/2), ∂r/∂δ_k = ½ r ⊗ (e_k, 0).
            if let Some((s, v)) = rot {
                let r = DQuat::from_xyzw(
                    q[s] as f64,
                    q[s + 1] as f64,
                    q[s + 2] as f64,
                    q[s + 3] as f64,
                );
                for a in 0..3 {
                    let e = DVec3::AXES[a];
                    let t = r * DQuat::from_xyzw(e.x, e.y, e.z, 0.0) * 0.5;
                    out[0][i * nd + v + a] =
                        gq[s] * t.x + gq[s + 1] * t.y + gq[s + 2] * t.z + gq[s + 3] * t.w;
                }
            }
        }
    }
    out
}

/// The analytic Jacobians as full `nd × nd` matrices (the articulations'
/// blocks on the diagonal), and q̈.
fn analytic_jacobians(
    model: &Model,
    q: &[f32],
    qd: &[f32],
    tau: &[f32],
) -> ([Vec<f64>; 3], Vec<f32>) {
    let layout = ArticulationLayout::new(model).unwrap();
    let nd = model.joint_dof_count();
    let at = |x: &[f32]| Array::from_vec(Device::Cpu, x.to_vec());
    let d = aba_derivatives(model, &layout, &at(q), &at(qd), &at(tau)).unwrap();
    let blocks = [
        d.dqdd_dq.to_vec(),
        d.dqdd_dqd.to_vec(),
        d.dqdd_dtau.to_vec(),
    ];
    let mut out = [vec![0.0; nd * nd], vec![0.0; nd * nd], vec![0.0; nd * nd]];
    for a in 0..layout.articulation_count() {
        let dofs = layout.dofs(a);
        let n = dofs.len();
        let m = layout.mass_range(a).start;
        for (o, b) in out.iter_mut().zip(&blocks) {
            for r in 0..n {
                for c in 0..n {
                    o[(dofs.start + r) * nd + dofs.start + c] = b[m + r * n + c] as f64;
                }
            }
        }
    }
    (out, d.qdd.to_vec())
}

/// `max |a − b| / max |b|`.
fn rel_max(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let err = a
        .iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    if err == 0.0 { 0.0 } else { err / scale }
}

/// Armature and damping on every degree of freedom.
fn with_armature_and_damping(mut m: Model) -> Model {
    let n = m.joint_dof_count();
    m.joint_armature =
        Array::from_vec(Device::Cpu, (0..n).map(|i| 0.02 * (i % 4) as f32).collect());
    m.joint_damping = Array::from_vec(
        Device::Cpu,
        (0..n).map(|i| 0.5 + 0.1 * (i % 3) as f32).collect(),
    );
    m
}

/// The mixed tree (free base; revolute, ball, universal, prismatic, D6 and
/// fixed joints; turned, offset frames) and a double pendulum.
fn mixed() -> Model {
    with_armature_and_damping(common::mixed_model(Device::Cpu, 9.81))
}

/// A ball joint at the root with turned frames, carrying a D6 joint of
/// three angles and a slider, then a hinge: rotations everywhere, gravity
/// off the axes.
fn ball_rooted() -> Model {
    let mut b = common::builder(9.81);
    b.gravity = Vec3::new(0.5, -1.0, -9.7);
    let l0 = common::body(
        &mut b,
        1.5,
        Vec3::new(0.1, 0.0, -0.3),
        Vec3::new(0.05, 0.04, 0.02),
    );
    let l1 = common::body(
        &mut b,
        0.8,
        Vec3::new(0.0, 0.05, -0.2),
        Vec3::new(0.02, 0.03, 0.01),
    );
    let l2 = common::body(
        &mut b,
        0.5,
        Vec3::new(0.03, 0.0, 0.1),
        Vec3::new(0.01, 0.01, 0.004),
    );
    let turn = |axis: Vec3, angle: f32, p: Vec3| {
        Transform::new(p, Quat::from_axis_angle(axis.normalize(), angle))
    };
    b.add_joint(weft_sim::JointDesc::ball(-1, l0).with_frames(
        turn(Vec3::new(1.0, 1.0, 0.0), 0.4, Vec3::new(0.0, 0.0, 1.0)),
        turn(Vec3::Z, 0.3, Vec3::new(0.0, 0.1, 0.2)),
    ))
    .unwrap();
    b.add_joint(
        weft_sim::JointDesc::d6(
            l0 as i32,
            l1,
            &[Vec3::new(0.0, 0.3, 1.0)],
            &[Vec3::Z, Vec3::X, Vec3::new(0.0, 1.0, 0.2)],
        )
        .with_frames(
            turn(Vec3::Y, -0.3, Vec3::new(0.1, 0.0, -0.5)),
            turn(Vec3::X, 0.2, Vec3::new(0.0, 0.0, 0.1)),
        ),
    )
    .unwrap();
    b.add_joint(
        weft_sim::JointDesc::revolute(l1 as i32, l2, Vec3::new(1.0, 0.2, 0.0)).with_frames(
            turn(Vec3::Z, 0.5, Vec3::new(0.0, 0.0, -0.3)),
            Transform::IDENTITY,
        ),
    )
    .unwrap();
    with_armature_and_damping(b.finalize(Device::Cpu).unwrap())
}

/// A free base carrying three chains of 12 hinges (42 degrees of freedom:
/// the solve's local column chunks then take two passes).
fn long_tree() -> Model {
    let mut b = common::builder(9.81);
    let base = common::body(
        &mut b,
        3.0,
        Vec3::new(0.0, 0.0, 0.05),
        Vec3::new(0.05, 0.06, 0.04),
    );
    b.add_joint(weft_sim::JointDesc::free(base)).unwrap();
    for (side, axis) in [
        (1.0f32, Vec3::X),
        (-1.0, Vec3::new(0.3, 1.0, 0.0)),
        (0.5, Vec3::Z),
    ] {
        let mut parent = base as i32;
        for k in 0..12 {
            let link = common::body(
                &mut b,
                0.8 - 0.03 * k as f32,
                Vec3::new(0.0, 0.02, -0.05),
                Vec3::new(8e-3, 6e-3, 4e-3),
            );
            let at = Transform::new(
                Vec3::new(0.02 * side, 0.0, -0.1),
                Quat::from_axis_angle(Vec3::new(side, 0.0, 1.0).normalize(), 0.4 * side),
            );
            b.add_joint(
                weft_sim::JointDesc::revolute(parent, link, axis)
                    .with_frames(at, Transform::IDENTITY),
            )
            .unwrap();
            parent = link as i32;
        }
    }
    with_armature_and_damping(b.finalize(Device::Cpu).unwrap())
}

/// A free base with two two-hinge branches, joints added breadth first
/// (its degrees of freedom are not in depth-first order).
fn breadth_first() -> Model {
    let mut b = common::builder(9.81);
    let base = common::body(
        &mut b,
        2.0,
        Vec3::new(0.01, 0.0, 0.02),
        Vec3::new(0.04, 0.05, 0.03),
    );
    let links: Vec<usize> = (0..4)
        .map(|k| {
            common::body(
                &mut b,
                0.7 - 0.1 * k as f32,
                Vec3::new(0.0, 0.03, -0.1),
                Vec3::new(6e-3, 5e-3, 3e-3),
            )
        })
        .collect();
    b.add_joint(weft_sim::JointDesc::free(base)).unwrap();
    let at = |x: f32| Transform::new(Vec3::new(x, 0.0, -0.2), Quat::from_axis_angle(Vec3::Y, x));
    for (parent, child, axis, x) in [
        (base, links[0], Vec3::X, 0.1),
        (base, links[1], Vec3::Y, -0.1),
        (links[0], links[2], Vec3::new(0.0, 1.0, 1.0), 0.2),
        (links[1], links[3], Vec3::Z, -0.3),
    ] {
        b.add_joint(
            weft_sim::JointDesc::revolute(parent as i32, child, axis)
                .with_frames(at(x), Transform::IDENTITY),
        )
        .unwrap();
    }
    with_armature_and_damping(b.finalize(Device::Cpu).unwrap())
}

#[test]
fn analytic_derivatives_match_the_tape() {
    let mut failures = Vec::new();
    for (name, model, states) in [
        ("mixed tree + double pendulum", mixed(), 10),
        ("ball-rooted chain", ball_rooted(), 10),
        ("free base, three 12-hinge chains", long_tree(), 3),
        ("two branches, joints breadth first", breadth_first(), 10),
    ] {
        let layout = ArticulationLayout::new(&model).unwrap();
        let mut rng = Rng(29);
        let mut worst = [0.0f64; 4];
        for _ in 0..states {
            let q = random_q(&model, &mut rng);
            let qd = random_dofs(&model, &mut rng, 2.0);
            let tau = random_dofs(&model, &mut rng, 5.0);
            let tape = tape_jacobians(&model, &q, &qd, &tau);
            let (got, qdd) = analytic_jacobians(&model, &q, &qd, &tau);
            for k in 0..3 {
                worst[k] = worst[k].max(rel_max(&got[k], &tape[k]));
            }
            let at = |x: &[f32]| Array::from_vec(Device::Cpu, x.to_vec());
            let want: Vec<f64> = forward_dynamics(&model, &layout, &at(&q), &at(&qd), &at(&tau))
                .unwrap()
                .to_vec()
                .iter()
                .map(|&x| x as f64)
                .collect();
            let qdd: Vec<f64> = qdd.iter().map(|&x| x as f64).collect();
            worst[3] = worst[3].max(rel_max(&qdd, &want));
        }
        println!(
            "{name}: analytic vs tape, {states} random states: dqdd/dq {:.1e}  dqdd/dqd {:.1e}  dqdd/dtau {:.1e}  (q̈ {:.1e})",
            worst[0], worst[1], worst[2], worst[3]
        );
        for (what, e) in ["d/dq", "d/dqd", "d/dtau", "qdd"].into_iter().zip(worst) {
            if e.is_nan() || e > TOLERANCE {
                failures.push(format!("{name}: {what} {e:.2e} > {TOLERANCE:.0e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

#[test]
fn the_kernel_has_ptx() {
    // One thread per articulation updating its scratch in place: no adjoint
    // (it refuses to run on a tape), but CUDA code.
    use weft_articulation::aba_derivatives::aba_derivatives_tree;
    let ptx = aba_derivatives_tree::PTX.unwrap_or_else(|e| panic!("no PTX: {e}"));
    assert!(ptx.contains(".entry"), "{}", &ptx[..ptx.len().min(200)]);
    assert!(aba_derivatives_tree::ADJOINT_PTX.is_err());
}

#[test]
fn bad_input_is_refused_with_the_reason() {
    let model = mixed();
    let layout = ArticulationLayout::new(&model).unwrap();
    let (nq, nd) = (model.joint_coord_count(), model.joint_dof_count());
    let zeros = |n: usize| Array::<f32>::zeros(Device::Cpu, [n]);
    let q = Array::from_vec(Device::Cpu, model.joint_q.to_vec());
    let err = |r: Result<_, weft_sim::SimError>| match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    let e = err(aba_derivatives(
        &model,
        &layout,
        &zeros(nq - 1),
        &zeros(nd),
        &zeros(nd),
    ));
    assert!(
        e.contains("joint_q ") && e.contains(&format!("{}", nq - 1)),
        "{e}"
    );
    let e = err(aba_derivatives(
        &model,
        &layout,
        &q,
        &zeros(nd + 2),
        &zeros(nd),
    ));
    assert!(
        e.contains("joint_qd") && e.contains(&format!("{}", nd + 2)),
        "{e}"
    );
    let e = err(aba_derivatives(&model, &layout, &q, &zeros(nd), &zeros(3)));
    assert!(e.contains("tau holds 3"), "{e}");
    let other = common::pendulum(Device::Cpu, 1.0, 0.1, 1.0, 0.0);
    let e = err(aba_derivatives(
        &model,
        &ArticulationLayout::new(&other).unwrap(),
        &q,
        &zeros(nd),
        &zeros(nd),
    ));
    assert!(e.contains("layout"), "{e}");
    let mut tape = Tape::new();
    let e = tape.record(|| err(aba_derivatives(&model, &layout, &q, &zeros(nd), &zeros(nd))));
    assert!(e.contains("tape"), "{e}");
    println!("refused: {e}");
}
