//! The rigid-body pile of `examples/rigid_pile.rs` and `tests/rigid_pile.rs`:
//! boxes, spheres, capsules, convex rocks (and cylinders if asked for), started in a loose
//! jittered lattice above a bumpy bowl (a static triangle mesh, [`Terrain`]),
//! fall and pile up in it. Stepped by [`XpbdRigid`] or by [`SemiImplicit`]
//! (penalty contacts) with substeps ([`PileStepper`]).

use std::sync::Arc;

use weft::prelude::*;
use weft_collide::{ContactReport, Geometry, Material, ShapeDesc};
use weft_geom::ConvexHull;
use weft_sim::{BodyDesc, Control, Model, ModelBuilder, SemiImplicit, SimError, State, XpbdRigid};

mod terrain;
pub use terrain::Terrain;

/// What a body is (each body has one shape); the example colours by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A box.
    Box,
    /// A sphere.
    Sphere,
    /// A capsule.
    Capsule,
    /// A cylinder.
    Cylinder,
    /// A convex hull of a few random points (a rock).
    Rock,
}

/// The pile's size and layout.
#[derive(Clone, Copy, Debug)]
pub struct PileConfig {
    /// Bodies.
    pub count: usize,
    /// Bodies per side of a lattice layer (layers stack until `count`).
    pub columns: usize,
    /// Lattice spacing (m): at least 0.27, so that no two bodies overlap at
    /// the start (the largest reaches 10.5 cm from its centre, and each is
    /// jittered by up to 3 cm along each axis).
    pub spacing: f32,
    /// Height of the lowest layer above the terrain under it (m).
    pub drop_height: f32,
    /// Terrain side (m), quads per side, bowl depth at the edge midpoints and
    /// bump amplitude (m).
    pub terrain: (f32, usize, f32, f32),
    /// The share of cylinders, taken from the rocks' 20 % (0 in both presets:
    /// with penalty contacts a cylinder landing on the mesh can pass through
    /// it — of the example's ~200 at a share of 0.1, the first after 0.37 s —
    /// and a body falling forever spoils the view).
    pub cylinders: f32,
    /// Seed of the shapes, sizes, jitter and orientations.
    pub seed: u64,
}

impl PileConfig {
    /// The example's pile: `count` bodies in layers of 20 × 20, 28 cm apart,
    /// over an 8 m bowl 1 m deep.
    pub fn example(count: usize) -> PileConfig {
        PileConfig {
            count,
            columns: 20,
            spacing: 0.28,
            drop_height: 0.6,
            terrain: (8.0, 48, 1.0, 0.12),
            cylinders: 0.0,
            seed: 7,
        }
    }

    /// A small pile for tests: `count` bodies in layers of 4 × 4 over a 3 m bowl.
    pub fn small(count: usize) -> PileConfig {
        PileConfig {
            count,
            columns: 4,
            spacing: 0.28,
            drop_height: 0.3,
            terrain: (3.0, 16, 1.0, 0.06),
            cylinders: 0.0,
            seed: 3,
        }
    }

    /// The terrain this configuration stands on.
    pub fn terrain(&self) -> Terrain {
        let (size, cells, depth, bumps) = self.terrain;
        Terrain::bowl(size, cells, depth, bumps)
    }
}

/// SplitMix64 in `[0, 1)`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }

    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }

    /// A uniformly random rotation (Shoemake).
    fn rotation(&mut self) -> Quat {
        let (u1, u2, u3) = (self.next(), self.next(), self.next());
        let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
        let t = std::f32::consts::TAU;
        Quat::from_xyzw(
            a * (t * u2).sin(),
            a * (t * u2).cos(),
            b * (t * u3).sin(),
            b * (t * u3).cos(),
        )
        .normalize()
    }
}

/// Four rocks: hulls of 14 points on a squashed, dented sphere of about 6 cm.
fn rocks(rng: &mut Rng) -> Result<Vec<Arc<ConvexHull>>, SimError> {
    (0..4)
        .map(|_| {
            let squash = Vec3::new(
                rng.range(0.8, 1.1),
                rng.range(0.7, 1.0),
                rng.range(0.5, 0.8),
            );
            let points: Vec<Vec3> = (0..14)
                .map(|_| {
                    let d = rng.rotation() * Vec3::Z;
                    d * squash * 0.065 * rng.range(0.8, 1.0)
                })
                .collect();
            Ok(Arc::new(ConvexHull::new(&points)?))
        })
        .collect()
}

/// The body material: the XPBD solver reads the friction and restitution,
/// the penalty solver the stiffness and damping (kept low enough for the
/// lightest body, ~0.25 kg, at the default 32 substeps of a 60 Hz frame).
pub fn material() -> Material {
    Material {
        mu: 0.5,
        mu_static: 0.6,
        restitution: 0.1,
        ke: 2.0e4,
        kd: 20.0,
        kf: 50.0,
    }
}

/// A pile: the model, its terrain, and what each body is.
pub struct Pile {
    /// Bodies (one shape each) and the terrain mesh (a static shape).
    pub model: Model,
    /// The terrain under them.
    pub terrain: Terrain,
    /// Each body's kind.
    pub kinds: Vec<Kind>,
    /// Each body's geometry (in its body frame, untransformed).
    pub geometry: Vec<Geometry>,
}

impl Pile {
    /// Builds `config`'s pile on `device`: a mix of about 35 % boxes, 25 %
    /// spheres, 20 % capsules and 20 % rocks or cylinders, 5–14 cm across,
    /// randomly turned, in a jittered lattice, falling at 1 m/s and spinning.
    pub fn new(config: &PileConfig, device: Device) -> Result<Pile, SimError> {
        let mut rng = Rng(config.seed);
        let terrain = config.terrain();
        let mut b = ModelBuilder::new();
        b.ground = None;
        let mut floor = ShapeDesc::new(
            -1,
            Transform::IDENTITY,
            Geometry::Mesh {
                mesh: Arc::new(terrain.mesh()?),
                scale: Vec3::ONE,
            },
        );
        floor.material = material();
        b.add_rigid_shape(floor);
        let rocks = rocks(&mut rng)?;
        let (mut kinds, mut geometry) = (Vec::new(), Vec::new());
        let cols = config.columns.max(1);
        for k in 0..config.count {
            let (i, j, layer) = (k % cols, (k / cols) % cols, k / (cols * cols));
            let jitter = 0.03;
            let centre = 0.5 * (cols - 1) as f32;
            let (x, y) = (
                (i as f32 - centre) * config.spacing,
                (j as f32 - centre) * config.spacing,
            );
            // Each column starts `drop_height` above the terrain under it.
            let ground = terrain.height_at(x, y).unwrap_or(0.0);
            let p = Vec3::new(
                x + rng.range(-jitter, jitter),
                y + rng.range(-jitter, jitter),
                ground
                    + config.drop_height
                    + layer as f32 * config.spacing
                    + rng.range(-jitter, jitter),
            );
            let roll = rng.next();
            let (kind, g) = if roll < 0.35 {
                let h = Vec3::new(
                    rng.range(0.03, 0.08),
                    rng.range(0.03, 0.07),
                    rng.range(0.025, 0.06),
                );
                (Kind::Box, Geometry::Box { half_extents: h })
            } else if roll < 0.6 {
                (
                    Kind::Sphere,
                    Geometry::Sphere {
                        radius: rng.range(0.04, 0.07),
                    },
                )
            } else if roll < 0.8 {
                let (radius, half_height) = (rng.range(0.03, 0.045), rng.range(0.03, 0.055));
                (
                    Kind::Capsule,
                    Geometry::Capsule {
                        radius,
                        half_height,
                    },
                )
            } else if roll < 0.8 + config.cylinders {
                let (radius, half_height) = (rng.range(0.04, 0.06), rng.range(0.025, 0.05));
                (
                    Kind::Cylinder,
                    Geometry::Cylinder {
                        radius,
                        half_height,
                    },
                )
            } else {
                let hull = rocks[(rng.next() * rocks.len() as f32) as usize % rocks.len()].clone();
                (
                    Kind::Rock,
                    Geometry::Convex {
                        hull,
                        scale: Vec3::ONE,
                    },
                )
            };
            let mut desc = BodyDesc::new(Transform::new(p, rng.rotation()));
            desc.velocity = SpatialVector::new(
                Vec3::new(0.0, 0.0, -1.0),
                Vec3::new(
                    rng.range(-2.0, 2.0),
                    rng.range(-2.0, 2.0),
                    rng.range(-2.0, 2.0),
                ),
            );
            let body = b.add_body(desc) as i32;
            b.add_body_shape_with(body, Transform::IDENTITY, g.clone(), material());
            kinds.push(kind);
            geometry.push(g);
        }
        Ok(Pile {
            model: b.finalize(device)?,
            terrain,
            kinds,
            geometry,
        })
    }
}

/// Which solver steps the pile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// [`XpbdRigid`] (`substeps` of its own per step).
    Xpbd,
    /// [`SemiImplicit`] penalty contacts, `substeps` steps of `dt / substeps`.
    SemiImplicit,
}

impl Solver {
    /// The default substeps per 60 Hz frame: XPBD's own default (16), and 32
    /// for the penalty contacts (stiff springs need short steps).
    pub fn default_substeps(self) -> usize {
        match self {
            Solver::Xpbd => 16,
            Solver::SemiImplicit => 32,
        }
    }
}

enum Inner {
    Xpbd(Box<XpbdRigid>),
    Semi(Box<(SemiImplicit, Control)>),
}

/// Steps a pile's model with either solver.
pub struct PileStepper {
    inner: Inner,
    substeps: usize,
}

impl PileStepper {
    /// A stepper for `model` with `solver` at `substeps` per step.
    pub fn new(model: &Model, solver: Solver, substeps: usize) -> Result<PileStepper, SimError> {
        if substeps == 0 {
            return Err(SimError::InvalidParameter {
                name: "substeps",
                message: "must be ≥ 1".into(),
            });
        }
        let inner = match solver {
            Solver::Xpbd => {
                let mut x = XpbdRigid::new(model, Default::default())?;
                x.substeps = substeps;
                Inner::Xpbd(Box::new(x))
            }
            Solver::SemiImplicit => Inner::Semi(Box::new((
                SemiImplicit::new(),
                Control::empty(model.device()),
            ))),
        };
        Ok(PileStepper { inner, substeps })
    }

    /// The XPBD solver's last contact counts and overflows (a read-back);
    /// `None` for the penalty solver, whose pipeline is private.
    pub fn contact_report(&self) -> Result<Option<ContactReport>, SimError> {
        match &self.inner {
            Inner::Xpbd(x) => x.contact_report().map(Some),
            Inner::Semi(..) => Ok(None),
        }
    }

    /// Advances `s0` by `dt` (`s1` is scratch; the result is left in `s0`).
    pub fn step(
        &mut self,
        model: &Model,
        s0: &mut State,
        s1: &mut State,
        dt: f32,
    ) -> Result<(), SimError> {
        match &mut self.inner {
            Inner::Xpbd(x) => {
                x.simulate(model, s0, s1, dt)?;
                std::mem::swap(s0, s1);
            }
            Inner::Semi(semi) => {
                let (solver, control) = &mut **semi;
                let h = dt / self.substeps as f32;
                for _ in 0..self.substeps {
                    solver.simulate(model, s0, s1, control, h)?;
                    std::mem::swap(s0, s1);
                }
            }
        }
        Ok(())
    }
}
