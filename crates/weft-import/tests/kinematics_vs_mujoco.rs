//! Weft's forward kinematics and site Jacobians of the robot assets, loaded
//! with `add_robot`, against MuJoCo's (tests/data/references; Pinocchio
//! agrees there to 2e-15), f32 on the CPU, at every state stored with
//! kinematics.
//!
//! Error measures: body and site positions, the largest distance (m);
//! orientations, the largest `min(|q − r|, |q + r|)` between unit
//! quaternions (≈ half the angle between them, rad); Jacobians, per site
//! `max |J − J_ref| / max |J_ref|` over the 6 × nv entries. Bounds: 1e-6 m and
//! 1e-6 for poses (issue 26's FK bound: f32 rounding of metre-sized
//! coordinates is ~1e-7 per operation), 1e-4 for the Jacobians (its f32 bound).

mod support;

use glam::{DQuat, DVec3, Vec3};
use support::{ROBOTS, Robot, matrix, reference, vector};
use weft_articulation::{ArticulationLayout, eval_fk, eval_jacobian};
use weft_sim::State;

const POSE_TOLERANCE: f64 = 1e-6;
const JACOBIAN_TOLERANCE: f64 = 1e-4;

/// Distance of positions and of rotations (sign-blind) of a Weft pose and a
/// reference pose (x, y, z, qw, qx, qy, qz).
fn pose_error(t: weft::Transform, r: &[f64]) -> (f64, f64) {
    let p = DVec3::new(r[0], r[1], r[2]);
    let q = DQuat::from_xyzw(r[4], r[5], r[6], r[3]).normalize();
    let (tp, tq) = (t.p.as_dvec3(), t.q.as_dquat());
    let dq = (tq - q).length().min((tq + q).length());
    ((tp - p).length(), dq)
}

#[test]
fn body_poses_site_poses_and_jacobians_match_mujoco() {
    let mut failures = Vec::new();
    for (file, name) in ROBOTS {
        let robot = Robot::load(file);
        let r = reference(name);
        let states = r["states"].as_array().unwrap();
        let layout = ArticulationLayout::new(&robot.model).unwrap();
        let (h, d) = (&robot.handles, &robot.description);
        let nv = d.nv();
        let (mut pos, mut rot, mut jac) = (0.0f64, 0.0f64, 0.0f64);
        for k in r["kinematics"].as_array().unwrap() {
            let s = &states[k["state"].as_u64().unwrap() as usize];
            let mut state = State::new(&robot.model).unwrap();
            state.joint_q = robot.q(&vector(&s["q"]));
            eval_fk(&robot.model, &mut state).unwrap();
            let body_q = state.body_q.to_vec();
            for (b, want) in matrix(&k["body_poses"]).iter().enumerate() {
                let (dp, dr) = pose_error(body_q[h.bodies[b]], want);
                (pos, rot) = (pos.max(dp), rot.max(dr));
            }
            let sites = matrix(&k["site_poses"]);
            let jacobians = k["site_jacobians"].as_array().unwrap();
            if d.sites.is_empty() {
                continue; // the URDF arm has no sites
            }
            let all = eval_jacobian(&robot.model, &layout, &state.joint_q)
                .unwrap()
                .to_vec();
            let block = &all[layout.jacobian_range(0)];
            let first_joint = layout.joints(0).start;
            for (i, site) in d.sites.iter().enumerate() {
                let x = h.site_pose(i, &body_q);
                let (dp, dr) = pose_error(x, &sites[i]);
                (pos, rot) = (pos.max(dp), rot.max(dr));
                // The Jacobian of the body's frame origin, moved to the site point.
                let body = h.bodies[site.body.expect("sites on bodies")];
                let row = h.body_joints[site.body.unwrap()] - first_joint;
                let lever: Vec3 = x.p - body_q[body].p;
                let want = matrix(&jacobians[i]);
                let mut got = vec![vec![0.0f64; nv]; 6];
                for c in 0..nv {
                    let col = block[row * nv + c];
                    let lin = col.top + col.bottom.cross(lever);
                    for a in 0..3 {
                        got[a][c] = lin[a] as f64;
                        got[a + 3][c] = col.bottom[a] as f64;
                    }
                }
                jac = jac.max(support::rel_max(
                    &support::flat(&got),
                    &support::flat(&want),
                ));
            }
        }
        println!(
            "{file:<20} body/site positions {pos:.1e} m  rotations {rot:.1e}  site Jacobians {jac:.1e}"
        );
        if pos.is_nan() || rot.is_nan() || pos > POSE_TOLERANCE || rot > POSE_TOLERANCE {
            failures.push(format!("{file}: poses {pos:.2e} m, {rot:.2e}"));
        }
        if jac.is_nan() || jac > JACOBIAN_TOLERANCE {
            failures.push(format!("{file}: Jacobians {jac:.2e}"));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}
