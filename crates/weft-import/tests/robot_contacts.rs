//! Robots from assets/robots standing on their floor under
//! `FeatherstoneSolver`'s link contacts: the ant, its hinges held by PD
//! drives at the middle of their ranges, dropped from its file's pose onto
//! the file's plane, stands for 2 s.

use weft::{Array, Device, Transform};
use weft_articulation::FeatherstoneSolver;
use weft_import::{ImportOptions, RobotOptions, add_robot, load};
use weft_sim::{Control, ModelBuilder, State};

#[test]
fn ant_stands_on_the_plane() {
    let path = format!("{}/../../assets/robots/ant.xml", env!("CARGO_MANIFEST_DIR"));
    let robot = load(&path, &ImportOptions::default()).unwrap();
    let mut b = ModelBuilder::new();
    b.ground = None; // the file has its floor
    b.gravity = robot.options.gravity.as_vec3();
    let h = add_robot(
        &mut b,
        &robot,
        Transform::IDENTITY,
        &RobotOptions::default(),
    )
    .unwrap();
    let mut model = b.finalize(Device::Cpu).unwrap();
    // Drives on every hinge (the file has motors only), holding the middle
    // of each hinge's range.
    let nd = model.joint_dof_count();
    let (lower, upper) = (
        model.joint_limit_lower.to_vec(),
        model.joint_limit_upper.to_vec(),
    );
    let (mut ke, mut kd, mut target, mut limit) = (
        model.joint_target_ke.to_vec(),
        model.joint_target_kd.to_vec(),
        model.joint_target_pos.to_vec(),
        model.joint_effort_limit.to_vec(),
    );
    for d in 6..nd {
        ke[d] = 300.0;
        kd[d] = 20.0;
        target[d] = 0.5 * (lower[d] + upper[d]);
        limit[d] = 1.0e6;
    }
    model.joint_target_ke = Array::from_vec(Device::Cpu, ke);
    model.joint_target_kd = Array::from_vec(Device::Cpu, kd);
    model.joint_target_pos = Array::from_vec(Device::Cpu, target);
    model.joint_effort_limit = Array::from_vec(Device::Cpu, limit);
    let control = Control::new(&model).unwrap();
    let torso = h.bodies[0];
    let mut solver = FeatherstoneSolver::new(&model).unwrap();
    let (mut s, mut next) = (State::new(&model).unwrap(), State::new(&model).unwrap());
    let dt = 1e-3;
    let (settle, stand) = (500, 2000);
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    let mut start = None;
    let mut first_contact = None;
    for k in 1..=settle + stand {
        solver.step(&model, &s, &mut next, &control, dt).unwrap();
        std::mem::swap(&mut s, &mut next);
        let q = s.joint_q.to_vec();
        assert!(q.iter().all(|x| x.is_finite()), "NaN at step {k}");
        let p = s.body_q.to_vec()[torso].p;
        if first_contact.is_none() && solver.contact_report().unwrap().found > 0 {
            first_contact = Some(k);
        }
        if k == settle {
            start = Some(p);
        }
        if k > settle {
            lo = lo.min(p.z);
            hi = hi.max(p.z);
        }
    }
    let report = solver.contact_report().unwrap();
    let end = s.body_q.to_vec()[torso].p;
    let drift = (end - start.unwrap()).truncate().length();
    println!(
        "ant, drives at mid-range, 2 s after 0.5 s settling (dt 1 ms): torso z in [{lo:.4}, {hi:.4}] m, horizontal drift {drift:.2e} m; {report:?}; first contact at step {first_contact:?}"
    );
    assert_eq!(report.overflow + report.pair_overflow, 0);
    assert!(report.found >= 4, "the feet touch: {report:?}");
    // Standing: the torso (radius 0.25) well off the floor, legs bent by
    // the drives, and steady.
    assert!(lo > 0.3 && hi < 0.75, "torso z in [{lo}, {hi}]");
    assert!(hi - lo < 0.02, "torso z in [{lo}, {hi}]");
    assert!(drift < 0.05, "{drift}");
}
