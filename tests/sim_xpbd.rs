//! The XPBD integrator: convergence with iterations, contacts, gradients against
//! finite differences, CPU/CUDA parity.

use weft::prelude::*;
use weft_sim::{
    ClothGrid, Control, Model, ModelBuilder, Shape, SimError, State, TriMaterial, Xpbd,
};
use weft_testkit::devices::{cuda, devices};

/// A 6×6 cloth with stiff springs on its edges and bending, its particles moved
/// at random by up to 3 cm (a third of the spacing).
fn stretched(device: Device) -> Model {
    let mut b = ModelBuilder::new();
    b.ground = None;
    b.gravity = Vec3::ZERO;
    b.add_cloth_grid(&ClothGrid {
        dim_x: 6,
        dim_y: 6,
        spring_ke: 1.0e6,
        edge_ke: 0.1,
        material: TriMaterial {
            k_mu: 0.0,
            k_lambda: 0.0,
            k_damp: 0.0,
            ..Default::default()
        },
        ..Default::default()
    });
    let mut model = b.finalize(device).unwrap();
    let r = weft_testkit::random_f32s(3 * model.particle_count(), 4, -0.03, 0.03);
    let q: Vec<Vec3> = model
        .particle_q
        .to_vec()
        .iter()
        .enumerate()
        .map(|(i, p)| *p + Vec3::new(r[3 * i], r[3 * i + 1], r[3 * i + 2]))
        .collect();
    model.particle_q.copy_from_slice(&q).unwrap();
    model
}

/// Square root of the sum of the springs' squared relative length errors.
fn rms_stretch(model: &Model, s: &State) -> f32 {
    let q = s.particle_q.to_vec();
    let rest = model.spring_rest_length.to_vec();
    model
        .spring_indices
        .to_vec()
        .iter()
        .zip(rest)
        .map(|(ij, r)| (((q[ij.x as usize] - q[ij.y as usize]).length() - r) / r).powi(2))
        .sum::<f32>()
        .sqrt()
}

#[test]
fn constraint_error_decreases_with_iterations() {
    for device in devices() {
        let model = stretched(device);
        let mut errors = Vec::new();
        for iterations in [1, 2, 4, 8, 16, 32] {
            let mut solver = Xpbd::new(&model).unwrap();
            solver.iterations = iterations;
            let (mut a, mut b) = (State::new(&model).unwrap(), State::new(&model).unwrap());
            solver
                .simulate(&model, &mut a, &mut b, &Control::empty(device), 1.0 / 60.0)
                .unwrap();
            errors.push(rms_stretch(&model, &b) / (model.spring_count() as f32).sqrt());
        }
        println!("{device}: RMS relative spring error by iterations 1..32: {errors:?}");
        for w in errors.windows(2) {
            assert!(w[1] < w[0], "{device}: not decreasing: {errors:?}");
        }
        assert!(errors[5] < 0.3 * errors[0], "{device}: {errors:?}");
    }
}

#[test]
fn a_cloth_drops_onto_a_sphere_without_passing_through() {
    for device in devices() {
        let mut b = ModelBuilder::new();
        b.add_cloth_grid(&ClothGrid {
            pos: Vec3::new(-0.6, -0.6, 1.0),
            dim_x: 12,
            dim_y: 12,
            mass: 0.01,
            radius: 0.02,
            spring_ke: 1.0e4,
            spring_kd: 0.0,
            edge_ke: 0.01,
            ..Default::default()
        });
        b.add_shape(Shape::Sphere {
            center: Vec3::new(0.0, 0.0, 0.4),
            radius: 0.4,
            mu: 0.5,
        });
        let model = b.finalize(device).unwrap();
        let mut solver = Xpbd::new(&model).unwrap();
        let (mut a, mut c) = (State::new(&model).unwrap(), State::new(&model).unwrap());
        let control = Control::empty(device);
        for _ in 0..240 {
            solver
                .simulate(&model, &mut a, &mut c, &control, 1.0 / 240.0)
                .unwrap();
            std::mem::swap(&mut a, &mut c);
        }
        let q = a.particle_q.to_vec();
        let deepest = q
            .iter()
            .map(|p| 0.42 - (*p - Vec3::new(0.0, 0.0, 0.4)).length())
            .fold(f32::MIN, f32::max);
        println!("{device}: deepest penetration {:.3} mm", deepest * 1e3);
        assert!(deepest < 1e-3, "{device}: {deepest}");
        assert!(
            q.iter().all(|p| p.z > 0.0195),
            "{device}: through the ground"
        );
        // It drapes: the middle rests on top of the sphere, the corners hang.
        let mid = q[6 * 13 + 6];
        assert!((mid.z - 0.82).abs() < 0.02, "{device}: middle at {mid:?}");
    }
}

#[weft::kernel]
fn weighted_sum(x: &Array<Vec3>, w: &Array<Vec3>, loss: &mut Array<f64>) {
    let i = tid();
    atomic_add(&mut loss[0], dot(x[i], w[i]) as f64);
}

/// 20 XPBD steps of an 8×8 cloth (springs with damping, bending; falling onto a
/// sphere when `sphere`), loss = Σ wᵢ · xᵢ.
struct Rollout {
    model: Model,
    states: Vec<State>,
    solver: Xpbd,
    w: Array<Vec3>,
}

impl Rollout {
    fn new(device: Device, sphere: bool) -> Rollout {
        let mut b = ModelBuilder::new();
        b.add_cloth_grid(&ClothGrid {
            pos: Vec3::new(-0.35, -0.35, 0.66),
            dim_x: 7,
            dim_y: 7,
            mass: 0.02,
            radius: 0.05,
            spring_ke: 200.0,
            spring_kd: 0.5,
            edge_ke: 0.05,
            vel: Vec3::new(0.3, 0.0, -1.0),
            ..Default::default()
        });
        if sphere {
            b.add_shape(Shape::Sphere {
                center: Vec3::new(0.0, 0.0, 0.3),
                radius: 0.3,
                mu: 0.5,
            });
        }
        let mut model = b.finalize(device).unwrap();
        let n = model.particle_count();
        // Velocities that differ per particle, so the cloth deforms and its
        // stiffness matters.
        let v: Vec<Vec3> = weft_testkit::random_f32s(3 * n, 22, -0.5, 0.5)
            .chunks(3)
            .map(|c| Vec3::new(0.3 + c[0], c[1], -1.0 + c[2]))
            .collect();
        model.particle_qd.copy_from_slice(&v).unwrap();
        let w = weft_testkit::random_f32s(3 * n, 21, -1.0, 1.0)
            .chunks(3)
            .map(|c| Vec3::new(c[0], c[1], c[2]) * 25.0)
            .collect();
        Rollout {
            states: (0..=20).map(|_| State::new(&model).unwrap()).collect(),
            solver: Xpbd::new(&model).unwrap(),
            w: Array::from_vec(device, w),
            model,
        }
    }

    fn loss(
        &mut self,
        model: &Model,
        v0: &Array<Vec3>,
        loss: &mut Array<f64>,
    ) -> Result<(), weft::Error> {
        let control = Control::empty(model.device());
        self.states[0].particle_qd = v0.share();
        for k in 0..20 {
            let (done, next) = self.states.split_at_mut(k + 1);
            self.solver
                .simulate(model, &mut done[k], &mut next[0], &control, 2e-3)
                .map_err(|e: SimError| weft::Error::Shape(e.to_string()))?;
        }
        loss.fill(0.0);
        weighted_sum::launch(
            model.particle_count(),
            &self.states[20].particle_q,
            &self.w,
            loss,
        )
    }
}

#[test]
fn xpbd_gradients_match_finite_differences() {
    // Without contacts: initial velocities and spring stiffness. The iterated
    // projections round more than a force step does, so the check uses a larger
    // relative step (0.1) than its default: at 1e-2 rounding dominates (1.5e-2),
    // at 0.1 the agreement is 2e-3.
    let mut r = Rollout::new(Device::Cpu, false);
    let model = r.model.share();
    let mut v0 = Array::from_vec(Device::Cpu, model.particle_qd.to_vec());
    let rep = gradcheck(&mut [&mut v0], Some(1e-1), |v, loss| {
        r.loss(&model, v[0], loss)
    })
    .unwrap();
    println!("XPBD, initial velocities: {rep}");
    assert!(rep.max_rel < 5e-3, "{rep}");
    let v0 = Array::from_vec(Device::Cpu, model.particle_qd.to_vec());
    let mut ke = Array::from_vec(Device::Cpu, model.spring_stiffness.to_vec());
    let rep = gradcheck(&mut [&mut ke], Some(1e-1), |k, loss| {
        let mut m = r.model.share();
        m.spring_stiffness = k[0].share();
        r.loss(&m, &v0, loss)
    })
    .unwrap();
    println!("XPBD, spring stiffness: {rep}");
    assert!(rep.max_rel < 5e-3, "{rep}");

    // Through contacts: projections and the stick/slip switch of friction are kinks
    // (see `Xpbd`'s docs), so a finite difference of 0.1 straddles some of them and
    // single components differ (measured: worst 0.085 absolute, tape 0.102 against
    // 0.018, on gradients of order 1). Bounded loosely per component, and tightly
    // where it matters for optimisation: along the tape gradient g the loss must
    // change at the rate |g|² the tape predicts (a central difference over a 0.1
    // move): measured 0.999 of it, bound 0.95..1.05, so a gradient that points
    // elsewhere by more than ~18° or is 5 % too long or short fails (a wrong sign
    // gives -1).
    let mut r = Rollout::new(Device::Cpu, true);
    let model = r.model.share();
    let mut v0 = Array::from_vec(Device::Cpu, model.particle_qd.to_vec());
    let rep = gradcheck(&mut [&mut v0], Some(1e-1), |v, loss| {
        r.loss(&model, v[0], loss)
    })
    .unwrap();
    println!("XPBD through sphere contacts, initial velocities: {rep}");
    assert!(rep.max_abs < 0.25, "{rep}");
    // gradcheck leaves the tape gradient on its input.
    let g = v0.grad_to_vec().unwrap();
    let base = v0.to_vec();
    let g_norm2: f64 = g.iter().map(|d| d.length_squared() as f64).sum();
    let h = 0.1 / g_norm2.sqrt();
    let mut loss_at = |s: f64| {
        let moved: Vec<Vec3> = base
            .iter()
            .zip(&g)
            .map(|(x, d)| *x + *d * s as f32)
            .collect();
        let mut loss = Array::zeros(Device::Cpu, [1]);
        r.loss(&model, &Array::from_vec(Device::Cpu, moved), &mut loss)
            .unwrap();
        loss.to_vec()[0]
    };
    let slope = (loss_at(h) - loss_at(-h)) / (2.0 * h);
    let ratio = slope / g_norm2;
    println!("along the tape gradient: slope {slope:.4e}, |g|² {g_norm2:.4e}, ratio {ratio:.4}");
    assert!(
        (0.95..1.05).contains(&ratio),
        "the loss changes along the tape gradient at {slope:e}, the tape says {g_norm2:e}"
    );
}

#[test]
fn cpu_and_cuda_agree_on_an_xpbd_rollout() {
    let Some(gpu) = cuda() else { return };
    let run = |device: Device| {
        let mut r = Rollout::new(device, true);
        let model = r.model.share();
        let v0 = model.particle_qd.share();
        let mut loss = Array::zeros(device, [1]);
        r.loss(&model, &v0, &mut loss).unwrap();
        r.states[20].particle_q.to_vec()
    };
    let (c, g) = (run(Device::Cpu), run(gpu));
    let worst = c
        .iter()
        .zip(&g)
        .map(|(a, b)| (*a - *b).abs().max_element())
        .fold(0.0, f32::max);
    println!("XPBD CPU vs CUDA: worst position difference {worst:e}");
    assert!(worst < 1e-4, "{worst}");
}
