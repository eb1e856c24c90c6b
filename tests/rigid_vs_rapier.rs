//! The same rigid scenes in Weft (`XpbdRigid`) and in Rapier 0.36 (a real
//! peer), same dt (1/60 s): each engine's outcome against the analytic one and
//! against the other's, with the tolerances stated at each assertion.

mod rigid_scenes;

use rigid_scenes::{G, RapierWorld, Scene, Shape, WeftWorld};

const DT: f32 = 1.0 / 60.0;

/// Steps both engines `steps` times, calling `each(engine, positions,
/// velocities)` after every step for body 0 (engine 0 = Weft, 1 = Rapier).
fn run_both(scene: &Scene, steps: usize, mut each: impl FnMut(usize, [f32; 3], [f32; 3])) {
    let mut weft = WeftWorld::new(scene);
    let mut rapier = RapierWorld::new(scene, DT);
    for _ in 0..steps {
        weft.step(DT);
        rapier.step();
        each(0, weft.positions()[0], weft.velocities()[0]);
        each(1, rapier.positions()[0], rapier.velocities()[0]);
    }
}

#[test]
fn ball_rebound_apex_matches_rapier_and_e_squared() {
    let (e, r) = (0.8, 0.05);
    let mut scene = Scene::new(0.5, e);
    scene.dynamic(Shape::Sphere(r), [0.0, 0.0, 1.0 + r], [0.0; 3]);
    // 1.5 s: the fall takes 0.45 s, the rebound to the apex 0.36 s.
    let (mut bounced, mut apex) = ([false; 2], [0.0f32; 2]);
    run_both(&scene, 90, |k, p, v| {
        bounced[k] |= v[2] > 0.0;
        if bounced[k] {
            apex[k] = apex[k].max(p[2] - r);
        }
    });
    let want = e * e;
    println!(
        "rebound apex: weft {:.4} m, rapier {:.4} m, e² = {want:.4} m",
        apex[0], apex[1]
    );
    for (name, a) in [("weft", apex[0]), ("rapier", apex[1])] {
        // 5 % of e²: a step of 1/60 s samples the apex within v·dt²/8 ≈ 1 mm.
        assert!(
            (a - want).abs() < 0.05 * want,
            "{name} apex {a}, want {want}"
        );
    }
    assert!(
        (apex[0] - apex[1]).abs() < 0.05 * want,
        "weft {} vs rapier {}",
        apex[0],
        apex[1]
    );
}

#[test]
fn box_stopping_distance_matches_rapier_and_coulomb() {
    let (v0, mu, h) = (2.0f32, 0.3f32, 0.05);
    let mut scene = Scene::new(mu, 0.0);
    scene.dynamic(Shape::Box([h; 3]), [0.0, 0.0, h], [v0, 0.0, 0.0]);
    // 1.5 s: it stops after v0 / (mu g) = 0.68 s.
    let mut x = [0.0f32; 2];
    let mut speed = [0.0f32; 2];
    run_both(&scene, 90, |k, p, v| {
        x[k] = p[0];
        speed[k] = v[0].hypot(v[1]);
    });
    let want = v0 * v0 / (2.0 * mu * G);
    println!(
        "stopping distance: weft {:.4} m, rapier {:.4} m, v²/(2μg) = {want:.4} m \
         (final speeds {:.2e}, {:.2e} m/s)",
        x[0], x[1], speed[0], speed[1]
    );
    for (name, d, s) in [("weft", x[0], speed[0]), ("rapier", x[1], speed[1])] {
        assert!(s < 1e-2, "{name} still sliding at {s} m/s");
        assert!(
            (d - want).abs() < 0.05 * want,
            "{name} slid {d}, want {want}"
        );
    }
    assert!(
        (x[0] - x[1]).abs() < 0.05 * want,
        "weft {} vs rapier {}",
        x[0],
        x[1]
    );
}

#[test]
fn box_settles_at_the_same_height_as_in_rapier() {
    let h = 0.05;
    let mut scene = Scene::new(0.5, 0.0);
    scene.dynamic(Shape::Box([h; 3]), [0.0, 0.0, h + 0.01], [0.0; 3]);
    let mut z = [0.0f32; 2];
    run_both(&scene, 120, |k, p, _| z[k] = p[2]);
    println!(
        "settled centre height: weft {:.5} m, rapier {:.5} m, touching {h:.5} m",
        z[0], z[1]
    );
    // Both rest on the ground within 2 mm (penetration or contact skin) ...
    for (name, z) in [("weft", z[0]), ("rapier", z[1])] {
        assert!((z - h).abs() < 2e-3, "{name} rests at {z}");
    }
    // ... and within 1 mm of each other.
    assert!(
        (z[0] - z[1]).abs() < 1e-3,
        "weft {} vs rapier {}",
        z[0],
        z[1]
    );
}

/// The stacking test: a 20-layer pyramid of 210 boxes of 10 cm and
/// 1 kg stands for 10 s — its top box moves less than 1 mm after the first
/// second and no resting contact is deeper than 1 mm — in Weft, with Rapier's
/// numbers printed beside. Rapier (4 iterations, its defaults) moves its top
/// box 2.4 mm, so it is held only to standing (1 cm).
#[test]
fn pyramid_of_210_boxes_stands_for_ten_seconds() {
    let h = 0.05;
    let scene = Scene::pyramid(20);
    let mut weft = WeftWorld::new(&scene);
    let mut rapier = RapierWorld::new(&scene, DT);
    let top = scene.bodies.len() - 1;
    let (mut settled, mut drift) = ([[0.0f32; 3]; 2], [0.0f32; 2]);
    let mut deepest = 0.0f32;
    // (box, the box it rests on or None for the ground): each box rests on
    // the two below it, half a box to each side.
    let mut supports = Vec::new();
    for (i, a) in scene.bodies.iter().enumerate() {
        if a.pos[2] < 1.5 * h {
            supports.push((i, None));
        }
        for (j, b) in scene.bodies.iter().enumerate() {
            if (a.pos[2] - b.pos[2] - 2.0 * h).abs() < 1e-4 && (a.pos[0] - b.pos[0]).abs() < 1.5 * h
            {
                supports.push((i, Some(j)));
            }
        }
    }
    for step in 0..600 {
        weft.step(DT);
        rapier.step();
        let p = [weft.positions(), rapier.positions()];
        for k in 0..2 {
            if step == 59 {
                settled[k] = p[k][top];
            }
            if step >= 59 {
                let d = (0..3)
                    .map(|i| (p[k][top][i] - settled[k][i]).powi(2))
                    .sum::<f32>();
                drift[k] = drift[k].max(d.sqrt());
            }
        }
        if step >= 59 {
            // Penetration of each resting contact: into the ground, or into
            // a box of the layer below (centres 2h apart when touching).
            for &(upper, lower) in &supports {
                let below = lower.map_or(0.0, |l| p[0][l][2] + h);
                deepest = deepest.max(below + h - p[0][upper][2]);
            }
        }
    }
    println!(
        "pyramid top box drift after settling: weft {:.3} mm, rapier {:.3} mm; \
         weft deepest sink below the touching height {:.3} mm",
        drift[0] * 1e3,
        drift[1] * 1e3,
        deepest * 1e3
    );
    assert!(drift[0] < 1e-3, "weft's pyramid top moved {} m", drift[0]);
    assert!(
        deepest < 1e-3,
        "weft's deepest resting contact {} m",
        deepest
    );
    assert!(drift[1] < 1e-2, "rapier's pyramid top moved {} m", drift[1]);
}
