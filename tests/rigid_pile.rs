//! The pile of `examples/rigid_pile.rs`: its scene starts with no two bodies
//! overlapping, all above the terrain; both solvers step it (free fall, the
//! first 0.1 s); and, small (48 mixed shapes in a 3 m bowl, a static triangle
//! mesh), it should come to rest in the bowl with nothing NaN, thrown off or
//! sunk through. It does not yet, with either solver: bodies tumbling onto
//! the mesh sink into it and are thrown off (ignored tests with the numbers,
//! and a one-box reproduction for `XpbdRigid`).

use weft::prelude::*;
use weft_sim::State;
use weft_testkit::rigid_pile::{Kind, Pile, PileConfig, PileStepper, Solver};

/// Steps the small pile for `frames` 60 Hz frames; returns the final poses
/// and velocities, checking every frame for NaN and tunnelling.
fn settle(
    solver: Solver,
    substeps: usize,
    frames: usize,
) -> (Pile, Vec<Transform>, Vec<SpatialVector>) {
    let pile = Pile::new(&PileConfig::small(48), Device::Cpu).unwrap();
    let mut stepper = PileStepper::new(&pile.model, solver, substeps).unwrap();
    let (mut a, mut b) = (
        State::new(&pile.model).unwrap(),
        State::new(&pile.model).unwrap(),
    );
    for frame in 0..frames {
        stepper
            .step(&pile.model, &mut a, &mut b, 1.0 / 60.0)
            .unwrap();
        if let Some(r) = stepper.contact_report().unwrap() {
            assert_eq!((r.overflow, r.pair_overflow), (0, 0), "{r:?}");
        }
        // While bodies land, soft penalty contacts let them sink a few
        // centimetres; none may pass through.
        check(&pile, &a.body_q.to_vec(), 0.05, solver, frame);
    }
    let (q, qd) = (a.body_q.to_vec(), a.body_qd.to_vec());
    // At rest every centre is above the terrain under it.
    check(&pile, &q, 0.0, solver, frames);
    (pile, q, qd)
}

/// Every body is finite, over the terrain, and its centre at most `sink`
/// below the terrain's surface.
fn check(pile: &Pile, q: &[Transform], sink: f32, solver: Solver, frame: usize) {
    for (i, x) in q.iter().enumerate() {
        assert!(
            x.p.is_finite() && x.q.is_finite(),
            "{solver:?} frame {frame}: body {i} at {x:?}"
        );
        let ground = pile.terrain.height_at(x.p.x, x.p.y);
        assert!(
            ground.is_some_and(|h| x.p.z > h - sink),
            "{solver:?} frame {frame}: body {i} ({:?}) at {} is off or under the terrain ({ground:?})",
            pile.kinds[i],
            x.p
        );
    }
}

#[test]
fn the_pile_starts_apart_above_the_terrain_and_both_solvers_step_it() {
    let config = PileConfig::example(2000);
    let pile = Pile::new(&config, Device::Cpu).unwrap();
    assert_eq!(pile.model.body_count(), 2000);
    let q = pile.model.body_q.to_vec();
    let radius: Vec<f32> = pile.geometry.iter().map(|g| g.bounding_radius()).collect();
    for i in 0..q.len() {
        let h = pile.terrain.height_at(q[i].p.x, q[i].p.y).unwrap();
        assert!(q[i].p.z - radius[i] > h, "body {i} starts in the terrain");
        for j in 0..i {
            let d = (q[i].p - q[j].p).length();
            assert!(
                d > radius[i] + radius[j],
                "bodies {j} and {i} start overlapping"
            );
        }
    }
    for kind in [Kind::Box, Kind::Sphere, Kind::Capsule, Kind::Rock] {
        let n = pile.kinds.iter().filter(|k| **k == kind).count();
        assert!(n > 200, "{n} × {kind:?}");
    }
    // Both solvers, through the first 0.1 s (free fall: the lowest bodies
    // end 2 cm above the terrain): every body falls as gravity says.
    for solver in [Solver::Xpbd, Solver::SemiImplicit] {
        let pile = Pile::new(&PileConfig::small(48), Device::Cpu).unwrap();
        let q0 = pile.model.body_q.to_vec();
        let mut stepper = PileStepper::new(&pile.model, solver, solver.default_substeps()).unwrap();
        let (mut a, mut b) = (
            State::new(&pile.model).unwrap(),
            State::new(&pile.model).unwrap(),
        );
        for _ in 0..6 {
            stepper
                .step(&pile.model, &mut a, &mut b, 1.0 / 60.0)
                .unwrap();
        }
        let t = 6.0 / 60.0;
        let fall = 1.0 * t + 0.5 * 9.81 * t * t;
        for (x, x0) in a.body_q.to_vec().iter().zip(&q0) {
            let dz = x0.p.z - x.p.z;
            assert!(
                (dz - fall).abs() < 0.01,
                "{solver:?}: fell {dz} m, not {fall}"
            );
        }
    }
}

/// The fastest body and the fastest that is not a sphere (a sphere may roll
/// to and fro in the bowl without slipping: nothing in the model stops it).
fn report(pile: &Pile, solver: Solver, q: &[Transform], qd: &[SpatialVector]) -> (f32, f32) {
    let speed = |i: usize| qd[i].top.length();
    let fastest = (0..qd.len()).fold(0, |a, i| if speed(i) > speed(a) { i } else { a });
    let settled = (0..qd.len())
        .filter(|&i| pile.kinds[i] != Kind::Sphere)
        .fold(0.0f32, |a, i| a.max(speed(i)));
    let top = q.iter().map(|x| x.p.z).fold(f32::MIN, f32::max);
    println!(
        "{solver:?}: fastest body {:.3} m/s ({:?} {fastest}, spinning at {:.2} rad/s), fastest non-sphere {settled:.3} m/s, highest centre {top:.3} m",
        speed(fastest),
        pile.kinds[fastest],
        qd[fastest].bottom.length()
    );
    (speed(fastest), settled)
}

#[test]
fn a_small_pile_settles_in_the_bowl_with_xpbd() {
    let (pile, q, qd) = settle(Solver::Xpbd, 16, 150);
    let (fastest, settled) = report(&pile, Solver::Xpbd, &q, &qd);
    assert!(settled < 0.3, "still moving at {settled} m/s after 2.5 s");
    assert!(fastest < 1.5, "a sphere rolls at {fastest} m/s after 2.5 s");
}

#[test]
#[ignore = "SemiImplicit: a box tumbling onto the mesh sinks ~5 cm into it in one frame and is thrown off at 12 m/s (body 47, frame 21)"]
fn a_small_pile_settles_in_the_bowl_with_penalty_contacts() {
    // With another mix of shapes (before rocks replaced the cylinders) it
    // passed: 0.09 m/s after 2.5 s (0.03 after 4 s).
    let (pile, q, qd) = settle(Solver::SemiImplicit, 32, 150);
    let (fastest, settled) = report(&pile, Solver::SemiImplicit, &q, &qd);
    assert!(settled < 0.3, "still moving at {settled} m/s after 2.5 s");
    assert!(fastest < 1.5, "a sphere rolls at {fastest} m/s after 2.5 s");
}

/// One box, turned and spinning (as in the pile), dropped 15 cm onto the
/// bowl's slope. It lands on a corner and spins up to ~20 rad/s (as a real
/// box would); during the next step a corner that the step-start contact
/// search did not report rotates ~2 cm into the mesh. Projected out within one
/// substep, that depth became a velocity of depth / substep and threw the box
/// off at 10 m/s (64 substeps: 46 m/s); `XpbdRigid::max_depenetration_speed`
/// (1 m/s) now spreads the push-out over substeps and the velocity pass takes
/// back what the push-out added (it may pull by as much as it pushed).
#[test]
fn box_tumbling_onto_a_mesh_slope_stays_on_it() {
    use std::sync::Arc;
    use weft_collide::{Geometry, ShapeDesc};
    use weft_sim::{BodyDesc, ModelBuilder, XpbdRigid};
    use weft_testkit::rigid_pile::{Terrain, material};

    let terrain = Terrain::bowl(8.0, 48, 1.0, 0.12);
    let mut b = ModelBuilder::new();
    b.ground = None;
    let mut floor = ShapeDesc::new(
        -1,
        Transform::IDENTITY,
        Geometry::Mesh {
            mesh: Arc::new(terrain.mesh().unwrap()),
            scale: Vec3::ONE,
        },
    );
    floor.material = material();
    b.add_rigid_shape(floor);
    let mut d = BodyDesc::new(Transform::new(
        Vec3::new(-1.284_065, -2.110_485, 0.531_785),
        Quat::from_xyzw(-0.675_673, 0.174_231, 0.716_283, -0.007_002).normalize(),
    ));
    d.velocity = SpatialVector::new(
        Vec3::new(0.0, 0.0, -1.0),
        Vec3::new(-0.400_972, 1.970_918, 1.309_232),
    );
    let body = b.add_body(d) as i32;
    b.add_body_shape_with(
        body,
        Transform::IDENTITY,
        Geometry::Box {
            half_extents: Vec3::new(0.063_152, 0.036_429, 0.038_843),
        },
        material(),
    );
    let model = b.finalize(Device::Cpu).unwrap();
    let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
    let (mut s0, mut s1) = (State::new(&model).unwrap(), State::new(&model).unwrap());
    let mut fastest = 0.0f32;
    for _ in 0..60 {
        solver
            .simulate(&model, &mut s0, &mut s1, 1.0 / 60.0)
            .unwrap();
        std::mem::swap(&mut s0, &mut s1);
        fastest = fastest.max(s0.body_qd.to_vec()[0].top.length());
    }
    // Dropped 15 cm at 1 m/s, it never moves faster than 2.2 m/s unless
    // something throws it.
    println!("fastest {fastest} m/s");
    assert!(fastest < 2.5, "the box reached {fastest} m/s");
}

/// A sphere 5 mm above the bumpy bowl, at 900 places over it, always gets a
/// contact. Each triangle defers a shared edge or corner to its owner, judged
/// by its own nearest point; over saddles that left a sphere with none, and
/// spheres of the pile fell through the terrain (frame 16 of the example).
#[test]
fn a_sphere_just_above_the_bumpy_terrain_always_touches_it() {
    use std::sync::Arc;
    use weft_collide::{CollisionPipeline, Geometry, ShapeDesc, ShapeSet};
    use weft_testkit::rigid_pile::Terrain;

    let terrain = Terrain::bowl(8.0, 48, 1.0, 0.12);
    let r = 0.0467;
    let shapes = [
        ShapeDesc::new(
            -1,
            Transform::IDENTITY,
            Geometry::Mesh {
                mesh: Arc::new(terrain.mesh().unwrap()),
                scale: Vec3::ONE,
            },
        ),
        ShapeDesc::new(0, Transform::IDENTITY, Geometry::Sphere { radius: r }),
    ];
    let set = ShapeSet::new(Device::Cpu, &shapes, 1).unwrap();
    let mut pipeline = CollisionPipeline::new(&set, 1, Default::default()).unwrap();
    let mut missed = Vec::new();
    for i in 0..30 {
        for j in 0..30 {
            let (x, y) = (-3.0 + 0.2 * i as f32 + 0.013, -3.0 + 0.2 * j as f32 + 0.007);
            // The sphere's lowest point 5 mm above the surface under its centre
            // (a slope brings the surface nearer, never farther).
            let z = terrain.height_at(x, y).unwrap() + r + 0.005;
            let q = Array::from_slice(
                Device::Cpu,
                &[Transform::from_translation(Vec3::new(x, y, z))],
            );
            pipeline.collide(&set, &q).unwrap();
            if pipeline.report().unwrap().found == 0 {
                missed.push((x, y));
            }
        }
    }
    assert!(
        missed.is_empty(),
        "no contact at {} places: {missed:?}",
        missed.len()
    );
}
