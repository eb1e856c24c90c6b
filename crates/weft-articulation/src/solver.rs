//! [`FeatherstoneSolver`]: steps articulations in generalized coordinates.

use weft::prelude::*;
use weft_collide::{CollisionOptions, CollisionPipeline, ContactReport};
use weft_sim::{Control, Model, SimError, State};

use crate::aba::{self, AbaLayout};
use crate::contacts::{
    ANCHOR_SLOTS, anchors_match, anchors_store, body_tree, eval_link_contacts, eval_link_states,
};
use crate::dynamics::Kinematics;
use crate::kinematics::eval_fk;
use crate::{Result, drives, integrate, layout::ArticulationLayout, scratch, solve};

/// How [`FeatherstoneSolver`] finds the accelerations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ForwardDynamics {
    /// The mass matrix by composite rigid bodies, solved by Cholesky
    /// (`O(n³)` per articulation; the default).
    #[default]
    CompositeRigidBody,
    /// The articulated-body algorithm (`O(n)`; see [`crate::aba`]), the
    /// implicit drive, damping and limit terms added to its pivots.
    ArticulatedBody,
}

/// Reduced-coordinate dynamics of every articulation of a model, stepped
/// semi-implicitly: composite-rigid-body mass matrix `M(q)`, bias forces
/// `C(q, q̇)` by recursive Newton–Euler (gravity, `state.body_f` wrenches and
/// the links' contact wrenches included), drives, damping, friction and limits (see [`crate::drives`]),
/// `(M + D) q̈ = τ − C` solved per articulation (see [`crate::solve`]; or
/// the articulated-body algorithm with `D` on its pivots, see
/// [`ForwardDynamics`]), then
/// `q̇⁺ = q̇ + h q̈` and `q⁺ = q ⊕ h q̇⁺` (quaternions on the manifold). The
/// output state's body poses and velocities are then set by forward
/// kinematics. Bodies that are no joint's child are copied unchanged.
///
/// Contacts: every step finds the contacts of the model's shapes at the
/// links' poses (weft-collide's [`CollisionPipeline`], fixed-capacity
/// buffers; [`contact_report`](Self::contact_report) says whether any
/// overflowed) and adds their penalty wrenches (spring–damper normal,
/// Coulomb friction by a tangential spring anchored where the contact began
/// to stick; see [`crate::contacts`] for the model, its time-step bound and
/// its limits) to the links' external wrenches. The anchors are the one
/// thing a step carries beyond its states: a step that does not start where
/// the last one ended finds none and starts its contacts afresh
/// ([`forget_contacts`](Self::forget_contacts) forces that). Links
/// touch static shapes, bodies that are no joint's child (which do not move:
/// they are not this solver's), and other links except their parent link.
///
/// Contacts are implicit in the velocity by default
/// ([`implicit_contacts`](Self::implicit_contacts)). Off the tape every
/// recursion runs one thread per articulation ([`crate::tree`]). Loops:
/// not in reduced coordinates (`weft_sim::XpbdRigid` closes them).
/// Differentiable through the tape (use a new output state per step).
///
/// ```
/// use glam::Vec3;
/// use weft::{Device, Transform};
/// use weft_articulation::FeatherstoneSolver;
/// use weft_sim::{BodyDesc, BodyMass, Control, JointDesc, ModelBuilder, State};
///
/// let mut b = ModelBuilder::new();
/// let mut desc = BodyDesc::new(Transform::IDENTITY);
/// desc.mass = BodyMass::Given(weft_geom::MassProperties::sphere(1000.0, 0.05));
/// let bob = b.add_body(desc);
/// let hang = Transform::from_translation(Vec3::new(0.0, 0.0, 1.0)); // hinge 1 m above the bob
/// b.add_joint(JointDesc::revolute(-1, bob, Vec3::Y).with_frames(Transform::IDENTITY, hang).with_q(&[0.3]))?;
/// let model = b.finalize(Device::Cpu)?;
/// let (mut s0, mut s1) = (State::new(&model)?, State::new(&model)?);
/// let control = Control::new(&model)?;
/// let mut solver = FeatherstoneSolver::new(&model)?;
/// for _ in 0..100 {
///     solver.step(&model, &s0, &mut s1, &control, 1e-3)?;
///     std::mem::swap(&mut s0, &mut s1);
/// }
/// assert!(s0.joint_q.to_vec()[0] < 0.3); // swinging back down
/// # Ok::<(), weft_sim::SimError>(())
/// ```
pub struct FeatherstoneSolver {
    /// Contact detection settings (used when the first step with shapes
    /// builds the collision buffers).
    pub collision: CollisionOptions,
    /// Whether links touch shapes and each other (default `true`; `false`
    /// steps the articulations as if they had no shapes, as contact-free
    /// references do).
    pub enable_contacts: bool,
    /// Whether contact forces are implicit in the velocity (default `true`):
    /// each contact's
    /// spring and dampers act on the velocity at the end of the step
    /// (backward Euler), so stiff contacts stay stable at steps the explicit
    /// springs cannot take (see [`crate::contacts`]).
    pub implicit_contacts: bool,
    /// Whether friction holds sticking contacts by a tangential spring to
    /// where they began to stick (default `true`; see [`crate::contacts`]).
    /// `false`: viscous friction `kf v_t` up to Coulomb's cap, under which
    /// a link held by friction creeps at `F_t / kf`.
    pub anchor_friction: bool,
    layout: ArticulationLayout,
    aba: Option<AbaLayout>,
    zero_qdd: Array<f32>,
    /// Built by the first step (`None` there: no link has a shape).
    contacts: Option<LinkContacts>,
    contacts_built: bool,
}

/// The collision buffers and the body tree the contacts need.
struct LinkContacts {
    pipeline: CollisionPipeline,
    /// Per body: the joint whose child it is, or -1.
    body_joint: Array<i32>,
    /// Per body: its nearest ancestor with mass, or -1.
    body_parent: Array<i32>,
    /// Static friction's anchors, kept from step to step.
    anchors: Anchors,
}

/// The anchors of sticking contacts (see [`crate::contacts`]): per link a
/// table of [`ANCHOR_SLOTS`] entries written after each step's contact
/// forces and read by the next step's matching, the last step's slip per
/// contact slot, and the coordinates the last step ended at.
struct Anchors {
    /// Entries per link.
    count: Array<i32>,
    /// Per entry: the shape pair.
    key: Array<IVec2>,
    /// Per entry: the contact's point on the link's core (body frame).
    point: Array<Vec3>,
    /// Per entry: the contact slot (in `slip`) that left its slip.
    from: Array<i32>,
    /// Per contact slot of the last step: the slip it left (world).
    slip: Array<Vec3>,
    /// This step's: which last-step slot each contact carries the slip of.
    prev: Array<i32>,
    /// This step's: the slip each contact leaves, and whether it pushed.
    next_slip: Array<Vec3>,
    held: Array<i32>,
    /// `joint_q` at the end of the last step (NaN before any: no match).
    last_q: Array<f32>,
    /// Whether the last step was taped (its arrays are the tape's).
    taped: bool,
}

impl Anchors {
    fn new(device: Device, bodies: usize, capacity: usize, coords: usize) -> Result<Anchors> {
        let slots = bodies.max(1) * ANCHOR_SLOTS;
        let capacity = capacity.max(1);
        let mut last_q = Array::try_zeros(device, [coords.max(1)])?;
        last_q.try_fill(f32::NAN)?;
        Ok(Anchors {
            count: Array::try_zeros(device, [bodies.max(1)])?,
            key: Array::try_zeros(device, [slots])?,
            point: Array::try_zeros(device, [slots])?,
            from: Array::try_zeros(device, [slots])?,
            slip: Array::try_zeros(device, [capacity])?,
            prev: Array::try_zeros(device, [capacity])?,
            next_slip: Array::try_zeros(device, [capacity])?,
            held: Array::try_zeros(device, [capacity])?,
            last_q,
            taped: false,
        })
    }

    /// Forgets every anchor: the next step matches none.
    fn forget(&mut self) -> Result<()> {
        self.count.try_fill(0)?;
        self.last_q.try_fill(f32::NAN)?;
        Ok(())
    }
}

impl FeatherstoneSolver {
    /// A solver for `model`'s articulations (composite rigid bodies).
    pub fn new(model: &Model) -> Result<Self> {
        Self::with_dynamics(model, ForwardDynamics::CompositeRigidBody)
    }

    /// A solver for `model`'s articulations that finds the accelerations by
    /// `dynamics`. Both give the same steps up to rounding.
    pub fn with_dynamics(model: &Model, dynamics: ForwardDynamics) -> Result<Self> {
        if model.loop_joint_count() > 0 {
            return Err(SimError::Mismatch(format!(
                "the model has {} loop joints; reduced coordinates cannot close loops (step it with weft_sim::XpbdRigid)",
                model.loop_joint_count()
            )));
        }
        Ok(FeatherstoneSolver {
            collision: CollisionOptions::default(),
            enable_contacts: true,
            implicit_contacts: true,
            anchor_friction: true,
            contacts: None,
            contacts_built: false,
            layout: ArticulationLayout::new(model)?,
            aba: match dynamics {
                ForwardDynamics::CompositeRigidBody => None,
                ForwardDynamics::ArticulatedBody => Some(AbaLayout::new(model)?),
            },
            zero_qdd: Array::try_zeros(model.device(), [model.joint_dof_count()])?,
        })
    }

    /// How this solver finds the accelerations.
    pub fn dynamics(&self) -> ForwardDynamics {
        match self.aba {
            None => ForwardDynamics::CompositeRigidBody,
            Some(_) => ForwardDynamics::ArticulatedBody,
        }
    }

    /// The layout of the model's articulations (mass matrices, Jacobians).
    pub fn layout(&self) -> &ArticulationLayout {
        &self.layout
    }

    /// Forgets the anchors of sticking contacts (see [`crate::contacts`]):
    /// the next step starts every contact afresh. Steps find none anyway
    /// when they start from coordinates other than the last step's end;
    /// call this where the same coordinates should still start afresh
    /// (e.g. after changing the model's shapes or materials).
    pub fn forget_contacts(&mut self) -> Result<()> {
        match &mut self.contacts {
            Some(c) => c.anchors.forget(),
            None => Ok(()),
        }
    }

    /// How many contacts (and candidate pairs) the last step found, and how
    /// many did not fit the buffers (their forces were missed: raise
    /// [`collision`](Self::collision)'s capacities). All zero before the first
    /// step of a model with shapes. A synchronisation on a GPU.
    pub fn contact_report(&self) -> Result<ContactReport> {
        match &self.contacts {
            Some(c) => c.pipeline.report().map_err(collide_err),
            None => Ok(ContactReport {
                found: 0,
                stored: 0,
                overflow: 0,
                pair_overflow: 0,
            }),
        }
    }

    /// External wrenches of a step of `h`: `s_in.body_f` plus the
    /// contacts' penalty wrenches at the links' poses and velocities of
    /// `kin`.
    ///
    /// With `implicit` the contact forces are made implicit in the velocity
    /// (see [`crate::contacts::anchored_contact_force`]) and each body's
    /// contact damping times `h` is returned too (nine columns per body, see
    /// [`crate::contacts::add_point_damping`]; empty without contacts or
    /// `implicit`).
    fn external_wrenches(
        &mut self,
        model: &Model,
        s_in: &State,
        kin: &Kinematics,
        h: f32,
        implicit: bool,
    ) -> Result<(Array<SpatialVector>, Array<Vec3>)> {
        let nb = model.body_count();
        let no_damping = scratch::vec3s(model, 0)?;
        if !self.enable_contacts || model.rigid_shapes.is_empty() || nb == 0 {
            // A step without contacts leaves no anchors.
            self.forget_contacts()?;
            return Ok((s_in.body_f.share(), no_damping));
        }
        if !self.contacts_built {
            let (joint, parent) = body_tree(
                nb,
                &model.joint_parent.try_to_vec()?,
                &model.joint_child.try_to_vec()?,
                &model.body_mass.try_to_vec()?,
            );
            let shape_body = model.rigid_shapes.body.try_to_vec()?;
            let links_have_shapes = shape_body
                .iter()
                .any(|&b| b >= 0 && (b as usize) < nb && joint[b as usize] >= 0);
            let device = model.device();
            self.contacts = if links_have_shapes {
                let pipeline = CollisionPipeline::new(&model.rigid_shapes, nb, self.collision)
                    .map_err(collide_err)?;
                let capacity = pipeline.contacts.capacity();
                Some(LinkContacts {
                    pipeline,
                    body_joint: Array::try_from_slice(device, &joint)?,
                    body_parent: Array::try_from_slice(device, &parent)?,
                    anchors: Anchors::new(device, nb, capacity, model.joint_coord_count())?,
                })
            } else {
                None
            };
            self.contacts_built = true;
        }
        let Some(lc) = self.contacts.as_mut() else {
            return Ok((s_in.body_f.share(), no_damping));
        };
        let mut q = scratch::poses(model)?;
        let mut qd = scratch::vectors(model, nb)?;
        eval_link_states::launch(
            nb,
            model,
            &lc.body_joint,
            &kin.body_q,
            &kin.v,
            &s_in.body_q,
            &s_in.body_qd,
            &mut q,
            &mut qd,
        )?;
        lc.pipeline
            .collide(&model.rigid_shapes, &q)
            .map_err(collide_err)?;
        let mut force = scratch::vec3s(model, nb)?;
        let mut torque = scratch::vec3s(model, nb)?;
        let mut damp = if implicit {
            scratch::vec3s(model, 9 * nb)?
        } else {
            no_damping
        };
        let contacts = &lc.pipeline.contacts;
        let threads = contacts.launch_threads().map_err(collide_err)?;
        let an = &mut lc.anchors;
        let taped = Tape::is_recording();
        // The launches a tape recorded still read the arrays they were
        // given (this step's reads the last step's `slip`): new ones for a
        // taped step and the first after one. Otherwise the same arrays
        // every step (a CUDA graph keeps the addresses it captured).
        let renew = taped || an.taped;
        if renew {
            let device = model.device();
            an.prev = Array::try_zeros(device, [an.prev.len()])?;
            let slip = Array::try_zeros(device, [an.slip.len()])?;
            an.next_slip = if taped { slip.requires_grad() } else { slip };
            an.held = Array::try_zeros(device, [an.held.len()])?;
        }
        an.taped = taped;
        if self.anchor_friction {
            Tape::pause(|| {
                anchors_match::launch(
                    threads,
                    model,
                    contacts,
                    &lc.body_joint,
                    &s_in.joint_q,
                    &an.last_q,
                    &an.count,
                    &an.key,
                    &an.point,
                    &an.from,
                    &mut an.prev,
                )
            })?;
        } else {
            an.prev.try_fill(-1)?;
        }
        eval_link_contacts::launch(
            threads,
            model,
            contacts,
            &lc.body_parent,
            &q,
            &qd,
            &an.prev,
            &an.slip,
            if self.anchor_friction { 1.0 } else { 0.0 },
            h,
            &mut force,
            &mut torque,
            &mut damp,
            &mut an.next_slip,
            &mut an.held,
        )?;
        an.count.try_fill(0)?;
        if self.anchor_friction {
            // (After a taped step `slip` is the tape's: not written, replaced.)
            let mut unused = scratch::vec3s(model, 0)?;
            let slip = if renew { &mut unused } else { &mut an.slip };
            Tape::pause(|| {
                anchors_store::launch(
                    threads,
                    model,
                    contacts,
                    &lc.body_joint,
                    &an.held,
                    &an.next_slip,
                    if renew { 0 } else { 1 },
                    &mut an.count,
                    &mut an.key,
                    &mut an.point,
                    &mut an.from,
                    slip,
                )
            })?;
            if renew {
                an.slip = an.next_slip.share();
            }
        }
        let body_f = if s_in.body_f.len() == nb {
            s_in.body_f.share()
        } else {
            scratch::vectors(model, nb)?
        };
        let mut wrench = scratch::vectors(model, nb)?;
        weft_sim::rigid::penalty::add_wrenches::launch(nb, &body_f, &force, &torque, &mut wrench)?;
        Ok((wrench, damp))
    }

    /// Steps `s_in` over `dt` into `s_out` under `control` (targets and
    /// efforts; empty arrays: the model's). `s_in.body_f` and the contacts
    /// at `s_in`'s coordinates act on the bodies during the step;
    /// `s_out.body_f` is cleared.
    pub fn step(
        &mut self,
        model: &Model,
        s_in: &State,
        s_out: &mut State,
        control: &Control,
        dt: f32,
    ) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(SimError::InvalidParameter {
                name: "dt",
                message: format!("must be finite and > 0, got {dt}"),
            });
        }
        self.layout.check(model)?;
        crate::check_state(model, s_in)?;
        crate::check_state(model, s_out)?;
        let nd = model.joint_dof_count();
        for (name, len) in [
            ("control.joint_target_pos", control.joint_target_pos.len()),
            ("control.joint_target_vel", control.joint_target_vel.len()),
            ("control.joint_f", control.joint_f.len()),
        ] {
            if len != 0 && len != nd {
                return Err(SimError::Mismatch(format!(
                    "{name} holds {len} values; the model has {nd} joint degrees of freedom (or give none)"
                )));
            }
        }
        if model.body_count() > model.joint_count() {
            // Bodies without a parent joint stay where they are.
            s_out.body_q.copy_from(&s_in.body_q)?;
            s_out.body_qd.copy_from(&s_in.body_qd)?;
        }
        let nj = model.joint_count();
        if nj > 0 {
            let kin = Kinematics::eval(model, &s_in.joint_q, &s_in.joint_qd)?;
            // Implicit contacts: each body's contact damping joins its
            // inertia (ABA's articulated inertias, CRBA's composite ones).
            let (body_f, damp) =
                self.external_wrenches(model, s_in, &kin, dt, self.implicit_contacts)?;
            let mut r = scratch::floats(model, nd)?;
            let mut d = scratch::floats(model, nd)?;
            let mut w = scratch::floats(model, nd)?;
            let qdd = if let Some(aba) = &self.aba {
                // ABA takes the applied efforts; it finds the bias itself.
                aba.check(model)?;
                drives::eval_joint_efforts::launch(
                    nj,
                    model,
                    control,
                    &s_in.joint_q,
                    &s_in.joint_qd,
                    &self.zero_qdd,
                    dt,
                    &mut r,
                    &mut d,
                    &mut w,
                )?;
                if Tape::is_recording() {
                    aba::accelerations(model, aba, &kin, &r, &d, &w, &body_f, &damp)?
                } else {
                    // From the kinematics above rather than evaluating them again.
                    crate::tree::accelerations_from(model, &kin, &r, &d, &w, &body_f, &damp)?
                }
            } else {
                let bias = kin.efforts(model, &self.zero_qdd, &body_f)?;
                let mass = kin.mass_matrix(model, &self.layout, &damp)?;
                drives::eval_joint_efforts::launch(
                    nj,
                    model,
                    control,
                    &s_in.joint_q,
                    &s_in.joint_qd,
                    &bias,
                    dt,
                    &mut r,
                    &mut d,
                    &mut w,
                )?;
                solve::solve(model, &self.layout, &mass, &d, &w, &r)?
            };
            integrate::integrate_joints::launch(
                nj,
                model,
                &s_in.joint_q,
                &s_in.joint_qd,
                &qdd,
                dt,
                &mut s_out.joint_q,
                &mut s_out.joint_qd,
            )?;
            eval_fk(model, s_out)?;
            let anchors = self.enable_contacts && self.anchor_friction;
            if let (true, Some(lc)) = (anchors, self.contacts.as_mut()) {
                // Where the next step must start to find this step's anchors.
                lc.anchors.last_q.copy_from(&s_out.joint_q)?;
            }
        }
        s_out
            .body_f
            .try_fill(SpatialVector::new(Vec3::ZERO, Vec3::ZERO))?;
        Ok(())
    }
}

/// weft-collide's errors as weft-sim's.
fn collide_err(e: weft_collide::CollideError) -> SimError {
    match e {
        weft_collide::CollideError::Runtime(e) => SimError::Runtime(e),
        other => SimError::Mismatch(other.to_string()),
    }
}
