//! The ant's trot of `examples/quadruped.rs` (the example's own code,
//! included below): the gait's targets stay inside the hinges' ranges and
//! their rates are the targets' derivatives, and a short walk on the floor
//! moves the torso forward, upright and clear of the floor.

#[allow(dead_code)]
#[path = "../examples/quadruped.rs"]
mod example;

use example::{Ant, GaitConfig, MIN_HEIGHT, Walk, run};

#[test]
fn gait_targets_are_within_the_ranges_and_rates_are_derivatives() {
    let config = GaitConfig::example();
    let ant = Ant::load(&config).unwrap();
    let lower = ant.model.joint_limit_lower.to_vec();
    let upper = ant.model.joint_limit_upper.to_vec();
    let h = 1e-3f32;
    let mut worst_rate = 0.0f32;
    // Settling, the ramp and two periods of the full gait.
    for k in 0..400 {
        let t = k as f32 * 0.01;
        let (now, before, after) = (
            config.targets(t),
            config.targets(t - h),
            config.targets(t + h),
        );
        for leg in 0..4 {
            for j in 0..2 {
                let d = ant.dof[leg][j];
                let (q, rate) = now[leg][j];
                assert!(
                    q >= lower[d] - 1e-5 && q <= upper[d] + 1e-5,
                    "t {t}: leg {leg} joint {j} target {q} outside [{}, {}]",
                    lower[d],
                    upper[d]
                );
                let fd = (after[leg][j].0 - before[leg][j].0) / (2.0 * h);
                worst_rate = worst_rate.max((fd - rate).abs());
            }
        }
    }
    // (The samples, every 10 ms, miss the kinks of the lift max(0, −cos φ)
    // at 0.875 s + k · 0.75 s, where its rate jumps.)
    println!("worst |target rate − finite difference| {worst_rate:.3e} rad/s");
    assert!(worst_rate < 0.05, "{worst_rate}");
}

#[test]
fn a_short_trot_walks_forward() {
    // 0.5 s settling and 3 s of trot (the first 1.5 s period ramping in).
    let config = GaitConfig {
        walk: 3.0,
        ..GaitConfig::example()
    };
    let mut walk = Walk::new(config).unwrap();
    let mut most_contacts = 0;
    let stats = run(&mut walk, |w| {
        if w.steps > 0 {
            most_contacts = most_contacts.max(w.contacts().unwrap());
        }
    })
    .unwrap();
    println!(
        "{stats:?}: forward {:.3} m, drift {:+.3} m, tilt {:.1}°, speed {:.3} m/s; at most {most_contacts} contacts",
        stats.forward(),
        stats.drift(),
        stats.max_tilt().to_degrees(),
        stats.speed()
    );
    assert!(
        (2..=8).contains(&most_contacts),
        "the feet touch: {most_contacts}"
    );
    assert!(stats.forward() > 0.5, "forward {}", stats.forward());
    assert!(
        stats.drift().abs() < 0.25 * stats.forward(),
        "drift {}",
        stats.drift()
    );
    assert!(stats.max_tilt() < 30f32.to_radians(), "{stats:?}");
    assert!(stats.z_range[0] > MIN_HEIGHT, "{stats:?}");
    assert!(stats.heading.abs() < 20f32.to_radians(), "{stats:?}");
    assert!(stats.walked(0.5));
}
