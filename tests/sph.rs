//! SPH fluid (weakly compressible): rest density on a lattice, conservation,
//! a hydrostatic column, boundaries over a long run, CPU/CUDA parity, gradients
//! against finite differences, and the errors for bad parameters.

use weft::prelude::*;
use weft_sim::sph::{NeighbourList, kernels};
use weft_sim::{FluidBlock, ModelBuilder, Sph, SphParams, State};
use weft_testkit::devices::cuda;
use weft_testkit::sph::{Rollout, SPACING, block, dam_break, run};

const DX: f32 = SPACING;

#[test]
fn density_at_rest_on_a_lattice_matches_the_rest_density() {
    // A lattice of particles at mass ρ₀ dx³: away from any surface the kernel
    // sum is ρ₀ up to the lattice's quadrature error (0.43% for h = 1.1 dx).
    // Filling the domain box exactly, the walls' share makes up the missing
    // neighbours: every particle, corners included, is within 2% (1.2%
    // measured), where without it a particle next to a face would be 45% light
    // and one in a corner 85%.
    let counts = [12, 12, 12];
    let extent = Vec3::splat(12.0 * DX);
    for (name, domain, tol) in [
        ("interior", (Vec3::splat(-1.0), Vec3::splat(1.0)), 5e-3),
        ("filling the box", (Vec3::ZERO, extent), 2e-2),
    ] {
        let (model, params) = block(Device::Cpu, Vec3::ZERO, counts, 20.0, domain);
        let h2 = 2.0 * params.smoothing_length;
        let mut sph = Sph::new(&model, params).unwrap();
        let s = State::new(&model).unwrap();
        sph.build_grid(&s).unwrap();
        sph.compute_density(&model, &s).unwrap();
        let rho = sph.density().to_vec();
        let q = s.particle_q.to_vec();
        let mut worst = 0.0f32;
        let mut checked = 0;
        for (x, r) in q.iter().zip(&rho) {
            let inside = x.cmpge(Vec3::splat(h2)).all() && x.cmple(extent - h2).all();
            if name == "interior" && !inside {
                continue;
            }
            worst = worst.max((r / params.rest_density - 1.0).abs());
            checked += 1;
        }
        println!("{name}: {checked} particles, worst relative density error {worst:.2e}");
        assert!(checked >= 8 * 8 * 8, "{name}: only {checked} checked");
        assert!(worst < tol, "{name}: {worst:.2e} ≥ {tol:e}");
    }
}

#[test]
fn density_matches_a_brute_force_sum_on_random_points() {
    // Random points in cubes of 2 and of 12 grid cells per side, far from the
    // walls (whose share is 0 beyond 2h): the kernels' neighbour walk (with its
    // skipping of far cells) must find exactly the points within 2h, so the
    // density is the brute-force sum over all pairs. (A domain only two cells
    // wide, where a query covers the whole hashed axis, is the hydrostatic
    // column's below.)
    for cells in [2.0f32, 12.0] {
        let params = SphParams::for_spacing(DX, 10.0);
        let side = cells * params.support();
        let r = weft_testkit::random_f32s(3 * 400, 17, 0.0, 1.0);
        let pts: Vec<Vec3> = r
            .chunks(3)
            .map(|c| Vec3::new(c[0], c[1], c[2]) * side)
            .collect();
        let mut b = ModelBuilder::new();
        for p in &pts {
            b.add_particle(*p, Vec3::ZERO, 0.008, 0.01);
        }
        let model = b.finalize(Device::Cpu).unwrap();
        let mut params = params;
        params.domain_lo = Vec3::splat(-1.0);
        params.domain_hi = Vec3::splat(1.0 + side);
        let mut sph = Sph::new(&model, params).unwrap();
        let s = State::new(&model).unwrap();
        sph.build_grid(&s).unwrap();
        sph.compute_density(&model, &s).unwrap();
        let h = params.smoothing_length as f64;
        let mut worst = 0.0f64;
        for (p, rho) in pts.iter().zip(sph.density().to_vec()) {
            let brute: f64 = pts
                .iter()
                .map(|q| 0.008 * weft_sim::sph::cubic_spline((*p - *q).length() as f64, h))
                .sum();
            worst = worst.max((rho as f64 - brute).abs() / brute);
        }
        println!("{cells} cells per axis: worst relative difference {worst:.1e}");
        assert!(worst < 1e-5, "{cells} cells: {worst:e}");
    }
}

#[test]
fn momentum_is_conserved_away_from_the_walls() {
    // A blob with random velocities and no gravity, far from the walls: pressure
    // and viscosity are pairwise antisymmetric, so momentum stays to rounding.
    let (model, mut params) = block(
        Device::Cpu,
        Vec3::splat(-0.06),
        [6, 6, 6],
        20.0,
        (Vec3::splat(-1.0), Vec3::splat(1.0)),
    );
    params.gravity = Vec3::ZERO;
    let mut sph = Sph::new(&model, params).unwrap();
    let mut s = State::new(&model).unwrap();
    let n = model.particle_count();
    let r = weft_testkit::random_f32s(3 * n, 5, -1.0, 1.0);
    let v: Vec<Vec3> = r.chunks(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
    s.particle_qd.copy_from_slice(&v).unwrap();
    let m = model.particle_mass.to_vec();
    let momentum = |s: &State| -> DVec3 {
        let v = s.particle_qd.to_vec();
        v.iter().zip(&m).map(|(v, m)| (*v * *m).as_dvec3()).sum()
    };
    let scale: f64 = v.iter().zip(&m).map(|(v, m)| (v.length() * m) as f64).sum();
    let p0 = momentum(&s);
    let mut max_p = 0.0f32;
    run(&model, &mut sph, &mut s, 100, |_, _, sph| {
        max_p = sph.pressure().to_vec().iter().fold(max_p, |a, &b| a.max(b));
    });
    let drift = (momentum(&s) - p0).length();
    println!("momentum drift {drift:.2e} of {scale:.2e}; largest pressure {max_p:.1} Pa");
    // The test means something only if pressure acted.
    assert!(max_p > 100.0, "no pressure: {max_p}");
    assert!(
        drift < 1e-5 * scale,
        "momentum drift {drift:e} (scale {scale:e})"
    );
}

#[test]
fn a_hydrostatic_column_settles_with_pressure_rising_with_depth() {
    // A column of 3 × 3 × 15 particles (0.3 m) filling the box's width, made
    // viscous (ν ten times the default) so that the acoustic oscillation of the
    // start (the lattice at rest density, no pressure yet) dies out: at rest,
    // the pressure per layer rises with depth and, averaged over the last
    // steps, follows ρ₀ g (H − z) within 15% below the top layer (H: the
    // surface, half a spacing above the highest particle).
    let (model, mut params) = block(
        Device::Cpu,
        Vec3::ZERO,
        [3, 3, 15],
        10.0,
        (Vec3::ZERO, Vec3::new(3.0 * DX, 3.0 * DX, 0.4)),
    );
    params.viscosity *= 10.0;
    params.dt = params.stable_dt();
    let mut sph = Sph::new(&model, params).unwrap();
    let mut s = State::new(&model).unwrap();
    let bins = 5;
    let mut sum = vec![0.0f64; bins];
    let mut count = vec![0usize; bins];
    let (steps, from) = (600, 400);
    run(&model, &mut sph, &mut s, steps, |k, s, sph| {
        if k >= from {
            let q = s.particle_q.to_vec();
            for (x, p) in q.iter().zip(sph.pressure().to_vec()) {
                let b = ((x.z / (3.0 * DX)) as usize).min(bins - 1);
                sum[b] += p as f64;
                count[b] += 1;
            }
        }
    });
    let v = s.particle_qd.to_vec();
    let vmax = v.iter().map(|v| v.length()).fold(0.0, f32::max);
    let mean: Vec<f64> = sum
        .iter()
        .zip(&count)
        .map(|(s, &c)| s / c.max(1) as f64)
        .collect();
    let top = s
        .particle_q
        .to_vec()
        .iter()
        .map(|x| x.z)
        .fold(0.0, f32::max) as f64
        + 0.5 * DX as f64;
    println!(
        "speed at the end {vmax:.3} m/s; surface {top:.3} m; mean pressure per 6 cm layer (bottom first): {mean:.0?}"
    );
    // At rest: a fall from the column's height would reach 2.4 m/s.
    assert!(vmax < 0.1, "still moving at {vmax} m/s");
    for b in 1..bins {
        assert!(
            mean[b] < mean[b - 1],
            "layer {b}: {} ≥ layer below {}",
            mean[b],
            mean[b - 1]
        );
    }
    for (b, p) in mean.iter().enumerate().take(bins - 1) {
        let z = (b as f64 + 0.5) * 3.0 * DX as f64;
        let expect = 1000.0 * 9.81 * (top - z);
        assert!(
            (p - expect).abs() < 0.15 * expect,
            "layer {b}: {p:.0} Pa, hydrostatic {expect:.0} Pa"
        );
    }
}

#[test]
fn no_particle_escapes_the_box_or_enters_the_shape_over_a_long_run() {
    // A dam break against a sphere, 0.8 s: after every step each particle is in
    // the box and outside the sphere; the fluid stays weakly compressible (at
    // c = 10 m/s, five times the fastest flow, the largest density of any
    // particle at any step, impacts included, stays below 1.15 ρ₀) and every
    // particle (so the mass) stays.
    let (model, params, (center, radius)) = dam_break(Device::Cpu, [4, 4, 10], 10.0);
    let steps = (0.8 / params.dt) as usize;
    let mut sph = Sph::new(&model, params).unwrap();
    let mut s = State::new(&model).unwrap();
    let (lo, hi) = (params.domain_lo, params.domain_hi);
    let mut max_rho = 0.0f32;
    let mut max_x = 0.0f32;
    run(&model, &mut sph, &mut s, steps, |k, s, sph| {
        for (i, x) in s.particle_q.to_vec().iter().enumerate() {
            assert!(
                x.cmpge(lo).all() && x.cmple(hi).all(),
                "step {k}: particle {i} at {x:?} left the box"
            );
            let d = (*x - center).length() - radius;
            assert!(
                d >= -1e-6,
                "step {k}: particle {i} is {d} inside the sphere"
            );
            max_x = max_x.max(x.x);
        }
        max_rho = sph
            .density()
            .to_vec()
            .iter()
            .fold(max_rho, |a, &b| a.max(b));
    });
    println!("{steps} steps; largest density {max_rho:.1}; the front reached x = {max_x:.3}");
    assert!(
        max_x > 0.28,
        "the column did not collapse: front at {max_x}"
    );
    assert!(max_rho < 1.15 * params.rest_density, "density {max_rho}");
    assert_eq!(s.particle_q.to_vec().len(), 4 * 4 * 10);
}

#[test]
fn listed_neighbours_give_what_the_grid_walk_gives() {
    // On a CPU the solver's kernels read neighbour lists made once per step
    // and run over the particles' data in the grid's order; walking the grid
    // by particle instead (as on CUDA) must give the same density, pressure
    // and forces bit for bit, since the lists keep the walk's order.
    // A dam break against a sphere after 40 steps: disordered, with walls.
    let (model, params, _) = dam_break(Device::Cpu, [6, 4, 12], 10.0);
    let mut sph = Sph::new(&model, params).unwrap();
    let mut s = State::new(&model).unwrap();
    run(&model, &mut sph, &mut s, 40, |_, _, _| {});
    let n = model.particle_count();
    sph.build_grid(&s).unwrap();
    sph.compute_density(&model, &s).unwrap();
    sph.compute_forces(&model, &mut s).unwrap();
    let listed = (
        sph.density().to_vec(),
        sph.pressure().to_vec(),
        s.particle_f.to_vec(),
    );
    let entries = sph.neighbours().expect("a CPU solver lists").entries();
    assert!(entries > 20 * n, "{entries} entries for {n} particles");
    // The same kernels with an empty list walk the grid, by particle.
    let none = NeighbourList::empty(Device::Cpu).unwrap();
    let mut density = Array::zeros(Device::Cpu, [n]);
    let mut pressure = Array::zeros(Device::Cpu, [n]);
    let mut p_over_rho2 = Array::zeros(Device::Cpu, [n]);
    let mut unused = Array::<f32>::zeros(Device::Cpu, [0]);
    kernels::sph_density::launch(
        n,
        &model,
        sph.fluid(),
        sph.grid(),
        &none,
        &s.particle_q,
        &model.particle_mass,
        &mut unused,
        &mut p_over_rho2,
        &mut density,
        &mut pressure,
    )
    .unwrap();
    s.particle_f.fill(Vec3::ZERO);
    kernels::sph_forces::launch(
        n,
        &model,
        sph.fluid(),
        sph.grid(),
        &none,
        &s.particle_q,
        &s.particle_qd,
        &model.particle_mass,
        &density,
        &p_over_rho2,
        &mut s.particle_f,
    )
    .unwrap();
    assert_eq!(listed.0, density.to_vec());
    assert_eq!(listed.1, pressure.to_vec());
    assert_eq!(listed.2, s.particle_f.to_vec());
    assert!(
        listed.1.iter().any(|&p| p > 0.0),
        "no pressure: nothing compared"
    );
}

#[test]
fn cpu_and_cuda_agree_on_a_step() {
    let Some(gpu) = cuda() else { return };
    let step = |device: Device| {
        let (model, params, _) = dam_break(device, [4, 4, 10], 10.0);
        let mut sph = Sph::new(&model, params).unwrap();
        let mut s = State::new(&model).unwrap();
        run(&model, &mut sph, &mut s, 3, |_, _, _| {});
        (
            s.particle_q.to_vec(),
            s.particle_qd.to_vec(),
            sph.density().to_vec(),
        )
    };
    let (qc, vc, rc) = step(Device::Cpu);
    let (qg, vg, rg) = step(gpu);
    let worst = |a: &[Vec3], b: &[Vec3]| {
        a.iter()
            .zip(b)
            .map(|(a, b)| (*a - *b).abs().max_element())
            .fold(0.0, f32::max)
    };
    let rho = rc
        .iter()
        .zip(&rg)
        .map(|(a, b)| (a - b).abs() / a)
        .fold(0.0, f32::max);
    println!(
        "3 steps: positions {:.1e} m, velocities {:.1e} m/s, density {rho:.1e} relative",
        worst(&qc, &qg),
        worst(&vc, &vg)
    );
    // The sums run in the same order on both back ends (neighbours in the grid's
    // order, listed on the CPU and walked on CUDA; one atomic add per particle):
    // only rounding differs.
    assert!(worst(&qc, &qg) < 1e-6 && worst(&vc, &vg) < 1e-4 && rho < 1e-5);
}

/// Worst absolute error over the largest gradient component (scale-aware).
fn scaled_error<T: weft::__private::Elem>(
    r: &weft::GradCheck,
    g: &[T],
    largest: impl Fn(&T) -> f32,
) -> f64 {
    let scale = g.iter().map(largest).fold(0.0f32, f32::max) as f64;
    assert!(scale > 0.0, "the gradient is zero: nothing was checked");
    r.max_abs / scale
}

#[test]
fn gradients_match_finite_differences_through_a_rollout() {
    let mut c = Rollout::new(Device::Cpu).unwrap();
    // Initial velocities of a few particles (all 512 are checked along one
    // random direction below).
    let mut dv = Array::<Vec3>::zeros(Device::Cpu, [Rollout::PICKED.len()]);
    let r = gradcheck(&mut [&mut dv], Some(1e-2), |dv, loss| {
        c.loss_dv(dv[0], loss)
    })
    .unwrap();
    let e = scaled_error(&r, &dv.grad_to_vec().unwrap(), |v| v.abs().max_element());
    println!("initial velocities: {r}; worst error / largest gradient {e:.2e}");
    assert!(e < 1e-2, "{e:.2e}, {r}");

    // Stiffness and viscosity (each a one-element array in the solver).
    for name in ["stiffness", "viscosity"] {
        let value = if name == "stiffness" {
            c.sph.stiffness().to_vec()
        } else {
            c.sph.viscosity().to_vec()
        };
        let mut p = Array::from_vec(Device::Cpu, value);
        let v0 = c.base.share();
        let st: f64 = if name == "stiffness" {
            5e-2
        } else {
            5e-2 * p.to_vec()[0] as f64
        };
        let r = gradcheck(&mut [&mut p], Some(st), |p, loss| {
            *(if name == "stiffness" {
                c.sph.stiffness()
            } else {
                c.sph.viscosity()
            }) = p[0].share();
            c.loss(&v0, loss)
        })
        .unwrap();
        let g = p.grad_to_vec().unwrap()[0];
        let e = scaled_error(&r, &[g], |x| x.abs());
        println!("{name}: {r}; gradient {g:e}; worst error / gradient {e:.2e}");
        assert!(e < 2e-2, "{name}: {e:.2e}, {r}");
    }
}

/// The rollout's velocity gradient (all particles, by the tape) and the loss.
fn velocity_gradient(c: &mut Rollout) -> (f64, Vec<Vec3>) {
    let device = c.model.device();
    let v0 = Array::from_vec(device, c.base.to_vec()).requires_grad();
    let mut loss = Array::<f64>::zeros(device, [1]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| c.loss(&v0, &mut loss)).unwrap();
    tape.backward(&mut loss).unwrap();
    (loss.to_vec()[0], v0.grad_to_vec().unwrap())
}

/// The velocity gradient dotted with a random direction, against the central
/// difference of the loss along that direction (step `h` m/s): `(tape, fd)`.
fn directional_check(c: &mut Rollout, h: f32) -> (f64, f64) {
    let device = c.model.device();
    let n = c.model.particle_count();
    let (_, g) = velocity_gradient(c);
    let dir: Vec<Vec3> = weft_testkit::random_f32s(3 * n, 99, -1.0, 1.0)
        .chunks(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect();
    let along: f64 = g.iter().zip(&dir).map(|(g, d)| g.dot(*d) as f64).sum();
    let mut at = |s: f32| {
        let v: Vec<Vec3> = c
            .base
            .to_vec()
            .iter()
            .zip(&dir)
            .map(|(v, d)| *v + *d * s)
            .collect();
        let mut l = Array::<f64>::zeros(device, [1]);
        c.loss(&Array::from_vec(device, v), &mut l).unwrap();
        l.to_vec()[0]
    };
    let fd = (at(h) - at(-h)) / (2.0 * h as f64);
    (along, fd)
}

#[test]
fn the_velocity_gradient_of_every_particle_matches_a_directional_difference() {
    // d loss / d v0 for all 512 particles, dotted with a random direction, against
    // the central difference of the loss along that direction.
    let mut c = Rollout::new(Device::Cpu).unwrap();
    let (along, fd) = directional_check(&mut c, 1e-2);
    println!("directional derivative: tape {along:.6e}, central difference {fd:.6e}");
    assert!(
        (along - fd).abs() < 1e-2 * fd.abs(),
        "tape {along:e}, differences {fd:e}"
    );
}

#[test]
fn cuda_gradients_match_the_cpu_ones() {
    // The same rollout differentiated on both back ends: the CPU reads
    // neighbour lists, CUDA walks the grid (same neighbours, same order), so
    // the gradients differ by rounding only.
    let Some(gpu) = cuda() else { return };
    let (lc, gc) = velocity_gradient(&mut Rollout::new(Device::Cpu).unwrap());
    let (lg, gg) = velocity_gradient(&mut Rollout::new(gpu).unwrap());
    let scale = gc.iter().map(|g| g.abs().max_element()).fold(0.0, f32::max);
    let worst = gc
        .iter()
        .zip(&gg)
        .map(|(a, b)| (*a - *b).abs().max_element())
        .fold(0.0, f32::max);
    println!("loss {lc:e} / {lg:e}; gradient: worst difference {worst:e} of {scale:e}");
    assert!(scale > 0.0);
    assert!(((lc - lg) / lc).abs() < 1e-5, "loss {lc:e} against {lg:e}");
    assert!(worst < 1e-3 * scale, "{worst:e} against {scale:e}");
}

#[test]
fn a_large_rollout_differentiates_on_cuda() {
    // 32,000 particles (a 40 × 40 × 20 block), ten steps recorded: every
    // thread of the adjoints keeps its own stack, and the directional
    // derivative still matches the central difference.
    let Some(gpu) = cuda() else { return };
    let mut c = Rollout::with_block(gpu, [40, 40, 20], 1.0).unwrap();
    let (along, fd) = directional_check(&mut c, 1e-2);
    println!("32,000 particles: tape {along:.6e}, central difference {fd:.6e}");
    assert!(
        (along - fd).abs() < 1e-2 * fd.abs(),
        "tape {along:e}, differences {fd:e}"
    );
}

#[test]
fn bad_parameters_and_inputs_give_clear_errors() {
    let (model, params) = block(
        Device::Cpu,
        Vec3::ZERO,
        [2, 2, 2],
        10.0,
        (Vec3::ZERO, Vec3::ONE),
    );
    let msg = |p: SphParams| match Sph::new(&model, p) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{p:?} was accepted"),
    };
    let with = |f: fn(&mut SphParams)| {
        let mut p = params;
        f(&mut p);
        p
    };
    assert_eq!(
        msg(with(|p| p.smoothing_length = -0.01)),
        "parameter `smoothing_length`: must be finite and > 0, got -0.01"
    );
    assert_eq!(
        msg(with(|p| p.viscosity = f32::NAN)),
        "parameter `viscosity`: must be finite and ≥ 0, got NaN"
    );
    assert_eq!(
        msg(with(|p| p.dt = 0.0)),
        "parameter `dt`: must be finite and > 0, got 0"
    );
    assert_eq!(
        msg(with(|p| p.stiffness = f32::INFINITY)),
        "parameter `stiffness`: must be finite and > 0, got inf"
    );
    assert!(
        msg(with(|p| p.domain_hi.z = -1.0))
            .starts_with("parameter `domain`: domain_lo must be below domain_hi")
    );
    assert_eq!(
        msg(with(|p| p.domain_lo = Vec3::splat(0.05))),
        "particle 0: at Vec3(0.01, 0.01, 0.01), outside the domain box Vec3(0.05, 0.05, 0.05)..Vec3(1.0, 1.0, 1.0) (SphParams::domain_lo/hi)"
    );

    // A block with a negative spacing has negative masses: the builder says so.
    let mut b = ModelBuilder::new();
    b.add_fluid_block(&FluidBlock {
        spacing: -0.02,
        counts: [1, 1, 1],
        ..Default::default()
    });
    let Err(e) = b.finalize(Device::Cpu) else {
        panic!("a negative spacing was accepted")
    };
    let e = e.to_string();
    assert!(
        e.starts_with("particle 0: mass must be finite and ≥ 0"),
        "{e}"
    );

    // A state of another model.
    let mut sph = Sph::new(&model, params).unwrap();
    let (other, _) = block(
        Device::Cpu,
        Vec3::ZERO,
        [3, 1, 1],
        10.0,
        (Vec3::ZERO, Vec3::ONE),
    );
    let (mut a, mut c) = (State::new(&other).unwrap(), State::new(&other).unwrap());
    assert_eq!(
        sph.step(&model, &mut a, &mut c).unwrap_err().to_string(),
        "the state holds 3 particles; this solver was made for 8"
    );
    // Springs are not fluid.
    let mut b = ModelBuilder::new();
    b.add_particle(Vec3::splat(0.1), Vec3::ZERO, 1.0, 0.01);
    b.add_particle(Vec3::splat(0.2), Vec3::ZERO, 1.0, 0.01);
    b.add_spring(0, 1, 10.0, 0.0);
    let springs = b.finalize(Device::Cpu).unwrap();
    assert!(
        Sph::new(&springs, params)
            .err()
            .unwrap()
            .to_string()
            .starts_with("SPH simulates particles among analytic shapes")
    );
}
