//! Derivatives of Weft's forward dynamics q̈(q, q̇, τ), from the tape, against
//! Pinocchio's analytical ABA derivatives (tests/data/references, in MuJoCo's
//! coordinates; they agree with MuJoCo's finite differences to 1e-7), for the
//! robot assets loaded with `add_robot`, f32 on the CPU.
//!
//! `d/dq` is along MuJoCo's tangent perturbation: hinge and slide
//! coordinates directly, a free joint's position in world axes, its rotation
//! as a body-frame rotation vector `δ` (quaternion `r ⊗ exp(δ/2)`, so
//! `∂r/∂δ_k = ½ r ⊗ (e_k, 0)`), chained onto the tape's gradient with
//! respect to Weft's four quaternion entries.
//!
//! Error measure: per matrix, `max |weft − ref| / max |ref|`; the worst over
//! the stored states is printed per robot and must be ≤ 1e-4 (issue 26).

mod support;

use glam::{DQuat, DVec3};
use support::{ROBOTS, Robot, flat, matrix, reference, rel_max, vector};
use weft::{Array, Device, Tape};
use weft_articulation::{ArticulationLayout, forward_dynamics};
use weft_import::JointKind;

const TOLERANCE: f64 = 1e-4;

/// The bound for `what` of `file`: the for every robot. (Before
/// weft-articulation moved its algebra from the world origin into body frames
/// and its bias forces to classical accelerations, the arm's ∂q̈/∂q was
/// 2.7e-3 and the cartpole's ∂q̈/∂q̇ 9.5e-4; now 1.6e-5 and 6.8e-6.)
fn bound(_file: &str, _what: &str) -> f64 {
    TOLERANCE
}

/// The three Jacobians `∂q̈/∂q` (tangent, nv × nv), `∂q̈/∂q̇`, `∂q̈/∂τ`, rows
/// = q̈ entries, row-major.
fn tape_derivatives(robot: &Robot, qpos: &[f64], qvel: &[f64], tau: &[f64]) -> [Vec<f64>; 3] {
    let model = &robot.model;
    let layout = ArticulationLayout::new(model).unwrap();
    let q = robot.q(qpos).requires_grad();
    let qd = robot.qd(qvel).requires_grad();
    let tau = Array::from_vec(Device::Cpu, tau.iter().map(|&x| x as f32).collect()).requires_grad();
    let mut tape = Tape::new();
    let mut qdd = tape.record(|| forward_dynamics(model, &layout, &q, &qd, &tau).unwrap());
    let (nq, nv) = (qpos.len(), qvel.len());
    let (mut dq, mut dqd, mut dtau) = (vec![0.0; nv * nv], vec![0.0; nv * nv], vec![0.0; nv * nv]);
    let h = &robot.handles;
    for i in 0..nv {
        tape.zero();
        let mut seed = vec![0.0f32; nv];
        seed[i] = 1.0;
        tape.backward_from(&mut qdd, &seed).unwrap();
        let gq: Vec<f64> = q.grad_to_vec().unwrap().iter().map(|&x| x as f64).collect();
        assert_eq!(gq.len(), nq);
        for (c, g) in qd.grad_to_vec().unwrap().iter().enumerate() {
            dqd[i * nv + c] = *g as f64;
        }
        for (c, g) in tau.grad_to_vec().unwrap().iter().enumerate() {
            dtau[i * nv + c] = *g as f64;
        }
        // Tangent derivatives, joint by joint.
        for (j, kind) in robot.description.joints.iter().map(|j| j.kind).enumerate() {
            let (s, v) = (h.q_start[j], h.qd_start[j]);
            match kind {
                JointKind::Revolute | JointKind::Prismatic => dq[i * nv + v] = gq[s],
                JointKind::Free => {
                    for a in 0..3 {
                        dq[i * nv + v + a] = gq[s + a];
                    }
                    let weft_q = h.weft_q(qpos);
                    let r = DQuat::from_xyzw(
                        weft_q[s + 3] as f64,
                        weft_q[s + 4] as f64,
                        weft_q[s + 5] as f64,
                        weft_q[s + 6] as f64,
                    );
                    for a in 0..3 {
                        let e = DVec3::AXES[a];
                        let t = r * DQuat::from_xyzw(e.x, e.y, e.z, 0.0) * 0.5;
                        dq[i * nv + v + 3 + a] =
                            gq[s + 3] * t.x + gq[s + 4] * t.y + gq[s + 5] * t.z + gq[s + 6] * t.w;
                    }
                }
                JointKind::Fixed => {}
                other => panic!("{other:?}: not in the assets"),
            }
        }
    }
    [dq, dqd, dtau]
}

#[test]
fn tape_derivatives_of_forward_dynamics_match_pinocchio() {
    let mut failures = Vec::new();
    for (file, name) in ROBOTS {
        let robot = Robot::load(file);
        let r = reference(name);
        let states = r["states"].as_array().unwrap();
        let mut worst = [0.0f64; 3];
        for k in r["derivatives"].as_array().unwrap() {
            let s = &states[k["state"].as_u64().unwrap() as usize];
            let got = tape_derivatives(
                &robot,
                &vector(&s["q"]),
                &vector(&s["qd"]),
                &vector(&s["tau"]),
            );
            for (w, (g, key)) in
                worst
                    .iter_mut()
                    .zip(got.iter().zip(["dqdd_dq", "dqdd_dqd", "dqdd_dtau"]))
            {
                *w = w.max(rel_max(g, &flat(&matrix(&k[key]))));
            }
        }
        println!(
            "{file:<20} dqdd/dq {:.1e}  dqdd/dqd {:.1e}  dqdd/dtau {:.1e}",
            worst[0], worst[1], worst[2]
        );
        for (what, e) in ["d/dq", "d/dqd", "d/dtau"].into_iter().zip(worst) {
            if e.is_nan() || e > bound(file, what) {
                failures.push(format!(
                    "{file}: {what} {e:.2e} > {:.0e}",
                    bound(file, what)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}
