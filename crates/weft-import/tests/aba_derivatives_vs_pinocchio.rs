//! Weft's analytic derivatives of forward dynamics (`aba_derivatives`)
//! against Pinocchio's analytical ABA derivatives (tests/data/references,
//! in MuJoCo's coordinates), for the robot assets loaded with `add_robot`,
//! f32 on the CPU: the same references, states and measure as
//! `derivatives_vs_pinocchio.rs` (which checks the tape's Jacobians).
//!
//! `d/dq` is along MuJoCo's tangent perturbation (hinge and slide
//! coordinates directly, a free joint's position in world axes, its rotation
//! as a body-frame rotation vector), which is `aba_derivatives`' own
//! convention for these files (free joints at the root with identity
//! frames), so no conversion is needed: each robot is one articulation whose
//! degrees of freedom are MuJoCo's, in MuJoCo's order.
//!
//! Error measure: per matrix, `max |weft − ref| / max |ref|`; the worst over
//! the stored states is printed per robot and must be ≤ 1e-4 (issue 26).

mod support;

use support::{ROBOTS, Robot, flat, matrix, reference, rel_max, to_f64, vector};
use weft::{Array, Device};
use weft_articulation::{ArticulationLayout, aba_derivatives};

const TOLERANCE: f64 = 1e-4;

#[test]
fn analytic_derivatives_of_forward_dynamics_match_pinocchio() {
    let mut failures = Vec::new();
    for (file, name) in ROBOTS {
        let robot = Robot::load(file);
        let model = &robot.model;
        let layout = ArticulationLayout::new(model).unwrap();
        assert_eq!(layout.articulation_count(), 1, "{file}: one articulation");
        let r = reference(name);
        let states = r["states"].as_array().unwrap();
        let mut worst = [0.0f64; 3];
        let mut count = 0;
        for k in r["derivatives"].as_array().unwrap() {
            let s = &states[k["state"].as_u64().unwrap() as usize];
            let tau: Vec<f32> = vector(&s["tau"]).iter().map(|&x| x as f32).collect();
            let d = aba_derivatives(
                model,
                &layout,
                &robot.q(&vector(&s["q"])),
                &robot.qd(&vector(&s["qd"])),
                &Array::from_vec(Device::Cpu, tau),
            )
            .unwrap();
            let got = [d.dqdd_dq, d.dqdd_dqd, d.dqdd_dtau].map(|a| to_f64(&a.to_vec()));
            for (w, (g, key)) in
                worst
                    .iter_mut()
                    .zip(got.iter().zip(["dqdd_dq", "dqdd_dqd", "dqdd_dtau"]))
            {
                *w = w.max(rel_max(g, &flat(&matrix(&k[key]))));
            }
            count += 1;
        }
        assert!(count > 0, "{file}: no reference derivatives");
        println!(
            "{file:<20} ({count} states) dqdd/dq {:.1e}  dqdd/dqd {:.1e}  dqdd/dtau {:.1e}",
            worst[0], worst[1], worst[2]
        );
        for (what, e) in ["d/dq", "d/dqd", "d/dtau"].into_iter().zip(worst) {
            if e.is_nan() || e > TOLERANCE {
                failures.push(format!("{file}: {what} {e:.2e} > {TOLERANCE:.0e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}
