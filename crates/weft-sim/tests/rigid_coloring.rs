//! The manifold colouring: a proper colouring (no two manifolds of a colour
//! share a dynamic body), every manifold coloured, the same colours whether
//! the rounds run on one thread or in launches, and the same rollout on every
//! run (the Gauss–Seidel order does not depend on thread timing).

use weft::prelude::*;
use weft_collide::{CollisionOptions, CollisionPipeline, Geometry};
use weft_sim::rigid::coloring::{COLORS, Coloring};
use weft_sim::{BodyDesc, Model, ModelBuilder, State, XpbdRigid};

/// A heap of 4 × 4 × 6 boxes and spheres, jittered, falling onto the ground
/// plane and onto each other.
fn heap() -> Model {
    let mut b = ModelBuilder::new();
    let mut k = 0u32;
    for z in 0..6 {
        for y in 0..4 {
            for x in 0..4 {
                k += 1;
                let j = (k.wrapping_mul(2_654_435_761) >> 16) as f32 / 65_536.0 - 0.5;
                let p = Vec3::new(
                    x as f32 * 0.182 + 0.001 * j,
                    y as f32 * 0.182 - 0.001 * j,
                    0.091 + z as f32 * 0.181,
                );
                let body = b.add_body(BodyDesc::new(Transform::new(
                    p,
                    Quat::from_rotation_z(0.05 * j),
                ))) as i32;
                let geometry = if k.is_multiple_of(3) {
                    Geometry::Sphere { radius: 0.09 }
                } else {
                    Geometry::Box {
                        half_extents: Vec3::splat(0.09),
                    }
                };
                b.add_body_shape(body, Transform::IDENTITY, geometry);
            }
        }
    }
    b.finalize(Device::Cpu).unwrap()
}

/// Steps `model` `steps` times from rest with default settings but a launch
/// per colour (and the phases timed when `profile`); the final poses and the
/// solver.
fn rollout(model: &Model, steps: usize, profile: bool) -> (Vec<Transform>, XpbdRigid) {
    let mut solver = XpbdRigid::new(model, CollisionOptions::default()).unwrap();
    solver.serial_per_color = 0;
    solver.profile = profile;
    let (mut s0, mut s1) = (State::new(model).unwrap(), State::new(model).unwrap());
    for _ in 0..steps {
        solver
            .simulate(model, &mut s0, &mut s1, 1.0 / 60.0)
            .unwrap();
        std::mem::swap(&mut s0, &mut s1);
    }
    (s0.body_q.to_vec(), solver)
}

#[test]
fn colouring_is_proper_complete_and_the_same_on_one_thread_or_many() {
    let model = heap();
    // Poses after the heap has collapsed a little, so manifolds are dense.
    let q = Array::from_slice(Device::Cpu, &rollout(&model, 40, false).0);
    let (manifolds, _) = check_colouring(&model, &q);
    assert!(manifolds > 100, "only {manifolds} manifolds");
}

/// A plate on the ground with `n` balls resting on it (a body with `n`
/// manifolds).
fn plate_with_balls(n: usize) -> Model {
    let mut b = ModelBuilder::new();
    let plate = b.add_body(BodyDesc::new(Transform::from_translation(Vec3::new(
        0.0, 0.0, 0.05,
    )))) as i32;
    b.add_body_shape(
        plate,
        Transform::IDENTITY,
        Geometry::Box {
            half_extents: Vec3::new(1.0, 0.8, 0.05),
        },
    );
    for k in 0..n {
        let p = Vec3::new(
            -0.9 + 0.18 * (k % 10) as f32,
            -0.7 + 0.17 * (k / 10) as f32,
            0.149,
        );
        let ball = b.add_body(BodyDesc::new(Transform::from_translation(p))) as i32;
        b.add_body_shape(ball, Transform::IDENTITY, Geometry::Sphere { radius: 0.05 });
    }
    b.finalize(Device::Cpu).unwrap()
}

/// A body touched by 60 others needs 60 colours at that body: all are
/// coloured (bidding only for the lowest free colour, one manifold won per
/// round there and 28 of the 60 overflowed after 32 rounds).
#[test]
fn a_body_touched_by_sixty_others_is_coloured_without_overflow() {
    let model = plate_with_balls(60);
    let (manifolds, used) = check_colouring(&model, &model.body_q);
    assert_eq!(
        manifolds,
        60 + 1,
        "the plate's manifolds and its ground contact"
    );
    assert!(used >= 60, "{used} colours for a body with 60 manifolds");
}

/// Colours the manifolds of `model` at poses `q` serially and round by
/// round; checks the two agree, the colouring is proper (no two manifolds of
/// a colour share a dynamic body) and complete (none overflow). Returns the
/// manifolds and the colours used.
fn check_colouring(model: &Model, q: &Array<Transform>) -> (usize, usize) {
    let mut pipeline =
        CollisionPipeline::new(&model.rigid_shapes, model.body_count(), Default::default())
            .unwrap();
    pipeline.collide(&model.rigid_shapes, q).unwrap();
    let slots = pipeline.pair_capacity();
    let mut colours = Vec::new();
    for serial_below in [usize::MAX, 0] {
        let mut c = Coloring::new(Device::Cpu, model.body_count(), slots).unwrap();
        c.serial_below = serial_below;
        c.run(model, &pipeline.contacts, pipeline.manifolds())
            .unwrap();
        colours.push((c.color.to_vec(), c.count.to_vec()));
    }
    assert_eq!(
        colours[0], colours[1],
        "serial and per-round colourings differ"
    );
    let (color, count) = &colours[0];
    let len = pipeline.manifolds().len.to_vec();
    let start = pipeline.manifolds().start.to_vec();
    let grouped = pipeline.manifolds().contacts.to_vec();
    let shape_a = pipeline.contacts.shape_a.to_vec();
    let shape_b = pipeline.contacts.shape_b.to_vec();
    let body = model.rigid_shapes.body.to_vec();
    let mut seen = std::collections::HashSet::new();
    let mut manifolds = 0;
    for m in 0..len.len() {
        if len[m] == 0 {
            assert_eq!(color[m], -1, "empty slot {m} coloured");
            continue;
        }
        manifolds += 1;
        let c0 = grouped[start[m] as usize] as usize;
        let c = color[m];
        assert!(
            (0..=COLORS as i32).contains(&c),
            "manifold {m} has colour {c}"
        );
        if c == COLORS as i32 {
            continue; // the overflow colour is solved on one thread
        }
        for s in [shape_a[c0], shape_b[c0]] {
            let b = body[s as usize];
            if b >= 0 {
                assert!(
                    seen.insert((b, c)),
                    "two manifolds of colour {c} share body {b}"
                );
            }
        }
    }
    assert_eq!(count.iter().sum::<u32>() as usize, manifolds);
    let used = count[..COLORS].iter().filter(|k| **k > 0).count();
    println!(
        "{manifolds} manifolds in {used} colours, {} overflowing",
        count[COLORS]
    );
    assert_eq!(count[COLORS], 0, "manifolds overflowed");
    (manifolds, used)
}

#[test]
fn a_heap_steps_the_same_on_every_run_and_when_profiled() {
    let model = heap();
    let (a, quiet) = rollout(&model, 60, false);
    let (b, profiled) = rollout(&model, 60, true);
    assert_eq!(quiet.phase_times().steps, 0);
    let p = profiled.phase_times();
    assert_eq!(p.steps, 60);
    for (name, t) in [
        ("broad", p.broad),
        ("narrow", p.narrow),
        ("coloring", p.coloring),
        ("positions", p.positions),
        ("velocities", p.velocities),
    ] {
        assert!(t > 0.0 && t < p.total(), "{name}: {t} s of {}", p.total());
    }
    let moved = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x.p - y.p).length())
        .fold(0.0f32, f32::max);
    assert!(
        a.iter().zip(&b).all(|(x, y)| x.p == y.p && x.q == y.q),
        "two runs differ by up to {moved} m"
    );
}

/// A body touched by 72 others and the ground has more manifolds than
/// colours: 9 overflow,
/// and the overflow list (solved on one thread, in its order) is sorted by
/// priority, so runs agree.
#[test]
fn the_overflow_is_sorted_by_priority() {
    let model = plate_with_balls(72);
    let mut pipeline =
        CollisionPipeline::new(&model.rigid_shapes, model.body_count(), Default::default())
            .unwrap();
    pipeline
        .collide(&model.rigid_shapes, &model.body_q)
        .unwrap();
    let mut c = Coloring::new(Device::Cpu, model.body_count(), pipeline.pair_capacity()).unwrap();
    c.run(&model, &pipeline.contacts, pipeline.manifolds())
        .unwrap();
    let count = c.count.to_vec();
    assert_eq!(count[COLORS], 72 + 1 - COLORS as u32, "{count:?}");
    let (start, list, prio) = (c.start.to_vec(), c.list.to_vec(), c.prio.to_vec());
    let s = start[COLORS] as usize;
    let keys: Vec<i64> = list[s..s + count[COLORS] as usize]
        .iter()
        .map(|&m| prio[m as usize])
        .collect();
    assert!(
        keys.windows(2).all(|w| w[0] < w[1]),
        "overflow order {keys:?}"
    );
}
