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

/// Joint type code of a revolute joint (see [`JointType`](crate::JointType)).
pub const JOINT_REVOLUTE: i32 = 0;
/// Joint type code of a prismatic joint.
pub const JOINT_PRISMATIC: i32 = 1;
/// Joint type code of a ball joint.
pub const JOINT_BALL: i32 = 2;
/// Joint type code of a fixed joint.
pub const JOINT_FIXED: i32 = 3;
/// Joint type code of a free joint.
pub const JOINT_FREE: i32 = 4;
/// Joint type code of a universal joint.
pub const JOINT_UNIVERSAL: i32 = 5;
/// Joint type code of a D6 joint.
pub const JOINT_D6: i32 = 6;

/// Joints that close loops ([`ModelBuilder::add_loop_joint`](crate::ModelBuilder::add_loop_joint)):
/// constraints outside the joint trees, solved by [`XpbdRigid`](crate::XpbdRigid).
/// Frames, kinds and axes as [`Model::joint_type`] and its neighbours; no
/// coordinates, no drives.
#[weft::structure]
pub struct LoopJoints {
    /// Joint kind ([`JOINT_REVOLUTE`] …; never free).
    pub kind: Array<i32>,
    /// First body (-1: the world).
    pub parent: Array<i32>,
    /// Second body (-1: the world).
    pub child: Array<i32>,
    /// Joint frame in the first body's frame.
    pub parent_frame: Array<Transform>,
    /// Joint frame in the second body's frame.
    pub child_frame: Array<Transform>,
    /// Number of linear and angular axes.
    pub dof_dim: Array<IVec2>,
    /// First axis of each loop joint in `axis`; one more entry holds the total.
    pub dof_start: Array<i32>,
    /// Axes in the joint frame (linear first).
    pub axis: Array<Vec3>,
    /// Lower limit per axis (`-inf`: none).
    pub lower: Array<f32>,
    /// Upper limit per axis (`inf`: none).
    pub upper: Array<f32>,
}

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

    /// Joint kind per joint ([`JOINT_REVOLUTE`] …). Joints are ordered by
    /// articulation, each after its parent's joint (see
    /// [`JointDesc`](crate::JointDesc) for frames and coordinates).
    pub joint_type: Array<i32>,
    /// Parent body of each joint (-1: the world).
    pub joint_parent: Array<i32>,
    /// Child body of each joint.
    pub joint_child: Array<i32>,
    /// The joint whose child is this joint's parent (-1: the parent is the world).
    pub joint_ancestor: Array<i32>,
    /// Articulation of each joint.
    pub joint_articulation: Array<i32>,
    /// Joint frame in the parent body's frame (Warp/Newton's `joint_X_p`).
    pub joint_parent_frame: Array<Transform>,
    /// Joint frame in the child body's frame (Warp/Newton's `joint_X_c`).
    pub joint_child_frame: Array<Transform>,
    /// Number of linear and angular axes of each joint.
    pub joint_dof_dim: Array<IVec2>,
    /// First position coordinate of each joint in `joint_q`; one more entry
    /// at the end holds the total.
    pub joint_q_start: Array<i32>,
    /// First velocity coordinate (degree of freedom) of each joint in
    /// `joint_qd`; one more entry at the end holds the total.
    pub joint_qd_start: Array<i32>,
    /// Initial position coordinates (the state's are the current ones).
    pub joint_q: Array<f32>,
    /// Initial velocity coordinates.
    pub joint_qd: Array<f32>,
    /// Axis of each degree of freedom in its joint frame (linear axes first).
    pub joint_axis: Array<Vec3>,
    /// Armature (added inertia) per degree of freedom.
    pub joint_armature: Array<f32>,
    /// Viscous damping per degree of freedom.
    pub joint_damping: Array<f32>,
    /// Dry friction per degree of freedom.
    pub joint_friction: Array<f32>,
    /// Lower limit per degree of freedom (`-inf`: none). A ball joint's
    /// first degree of freedom: 0 (or `-inf`) with its cone limit.
    pub joint_limit_lower: Array<f32>,
    /// Upper limit per degree of freedom (`inf`: none). A ball joint's first
    /// degree of freedom holds its cone limit, the largest angle of its
    /// rotation (`|log q|`, MuJoCo's ball `range` upper value); its others
    /// none.
    pub joint_limit_upper: Array<f32>,
    /// Penalty stiffness of the limits per degree of freedom.
    pub joint_limit_ke: Array<f32>,
    /// Penalty damping of the limits per degree of freedom.
    pub joint_limit_kd: Array<f32>,
    /// Drive stiffness per degree of freedom.
    pub joint_target_ke: Array<f32>,
    /// Drive damping per degree of freedom.
    pub joint_target_kd: Array<f32>,
    /// Largest drive effort per degree of freedom (`inf`: none).
    pub joint_effort_limit: Array<f32>,
    /// Initial drive position targets (copied into [`Control`](crate::Control));
    /// for the rotation of a ball or free joint its three entries are a
    /// rotation vector (axis · angle) of the target rotation (child joint
    /// frame in parent joint frame), for a free joint's translation the
    /// position in the parent joint frame.
    pub joint_target_pos: Array<f32>,
    /// Initial drive velocity targets.
    pub joint_target_vel: Array<f32>,
    /// Initial feed-forward efforts.
    pub joint_f: Array<f32>,
    /// First joint of each articulation; one more entry at the end holds the
    /// number of joints.
    pub articulation_start: Array<i32>,
    /// Joints that close loops (maximal-coordinate solvers only).
    pub loop_joints: LoopJoints,
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

    /// Number of joints.
    pub fn joint_count(&self) -> usize {
        self.joint_type.len()
    }

    /// Number of position coordinates of all joints (`joint_q`'s length).
    pub fn joint_coord_count(&self) -> usize {
        self.joint_q.len()
    }

    /// Number of degrees of freedom of all joints (`joint_qd`'s length).
    pub fn joint_dof_count(&self) -> usize {
        self.joint_qd.len()
    }

    /// Number of loop joints ([`Model::loop_joints`]).
    pub fn loop_joint_count(&self) -> usize {
        self.loop_joints.kind.len()
    }

    /// Number of articulations (trees of joints).
    pub fn articulation_count(&self) -> usize {
        self.articulation_start.len() - 1
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
            joint_type: self.joint_type.share(),
            joint_parent: self.joint_parent.share(),
            joint_child: self.joint_child.share(),
            joint_ancestor: self.joint_ancestor.share(),
            joint_articulation: self.joint_articulation.share(),
            joint_parent_frame: self.joint_parent_frame.share(),
            joint_child_frame: self.joint_child_frame.share(),
            joint_dof_dim: self.joint_dof_dim.share(),
            joint_q_start: self.joint_q_start.share(),
            joint_qd_start: self.joint_qd_start.share(),
            joint_q: self.joint_q.share(),
            joint_qd: self.joint_qd.share(),
            joint_axis: self.joint_axis.share(),
            joint_armature: self.joint_armature.share(),
            joint_damping: self.joint_damping.share(),
            joint_friction: self.joint_friction.share(),
            joint_limit_lower: self.joint_limit_lower.share(),
            joint_limit_upper: self.joint_limit_upper.share(),
            joint_limit_ke: self.joint_limit_ke.share(),
            joint_limit_kd: self.joint_limit_kd.share(),
            joint_target_ke: self.joint_target_ke.share(),
            joint_target_kd: self.joint_target_kd.share(),
            joint_effort_limit: self.joint_effort_limit.share(),
            joint_target_pos: self.joint_target_pos.share(),
            joint_target_vel: self.joint_target_vel.share(),
            joint_f: self.joint_f.share(),
            articulation_start: self.articulation_start.share(),
            loop_joints: LoopJoints {
                kind: self.loop_joints.kind.share(),
                parent: self.loop_joints.parent.share(),
                child: self.loop_joints.child.share(),
                parent_frame: self.loop_joints.parent_frame.share(),
                child_frame: self.loop_joints.child_frame.share(),
                dof_dim: self.loop_joints.dof_dim.share(),
                dof_start: self.loop_joints.dof_start.share(),
                axis: self.loop_joints.axis.share(),
                lower: self.loop_joints.lower.share(),
                upper: self.loop_joints.upper.share(),
            },
            ..*self
        }
    }
}
