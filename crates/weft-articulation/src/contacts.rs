//! Contacts of articulated links, for [`FeatherstoneSolver`](crate::FeatherstoneSolver):
//! the links' world poses and velocities at the step's coordinates, and each
//! contact's penalty wrench on the links it touches.
//!
//! The contact model, per contact point (`ke`, `kd`, `kf` the series
//! combination of the two shapes', `μ` their mean):
//!
//! - **Normal**: weft-sim's penalty spring–damper (as
//!   [`SemiImplicit`](weft_sim::SemiImplicit), `weft_sim::rigid::penalty`):
//!   `fₙ = −ke d − kd vₙ` for a penetration `d < 0`, the damper only while
//!   approaching, never pulling.
//! - **Friction: an anchored tangential spring** (Cundall–Strack's, as DEM
//!   codes have it): `f_t = −ke u − kf v_t`, `u` the tangential slip the pair
//!   has made since the contact began to stick (its anchor), `v_t` the slip
//!   velocity, capped at Coulomb's `μ fₙ`. While the cap holds the pair back,
//!   `u` grows by `h v_t` each step (rolling adds nothing: `v_t` is the
//!   velocity of the touching points); past the cap the contact slides and
//!   `u` is kept at the cap (`|ke u| = μ fₙ`), so a sliding contact that
//!   slows down sticks where it stops. The tangential spring is as stiff as
//!   the normal one. A link held by friction therefore stays put, displaced
//!   by `F_t / ke` (0.2 mm for the ant's feet), instead of creeping at
//!   `F_t / kf` as the viscous friction of the first version did (the ant's
//!   feet slid outward at 17–43 mm/s under its weight, `kf` 500 N·s/m per
//!   foot, until its ankles reached their limits: torso 0.36 m at any step,
//!   reached after 0.5 s at 10 ms and after 10 s at 4 ms).
//!
//! Anchors persist from step to step ([`anchors_match`], [`anchors_store`]):
//! each link keeps [`ANCHOR_SLOTS`] entries — the shape pair, the contact's
//! point on the link's core (body frame) and the contact slot that left its
//! `u` — and a new contact takes the `u` of the entry of its pair whose point
//! is nearest, within the two shapes' radii plus 1 mm. Only a step that
//! starts where the solver's last step ended (the articulations'
//! coordinates bit for bit equal) finds its anchors: any other start (a
//! reset, another rollout) begins with fresh ones, as does a contact whose
//! pair separated, a link past [`ANCHOR_SLOTS`] sticking contacts, and
//! [`FeatherstoneSolver::forget_contacts`](crate::FeatherstoneSolver::forget_contacts).
//! The matching is discrete and runs off the tape; the `u` carried is a
//! taped array of the last step (each taped step writes a new one), so
//! gradients flow through the slip history. With
//! [`anchor_friction`](crate::FeatherstoneSolver::anchor_friction) off, `u`
//! is always zero (viscous friction, the first version's).
//!
//! The wrench on a link is a force at its centre of mass and a torque
//! (world), added to `state.body_f` before recursive Newton–Euler, which maps
//! it to joint efforts by `Jᵀ`. Smooth in the coordinates and velocities
//! within a stick or slide phase, so rollouts through contact are
//! differentiable.
//!
//! Implicit by default ([`FeatherstoneSolver::implicit_contacts`](crate::FeatherstoneSolver)):
//! the springs and dampers act on the velocity at the end of the step
//! (backward Euler, [`anchored_contact_force`]), their damping (`h ke + kd`
//! along the normal, `h ke + kf` across it while sticking) joining each
//! touching body's inertia, so the robots of `assets/robots` run at their
//! files' steps (ant 10 ms, humanoid 5 ms) with the default materials.
//! Explicit (the option off), the step must resolve the contact springs:
//! `dt ≲ 2 / ω` with `ω = √(ke / m)` for the lightest link `m` that touches
//! (and `kd dt / m < 2`, `kf dt / m < 2` for the dampers);
//! with the default materials (`ke = 1e5`, `kd = kf = 1e3` per shape,
//! halved in series) a 1 kg link needs `dt < 4 ms`. Between two links the
//! implicit damping of each assumes the other held still (each body's own
//! term; the coupling is explicit). A link never collides with
//! its parent link (massless links between the axes of a multi-axis joint
//! are skipped), nor with another shape of its own body.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::{Contacts, ShapeSet};
use weft_sim::Model;
use weft_sim::rigid::contact_math::{body_com_world, body_pose, contact_points, point_velocity};
use weft_sim::rigid::penalty::series;

/// World pose and velocity (centre-of-mass linear velocity, angular
/// velocity) of every body: for a joint's child from the articulation's
/// poses `link_q` and twists `v` (each joint's child-frame twist about the
/// frame's origin), for any other body `state_q`, `state_qd` as they are.
/// `body_joint[b]` is the joint whose child `b` is, or -1.
#[weft::kernel]
pub fn eval_link_states(
    model: &Model,
    body_joint: &Array<i32>,
    link_q: &Array<Transform>,
    v: &Array<SpatialVector>,
    state_q: &Array<Transform>,
    state_qd: &Array<SpatialVector>,
    q: &mut Array<Transform>,
    qd: &mut Array<SpatialVector>,
) {
    let b = tid();
    let j = body_joint[b];
    if j >= 0 {
        let x = link_q[b];
        let w = v[j].bottom;
        q[b] = x;
        qd[b] = SpatialVector::new(
            quat_rotate(x.q, v[j].top + cross(w, model.body_com[b])),
            quat_rotate(x.q, w),
        );
    } else {
        q[b] = state_q[b];
        qd[b] = state_qd[b];
    }
}

/// Adds each contact's penalty force and torque (about the centres of mass,
/// world) to both bodies' entries of `force` and `torque`, except contacts
/// between a link and its parent link (`body_parent[b]`: the nearest
/// ancestor of body `b` with mass, -1 for none).
///
/// Friction is anchored ([`anchored_contact_force`]): contact `c` carries the
/// slip `slip_prev[prev[c]]` the last step left (none where `prev[c]` is -1),
/// and leaves its own in `slip[c]`, with `held[c]` 1 where it pushed (what
/// [`anchors_store`] keeps for the next step); the tangential spring is
/// `stick` times the normal one (0: viscous friction). With `damp` non-empty the
/// forces are implicit for a step of `h` and each contact's damping times
/// `h` is added to `damp` ([`add_point_damping`]); otherwise explicit.
#[weft::kernel]
pub fn eval_link_contacts(
    model: &Model,
    contacts: &Contacts,
    body_parent: &Array<i32>,
    q: &Array<Transform>,
    qd: &Array<SpatialVector>,
    prev: &Array<i32>,
    slip_prev: &Array<Vec3>,
    stick: f32,
    h: f32,
    force: &mut Array<Vec3>,
    torque: &mut Array<Vec3>,
    damp: &mut Array<Vec3>,
    slip: &mut Array<Vec3>,
    held: &mut Array<i32>,
) {
    let c = tid();
    if c < min(contacts.count[0], contacts.shape_a.len() as i32) {
        let (ba, bb, pa, pb, n) = contact_points(model, contacts, q, c);
        let mut adjacent = false;
        if ba >= 0 {
            if bb >= 0 {
                if body_parent[ba] == bb {
                    adjacent = true;
                }
                if body_parent[bb] == ba {
                    adjacent = true;
                }
            }
        }
        let d = dot(n, pb - pa);
        let mut left = Vec3::ZERO;
        let mut pushed = 0;
        if d < 0.0 {
            if !adjacent {
                let sa = contacts.shape_a[c];
                let sb = contacts.shape_b[c];
                let ke = series(model.rigid_shapes.ke[sa], model.rigid_shapes.ke[sb]);
                let kd = series(model.rigid_shapes.kd[sa], model.rigid_shapes.kd[sb]);
                let kf = series(model.rigid_shapes.kf[sa], model.rigid_shapes.kf[sb]);
                let mu = 0.5 * (model.rigid_shapes.mu[sa] + model.rigid_shapes.mu[sb]);
                // Where the force acts: midway along the normal, and on a
                // static shape at the moving link's point (as weft-sim's
                // penalty contacts, so the gradient follows re-detection).
                let mut p = (pa + pb) * 0.5;
                if ba < 0 {
                    p = pb - n * (d * 0.5);
                } else if bb < 0 {
                    p = pa + n * (d * 0.5);
                }
                let ra = p - body_com_world(model, ba, body_pose(q, ba));
                let rb = p - body_com_world(model, bb, body_pose(q, bb));
                let vrel = point_velocity(qd, bb, rb) - point_velocity(qd, ba, ra);
                let implicit = damp.len() > 0;
                let mut u = Vec3::ZERO;
                let from = prev[c];
                if from >= 0 {
                    u = carried_slip(n, slip_prev[from], vrel, h);
                }
                let (f, cn, ct, kept, pushes) =
                    anchored_contact_force(n, vrel, u, d, ke, kd, stick * ke, kf, mu, h, implicit);
                left = kept;
                pushed = pushes;
                if implicit {
                    let dm = (outer(n, n) * (cn - ct) + diag(Vec3::splat(ct))) * h;
                    if bb >= 0 {
                        add_point_damping(damp, bb, p - body_pose(q, bb).p, dm);
                    }
                    if ba >= 0 {
                        add_point_damping(damp, ba, p - body_pose(q, ba).p, dm);
                    }
                }
                if bb >= 0 {
                    atomic_add(&mut force[bb], f);
                    atomic_add(&mut torque[bb], cross(rb, f));
                }
                if ba >= 0 {
                    atomic_add(&mut force[ba], -f);
                    atomic_add(&mut torque[ba], cross(ra, -f));
                }
            }
        }
        slip[c] = left;
        held[c] = pushed;
    }
}

/// The slip `u` a sticking contact carries into this step: the slip it
/// left last step (`left`, world) turned into the tangent plane of the
/// normal `n`, plus the last step's slip velocity (the tangential part of
/// `v`, the relative velocity now, times `h`).
#[weft::func]
pub fn carried_slip(n: Vec3, left: Vec3, v: Vec3, h: f32) -> Vec3 {
    let vt = v - n * dot(n, v);
    left - n * dot(n, left) + vt * h
}

/// The penalty force on b of a contact with normal `n` (a → b),
/// penetration `d < 0`, relative velocity `v` (b's minus a's) and carried
/// slip `u` (tangential; see the [module docs](self) for the model):
/// normal `fₙ = −ke d − cₙ vₙ`, friction `f_t = −kt u − c_t v_t` capped at
/// `μ fₙ` (past the cap, `μ fₙ` along the uncapped force). Implicit for a
/// step of `h` (backward Euler on the springs and dampers), `cₙ = h ke +
/// kd` (`kd` only while approaching) and `c_t = h kt + kf`; explicit,
/// `cₙ = kd` while approaching and `c_t = kf`. Returns the force at the
/// current velocity, the damping coefficients `cₙ` and `c_t` that act on
/// the velocity change (implicit only; zero when the contact separates, `c_t`
/// zero while sliding), the slip to carry into the next step (`u`, or
/// the slip at the cap while sliding; zero once apart) and 1 when the
/// contact pushes.
#[weft::func]
pub fn anchored_contact_force(
    n: Vec3,
    v: Vec3,
    u: Vec3,
    d: f32,
    ke: f32,
    kd: f32,
    kt: f32,
    kf: f32,
    mu: f32,
    h: f32,
    implicit: bool,
) -> (Vec3, f32, f32, Vec3, i32) {
    let vn = dot(n, v);
    let mut cn = 0.0;
    let mut c = kf;
    if implicit {
        cn = h * ke;
        c = h * kt + kf;
    }
    if vn < 0.0 {
        cn += kd;
    }
    // Negative: pushing the bodies apart.
    let f_n = d * ke + cn * vn;
    let mut f = Vec3::ZERO;
    let mut ct = 0.0;
    let mut left = Vec3::ZERO;
    let mut pushes = 0;
    if f_n < 0.0 {
        let vt = v - n * vn;
        let trial = -(u * kt + vt * c);
        let cap = -f_n * mu;
        let size = length(trial);
        let mut ft = trial;
        if size <= cap {
            left = u;
            // (No friction, no damping across: μ = 0 holds nothing.)
            if implicit {
                if cap > 0.0 {
                    ct = c;
                }
            }
        } else {
            ft = trial * (cap / size);
            if kt > 0.0 {
                left = -ft / kt;
            }
        }
        f = n * (-f_n) + ft;
        pushes = 1;
    } else {
        cn = 0.0;
    }
    (f, cn, ct, left, pushes)
}

/// Anchor entries per link: a link's sticking contacts beyond these start
/// afresh each step (their friction is viscous).
pub const ANCHOR_SLOTS: usize = 8;

/// The link whose table holds the anchor of a contact between bodies `ba`
/// and `bb`: the one of the larger index that is a joint's child
/// (`body_joint[b] >= 0`), or -1 when neither is.
#[weft::func]
pub fn anchor_owner(body_joint: &Array<i32>, ba: i32, bb: i32) -> i32 {
    let mut o = -1;
    if ba >= 0 {
        if body_joint[ba] >= 0 {
            o = ba;
        }
    }
    if bb >= 0 {
        if body_joint[bb] >= 0 {
            if bb > o {
                o = bb;
            }
        }
    }
    o
}

/// Contact `c`'s point on the core of `o`'s shape (`o`'s body frame).
#[weft::func]
pub fn owner_point(contacts: &Contacts, c: i32, o: i32, ba: i32) -> Vec3 {
    let mut x = contacts.point_b[c];
    if o == ba {
        x = contacts.point_a[c];
    }
    x
}

/// Whether the coordinates of body `b`'s articulation in `q` equal those
/// in `last` bit for bit (true for a body that no joint moves).
#[weft::func]
pub fn coordinates_unchanged(
    model: &Model,
    body_joint: &Array<i32>,
    q: &Array<f32>,
    last: &Array<f32>,
    b: i32,
) -> bool {
    let mut same = true;
    if b >= 0 {
        let j = body_joint[b];
        if j >= 0 {
            let a = model.joint_articulation[j];
            let lo = model.joint_q_start[model.articulation_start[a]];
            let hi = model.joint_q_start[model.articulation_start[a + 1]];
            for i in lo..hi {
                if q[i] != last[i] {
                    same = false;
                }
            }
        }
    }
    same
}

/// A thread per contact: `prev[c]` is the last step's contact slot whose
/// slip contact `c` carries, or -1: the entry of its owner's table
/// ([`anchor_owner`]; `count`, `key`, `point`, `from`, written by
/// [`anchors_store`]) for the same shape pair whose point is nearest to
/// `c`'s, within the shapes' radii plus 1 mm. Only where both bodies'
/// articulations start at the coordinates `last_q` the last step ended at.
#[weft::kernel(forward_only)]
pub fn anchors_match(
    model: &Model,
    contacts: &Contacts,
    body_joint: &Array<i32>,
    joint_q: &Array<f32>,
    last_q: &Array<f32>,
    count: &Array<i32>,
    key: &Array<IVec2>,
    point: &Array<Vec3>,
    from: &Array<i32>,
    prev: &mut Array<i32>,
) {
    let c = tid();
    if c < min(contacts.count[0], contacts.shape_a.len() as i32) {
        let sa = contacts.shape_a[c];
        let sb = contacts.shape_b[c];
        let ba = model.rigid_shapes.body[sa];
        let bb = model.rigid_shapes.body[sb];
        let o = anchor_owner(body_joint, ba, bb);
        let mut best = -1;
        if o >= 0 {
            if coordinates_unchanged(model, body_joint, joint_q, last_q, ba) {
                if coordinates_unchanged(model, body_joint, joint_q, last_q, bb) {
                    let x = owner_point(contacts, c, o, ba);
                    let mut nearest = contacts.radius_a[c] + contacts.radius_b[c] + 1e-3;
                    for i in 0..min(count[o], 8) {
                        let k = key[o * 8 + i];
                        if k.x == sa {
                            if k.y == sb {
                                let dist = length(point[o * 8 + i] - x);
                                if dist < nearest {
                                    nearest = dist;
                                    best = from[o * 8 + i];
                                }
                            }
                        }
                    }
                }
            }
        }
        prev[c] = best;
    }
}

/// A thread per contact: each contact that pushed (`held[c]` 1) enters
/// its owner's table ([`anchor_owner`]; `count` zeroed before): its shape
/// pair, its point on the owner's core and its slot `c`, up to
/// [`ANCHOR_SLOTS`] per link. With `keep` 1 it also copies the slip it
/// left (`left[c]`) to `slip[c]`, where the next step reads it (the stored
/// contacts only: a copy of the whole buffer would cost more).
#[weft::kernel(forward_only)]
pub fn anchors_store(
    model: &Model,
    contacts: &Contacts,
    body_joint: &Array<i32>,
    held: &Array<i32>,
    left: &Array<Vec3>,
    keep: i32,
    count: &mut Array<i32>,
    key: &mut Array<IVec2>,
    point: &mut Array<Vec3>,
    from: &mut Array<i32>,
    slip: &mut Array<Vec3>,
) {
    let c = tid();
    if c < min(contacts.count[0], contacts.shape_a.len() as i32) {
        if keep == 1 {
            slip[c] = left[c];
        }
        if held[c] == 1 {
            let sa = contacts.shape_a[c];
            let sb = contacts.shape_b[c];
            let ba = model.rigid_shapes.body[sa];
            let o = anchor_owner(body_joint, ba, model.rigid_shapes.body[sb]);
            if o >= 0 {
                let slot = atomic_add(&mut count[o], 1);
                if slot < 8 {
                    key[o * 8 + slot] = IVec2::new(sa, sb);
                    point[o * 8 + slot] = owner_point(contacts, c, o, ba);
                    from[o * 8 + slot] = c;
                }
            }
        }
    }
}

/// Adds the damping `dm` (world; `h cₙ n nᵀ + h cₜ (1 − n nᵀ)` for a step
/// `h`) of a contact at `r` from body `b`'s frame origin (world axes) to the
/// body's 6 × 6 damping about its origin, world axes: blocks `A += D`,
/// `B += −D [r]×`, `C += −[r]× D [r]×`, stored as their columns at
/// `9b..9b + 9` of `damp` (read back by [`damping_blocks`]).
#[weft::func]
pub fn add_point_damping(damp: &mut Array<Vec3>, b: i32, r: Vec3, dm: Mat3) {
    let sr = skew(r);
    let bm = -(dm * sr);
    let cm = -(sr * dm * sr);
    for k in 0..3 {
        atomic_add(&mut damp[9 * b + k], dm.col(k));
        atomic_add(&mut damp[9 * b + 3 + k], bm.col(k));
        atomic_add(&mut damp[9 * b + 6 + k], cm.col(k));
    }
}

/// Body `b`'s damping blocks `(A, B, C)` of [`add_point_damping`].
#[weft::func]
pub fn damping_blocks(damp: &Array<Vec3>, b: i32) -> (Mat3, Mat3, Mat3) {
    let o = 9 * b;
    (
        Mat3::from_cols(damp[o], damp[o + 1], damp[o + 2]),
        Mat3::from_cols(damp[o + 3], damp[o + 4], damp[o + 5]),
        Mat3::from_cols(damp[o + 6], damp[o + 7], damp[o + 8]),
    )
}

/// Per body: which joint's child it is (-1: none), and its nearest ancestor
/// with mass (-1: none; massless links between the axes of a multi-axis
/// joint are passed over), from the model's joints.
pub(crate) fn body_tree(
    body_count: usize,
    joint_parent: &[i32],
    joint_child: &[i32],
    body_mass: &[f32],
) -> (Vec<i32>, Vec<i32>) {
    let mut joint = vec![-1i32; body_count];
    for (j, &c) in joint_child.iter().enumerate() {
        if c >= 0 {
            joint[c as usize] = j as i32;
        }
    }
    let direct = |b: i32| -> i32 {
        let j = joint[b as usize];
        if j >= 0 { joint_parent[j as usize] } else { -1 }
    };
    let parent = (0..body_count as i32)
        .map(|b| {
            let mut p = direct(b);
            // A massless link carries no shapes of its own (the importer's
            // intermediate axes): look through it.
            let mut guard = 0;
            while p >= 0 && body_mass[p as usize] <= 0.0 && guard < body_count {
                p = direct(p);
                guard += 1;
            }
            p
        })
        .collect();
    (joint, parent)
}

#[cfg(test)]
mod tests {
    use super::body_tree;

    #[test]
    fn parents_skip_massless_links() {
        // 0 (root, joint 0 from the world) ← 1 (massless) ← 2; 3 free of joints.
        let (joint, parent) = body_tree(4, &[-1, 0, 1], &[0, 1, 2], &[1.0, 0.0, 2.0, 1.0]);
        assert_eq!(joint, vec![0, 1, 2, -1]);
        assert_eq!(parent, vec![-1, 0, 0, -1]);
    }
}
