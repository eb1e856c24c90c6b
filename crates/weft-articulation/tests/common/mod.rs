//! Models and helpers shared by the articulation tests.
#![allow(dead_code)] // each test binary uses a part

use glam::{Mat3, Quat, Vec3};
use weft::{Device, SpatialVector, Transform};
use weft_geom::MassProperties;
use weft_sim::{BodyDesc, BodyMass, JointDesc, Model, ModelBuilder, State};

/// Standard gravity used by the models.
pub const G: f32 = 9.81;

/// A body with the given mass, centre of mass and inertia (body frame).
pub fn body(b: &mut ModelBuilder, mass: f32, com: Vec3, inertia: Vec3) -> usize {
    let mut d = BodyDesc::new(Transform::IDENTITY);
    d.mass = BodyMass::Given(MassProperties {
        mass,
        com,
        inertia: Mat3::from_diagonal(inertia),
    });
    b.add_body(d)
}

/// A builder without ground, gravity along -Z of magnitude `g`.
pub fn builder(g: f32) -> ModelBuilder {
    let mut b = ModelBuilder::new();
    b.ground = None;
    b.gravity = Vec3::new(0.0, 0.0, -g);
    b
}

/// A pendulum: a sphere of mass `m` and radius `r` whose centre hangs `l`
/// below a hinge about Y at the origin, at angle `q0`.
pub fn pendulum(device: Device, m: f32, r: f32, l: f32, q0: f32) -> Model {
    let mut b = builder(G);
    let i = 0.4 * m * r * r;
    let bob = body(&mut b, m, Vec3::ZERO, Vec3::splat(i));
    let hang = Transform::from_translation(Vec3::new(0.0, 0.0, l));
    b.add_joint(
        JointDesc::revolute(-1, bob, Vec3::Y)
            .with_frames(Transform::IDENTITY, hang)
            .with_q(&[q0]),
    )
    .unwrap();
    b.finalize(device).unwrap()
}

/// A double pendulum of two rods (mass 1, length 1, along -Z) hinged about Y.
pub fn add_double_pendulum(b: &mut ModelBuilder, at: Vec3, q: [f32; 2]) {
    let rod = |b: &mut ModelBuilder| {
        body(
            b,
            1.0,
            Vec3::new(0.0, 0.0, -0.5),
            Vec3::new(1.0 / 12.0, 1.0 / 12.0, 1e-3),
        )
    };
    let a = rod(b);
    let c = rod(b);
    b.add_joint(
        JointDesc::revolute(-1, a, Vec3::Y)
            .with_frames(Transform::from_translation(at), Transform::IDENTITY)
            .with_q(&[q[0]]),
    )
    .unwrap();
    b.add_joint(
        JointDesc::revolute(a as i32, c, Vec3::Y)
            .with_frames(
                Transform::from_translation(Vec3::new(0.0, 0.0, -1.0)),
                Transform::IDENTITY,
            )
            .with_q(&[q[1]]),
    )
    .unwrap();
}

/// A tree with every joint kind that moves: free base, revolute, ball,
/// universal, prismatic, D6 and a fixed link; frames turned and offset.
pub fn add_mixed_tree(b: &mut ModelBuilder) {
    let base = body(
        b,
        3.0,
        Vec3::new(0.05, -0.02, 0.01),
        Vec3::new(0.1, 0.2, 0.15),
    );
    let l1 = body(
        b,
        1.0,
        Vec3::new(0.0, 0.0, -0.2),
        Vec3::new(0.02, 0.03, 0.01),
    );
    let l2 = body(
        b,
        0.7,
        Vec3::new(0.1, 0.0, 0.0),
        Vec3::new(0.01, 0.02, 0.02),
    );
    let l3 = body(
        b,
        0.8,
        Vec3::new(0.0, 0.1, 0.0),
        Vec3::new(0.02, 0.01, 0.02),
    );
    let l4 = body(
        b,
        0.5,
        Vec3::new(0.0, 0.0, 0.05),
        Vec3::new(0.01, 0.01, 0.005),
    );
    let l5 = body(
        b,
        0.6,
        Vec3::new(0.02, 0.03, -0.04),
        Vec3::new(0.01, 0.008, 0.012),
    );
    let l6 = body(
        b,
        0.4,
        Vec3::new(0.05, 0.0, 0.0),
        Vec3::new(0.004, 0.006, 0.005),
    );
    let turn = |axis: Vec3, angle: f32, p: Vec3| {
        Transform::new(p, Quat::from_axis_angle(axis.normalize(), angle))
    };
    b.add_joint(JointDesc::free(base).named("base")).unwrap();
    b.add_joint(
        JointDesc::revolute(base as i32, l1, Vec3::new(0.0, 1.0, 1.0)).with_frames(
            turn(Vec3::X, 0.3, Vec3::new(0.2, 0.0, -0.1)),
            turn(Vec3::Z, -0.2, Vec3::new(0.0, 0.0, 0.1)),
        ),
    )
    .unwrap();
    b.add_joint(JointDesc::ball(l1 as i32, l2).with_frames(
        turn(Vec3::Y, 0.5, Vec3::new(0.0, 0.0, -0.4)),
        turn(Vec3::X, 0.1, Vec3::new(-0.1, 0.0, 0.0)),
    ))
    .unwrap();
    b.add_joint(
        JointDesc::universal(base as i32, l3, Vec3::X, Vec3::new(0.0, 1.0, 0.2)).with_frames(
            turn(Vec3::Z, 0.7, Vec3::new(-0.2, 0.1, 0.0)),
            turn(Vec3::Y, 0.2, Vec3::new(0.0, -0.1, 0.0)),
        ),
    )
    .unwrap();
    b.add_joint(
        JointDesc::prismatic(l3 as i32, l4, Vec3::new(1.0, 0.0, 0.5)).with_frames(
            turn(Vec3::X, -0.4, Vec3::new(0.0, 0.3, 0.0)),
            Transform::IDENTITY,
        ),
    )
    .unwrap();
    b.add_joint(
        JointDesc::d6(l4 as i32, l5, &[Vec3::X, Vec3::Y], &[Vec3::Z, Vec3::X]).with_frames(
            turn(Vec3::Y, 0.3, Vec3::new(0.0, 0.0, 0.2)),
            turn(Vec3::Z, 0.3, Vec3::new(0.05, 0.0, 0.0)),
        ),
    )
    .unwrap();
    b.add_joint(JointDesc::fixed(l2 as i32, l6).with_frames(
        turn(Vec3::Z, 0.9, Vec3::new(0.2, 0.0, 0.0)),
        Transform::IDENTITY,
    ))
    .unwrap();
}

/// The mixed tree followed by a double pendulum: two articulations.
pub fn mixed_model(device: Device, g: f32) -> Model {
    let mut b = builder(g);
    add_mixed_tree(&mut b);
    add_double_pendulum(&mut b, Vec3::new(1.0, 0.0, 2.0), [0.4, -0.3]);
    b.finalize(device).unwrap()
}

/// A small deterministic generator (xorshift) for test inputs.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        lo + (hi - lo) * ((self.0 >> 40) as f32 / (1u64 << 24) as f32)
    }
}

/// Random coordinates for `model` (unit quaternions for ball and free joints).
pub fn random_q(model: &Model, rng: &mut Rng) -> Vec<f32> {
    let kinds = model.joint_type.to_vec();
    let qs = model.joint_q_start.to_vec();
    let mut q: Vec<f32> = (0..model.joint_coord_count())
        .map(|_| rng.range(-1.0, 1.0))
        .collect();
    for (j, &k) in kinds.iter().enumerate() {
        let s = match k {
            weft_sim::JOINT_BALL => qs[j] as usize,
            weft_sim::JOINT_FREE => qs[j] as usize + 3,
            _ => continue,
        };
        let r = Quat::from_xyzw(q[s], q[s + 1], q[s + 2], q[s + 3]).normalize();
        q[s..s + 4].copy_from_slice(&r.to_array());
    }
    q
}

/// Random values, one per degree of freedom.
pub fn random_dofs(model: &Model, rng: &mut Rng, scale: f32) -> Vec<f32> {
    (0..model.joint_dof_count())
        .map(|_| rng.range(-scale, scale))
        .collect()
}

/// Kinetic and potential energy of the bodies of `state` (after forward
/// kinematics), gravity `(0, 0, -g)`.
pub fn energy(model: &Model, state: &State, g: f32) -> (f64, f64) {
    let (q, qd) = (state.body_q.to_vec(), state.body_qd.to_vec());
    let (m, com, inertia) = (
        model.body_mass.to_vec(),
        model.body_com.to_vec(),
        model.body_inertia.to_vec(),
    );
    let (mut ke, mut pe) = (0.0f64, 0.0f64);
    for b in 0..q.len() {
        let r = Mat3::from_quat(q[b].q);
        let w = qd[b].bottom;
        let iw = r * inertia[b] * r.transpose();
        ke += 0.5 * (m[b] * qd[b].top.length_squared() + w.dot(iw * w)) as f64;
        pe += (m[b] * g * (q[b].p + q[b].q * com[b]).z) as f64;
    }
    (ke, pe)
}

/// Linear momentum and angular momentum about the origin of the bodies.
pub fn momentum(model: &Model, state: &State) -> (Vec3, Vec3) {
    let (q, qd) = (state.body_q.to_vec(), state.body_qd.to_vec());
    let (m, com, inertia) = (
        model.body_mass.to_vec(),
        model.body_com.to_vec(),
        model.body_inertia.to_vec(),
    );
    let (mut p, mut l) = (Vec3::ZERO, Vec3::ZERO);
    for b in 0..q.len() {
        let r = Mat3::from_quat(q[b].q);
        let c = q[b].p + q[b].q * com[b];
        let pb = qd[b].top * m[b];
        p += pb;
        l += r * inertia[b] * r.transpose() * qd[b].bottom + c.cross(pb);
    }
    (p, l)
}

/// A zero wrench.
pub fn no_wrench() -> SpatialVector {
    SpatialVector::new(Vec3::ZERO, Vec3::ZERO)
}
