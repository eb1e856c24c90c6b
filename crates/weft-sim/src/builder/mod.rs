//! [`ModelBuilder`]: collect particles, springs, triangles, bending edges and
//! collision shapes on the host, then [`ModelBuilder::finalize`] them into a
//! [`Model`] on a device.

mod bodies;
mod cloth;
mod finalize;
mod joints;
mod loop_joints;
mod shapes;

pub use bodies::{BodyDesc, BodyKind, BodyMass};
pub use cloth::{ClothGrid, ClothMesh};
pub use joints::{JointDesc, JointDof, JointDrive, JointType};
pub use shapes::Shape;

use glam::Vec3;

/// Material of a triangle (membrane FEM, as Warp's cloth): `k_mu` and `k_lambda`
/// are the Lamé-like shear and area stiffnesses, `k_damp` damps the strain rate,
/// `k_drag` and `k_lift` are aerodynamic coefficients. All are scaled by the
/// triangle's rest area.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriMaterial {
    /// Shear (deviatoric) stiffness.
    pub k_mu: f32,
    /// Area (hydrostatic) stiffness.
    pub k_lambda: f32,
    /// Strain-rate damping.
    pub k_damp: f32,
    /// Aerodynamic drag.
    pub k_drag: f32,
    /// Aerodynamic lift.
    pub k_lift: f32,
}

impl Default for TriMaterial {
    fn default() -> Self {
        TriMaterial {
            k_mu: 100.0,
            k_lambda: 100.0,
            k_damp: 10.0,
            k_drag: 0.0,
            k_lift: 0.0,
        }
    }
}

/// Penalty contact parameters of particles against shapes, meshes and the ground
/// (semi-implicit Euler; XPBD uses only `mu` and `margin`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactParams {
    /// Normal stiffness (N/m).
    pub ke: f32,
    /// Normal damping (N·s/m), on approaching velocity only.
    pub kd: f32,
    /// Friction stiffness: regularises Coulomb friction at low sliding speed.
    pub kf: f32,
    /// Extra distance added to the radii at which contacts start (for XPBD's
    /// contact search; the penalty itself acts from zero distance).
    pub margin: f32,
}

impl Default for ContactParams {
    fn default() -> Self {
        ContactParams {
            ke: 1.0e3,
            kd: 10.0,
            kf: 100.0,
            margin: 0.01,
        }
    }
}

/// Particle–particle contact (granular / DEM): springs between overlapping
/// spheres, found through a hash grid each step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParticleContactParams {
    /// Normal stiffness (0 disables particle–particle contacts).
    pub ke: f32,
    /// Normal damping.
    pub kd: f32,
    /// Friction stiffness.
    pub kf: f32,
    /// Friction coefficient.
    pub mu: f32,
    /// Gap within which touching particles attract (0: none).
    pub cohesion: f32,
}

impl Default for ParticleContactParams {
    fn default() -> Self {
        ParticleContactParams {
            ke: 0.0,
            kd: 0.0,
            kf: 0.0,
            mu: 0.5,
            cohesion: 0.0,
        }
    }
}

/// The ground: a plane `normal · x + offset = 0` with a friction coefficient.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ground {
    /// Unit normal (Z up by default).
    pub normal: Vec3,
    /// Offset: the plane holds the points with `normal · x = -offset`.
    pub offset: f32,
    /// Friction coefficient.
    pub mu: f32,
}

impl Default for Ground {
    fn default() -> Self {
        Ground {
            normal: Vec3::Z,
            offset: 0.0,
            mu: 0.5,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct ParticleDef {
    pub q: Vec3,
    pub qd: Vec3,
    pub mass: f32,
    pub radius: f32,
    pub flags: u32,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct SpringDef {
    pub i: usize,
    pub j: usize,
    pub rest: Option<f32>,
    pub ke: f32,
    pub kd: f32,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct TriangleDef {
    pub i: usize,
    pub j: usize,
    pub k: usize,
    pub material: TriMaterial,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct EdgeDef {
    pub o0: usize,
    pub o1: usize,
    pub v0: usize,
    pub v1: usize,
    pub ke: f32,
    pub kd: f32,
}

/// Collects the parts of a model on the host. Adding returns the new item's
/// index; inputs are checked by [`ModelBuilder::finalize`], which names the first
/// bad item (an index out of range, a negative or non-finite mass, a NaN
/// position, a degenerate triangle, …).
///
/// ```
/// use weft_sim::ModelBuilder;
/// use glam::Vec3;
///
/// let mut b = ModelBuilder::new();
/// let a = b.add_particle(Vec3::new(0.0, 0.0, 1.0), Vec3::ZERO, 0.0, 0.05); // fixed
/// let c = b.add_particle(Vec3::new(0.5, 0.0, 1.0), Vec3::ZERO, 1.0, 0.05);
/// b.add_spring(a, c, 100.0, 1.0);
/// let model = b.finalize(weft::Device::Cpu).unwrap();
/// assert_eq!((model.particle_count(), model.spring_count()), (2, 1));
///
/// b.add_spring(a, 7, 100.0, 1.0);
/// let e = b.finalize(weft::Device::Cpu).unwrap_err();
/// assert_eq!(e.to_string(), "spring 1: particle index 7 out of range (2 particles)");
/// ```
#[derive(Debug, Clone)]
pub struct ModelBuilder {
    /// Gravity, `(0, 0, -9.81)` m/s² by default.
    pub gravity: Vec3,
    /// The ground plane (`None`: no ground).
    pub ground: Option<Ground>,
    /// Contacts against shapes, meshes and the ground.
    pub contact: ContactParams,
    /// Contacts between particles.
    pub particle_contact: ParticleContactParams,
    /// Thickness of mesh shapes for contacts.
    pub mesh_thickness: f32,
    /// Friction coefficient against mesh shapes.
    pub mesh_mu: f32,
    /// Whether a jointed link's shapes skip its parent link's (default on, as
    /// MuJoCo's `filterparent`): the parent is the joint's parent body, or,
    /// past massless links (the axes of a multi-axis joint), the nearest
    /// ancestor with mass. A shape whose `skip_body` is set keeps it.
    pub filter_parent_contacts: bool,
    pub(crate) particles: Vec<ParticleDef>,
    pub(crate) springs: Vec<SpringDef>,
    pub(crate) triangles: Vec<TriangleDef>,
    pub(crate) edges: Vec<EdgeDef>,
    pub(crate) shapes: Vec<Shape>,
    pub(crate) bodies: Vec<BodyDesc>,
    pub(crate) rigid_shapes: Vec<weft_collide::ShapeDesc>,
    pub(crate) joints: Vec<JointDesc>,
    pub(crate) loop_joints: Vec<JointDesc>,
}

impl Default for ModelBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ModelBuilder {
    /// An empty model: Z-up gravity of 9.81 m/s², a ground plane at z = 0.
    pub fn new() -> Self {
        ModelBuilder {
            gravity: Vec3::new(0.0, 0.0, -9.81),
            ground: Some(Ground::default()),
            contact: ContactParams::default(),
            particle_contact: ParticleContactParams::default(),
            mesh_thickness: 0.0,
            mesh_mu: 0.5,
            filter_parent_contacts: true,
            particles: Vec::new(),
            springs: Vec::new(),
            triangles: Vec::new(),
            edges: Vec::new(),
            shapes: Vec::new(),
            bodies: Vec::new(),
            rigid_shapes: Vec::new(),
            joints: Vec::new(),
            loop_joints: Vec::new(),
        }
    }

    /// Number of particles added so far.
    pub fn particle_count(&self) -> usize {
        self.particles.len()
    }

    /// Position of particle `i` as added (panics when out of range).
    pub fn particle_position(&self, i: usize) -> Vec3 {
        self.particles[i].q
    }

    /// Adds a particle; mass 0 makes it kinematic (fixed unless moved by hand).
    pub fn add_particle(&mut self, q: Vec3, qd: Vec3, mass: f32, radius: f32) -> usize {
        self.particles.push(ParticleDef {
            q,
            qd,
            mass,
            radius,
            flags: crate::PARTICLE_ACTIVE,
        });
        self.particles.len() - 1
    }

    /// Adds a spring between particles `i` and `j` whose rest length is their
    /// current distance; `ke` stiffness (N/m), `kd` damping (N·s/m).
    pub fn add_spring(&mut self, i: usize, j: usize, ke: f32, kd: f32) -> usize {
        self.springs.push(SpringDef {
            i,
            j,
            rest: None,
            ke,
            kd,
        });
        self.springs.len() - 1
    }

    /// Adds a spring with an explicit rest length.
    pub fn add_spring_with_rest(
        &mut self,
        i: usize,
        j: usize,
        rest_length: f32,
        ke: f32,
        kd: f32,
    ) -> usize {
        self.springs.push(SpringDef {
            i,
            j,
            rest: Some(rest_length),
            ke,
            kd,
        });
        self.springs.len() - 1
    }

    /// Adds a membrane triangle `(i, j, k)`; its rest shape is the particles'
    /// current positions.
    pub fn add_triangle(&mut self, i: usize, j: usize, k: usize, material: TriMaterial) -> usize {
        self.triangles.push(TriangleDef { i, j, k, material });
        self.triangles.len() - 1
    }

    /// Adds a bending edge: `v0`–`v1` is the shared edge of two triangles whose
    /// other corners are `o0` and `o1`. The rest angle is the current dihedral
    /// angle; `ke` resists its change, `kd` damps it.
    pub fn add_edge(
        &mut self,
        o0: usize,
        o1: usize,
        v0: usize,
        v1: usize,
        ke: f32,
        kd: f32,
    ) -> usize {
        self.edges.push(EdgeDef {
            o0,
            o1,
            v0,
            v1,
            ke,
            kd,
        });
        self.edges.len() - 1
    }

    /// Adds a static collision shape.
    pub fn add_shape(&mut self, shape: Shape) -> usize {
        self.shapes.push(shape);
        self.shapes.len() - 1
    }

    /// Adds bending edges for every edge shared by exactly two of the triangles
    /// `first..` (added with [`ModelBuilder::add_triangle`]).
    pub fn add_bending_edges(&mut self, first_triangle: usize, ke: f32, kd: f32) {
        let tris: Vec<[usize; 3]> = self.triangles[first_triangle.min(self.triangles.len())..]
            .iter()
            .map(|t| [t.i, t.j, t.k])
            .collect();
        for [o0, o1, v0, v1] in cloth::interior_edges(&tris) {
            self.add_edge(o0, o1, v0, v1, ke, kd);
        }
    }
}
