//! The committed MuJoCo/Pinocchio reference files (tests/data/references, made by
//! scripts/references/generate.py) parse, have the documented sizes, belong to the
//! robot files as weft-import reads them, and are internally consistent.

use glam::{DQuat, DVec3};
use serde_json::Value;
use weft_import::{ImportOptions, JointKind, Pose, RobotDescription, load};
use weft_testkit::references::{self, reference, repo_root as root, vector};

/// A reference matrix of the documented shape.
fn matrix(v: &Value, rows: usize, cols: usize) -> Vec<Vec<f64>> {
    let m = references::matrix(v);
    assert_eq!(m.len(), rows);
    assert!(m.iter().all(|r| r.len() == cols));
    m
}

/// MuJoCo's forward kinematics over the description: each joint of a body, in
/// order, moves the body frame (see `weft_import::Joint`).
fn forward_kinematics(d: &RobotDescription, q: &[f64]) -> Vec<Pose> {
    let offsets = d.joint_offsets();
    let mut out: Vec<Pose> = Vec::new();
    for b in &d.bodies {
        let parent = b.parent.map_or(Pose::IDENTITY, |p| out[p]);
        let mut x = parent.mul(&b.pose);
        for &j in &b.joints {
            let (joint, k) = (&d.joints[j], offsets[j].0);
            let local = match joint.kind {
                JointKind::Revolute => {
                    let r = DQuat::from_axis_angle(joint.axis, q[k] - joint.reference);
                    Pose::new(joint.anchor - r * joint.anchor, r)
                }
                JointKind::Prismatic => {
                    Pose::new(joint.axis * (q[k] - joint.reference), DQuat::IDENTITY)
                }
                JointKind::Free => {
                    let r = DQuat::from_xyzw(q[k + 4], q[k + 5], q[k + 6], q[k + 3]).normalize();
                    x = Pose::new(DVec3::new(q[k], q[k + 1], q[k + 2]), r);
                    continue;
                }
                other => panic!("{other:?} not in the assets"),
            };
            x = x.mul(&local);
        }
        out.push(x);
    }
    out
}

fn check_model(model: &str, file: &str, states: usize, kinematics: usize, derivatives: usize) {
    let d = load(
        format!("{}/assets/robots/{file}", root()),
        &ImportOptions::default(),
    )
    .unwrap();
    let r = reference(model);
    let (nq, nv) = (d.nq(), d.nv());
    assert_eq!(r["nq"].as_u64(), Some(nq as u64), "{model}");
    assert_eq!(r["nv"].as_u64(), Some(nv as u64), "{model}");
    assert_eq!(
        r["file"].as_str(),
        Some(format!("assets/robots/{file}").as_str())
    );
    assert_eq!(r["timestep"].as_f64(), d.options.timestep);
    // MuJoCo's body and site order is weft-import's.
    let names = |k: &str| -> Vec<String> {
        r[k].as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names("bodies"),
        d.bodies.iter().map(|b| b.name.clone()).collect::<Vec<_>>()
    );
    assert_eq!(
        names("sites"),
        d.sites.iter().map(|s| s.name.clone()).collect::<Vec<_>>()
    );

    let all = r["states"].as_array().unwrap();
    assert_eq!(all.len(), states, "{model}");
    for s in all {
        let (q, qd, tau) = (vector(&s["q"]), vector(&s["qd"]), vector(&s["tau"]));
        let (bias, qdd) = (vector(&s["bias"]), vector(&s["qdd"]));
        assert_eq!(
            (q.len(), qd.len(), tau.len(), bias.len(), qdd.len()),
            (nq, nv, nv, nv, nv)
        );
        let m = matrix(&s["M"], nv, nv);
        // M symmetric, and M qdd + bias = tau to the files' 10 digits.
        let scale = tau.iter().chain(&bias).fold(1.0f64, |a, x| a.max(x.abs()));
        for i in 0..nv {
            let lhs: f64 = (0..nv).map(|j| m[i][j] * qdd[j]).sum::<f64>() + bias[i];
            assert!(
                (lhs - tau[i]).abs() < 1e-7 * scale,
                "{model}: row {i}: {lhs} vs {}",
                tau[i]
            );
            for j in 0..nv {
                assert!((m[i][j] - m[j][i]).abs() <= 1e-9 * m[i][i].abs().max(1.0));
            }
        }
    }

    let kin = r["kinematics"].as_array().unwrap();
    assert_eq!(kin.len(), kinematics, "{model}");
    for k in kin {
        let s = &all[k["state"].as_u64().unwrap() as usize];
        let q = vector(&s["q"]);
        let poses = matrix(&k["body_poses"], d.bodies.len(), 7);
        matrix(&k["site_poses"], d.sites.len(), 7);
        let jacobians = k["site_jacobians"].as_array().unwrap();
        assert_eq!(jacobians.len(), d.sites.len());
        jacobians.iter().for_each(|j| {
            matrix(j, 6, nv);
        });
        // weft-import's reading of the file reproduces MuJoCo's body poses.
        for (b, (mine, theirs)) in forward_kinematics(&d, &q).iter().zip(&poses).enumerate() {
            let pos = DVec3::new(theirs[0], theirs[1], theirs[2]);
            let rot = DQuat::from_xyzw(theirs[4], theirs[5], theirs[6], theirs[3]);
            assert!(
                (mine.pos - pos).length() < 1e-8,
                "{model} body {b}: {} vs {pos}",
                mine.pos
            );
            assert!(mine.rot.dot(rot).abs() > 1.0 - 1e-9, "{model} body {b}");
        }
    }

    let der = r["derivatives"].as_array().unwrap();
    assert_eq!(der.len(), derivatives, "{model}");
    for k in der {
        assert!((k["state"].as_u64().unwrap() as usize) < states);
        for key in ["dqdd_dq", "dqdd_dqd", "dqdd_dtau"] {
            matrix(&k[key], nv, nv);
        }
    }
    for (who, a) in r["agreement_mujoco_vs_pinocchio"].as_object().unwrap() {
        for (what, v) in a.as_object().unwrap() {
            let bound = if what.starts_with("d_") { 1e-5 } else { 1e-9 };
            assert!(v.as_f64().unwrap() <= bound, "{model}: {who} {what} = {v}");
        }
    }
}

fn check_rollouts(model: &str, nq: usize) {
    let r = reference(model);
    for integrator in ["rk4", "euler"] {
        let roll = &r["rollouts"][integrator];
        let (steps, stride) = (
            roll["steps"].as_u64().unwrap() as usize,
            roll["stride"].as_u64().unwrap() as usize,
        );
        assert!(
            (roll["dt"].as_f64().unwrap() * steps as f64 - 1.0).abs() < 1e-12,
            "1 s of simulation"
        );
        matrix(&roll["q"], steps / stride + 1, nq);
        matrix(&roll["qd"], steps / stride + 1, nq);
        assert_eq!(vector(&roll["q"][0]), vector(&r["rollouts"]["q0"]));
    }
}

#[test]
fn cartpole_reference() {
    check_model("cartpole", "cartpole.xml", 100, 20, 20);
}

#[test]
fn double_pendulum_reference_and_rollouts() {
    check_model("double_pendulum", "double_pendulum.xml", 100, 20, 20);
    check_rollouts("double_pendulum", 2);
}

#[test]
fn arm_reference_and_rollouts() {
    check_model("arm7", "arm7.xml", 40, 10, 8);
    check_rollouts("arm7", 7);
}

#[test]
fn ant_reference() {
    check_model("ant", "ant.xml", 15, 4, 3);
}

#[test]
fn humanoid_reference() {
    check_model("humanoid", "humanoid.xml", 5, 2, 2);
}

#[test]
fn reference_files_stay_small() {
    let dir = format!("{}/tests/data/references", root());
    let total: u64 = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(total < 500 * 1024, "{total} bytes in {dir}");
}
