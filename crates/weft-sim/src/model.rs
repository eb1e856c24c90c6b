//! The static description of a simulation: particles, springs, triangles, bending
//! edges, collision shapes and material parameters, in one device's memory.

use weft::geom::DeviceMesh;
use weft::prelude::*;
use weft_collide::ShapeSet;

/// Particle flag: the particle is simulated (cleared: it is skipped entirely).
pub const PARTICLE_ACTIVE: u32 = 1;

/// Shape kind: a plane through the shape's origin with normal +Z in its frame
/// (infinite; `shape_scale.xy` > 0 bounds it to a rectangle of those half extents).
pub const SHAPE_PLANE: i32 = 0;
/// Shape kind: a sphere of radius `shape_scale.x`.
pub const SHAPE_SPHERE: i32 = 1;
/// Shape kind: a box of half extents `shape_scale`.
pub const SHAPE_BOX: i32 = 2;
/// Shape kind: a capsule along Z, radius `shape_scale.x`, half height of the
/// segment `shape_scale.y`.
pub const SHAPE_CAPSULE: i32 = 3;

/// A simulation model on one device, made by [`ModelBuilder::finalize`](crate::ModelBuilder::finalize)
/// (crate::ModelBuilder::finalize). Kernels take it as `&Model`.
///
/// Arrays are indexed by item; per-item parameters that one may want gradients of
/// (masses, rest lengths, stiffnesses, materials) are arrays, so
/// `Array::requires_grad` on a [`Model::share`]d copy differentiates with respect to
/// them. Counts are the arrays' lengths. Conventions: Z up, SI units, quaternions
/// (x, y, z, w).
#[weft::structure]
pub struct Model {
    /// Rest positions, the initial state's positions.
    pub particle_q: Array<Vec3>,
    /// Initial velocities.
    pub particle_qd: Array<Vec3>,
    /// Masses (0: kinematic, not moved by forces).
    pub particle_mass: Array<f32>,
    /// 1 / mass, 0 for kinematic particles.
    pub particle_inv_mass: Array<f32>,
    /// Contact radii.
    pub particle_radius: Array<f32>,
    /// [`PARTICLE_ACTIVE`] and future flags.
    pub particle_flags: Array<u32>,

    /// The two particles of each spring.
    pub spring_indices: Array<IVec2>,
    /// Rest lengths.
    pub spring_rest_length: Array<f32>,
    /// Stiffness (N/m).
    pub spring_stiffness: Array<f32>,
    /// Damping along the spring (N·s/m).
    pub spring_damping: Array<f32>,

    /// The three particles of each triangle (counter-clockwise seen from the
    /// side its normal points to).
    pub tri_indices: Array<IVec3>,
    /// Inverse of each triangle's rest shape in its own 2-D frame.
    pub tri_poses: Array<Mat2>,
    /// Rest areas.
    pub tri_areas: Array<f32>,
    /// Shear stiffness of each triangle (see [`TriMaterial`](crate::TriMaterial)).
    pub tri_k_mu: Array<f32>,
    /// Area stiffness of each triangle.
    pub tri_k_lambda: Array<f32>,
    /// Strain-rate damping of each triangle.
    pub tri_k_damp: Array<f32>,
    /// Aerodynamic drag of each triangle.
    pub tri_k_drag: Array<f32>,
    /// Aerodynamic lift of each triangle.
    pub tri_k_lift: Array<f32>,
    /// Area change per triangle for actuation (0: none).
    pub tri_activations: Array<f32>,

    /// Per bending edge `(o0, o1, v0, v1)`: the two opposite particles, then the
    /// edge's two particles.
    pub edge_indices: Array<IVec4>,
    /// Rest dihedral angles (radians).
    pub edge_rest_angle: Array<f32>,
    /// Bending stiffness of each edge.
    pub edge_ke: Array<f32>,
    /// Bending damping of each edge.
    pub edge_kd: Array<f32>,

    /// Kind of each analytic shape ([`SHAPE_PLANE`], [`SHAPE_SPHERE`], …).
    pub shape_kind: Array<i32>,
    /// World pose of each shape.
    pub shape_transform: Array<Transform>,
    /// Size parameters of each shape (see the kinds).
    pub shape_scale: Array<Vec3>,
    /// Friction coefficient of each shape.
    pub shape_mu: Array<f32>,
    /// All static triangle-mesh shapes, merged in world space (no faces: none).
    pub mesh: DeviceMesh,
    /// Friction coefficient against the meshes.
    pub mesh_mu: f32,
    /// Thickness added to the meshes' surface for contacts (both sides).
    pub mesh_thickness: f32,

    /// Whether the ground plane collides.
    pub ground: bool,
    /// The ground plane: unit normal (xyz) and offset (w): `n·x + w = 0`.
    pub ground_plane: Vec4,
    /// Friction coefficient of the ground.
    pub ground_mu: f32,

    /// Contact normal stiffness against shapes, meshes and the ground.
    pub soft_contact_ke: f32,
    /// Contact normal damping.
    pub soft_contact_kd: f32,
    /// Contact friction stiffness (the regularisation of Coulomb friction).
    pub soft_contact_kf: f32,
    /// Extra distance at which contacts start, added to the radii.
    pub soft_contact_margin: f32,

    /// Particle–particle contact stiffness (0: no particle–particle contact).
    pub particle_ke: f32,
    /// Particle–particle contact damping.
    pub particle_kd: f32,
    /// Particle–particle friction stiffness.
    pub particle_kf: f32,
    /// Particle–particle friction coefficient.
    pub particle_mu: f32,
    /// Particle–particle cohesion distance (attraction within this gap).
    pub particle_cohesion: f32,
    /// The largest particle radius.
    pub particle_max_radius: f32,

    /// Gravity (m/s²), `(0, 0, -9.81)` by default.
    pub gravity: Vec3,

    /// Initial pose of each rigid body's frame (the state's is the current one).
    pub body_q: Array<Transform>,
    /// Initial velocity of each body: linear of the centre of mass, angular; world frame.
    pub body_qd: Array<SpatialVector>,
    /// Centre of mass in the body frame.
    pub body_com: Array<Vec3>,
    /// Mass (0: kinematic or static).
    pub body_mass: Array<f32>,
    /// 1 / mass (0: kinematic or static).
    pub body_inv_mass: Array<f32>,
    /// Inertia about the centre of mass, body frame.
    pub body_inertia: Array<Mat3>,
    /// Inverse inertia (zero for kinematic and static bodies).
    pub body_inv_inertia: Array<Mat3>,
    /// World of each body.
    pub body_world: Array<i32>,
    /// The shapes of the rigid bodies and the static rigid geometry (the
    /// ground plane among them when the model has a ground and bodies).
    pub rigid_shapes: ShapeSet,
}

impl Model {
    /// The model's device.
    pub fn device(&self) -> Device {
        self.particle_q.device()
    }

    /// Number of particles.
    pub fn particle_count(&self) -> usize {
        self.particle_q.len()
    }

    /// Number of springs.
    pub fn spring_count(&self) -> usize {
        self.spring_indices.len()
    }

    /// Number of triangles.
    pub fn tri_count(&self) -> usize {
        self.tri_indices.len()
    }

    /// Number of bending edges.
    pub fn edge_count(&self) -> usize {
        self.edge_indices.len()
    }

    /// Number of rigid bodies.
    pub fn body_count(&self) -> usize {
        self.body_q.len()
    }

    /// Number of analytic shapes (meshes are merged into [`Model::mesh`]).
    pub fn shape_count(&self) -> usize {
        self.shape_kind.len()
    }

    /// Whether particles collide with each other (through a hash grid).
    pub fn has_particle_contacts(&self) -> bool {
        self.particle_ke > 0.0 && self.particle_count() > 1
    }

    /// Another handle on the same model: every array is shared (with its
    /// gradient), so a gradient requested on the copy lands in this model too.
    pub fn share(&self) -> Model {
        Model {
            particle_q: self.particle_q.share(),
            particle_qd: self.particle_qd.share(),
            particle_mass: self.particle_mass.share(),
            particle_inv_mass: self.particle_inv_mass.share(),
            particle_radius: self.particle_radius.share(),
            particle_flags: self.particle_flags.share(),
            spring_indices: self.spring_indices.share(),
            spring_rest_length: self.spring_rest_length.share(),
            spring_stiffness: self.spring_stiffness.share(),
            spring_damping: self.spring_damping.share(),
            tri_indices: self.tri_indices.share(),
            tri_poses: self.tri_poses.share(),
            tri_areas: self.tri_areas.share(),
            tri_k_mu: self.tri_k_mu.share(),
            tri_k_lambda: self.tri_k_lambda.share(),
            tri_k_damp: self.tri_k_damp.share(),
            tri_k_drag: self.tri_k_drag.share(),
            tri_k_lift: self.tri_k_lift.share(),
            tri_activations: self.tri_activations.share(),
            edge_indices: self.edge_indices.share(),
            edge_rest_angle: self.edge_rest_angle.share(),
            edge_ke: self.edge_ke.share(),
            edge_kd: self.edge_kd.share(),
            shape_kind: self.shape_kind.share(),
            shape_transform: self.shape_transform.share(),
            shape_scale: self.shape_scale.share(),
            shape_mu: self.shape_mu.share(),
            mesh: DeviceMesh {
                points: self.mesh.points.share(),
                velocities: self.mesh.velocities.share(),
                faces: self.mesh.faces.share(),
                nodes: self.mesh.nodes.share(),
                prims: self.mesh.prims.share(),
                parents: self.mesh.parents.share(),
                tris: self.mesh.tris.share(),
                winding: self.mesh.winding.share(),
            },
            body_q: self.body_q.share(),
            body_qd: self.body_qd.share(),
            body_com: self.body_com.share(),
            body_mass: self.body_mass.share(),
            body_inv_mass: self.body_inv_mass.share(),
            body_inertia: self.body_inertia.share(),
            body_inv_inertia: self.body_inv_inertia.share(),
            body_world: self.body_world.share(),
            rigid_shapes: self.rigid_shapes.share(),
            ..*self
        }
    }
}
