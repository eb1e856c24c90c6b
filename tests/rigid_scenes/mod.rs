//! Rigid scenes described once and built the same way in Weft (`XpbdRigid`) and
//! in Rapier (`PhysicsPipeline`): Z up, gravity (0, 0, -9.81), an infinite
//! ground at z = 0, bodies of water density (a 10 cm box is 1 kg). Shared by
//! `tests/rigid_vs_rapier.rs` and `benches/rigid.rs`.

#![allow(dead_code)]

use rapier3d::prelude as r;
use weft::prelude::*;
use weft_collide::{Geometry, Material, ShapeDesc};
use weft_sim::{BodyDesc, Model, ModelBuilder, State, XpbdRigid};

/// Gravity along -Z (m/s²).
pub const G: f32 = 9.81;
/// Density of every body (kg/m³).
pub const DENSITY: f32 = 1000.0;

/// A collision shape centred on its body.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// A sphere of this radius.
    Sphere(f32),
    /// A box of these half extents.
    Box([f32; 3]),
}

/// A body: dynamic (with an initial linear velocity) or fixed.
#[derive(Clone, Copy, Debug)]
pub struct Body {
    pub shape: Shape,
    pub pos: [f32; 3],
    pub vel: [f32; 3],
    pub fixed: bool,
}

/// Bodies on the ground, every shape (ground included) with friction `mu` and
/// restitution `restitution` (both engines average the pair's coefficients).
#[derive(Clone, Debug, Default)]
pub struct Scene {
    pub bodies: Vec<Body>,
    pub mu: f32,
    pub restitution: f32,
}

impl Scene {
    /// An empty scene with these material coefficients.
    pub fn new(mu: f32, restitution: f32) -> Scene {
        Scene {
            bodies: Vec::new(),
            mu,
            restitution,
        }
    }

    /// Adds a dynamic body at `pos` moving at `vel`.
    pub fn dynamic(&mut self, shape: Shape, pos: [f32; 3], vel: [f32; 3]) {
        self.bodies.push(Body {
            shape,
            pos,
            vel,
            fixed: false,
        });
    }

    /// Adds a fixed box at `pos`.
    pub fn fixed_box(&mut self, half: [f32; 3], pos: [f32; 3]) {
        self.bodies.push(Body {
            shape: Shape::Box(half),
            pos,
            vel: [0.0; 3],
            fixed: true,
        });
    }

    /// A 2-D pyramid of `layers` layers of 10 cm boxes (the bottom one holds
    /// `layers` boxes, each layer one fewer, offset by half a box), touching.
    pub fn pyramid(layers: usize) -> Scene {
        let (h, mut s) = (0.05, Scene::new(0.5, 0.0));
        for k in 0..layers {
            let n = layers - k;
            for i in 0..n {
                let x = (i as f32 - 0.5 * (n - 1) as f32) * 2.0 * h;
                s.dynamic(
                    Shape::Box([h; 3]),
                    [x, 0.0, h + 2.0 * h * k as f32],
                    [0.0; 3],
                );
            }
        }
        s
    }

    /// `n`³ 10 cm boxes on a lattice of 15 cm, from 0.5 m up, above a square
    /// container of fixed 10 cm thick, 1.5 m high walls around a 2.4 m floor.
    pub fn rain(n: usize) -> Scene {
        let (h, pitch, mut s) = (0.05, 0.15, Scene::new(0.5, 0.0));
        let half_span = 0.5 * pitch * (n - 1) as f32;
        let (inner, wall_h) = (1.2f32.max(half_span + 2.0 * h), 0.75);
        for (x, y, hx, hy) in [
            (inner + h, 0.0, h, inner + 2.0 * h),
            (-inner - h, 0.0, h, inner + 2.0 * h),
            (0.0, inner + h, inner, h),
            (0.0, -inner - h, inner, h),
        ] {
            s.fixed_box([hx, hy, wall_h], [x, y, wall_h]);
        }
        for k in 0..n {
            for j in 0..n {
                for i in 0..n {
                    let p = [
                        i as f32 * pitch - half_span,
                        j as f32 * pitch - half_span,
                        0.5 + k as f32 * pitch,
                    ];
                    s.dynamic(Shape::Box([h; 3]), p, [0.0; 3]);
                }
            }
        }
        s
    }

    /// The indices of the dynamic bodies, in order.
    pub fn dynamic_indices(&self) -> Vec<usize> {
        (0..self.bodies.len())
            .filter(|&i| !self.bodies[i].fixed)
            .collect()
    }
}

/// The scene in Weft: its dynamic bodies in scene order, fixed ones as static
/// shapes; stepped by `XpbdRigid` with its default settings.
pub struct WeftWorld {
    pub model: Model,
    pub solver: XpbdRigid,
    s0: State,
    s1: State,
}

impl WeftWorld {
    pub fn new(scene: &Scene) -> WeftWorld {
        let material = Material {
            mu: scene.mu,
            mu_static: scene.mu,
            restitution: scene.restitution,
            ..Material::default()
        };
        let mut b = ModelBuilder::new();
        b.ground = None;
        let mut plane = ShapeDesc::new(
            -1,
            Transform::IDENTITY,
            Geometry::Plane {
                half_extents: Vec2::ZERO,
            },
        );
        plane.material = material;
        b.add_rigid_shape(plane);
        for body in &scene.bodies {
            let geometry = match body.shape {
                Shape::Sphere(radius) => Geometry::Sphere { radius },
                Shape::Box(h) => Geometry::Box {
                    half_extents: Vec3::from(h),
                },
            };
            let pose = Transform::from_translation(Vec3::from(body.pos));
            if body.fixed {
                let mut shape = ShapeDesc::new(-1, pose, geometry);
                shape.material = material;
                b.add_rigid_shape(shape);
            } else {
                let mut desc = BodyDesc::new(pose);
                desc.velocity = SpatialVector::new(Vec3::from(body.vel), Vec3::ZERO);
                let id = b.add_body(desc) as i32;
                b.add_body_shape_with(id, Transform::IDENTITY, geometry, material);
            }
        }
        let model = b.finalize(Device::Cpu).unwrap();
        let solver = XpbdRigid::new(&model, Default::default()).unwrap();
        let (s0, s1) = (State::new(&model).unwrap(), State::new(&model).unwrap());
        WeftWorld {
            model,
            solver,
            s0,
            s1,
        }
    }

    /// One step of `dt`.
    pub fn step(&mut self, dt: f32) {
        self.solver
            .simulate(&self.model, &mut self.s0, &mut self.s1, dt)
            .unwrap();
        std::mem::swap(&mut self.s0, &mut self.s1);
    }

    /// Positions of the dynamic bodies (scene order).
    pub fn positions(&self) -> Vec<[f32; 3]> {
        let q = self.s0.body_q.to_vec();
        q.iter().map(|t| t.p.to_array()).collect()
    }

    /// Linear velocities of the dynamic bodies (scene order).
    pub fn velocities(&self) -> Vec<[f32; 3]> {
        let qd = self.s0.body_qd.to_vec();
        qd.iter().map(|v| v.top.to_array()).collect()
    }
}

/// The scene in Rapier: default `IntegrationParameters` (its own solver
/// iterations) but for `dt`, sleeping disabled on every body, ground a fixed
/// 100 m × 100 m × 1 m cuboid whose top face is z = 0.
pub struct RapierWorld {
    pub params: r::IntegrationParameters,
    pipeline: r::PhysicsPipeline,
    islands: r::IslandManager,
    broad_phase: r::DefaultBroadPhase,
    narrow_phase: r::NarrowPhase,
    bodies: r::RigidBodySet,
    colliders: r::ColliderSet,
    impulse_joints: r::ImpulseJointSet,
    multibody_joints: r::MultibodyJointSet,
    soft_bodies: r::SoftBodySet,
    ccd: r::CCDSolver,
    handles: Vec<r::RigidBodyHandle>,
}

impl RapierWorld {
    pub fn new(scene: &Scene, dt: f32) -> RapierWorld {
        let (mut bodies, mut colliders) = (r::RigidBodySet::new(), r::ColliderSet::new());
        let collider = |b: r::ColliderBuilder| {
            b.friction(scene.mu)
                .restitution(scene.restitution)
                .density(DENSITY)
        };
        let ground =
            bodies.insert(r::RigidBodyBuilder::fixed().translation(r::Vector::new(0.0, 0.0, -0.5)));
        colliders.insert_with_parent(
            collider(r::ColliderBuilder::cuboid(50.0, 50.0, 0.5)),
            ground,
            &mut bodies,
        );
        let mut handles = Vec::new();
        for body in &scene.bodies {
            let [x, y, z] = body.pos;
            let [vx, vy, vz] = body.vel;
            let builder = if body.fixed {
                r::RigidBodyBuilder::fixed()
            } else {
                r::RigidBodyBuilder::dynamic()
                    .linvel(r::Vector::new(vx, vy, vz))
                    .can_sleep(false)
            };
            let handle = bodies.insert(builder.translation(r::Vector::new(x, y, z)));
            let shape = match body.shape {
                Shape::Sphere(radius) => r::ColliderBuilder::ball(radius),
                Shape::Box([hx, hy, hz]) => r::ColliderBuilder::cuboid(hx, hy, hz),
            };
            colliders.insert_with_parent(collider(shape), handle, &mut bodies);
            if !body.fixed {
                handles.push(handle);
            }
        }
        let params = r::IntegrationParameters {
            dt,
            ..Default::default()
        };
        RapierWorld {
            params,
            pipeline: r::PhysicsPipeline::new(),
            islands: r::IslandManager::new(),
            broad_phase: r::DefaultBroadPhase::new(),
            narrow_phase: r::NarrowPhase::new(),
            bodies,
            colliders,
            impulse_joints: r::ImpulseJointSet::new(),
            multibody_joints: r::MultibodyJointSet::new(),
            soft_bodies: r::SoftBodySet::new(),
            ccd: r::CCDSolver::new(),
            handles,
        }
    }

    /// One step of `params.dt`.
    pub fn step(&mut self) {
        self.pipeline.step(
            r::Vector::new(0.0, 0.0, -G),
            &self.params,
            &mut self.islands,
            &mut self.broad_phase,
            &mut self.narrow_phase,
            &mut self.bodies,
            &mut self.colliders,
            &mut self.impulse_joints,
            &mut self.multibody_joints,
            &mut self.soft_bodies,
            &mut self.ccd,
            &(),
            &(),
        );
    }

    /// Positions of the dynamic bodies (scene order).
    pub fn positions(&self) -> Vec<[f32; 3]> {
        self.handles
            .iter()
            .map(|&h| {
                let t = self.bodies[h].translation();
                [t.x, t.y, t.z]
            })
            .collect()
    }

    /// Linear velocities of the dynamic bodies (scene order).
    pub fn velocities(&self) -> Vec<[f32; 3]> {
        self.handles
            .iter()
            .map(|&h| {
                let v = self.bodies[h].linvel();
                [v.x, v.y, v.z]
            })
            .collect()
    }
}
