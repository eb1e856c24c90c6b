//! The granular workload of `examples/granular.rs` (DEM contacts through the hash
//! grid, the example's contact parameters and substep): a block of grains
//! collapses into a pile that comes to rest on the ground without grains sinking
//! into the ground or into each other; a pour releases its layers.

use glam::Vec3;
use weft::prelude::*;
use weft_sim::{Control, SemiImplicit, State};
use weft_testkit::devices::devices;
use weft_testkit::granular::{DT, Pour, RADIUS, block};

/// Deepest overlap between two grains and of a grain with the ground, as
/// fractions of the radius (brute force on the host).
fn overlaps(q: &[Vec3]) -> (f32, f32) {
    let mut pair = 0.0f32;
    for i in 0..q.len() {
        for j in i + 1..q.len() {
            pair = pair.max(2.0 * RADIUS - (q[i] - q[j]).length());
        }
    }
    let ground = q.iter().map(|p| RADIUS - p.z).fold(0.0f32, f32::max);
    (pair / RADIUS, ground / RADIUS)
}

#[test]
fn a_block_of_grains_collapses_into_a_settled_pile() {
    for device in devices() {
        // 6 × 6 × 8 grains on a lattice 2.1 radii apart, 1 cm above the ground.
        let model = block([6, 6, 8], RADIUS + 0.01).finalize(device).unwrap();
        let mut s = State::new(&model).unwrap();
        let mut next = State::new(&model).unwrap();
        let control = Control::empty(device);
        let mut solver = SemiImplicit::new();
        let height = |s: &State| {
            s.particle_q
                .to_vec()
                .iter()
                .map(|p| p.z)
                .fold(0.0, f32::max)
        };
        let h0 = height(&s);
        // 1.25 s: the column falls, spreads and settles.
        for _ in 0..2400 {
            solver
                .simulate(&model, &mut s, &mut next, &control, DT)
                .unwrap();
            std::mem::swap(&mut s, &mut next);
        }
        let q = s.particle_q.to_vec();
        let v = s.particle_qd.to_vec();
        assert!(
            q.iter().all(|p| p.is_finite()),
            "{device}: a position is not finite"
        );
        let (pair, ground) = overlaps(&q);
        let speed = v.iter().map(|v| v.length()).fold(0.0, f32::max);
        let mean = v.iter().map(|v| v.length()).sum::<f32>() / v.len() as f32;
        let h1 = height(&s);
        let spread = q.iter().map(|p| p.truncate().length()).fold(0.0, f32::max);
        println!(
            "{device}: height {h0:.3} -> {h1:.3} m, spread {spread:.3} m, deepest overlap \
             {:.1} % (grains) / {:.1} % (ground) of the radius, speed mean {mean:.1e} / max {speed:.1e} m/s",
            100.0 * pair,
            100.0 * ground
        );
        // At rest under its weight: the static load on the lowest grain of the
        // pile compresses a contact by well under 1 % of the radius.
        assert!(
            pair < 0.05 && ground < 0.05,
            "{device}: overlap {pair} / {ground}"
        );
        // Settled (the fall reached ~1.8 m/s): penalty friction is viscous below
        // its Coulomb cap, so grains keep creeping at millimetres per second
        // (their flanks at a few cm/s) rather than stopping dead.
        assert!(
            mean < 0.015 && speed < 0.1,
            "{device}: still moving: mean {mean}, max {speed} m/s"
        );
        // It collapsed (the lattice column of 8 layers is 17 cm tall) and spread
        // beyond the block's half-width (5.3 cm), but stayed a pile.
        assert!(h1 < 0.7 * h0, "{device}: height {h0} -> {h1}");
        assert!(spread > 0.06 && spread < 0.5, "{device}: spread {spread}");
    }
}

#[test]
fn a_pour_releases_layers_from_the_spout() {
    let device = weft::Device::Cpu;
    let spout = Vec3::new(0.0, 0.0, 0.3);
    let mut pour = Pour::new(device, 500, spout, 0.05, 1.0).unwrap();
    let layer = pour.layer_size();
    assert!(layer > 5 && layer < 40, "grains per layer: {layer}");
    let mut s = State::new(&pour.model).unwrap();
    let mut next = State::new(&pour.model).unwrap();
    let control = Control::empty(device);
    let mut solver = SemiImplicit::new();
    // Parked grains are inactive: nothing moves before the first release.
    solver
        .simulate(&pour.model, &mut s, &mut next, &control, DT)
        .unwrap();
    std::mem::swap(&mut s, &mut next);
    assert!(s.particle_q.to_vec().iter().all(|p| p.z < -49.0));
    for _ in 0..200 {
        pour.update(&mut s, DT).unwrap();
        solver
            .simulate(&pour.model, &mut s, &mut next, &control, DT)
            .unwrap();
        std::mem::swap(&mut s, &mut next);
    }
    let released = pour.released;
    assert!(
        released >= 2 * layer && released.is_multiple_of(layer),
        "released {released}"
    );
    let q = s.particle_q.to_vec();
    let flags = pour.model.particle_flags.to_vec();
    for (i, (p, f)) in q.iter().zip(&flags).enumerate() {
        if i < released {
            assert_eq!(*f, 1, "grain {i} was released");
            assert!(
                p.z > 0.0 && p.z < spout.z + RADIUS,
                "released grain {i} at {p}"
            );
            assert!(p.truncate().length() < 0.06, "released grain {i} at {p}");
        } else {
            assert_eq!(*f, 0, "grain {i} is still parked");
            assert!(p.z < -49.0, "parked grain {i} moved to {p}");
        }
    }
}

#[weft::kernel]
fn weighted_sum(x: &Array<Vec3>, w: &Array<Vec3>, loss: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut loss[0], dot(x[i], w[i]));
}

#[test]
fn gradients_flow_through_grain_contacts() {
    // Eight grains in a 2 × 2 × 2 block, pressed together (spacing 1.9 radii) and
    // thrown at one another, no gravity or ground: every step's forces come from
    // grain–grain contacts found through the hash grid (built off the tape). The
    // loss Σ wᵢ · xᵢ after 30 substeps against central differences.
    let mut b = weft_testkit::granular::builder();
    b.ground = None;
    b.gravity = Vec3::ZERO;
    let s = 1.9 * RADIUS;
    for k in 0..8 {
        let p = Vec3::new((k & 1) as f32, ((k >> 1) & 1) as f32, (k >> 2) as f32) * s;
        b.add_particle(p, Vec3::ZERO, weft_testkit::granular::MASS, RADIUS);
    }
    let model = b.finalize(Device::Cpu).unwrap();
    let r = weft_testkit::random_f32s(48, 3, -1.0, 1.0);
    let w = Array::from_vec(
        Device::Cpu,
        r[..24]
            .chunks(3)
            .map(|c| Vec3::new(c[0], c[1], c[2]))
            .collect(),
    );
    let mut v0 = Array::from_vec(
        Device::Cpu,
        r[24..]
            .chunks(3)
            .map(|c| Vec3::new(c[0], c[1], c[2]) * 0.05)
            .collect(),
    );
    let control = Control::empty(Device::Cpu);
    let mut solver = SemiImplicit::new();
    let mut states: Vec<State> = (0..=30).map(|_| State::new(&model).unwrap()).collect();
    let report = weft::gradcheck(&mut [&mut v0], Some(1e-3), |v, loss| {
        states[0].particle_qd = v[0].share();
        // Each step adds into its input state's forces (later states are cleared
        // by the step before them); the first must start at zero.
        states[0].particle_f.fill(Vec3::ZERO);
        for k in 0..30 {
            let (done, next) = states.split_at_mut(k + 1);
            solver
                .simulate(&model, &mut done[k], &mut next[0], &control, DT)
                .map_err(|e| weft::Error::Shape(e.to_string()))?;
        }
        loss.fill(0.0);
        weighted_sum::launch(8, &states[30].particle_q, &w, loss)
    })
    .unwrap();
    let g = v0.grad_to_vec().unwrap();
    let scale = g.iter().map(|g| g.abs().max_element()).fold(0.0, f32::max) as f64;
    println!("{report}; largest gradient {scale:.3e}");
    assert!(scale > 1e-3, "no gradient");
    assert!(report.max_abs / scale < 2e-2, "{report}");
}
