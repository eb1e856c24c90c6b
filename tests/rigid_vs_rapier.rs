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
