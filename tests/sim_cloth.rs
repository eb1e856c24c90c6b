//! Particle and cloth simulation (semi-implicit Euler): equilibria, conservation,
//! contacts, gradients against finite differences, builder errors, CPU/CUDA parity.

use weft::prelude::*;
use weft_sim::{
    ClothGrid, Control, Model, ModelBuilder, ParticleContactParams, SemiImplicit, Shape, SimError,
    State, TriMaterial,
};
use weft_testkit::devices::{cuda, devices};

/// Steps `model` from `s` for `steps` steps of `dt`, swapping two states.
fn run(model: &Model, s: &mut State, steps: usize, dt: f32) -> Result<(), SimError> {
    let mut next = State::new(model)?;
    let control = Control::empty(model.device());
    let mut solver = SemiImplicit::new();
    for _ in 0..steps {
        solver.simulate(model, s, &mut next, &control, dt)?;
        std::mem::swap(s, &mut next);
    }
    Ok(())
}

fn max_speed(s: &State) -> f32 {
    s.particle_qd
        .to_vec()
        .iter()
        .map(|v| v.length())
        .fold(0.0, f32::max)
}

#[test]
fn a_hanging_chain_settles_with_extensions_matching_the_load() {
    // Six particles below a fixed one: spring k carries the weight of everything
    // below it, so its extension is (below · m · g) / k.
    let (m, k, n) = (0.1f32, 200.0f32, 6usize);
    for device in devices() {
        let mut b = ModelBuilder::new();
        b.ground = None;
        b.add_particle(Vec3::ZERO, Vec3::ZERO, 0.0, 0.01);
        for i in 1..=n {
            b.add_particle(Vec3::new(0.0, 0.0, -0.1 * i as f32), Vec3::ZERO, m, 0.01);
            b.add_spring(i - 1, i, k, 8.0);
        }
        let model = b.finalize(device).unwrap();
        let mut s = State::new(&model).unwrap();
        run(&model, &mut s, 8000, 1e-3).unwrap();
        assert!(max_speed(&s) < 1e-4, "at rest: {}", max_speed(&s));
        let q = s.particle_q.to_vec();
        for i in 1..=n {
            let ext = (q[i - 1] - q[i]).length() - 0.1;
            let expect = (n + 1 - i) as f32 * m * 9.81 / k;
            assert!(
                (ext - expect).abs() < 1e-3 * expect + 1e-6,
                "{device}: spring {i}: extension {ext}, load predicts {expect}"
            );
        }
    }
}

fn hanging_cloth(device: Device) -> Model {
    let mut b = ModelBuilder::new();
    b.ground = None;
    b.add_cloth_grid(&ClothGrid {
        pos: Vec3::new(0.0, 0.0, 1.0),
        rot: Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        dim_x: 6,
        dim_y: 6,
        cell_x: 0.1,
        cell_y: 0.1,
        mass: 0.05,
        fix_top: true,
        material: TriMaterial {
            k_mu: 2000.0,
            k_lambda: 2000.0,
            k_damp: 4.0,
            ..Default::default()
        },
        edge_ke: 1.0,
        edge_kd: 0.01,
        ..Default::default()
    });
    b.finalize(device).unwrap()
}

#[test]
fn a_hanging_cloth_comes_to_rest() {
    for device in devices() {
        let model = hanging_cloth(device);
        let mut s = State::new(&model).unwrap();
        run(&model, &mut s, 3000, 5e-4).unwrap();
        let v = max_speed(&s);
        assert!(v < 2e-3, "{device}: the cloth still moves at {v} m/s");
        // It hangs from its fixed top edge (z = 1.6), stretched a little by its
        // weight: the free bottom edge (z = 1.0 at rest) sags by millimetres.
        let q = s.particle_q.to_vec();
        assert!(q.iter().all(|p| p.is_finite()));
        let lowest = q.iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
        assert!(
            (0.99..0.9999).contains(&lowest),
            "{device}: lowest point {lowest}"
        );
    }
}

fn momentum(model: &Model, s: &State) -> (Vec3, f32) {
    let m = model.particle_mass.to_vec();
    let v = s.particle_qd.to_vec();
    let p = m.iter().zip(&v).map(|(m, v)| *v * *m).sum::<Vec3>();
    let scale = m.iter().zip(&v).map(|(m, v)| m * v.length()).sum::<f32>();
    (p, scale)
}

#[test]
fn momentum_is_conserved_without_gravity_and_shapes() {
    // Springs, membranes, bending and particle–particle contacts are internal
    // forces: they must not change the total momentum.
    let r = weft_testkit::random_f32s(3000, 7, -1.0, 1.0);
    for device in devices() {
        let mut b = ModelBuilder::new();
        b.ground = None;
        b.gravity = Vec3::ZERO;
        b.particle_contact = ParticleContactParams {
            ke: 500.0,
            kd: 2.0,
            kf: 50.0,
            mu: 0.5,
            cohesion: 0.0,
        };
        let cloth = b.add_cloth_grid(&ClothGrid {
            dim_x: 5,
            dim_y: 5,
            edge_ke: 5.0,
            spring_ke: 100.0,
            spring_kd: 1.0,
            ..Default::default()
        });
        // A cluster of loose particles that collide with each other.
        for k in 0..60 {
            let p =
                Vec3::new(r[3 * k], r[3 * k + 1], r[3 * k + 2]) * 0.15 + Vec3::new(1.0, 0.0, 0.0);
            b.add_particle(p, Vec3::ZERO, 0.02, 0.04);
        }
        let model = b.finalize(device).unwrap();
        let mut s = State::new(&model).unwrap();
        let v: Vec<Vec3> = (0..model.particle_count())
            .map(|i| Vec3::new(r[1000 + 3 * i], r[1001 + 3 * i], r[1002 + 3 * i]))
            .collect();
        s.particle_qd.copy_from_slice(&v).unwrap();
        let (p0, scale) = momentum(&model, &s);
        run(&model, &mut s, 300, 1e-3).unwrap();
        let (p1, _) = momentum(&model, &s);
        let drift = (p1 - p0).length();
        assert!(
            drift < 1e-5 * scale,
            "{device}: momentum {p0:?} -> {p1:?} (scale {scale})"
        );
        assert_eq!(cloth.len(), 36);
    }
}

/// Signed distance of `p` to each shape of the contact test, brute force on the
/// host (the mesh: distance to its closest triangle, signed by the face normal).
fn distances(p: Vec3, mesh: &weft_geom::Mesh, mesh_at: Vec3) -> [f32; 4] {
    let sphere = (p - Vec3::new(-0.6, 0.0, 0.3)).length() - 0.3;
    let q = (p - Vec3::new(0.6, 0.0, 0.2)).abs() - Vec3::splat(0.2);
    let cube = q.max(Vec3::ZERO).length() + q.max_element().min(0.0);
    let c = p - Vec3::new(0.0, 0.6, 0.25);
    let seg = Vec3::new(c.x.clamp(-0.3, 0.3), 0.0, 0.0);
    let capsule = (c - seg).length() - 0.15;
    let mut best = (f32::INFINITY, 0.0);
    for f in mesh.indices() {
        let [a, b, d] = f.map(|i| mesh.points()[i as usize] + mesh_at);
        let cp = weft_geom::query::closest_point_triangle(p, a, b, d).0;
        let dist = (p - cp).length();
        if dist < best.0 {
            let side = (p - cp).dot((b - a).cross(d - a)).signum();
            best = (dist, side);
        }
    }
    [sphere, cube, capsule, best.0 * best.1]
}

#[test]
fn dropped_particles_do_not_end_inside_shapes() {
    // A rain of particles onto a sphere, a box, a capsule (lying along X) and a
    // mesh (an icosphere): after settling, none is inside a shape by more than
    // its radius (penalty contacts allow an overlap of about m·g/ke = 1 mm).
    let mesh = weft_geom::generate::icosphere(0.25, 2);
    let mesh_at = Vec3::new(0.0, -0.6, 0.25);
    let r = weft_testkit::random_f32s(600, 3, -1.0, 1.0);
    for device in devices() {
        let mut b = ModelBuilder::new();
        b.contact.ke = 2000.0;
        b.add_shape(Shape::Sphere {
            center: Vec3::new(-0.6, 0.0, 0.3),
            radius: 0.3,
            mu: 0.5,
        });
        b.add_shape(Shape::Box {
            pose: (Vec3::new(0.6, 0.0, 0.2), Quat::IDENTITY),
            half_extents: Vec3::splat(0.2),
            mu: 0.5,
        });
        b.add_shape(Shape::Capsule {
            pose: (
                Vec3::new(0.0, 0.6, 0.25),
                Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
            ),
            radius: 0.15,
            half_height: 0.3,
            mu: 0.5,
        });
        b.add_shape(Shape::Mesh {
            pose: (mesh_at, Quat::IDENTITY),
            scale: Vec3::ONE,
            mesh: mesh.clone(),
        });
        let spots = [
            Vec3::new(-0.6, 0.0, 0.0),
            Vec3::new(0.6, 0.0, 0.0),
            Vec3::new(0.0, 0.6, 0.0),
            Vec3::new(0.0, -0.6, 0.0),
        ];
        for k in 0..200 {
            let c = spots[k % 4];
            let p = c + Vec3::new(r[3 * k] * 0.2, r[3 * k + 1] * 0.2, 0.8 + 0.2 * r[3 * k + 2]);
            b.add_particle(p, Vec3::ZERO, 0.01, 0.02);
        }
        let model = b.finalize(device).unwrap();
        let mut s = State::new(&model).unwrap();
        run(&model, &mut s, 1500, 1e-3).unwrap();
        let q = s.particle_q.to_vec();
        // Penetration of the particles' surfaces (distance − radius): at most 5 mm.
        let mut worst = f32::INFINITY;
        for p in &q {
            assert!(p.z > 0.015, "{device}: in the ground: {p:?}");
            for d in distances(*p, &mesh, mesh_at) {
                worst = worst.min(d - 0.02);
            }
        }
        println!("{device}: deepest penetration {:.2} mm", -worst * 1e3);
        assert!(
            worst > -0.005,
            "{device}: a particle is {:.4} m inside a shape",
            -worst
        );
        // Some rest on top of the shapes (the others rolled off onto the ground).
        let resting = q.iter().filter(|p| p.z > 0.1).count();
        assert!(
            resting > 40,
            "{device}: only {resting} particles rest on shapes"
        );
    }
}

#[weft::kernel]
fn weighted_sum(x: &Array<Vec3>, w: &Array<Vec3>, loss: &mut Array<f64>) {
    let i = tid();
    atomic_add(&mut loss[0], dot(x[i], w[i]) as f64);
}

/// An 8×8 cloth falling for 20 steps (springs, membranes, bending, drag and
/// lift; onto a sphere when asked), with the loss = Σ wᵢ · xᵢ over the final
/// positions.
struct ClothRollout {
    model: Model,
    states: Vec<State>,
    control: Control,
    solver: SemiImplicit,
    w: Array<Vec3>,
}

impl ClothRollout {
    const STEPS: usize = 20;

    fn new(device: Device, sphere: bool) -> Self {
        let mut b = ModelBuilder::new();
        b.add_cloth_grid(&ClothGrid {
            pos: Vec3::new(-0.35, -0.35, 0.66),
            dim_x: 7,
            dim_y: 7,
            mass: 0.02,
            radius: 0.05,
            material: TriMaterial {
                k_mu: 50.0,
                k_lambda: 50.0,
                k_damp: 1.0,
                k_drag: 0.5,
                k_lift: 0.5,
            },
            edge_ke: 0.5,
            edge_kd: 0.01,
            spring_ke: 20.0,
            spring_kd: 0.1,
            vel: Vec3::new(0.0, 0.0, -1.0),
            ..Default::default()
        });
        b.add_shape(Shape::Sphere {
            center: Vec3::new(0.0, 0.0, if sphere { 0.3 } else { -5.0 }),
            radius: 0.3,
            // High enough that friction stays in its viscous regime (kf · speed
            // below mu · normal force): the switch to Coulomb's cone is a kink of
            // the loss that central differences step across.
            mu: 5.0,
        });
        let mut model = b.finalize(device).unwrap();
        let n = model.particle_count();
        // Velocities that differ per particle, so the cloth deforms and its
        // material matters.
        let v: Vec<Vec3> = weft_testkit::random_f32s(3 * n, 12, -1.5, 1.5)
            .chunks(3)
            .map(|c| Vec3::new(c[0], c[1], -1.0 + c[2]))
            .collect();
        model.particle_qd.copy_from_slice(&v).unwrap();
        let r = weft_testkit::random_f32s(3 * n, 11, -1.0, 1.0);
        let w = (0..n)
            .map(|i| Vec3::new(r[3 * i], r[3 * i + 1], r[3 * i + 2]) * 25.0)
            .collect::<Vec<_>>();
        ClothRollout {
            states: (0..=Self::STEPS)
                .map(|_| State::new(&model).unwrap())
                .collect(),
            control: Control::empty(device),
            solver: SemiImplicit::new(),
            w: Array::from_vec(device, w),
            model,
        }
    }

    /// The loss for initial velocities `v0` with `model`'s parameters.
    fn loss(
        &mut self,
        model: &Model,
        v0: &Array<Vec3>,
        loss: &mut Array<f64>,
    ) -> Result<(), weft::Error> {
        let sim = |e: SimError| match e {
            SimError::Runtime(e) => e,
            e => weft::Error::Shape(e.to_string()),
        };
        self.states[0].particle_qd = v0.share();
        self.states[0].particle_f.fill(Vec3::ZERO);
        for k in 0..Self::STEPS {
            let (done, next) = self.states.split_at_mut(k + 1);
            self.solver
                .simulate(model, &mut done[k], &mut next[0], &self.control, 2e-3)
                .map_err(sim)?;
        }
        loss.fill(0.0);
        let n = model.particle_count();
        weighted_sum::launch(n, &self.states[Self::STEPS].particle_q, &self.w, loss)
    }
}

/// The worst absolute error of a gradcheck over the largest gradient component:
/// scale-aware where `max_rel` (relative to max(|fd|, 1)) is not.
fn scaled_error<T: Largest>(r: &weft::GradCheck, input: &Array<T>) -> f64 {
    let g = input.grad_to_vec().expect("gradcheck leaves the gradient");
    let scale = g.iter().fold(0.0f32, |m, x| m.max(x.largest())) as f64;
    assert!(scale > 0.0, "the gradient is zero: nothing was checked");
    r.max_abs / scale
}

/// The largest component magnitude.
trait Largest: weft::__private::Elem {
    fn largest(&self) -> f32;
}
impl Largest for f32 {
    fn largest(&self) -> f32 {
        self.abs()
    }
}
impl Largest for Vec3 {
    fn largest(&self) -> f32 {
        self.abs().max_element()
    }
}

#[test]
fn cloth_gradients_match_finite_differences() {
    // Without contacts the rollout is smooth and f32 central differences agree
    // closely. (Through the sphere contact the check gives 1e-2 at the default step:
    // contacts start with a kink of the force, see `contact_gradients_…` below and
    // the crate docs.)
    let mut c = ClothRollout::new(Device::Cpu, false);
    let model = c.model.share();
    let mut v0 = Array::from_vec(Device::Cpu, c.model.particle_qd.to_vec());
    let r = gradcheck(&mut [&mut v0], Some(1e-2), |v, loss| {
        c.loss(&model, v[0], loss)
    })
    .unwrap();
    let e = scaled_error(&r, &v0);
    println!("initial velocities: {r}; worst error / largest gradient {e:.2e}");
    assert!(e < 1e-2, "{e:.2e}, {r}");

    // Material parameters: one gradcheck per parameter array.
    let v0 = Array::from_vec(Device::Cpu, c.model.particle_qd.to_vec());
    type Field = fn(&mut Model) -> &mut Array<f32>;
    // (Drag and lift are checked within a step below: over the rollout, |n · v|
    // of some triangles crosses zero, a kink of the drag.)
    let fields: [(&str, Field); 5] = [
        ("spring stiffness", |m| &mut m.spring_stiffness),
        ("triangle k_mu", |m| &mut m.tri_k_mu),
        ("triangle k_lambda", |m| &mut m.tri_k_lambda),
        ("bending stiffness", |m| &mut m.edge_ke),
        ("inverse mass", |m| &mut m.particle_inv_mass),
    ];
    for (name, field) in fields {
        let mut m = c.model.share();
        let mut p = Array::from_vec(Device::Cpu, field(&mut m).to_vec());
        // A relative step of 0.1: parameters move positions little in 20 steps, so
        // smaller steps leave mostly rounding in the differences.
        let r = gradcheck(&mut [&mut p], Some(1e-1), |p, loss| {
            let mut m = c.model.share();
            *field(&mut m) = p[0].share();
            c.loss(&m, &v0, loss)
        })
        .unwrap();
        let e = scaled_error(&r, &p);
        println!("{name}: {r}; worst error / largest gradient {e:.2e}");
        assert!(e < 2e-2, "{name}: {e:.2e}, {r}");
    }
}

#[test]
fn bending_forces_follow_the_angle_gradient() {
    // Two triangles folded about the X axis; the bending force on each corner is
    // -ke · |e|² · ∂θ/∂x (the edge length scales the stiffness), checked against
    // central differences of the dihedral angle.
    let fold = |o1: Vec3| {
        let mut b = ModelBuilder::new();
        b.ground = None;
        b.gravity = Vec3::ZERO;
        let p = [
            Vec3::new(0.3, 0.5, 0.0),
            o1,
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
        ];
        for q in p {
            b.add_particle(q, Vec3::ZERO, 1.0, 0.01);
        }
        b
    };
    let angle = |x: [Vec3; 4]| {
        let n1 = (x[2] - x[0]).cross(x[3] - x[0]);
        let n2 = (x[3] - x[1]).cross(x[2] - x[1]);
        let e = (x[3] - x[2]).normalize();
        n2.cross(n1).dot(e).atan2(n1.dot(n2))
    };
    // Rest: flat. Then move the second opposite corner out of the plane.
    let mut b = fold(Vec3::new(0.6, -0.4, 0.0));
    b.add_edge(0, 1, 2, 3, 3.0, 0.0);
    let model = b.finalize(Device::Cpu).unwrap();
    let bent = [
        Vec3::new(0.3, 0.5, 0.0),
        Vec3::new(0.6, -0.4, 0.3),
        Vec3::ZERO,
        Vec3::X,
    ];
    let mut s = State::new(&model).unwrap();
    s.particle_q.copy_from_slice(&bent).unwrap();
    weft_sim::kernels::bending::eval_bending::launch(1, &model, &mut s).unwrap();
    let f = s.particle_f.to_vec();
    let theta = angle(bent);
    assert!(theta.abs() > 0.1, "{theta}");
    for (i, fi) in f.iter().enumerate() {
        for c in 0..3 {
            let h = 1e-3;
            let (mut a, mut b2) = (bent, bent);
            a[i][c] += h;
            b2[i][c] -= h;
            let d = (angle(a) - angle(b2)) / (2.0 * h);
            let expect = -3.0 * theta * d;
            assert!(
                (fi[c] - expect).abs() < 2e-3,
                "corner {i} axis {c}: {} vs {expect}",
                fi[c]
            );
        }
    }
}

#[test]
fn builder_errors_name_the_bad_item() {
    let base = || {
        let mut b = ModelBuilder::new();
        b.add_particle(Vec3::ZERO, Vec3::ZERO, 1.0, 0.1);
        b.add_particle(Vec3::X, Vec3::ZERO, 1.0, 0.1);
        b.add_particle(Vec3::Y, Vec3::ZERO, 1.0, 0.1);
        b
    };
    let err = |b: ModelBuilder| b.finalize(Device::Cpu).unwrap_err().to_string();
    let mut b = base();
    b.add_particle(Vec3::ZERO, Vec3::ZERO, -1.0, 0.1);
    assert_eq!(err(b), "particle 3: mass must be finite and ≥ 0, got -1");
    let mut b = base();
    b.add_particle(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ZERO, 1.0, 0.1);
    assert!(err(b).starts_with("particle 3: position must be finite"));
    let mut b = base();
    b.add_spring(0, 1, 1.0, 0.0);
    b.add_spring(1, 1, 1.0, 0.0);
    assert_eq!(err(b), "spring 1: particle 1 appears twice");
    let mut b = base();
    b.add_spring(0, 1, f32::INFINITY, 0.0);
    assert_eq!(
        err(b),
        "spring 0: stiffness must be finite and ≥ 0, got inf"
    );
    let mut b = base();
    b.add_triangle(0, 1, 5, TriMaterial::default());
    assert_eq!(
        err(b),
        "triangle 0: particle index 5 out of range (3 particles)"
    );
    let mut b = base();
    b.add_particle(Vec3::new(2.0, 0.0, 0.0), Vec3::ZERO, 1.0, 0.1);
    b.add_triangle(0, 1, 3, TriMaterial::default());
    assert_eq!(err(b), "triangle 0: degenerate: its rest area is zero");
    let mut b = base();
    b.add_edge(0, 1, 2, 9, 1.0, 0.0);
    assert_eq!(
        err(b),
        "bending edge 0: particle index 9 out of range (3 particles)"
    );
    let mut b = base();
    b.add_shape(Shape::Sphere {
        center: Vec3::ZERO,
        radius: -1.0,
        mu: 0.5,
    });
    assert_eq!(
        err(b),
        "shape 0: sphere radius must be finite and > 0, got -1"
    );
    let mut b = base();
    b.contact.ke = f32::NAN;
    assert_eq!(
        err(b),
        "parameter `contact.ke`: must be finite and ≥ 0, got NaN"
    );
    let mut b = base();
    b.ground = Some(weft_sim::Ground {
        normal: Vec3::ZERO,
        ..Default::default()
    });
    assert!(err(b).starts_with("parameter `ground`: normal must be finite and non-zero"));

    // Runtime mismatches are errors too.
    let model = base().finalize(Device::Cpu).unwrap();
    let mut a = State::new(&model).unwrap();
    let mut other = base();
    other.add_particle(Vec3::Z, Vec3::ZERO, 1.0, 0.1);
    let mut wrong = State::new(&other.finalize(Device::Cpu).unwrap()).unwrap();
    let control = Control::empty(Device::Cpu);
    let e = SemiImplicit::new()
        .simulate(&model, &mut a, &mut wrong, &control, 1e-3)
        .unwrap_err();
    assert!(e.to_string().contains("the model has 3 particles"), "{e}");
    let mut b2 = State::new(&model).unwrap();
    let e = SemiImplicit::new()
        .simulate(&model, &mut a, &mut b2, &control, f32::NAN)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "parameter `dt`: must be finite and > 0, got NaN"
    );
}

#[test]
fn cpu_and_cuda_agree_on_a_short_rollout() {
    let run_on = |device: Device| {
        let mut c = ClothRollout::new(device, true);
        let model = c.model.share();
        // A copy: the state must not alias the model's array (the launches read
        // one and write the other's structure).
        let v0 = Array::from_vec(device, model.particle_qd.to_vec());
        let mut loss = Array::zeros(device, [1]);
        c.loss(&model, &v0, &mut loss).unwrap();
        (
            c.states[ClothRollout::STEPS].particle_q.to_vec(),
            loss.to_vec()[0],
        )
    };
    let (qc, lc) = run_on(Device::Cpu);
    assert!(lc.is_finite() && qc.iter().all(|q| q.is_finite()));
    let Some(gpu) = cuda() else { return };
    let (qg, lg) = run_on(gpu);
    let worst = qc
        .iter()
        .zip(&qg)
        .map(|(a, b)| (*a - *b).abs().max_element())
        .fold(0.0, f32::max);
    println!("worst position difference {worst:e}, loss {lc} vs {lg}");
    // Atomic sums differ in order between the back ends; 20 steps amplify it.
    assert!(worst < 1e-4, "positions differ by {worst}");
    assert!(
        (lc - lg).abs() < 1e-4 * lc.abs().max(1.0),
        "loss {lc} vs {lg}"
    );
}

#[test]
fn contact_gradients_match_finite_differences_within_a_step() {
    // One step of particles pressed into the ground, a sphere, a box (rotated), a
    // capsule, a bounded plane and a mesh, each sliding: the penalty force, its
    // damping and friction differentiate exactly away from the kinks (contact
    // onset, the switch to Coulomb's cone), which these particles are clear of.
    let mesh = weft_geom::generate::icosphere(0.3, 1);
    // Above the middle of the mesh's first face (a vertex or an edge would be a
    // kink: several faces are closest there).
    let on_face = {
        let [a, b, c] = mesh.indices()[0].map(|i| mesh.points()[i as usize]);
        let n = (b - a).cross(c - a).normalize();
        Vec3::new(4.0, 4.0, 0.5) + (a + b + c) / 3.0 + n * 0.03 + (b - a) * 0.05
    };
    let mut b = ModelBuilder::new();
    b.contact = weft_sim::ContactParams {
        ke: 500.0,
        kd: 2.0,
        kf: 10.0,
        margin: 0.0,
    };
    b.add_shape(Shape::Sphere {
        center: Vec3::new(2.0, 0.0, 0.5),
        radius: 0.3,
        mu: 0.5,
    });
    b.add_shape(Shape::Box {
        pose: (Vec3::new(-2.0, 0.0, 0.5), Quat::from_rotation_z(0.3)),
        half_extents: Vec3::new(0.3, 0.2, 0.25),
        mu: 0.5,
    });
    b.add_shape(Shape::Capsule {
        pose: (Vec3::new(0.0, 2.0, 0.5), Quat::from_rotation_x(0.4)),
        radius: 0.2,
        half_height: 0.3,
        mu: 0.5,
    });
    b.add_shape(Shape::Plane {
        pose: (Vec3::new(0.0, -2.0, 0.5), Quat::from_rotation_y(0.2)),
        half_extents: [0.5, 0.5],
        mu: 0.5,
    });
    b.add_shape(Shape::Mesh {
        pose: (Vec3::new(4.0, 4.0, 0.5), Quat::IDENTITY),
        scale: Vec3::ONE,
        mesh,
    });
    let at = [
        Vec3::new(0.0, 0.0, 0.03),                // ground
        Vec3::new(2.0, 0.05, 0.5 + 0.3 + 0.02),   // sphere top
        Vec3::new(-2.0, 0.02, 0.5 + 0.25 + 0.03), // box top
        Vec3::new(0.0, 2.0 - 0.05, 0.5 + 0.18),   // capsule side
        Vec3::new(0.05, -2.0, 0.5 + 0.02),        // plane
        on_face,                                  // mesh
    ];
    for p in at {
        b.add_particle(p, Vec3::ZERO, 0.1, 0.05);
    }
    let model = b.finalize(Device::Cpu).unwrap();
    let n = model.particle_count();
    let w: Vec<Vec3> = weft_testkit::random_f32s(3 * n, 5, -1.0, 1.0)
        .chunks(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect();
    let w = Array::from_vec(Device::Cpu, w);
    let u: Vec<Vec3> = weft_testkit::random_f32s(3 * n, 8, -1.0, 1.0)
        .chunks(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect();
    let u = Array::from_vec(Device::Cpu, u);
    let v: Vec<Vec3> = weft_testkit::random_f32s(3 * n, 6, -0.3, 0.3)
        .chunks(3)
        .map(|c| Vec3::new(0.5 + c[0], c[1], -0.3 + 0.1 * c[2]))
        .collect();
    let mut q0 = Array::from_vec(Device::Cpu, at.to_vec());
    let mut v0 = Array::from_vec(Device::Cpu, v);
    let control = Control::empty(Device::Cpu);
    let mut out = State::new(&model).unwrap();
    let r = gradcheck(&mut [&mut q0, &mut v0], Some(1e-3), |a, loss| {
        let mut s = State {
            particle_q: a[0].share(),
            particle_qd: a[1].share(),
            particle_f: Array::zeros(Device::Cpu, [n]),
            body_q: Array::zeros(Device::Cpu, [0]),
            body_qd: Array::zeros(Device::Cpu, [0]),
            body_f: Array::zeros(Device::Cpu, [0]),
            joint_q: Array::zeros(Device::Cpu, [0]),
            joint_qd: Array::zeros(Device::Cpu, [0]),
        };
        SemiImplicit::new()
            .simulate(&model, &mut s, &mut out, &control, 1e-2)
            .map_err(|e| weft::Error::Shape(e.to_string()))?;
        // Positions and velocities after the step both enter the loss (a step
        // moves positions by only dt · Δv: alone they would leave f32 differences
        // mostly rounding).
        loss.fill(0.0);
        weighted_sum::launch(n, &out.particle_q, &w, loss)?;
        weighted_sum::launch(n, &out.particle_qd, &u, loss)
    })
    .unwrap();
    println!("contacts, one step: {r}");
    assert_eq!(r.checked, 2 * 3 * n);
    assert!(r.max_rel < 2e-3, "{r}");
    // Every particle was in contact: the step changed their velocities.
    let f = out.particle_qd.to_vec();
    for (i, (a, b)) in f.iter().zip(at).enumerate() {
        assert!(a.is_finite() && b.is_finite(), "particle {i}");
    }
}

#[test]
fn aerodynamic_gradients_match_finite_differences_within_a_step() {
    // The membrane forces of a wrinkled 3×3 cloth moving through air, with drag
    // and lift: gradients of Σ w · f with respect to the coefficients and the
    // velocities.
    for lift in [false, true] {
        let mut b = ModelBuilder::new();
        b.ground = None;
        b.add_cloth_grid(&ClothGrid {
            dim_x: 3,
            dim_y: 3,
            material: TriMaterial {
                k_mu: 10.0,
                k_lambda: 10.0,
                k_damp: 0.1,
                k_drag: if lift { 0.0 } else { 0.5 },
                k_lift: if lift { 0.5 } else { 0.0 },
            },
            edge_ke: 0.0,
            ..Default::default()
        });
        let mut model = b.finalize(Device::Cpu).unwrap();
        let n = model.particle_count();
        let f = |i: usize, a: f32| (i as f32 * a).sin();
        let v: Vec<Vec3> = (0..n)
            .map(|i| Vec3::new(f(i, 0.7), f(i, 1.3), f(i, 0.37) + 0.5))
            .collect();
        let q: Vec<Vec3> = model
            .particle_q
            .to_vec()
            .iter()
            .enumerate()
            .map(|(i, p)| *p + Vec3::Z * f(i, 2.1) * 0.03)
            .collect();
        model.particle_qd.copy_from_slice(&v).unwrap();
        model.particle_q.copy_from_slice(&q).unwrap();
        let w = Array::from_vec(
            Device::Cpu,
            (0..n)
                .map(|i| Vec3::new(f(i, 0.3), f(i, 1.7), f(i, 0.9)))
                .collect(),
        );
        let forces = |m: &Model, v: &Array<Vec3>, loss: &mut Array<f64>| {
            let mut s = State::new(m).unwrap();
            s.particle_qd = v.share();
            weft_sim::kernels::triangles::eval_triangles::launch(m.tri_count(), m, &mut s)?;
            loss.fill(0.0);
            weighted_sum::launch(n, &s.particle_f, &w, loss)
        };
        let coeff = |m: &mut Model| {
            if lift {
                m.tri_k_lift.share()
            } else {
                m.tri_k_drag.share()
            }
        };
        let mut p = Array::from_vec(Device::Cpu, coeff(&mut model.share()).to_vec());
        let vel = Array::from_vec(Device::Cpu, v.clone());
        let r = gradcheck(&mut [&mut p], Some(1e-2), |p, loss| {
            let mut m = model.share();
            if lift {
                m.tri_k_lift = p[0].share();
            } else {
                m.tri_k_drag = p[0].share();
            }
            forces(&m, &vel, loss)
        })
        .unwrap();
        let e = scaled_error(&r, &p);
        println!("lift {lift}, coefficients: {r}; scaled {e:.1e}");
        assert!(e < 2e-3, "{r}");
        let mut vv = Array::from_vec(Device::Cpu, v);
        let r = gradcheck(&mut [&mut vv], Some(1e-3), |v, loss| {
            forces(&model, v[0], loss)
        })
        .unwrap();
        let e = scaled_error(&r, &vv);
        println!("lift {lift}, velocities: {r}; scaled {e:.1e}");
        assert!(e < 1e-2, "{r}");
    }
}

#[test]
fn every_solver_kernel_has_ptx() {
    use weft_sim::kernels::*;
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(
            springs::eval_springs,
            triangles::eval_triangles,
            bending::eval_bending,
            contact::eval_shape_contacts,
            contact::eval_particle_contacts,
            integrate::integrate_particles,
            xpbd::xpbd_predict,
            xpbd::xpbd_springs,
            xpbd::xpbd_bending,
            xpbd::xpbd_apply,
            xpbd::xpbd_contacts,
            xpbd::xpbd_finish,
        ),
        &[],
    );
}
