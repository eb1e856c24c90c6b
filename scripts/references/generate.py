#!/usr/bin/env python3
"""Reference dynamics for Weft's robot files, from MuJoCo and Pinocchio (issue 26 point 6).

Run from anywhere (one command regenerates everything):

    python3 -m venv /tmp/refenv && /tmp/refenv/bin/pip install -r scripts/references/requirements.txt
    /tmp/refenv/bin/python scripts/references/generate.py

Writes tests/data/references/<model>.json for every model in assets/robots/ and
prints how closely MuJoCo and Pinocchio agree. CI only reads the committed files.

Conventions of every file written here (also in docs/notes/references.md):
- Coordinates are MuJoCo's: q = qpos, qd = qvel, in MuJoCo's joint order (bodies
  depth-first in file order, joints of a body in file order; weft-import's order).
  A free joint is qpos = (x, y, z, qw, qx, qy, qz) and qvel = (linear velocity of the
  body origin in the WORLD frame, angular velocity in the BODY frame). Every
  quaternion in these files is (w, x, y, z), as in MuJoCo.
- tau: generalized forces (MuJoCo qfrc_applied), one per dof, no actuators.
- Contacts, joint limits, all other constraints, joint damping, springs and
  friction loss are disabled: qdd = M^-1 (tau - bias) exactly.
- M: the joint-space mass matrix incl. armature; bias = C(q, qd) = Coriolis,
  centrifugal and gravity forces (MuJoCo qfrc_bias), gravity (0, 0, -9.81).
- body_poses: world pose of each body frame, (x, y, z, qw, qx, qy, qz), in body order.
- site_jacobians: for each site, 6 x nv, rows (linear velocity of the site point in
  world axes; angular velocity in world axes), columns per qd.
- Derivatives: d qdd / d q, d qdd / d qd, d qdd / d tau (nv x nv, row = qdd index).
  d/dq is with respect to MuJoCo's tangent perturbation of q (mj_integratePos):
  free joint position in world axes, rotations as body-frame rotation vectors.
  They are Pinocchio's computeABADerivatives, converted to these coordinates.
- Rollouts: tau = 0 from (q0, qd0 = 0) for 1 s with MuJoCo's RK4 and with its
  semi-implicit Euler (qd += dt qdd; q += dt qd), dt = the file's timestep, samples
  every `stride` steps (t = 0 included).
- Numbers are rounded to 10 significant digits; inputs are rounded before the
  outputs are computed, so the outputs belong to the stored inputs.
"""

import json
import os
import sys

import mujoco
import numpy as np
import pinocchio as pin

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "data", "references")

# name, file, URDF (or None), states (dynamics), of which with kinematics, of which
# with derivatives, tau scale, rollout start q0. Fewer states for the large models
# keep the committed files small (a humanoid state with derivatives is ~60 KiB).
MODELS = [
    ("cartpole", "cartpole.xml", None, 100, 20, 20, 5.0, None),
    ("double_pendulum", "double_pendulum.xml", None, 100, 20, 20, 5.0, [1.0, -0.5]),
    ("arm7", "arm7.xml", "arm7.urdf", 40, 10, 8, 10.0, [0.3, 0.5, -0.4, -1.5, 0.6, 1.2, -0.3]),
    ("ant", "ant.xml", None, 15, 4, 3, 10.0, None),
    ("humanoid", "humanoid.xml", None, 5, 2, 2, 20.0, None),
]
DIGITS = 10
FREE, HINGE, SLIDE = (int(t) for t in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE))


def rnd(x):
    """Rounds arrays (recursively) to DIGITS significant digits."""
    a = np.asarray(x, dtype=float)
    out = np.vectorize(lambda v: float(f"{v:.{DIGITS}g}"))(a) if a.size else a
    return np.where(out == 0.0, 0.0, out)


def tolist(x):
    return rnd(x).tolist()


def rel(a, b):
    """Max-norm relative difference |a - b|_inf / max(|b|_inf, 1e-12)."""
    a, b = np.asarray(a), np.asarray(b)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-12))


def skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def quat_mat(q_wxyz):
    r = np.zeros(9)
    mujoco.mju_quat2Mat(r, np.asarray(q_wxyz, dtype=float))
    return r.reshape(3, 3)


def unit_wxyz(q):
    return np.asarray(q, dtype=float) / np.linalg.norm(q)


def mat_quat(r):
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.asarray(r, dtype=float).reshape(9))
    return q


class Mj:
    """MuJoCo with everything but rigid-body dynamics switched off."""

    def __init__(self, path):
        self.m = mujoco.MjModel.from_xml_path(path)
        self.d = mujoco.MjData(self.m)
        D = mujoco.mjtDisableBit
        self.m.opt.disableflags |= (
            D.mjDSBL_CONSTRAINT | D.mjDSBL_CONTACT | D.mjDSBL_LIMIT | D.mjDSBL_EQUALITY
            | D.mjDSBL_FRICTIONLOSS | D.mjDSBL_SPRING | D.mjDSBL_DAMPER | D.mjDSBL_ACTUATION
        )
        self.free = self.m.njnt > 0 and int(self.m.jnt_type[0]) == FREE
        for j in range(1, self.m.njnt):
            assert int(self.m.jnt_type[j]) in (HINGE, SLIDE), \
                "only a free root joint and hinge/slide joints are converted to Pinocchio"

    def forward(self, q, v, tau):
        m, d = self.m, self.d
        d.qpos[:], d.qvel[:], d.qfrc_applied[:] = q, v, tau
        d.ctrl[:] = 0
        mujoco.mj_forward(m, d)
        M = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, M)
        return M, d.qfrc_bias.copy(), d.qacc.copy()

    def kinematics(self):
        m, d = self.m, self.d
        bodies = [np.concatenate([d.xpos[b], d.xquat[b]]) for b in range(1, m.nbody)]
        sites, jacs = [], []
        for s in range(m.nsite):
            sites.append(np.concatenate([d.site_xpos[s], mat_quat(d.site_xmat[s])]))
            jp, jr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
            mujoco.mj_jacSite(m, d, jp, jr, s)
            jacs.append(np.vstack([jp, jr]))
        return bodies, sites, jacs

    def fd_derivatives(self, q, v, tau, eps=1e-5):
        """Central differences of qacc in MuJoCo's coordinates (for the cross-check)."""
        m, nv = self.m, self.m.nv
        A = [np.zeros((nv, nv)) for _ in range(3)]
        for i in range(nv):
            dq = np.zeros(nv)
            dq[i] = eps
            qp, qm = q.copy(), q.copy()
            mujoco.mj_integratePos(m, qp, dq, 1.0)
            mujoco.mj_integratePos(m, qm, dq, -1.0)
            A[0][:, i] = (self.forward(qp, v, tau)[2] - self.forward(qm, v, tau)[2]) / (2 * eps)
            A[1][:, i] = (self.forward(q, v + dq, tau)[2] - self.forward(q, v - dq, tau)[2]) / (2 * eps)
            A[2][:, i] = (self.forward(q, v, tau + dq)[2] - self.forward(q, v, tau - dq)[2]) / (2 * eps)
        return A

    def sample(self, rng, tau_scale):
        m = self.m
        q = np.zeros(m.nq)
        for j in range(m.njnt):
            a = m.jnt_qposadr[j]
            t = int(m.jnt_type[j])
            if t == FREE:
                q[a:a + 3] = m.qpos0[a:a + 3] + rng.uniform(-0.5, 0.5, 3)
                quat = rng.normal(size=4)
                q[a + 3:a + 7] = quat / np.linalg.norm(quat)
            elif m.jnt_limited[j]:
                lo, hi = m.jnt_range[j]
                q[a] = rng.uniform(lo, hi)
            else:
                q[a] = rng.uniform(-np.pi, np.pi)
        q = rnd(q)
        if self.free:
            q[3:7] = rnd(q[3:7] / np.linalg.norm(q[3:7]))
        return q, rnd(rng.normal(size=m.nv)), rnd(tau_scale * rng.normal(size=m.nv))


class Pin:
    """A Pinocchio model of the same file, with MuJoCo <-> Pinocchio coordinate maps.

    Pinocchio's free flyer is q = (p, qx, qy, qz, qw) and v = (R^T p_dot, omega_body):
    v_pin = T v_mj with T = diag(R^T, I, ...). Accelerations: a_pin = T a_mj + c with
    c = (-omega x v_lin_local, 0, ...).
    """

    def __init__(self, model, free, armature, label):
        self.free = free
        if not np.allclose(model.armature, armature):
            if label != "built":
                print(f"    ({label}: Pinocchio read armature {model.armature}; set to MuJoCo's)")
            model.armature[:] = armature
        self.model = model
        self.data = model.createData()

    def coords(self, q, v, tau):
        nv = self.model.nv
        T = np.eye(nv)
        qp = q.copy()
        if self.free:
            quat = np.array([q[4], q[5], q[6], q[3]])
            qp[3:7] = quat / np.linalg.norm(quat)
            T[:3, :3] = quat_mat(unit_wxyz(q[3:7])).T
        vp = T @ v
        taup = np.linalg.solve(T.T, tau)
        c = np.zeros(nv)
        if self.free:
            c[:3] = -np.cross(vp[3:6], vp[:3])
        return qp, vp, taup, T, c

    def dynamics(self, q, v, tau):
        """M, bias and qdd converted to MuJoCo's coordinates."""
        qp, vp, taup, T, c = self.coords(q, v, tau)
        Mp = pin.crba(self.model, self.data, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        bp = pin.rnea(self.model, self.data, qp, vp, np.zeros(self.model.nv))
        ap = pin.aba(self.model, self.data, qp, vp, taup)
        return T.T @ Mp @ T, T.T @ (bp + Mp @ c), np.linalg.solve(T, ap - c)

    def derivatives(self, q, v, tau):
        """computeABADerivatives, converted to MuJoCo's coordinates and perturbations."""
        model, data = self.model, self.data
        qp, vp, taup, T, c = self.coords(q, v, tau)
        pin.computeABADerivatives(model, data, qp, vp, taup)
        Dq, Dv, Dt = data.ddq_dq.copy(), data.ddq_dv.copy(), data.Minv.copy()
        Dt = np.triu(Dt) + np.triu(Dt, 1).T
        Ti = np.linalg.inv(T)
        if not self.free:
            return [Dq, Dv, Dt]
        ap = pin.aba(model, data, qp, vp, taup)
        R = quat_mat(unit_wxyz(q[3:7]))
        vl, w = vp[:3], vp[3:6]
        dc_dv = np.zeros_like(Dv)
        dc_dv[:3, :3] = -skew(w)
        dc_dv[:3, 3:6] = skew(vl)
        dv = Ti @ (Dv - dc_dv) @ T
        dt = Ti @ Dt @ np.linalg.inv(T.T)
        dq = Ti @ Dq
        dq[:, :3] = Ti @ Dq[:, :3] @ R.T  # world position offset = R x local offset
        # Rotation R -> R exp(dθ): v_lin_local and tau_lin_local turn, and so does T^-1.
        tl = taup[:3]
        da = Dq[:, 3:6] + Dv[:, :3] @ skew(vl) + Dt[:, :3] @ skew(tl)
        dc = np.zeros((model.nv, 3))
        dc[:3] = -skew(w) @ skew(vl)
        rot = Ti @ (da - dc)
        rot[:3] -= R @ skew(ap[:3] - c[:3])
        dq[:, 3:6] = rot
        return [dq, dv, dt]


def build_pinocchio(m):
    """A Pinocchio model with one joint per MuJoCo joint, built from MuJoCo's compiled
    model (no JointModelComposite: Pinocchio's ABA derivatives of composite joints,
    which its MJCF parser makes for bodies with several hinges, disagree with finite
    differences). A hinge turns its body about an axis through the joint anchor."""
    model = pin.Model()
    frame_of_body = {0: (0, pin.SE3.Identity())}  # body -> (last joint, body frame in it)
    for b in range(1, m.nbody):
        parent_joint, parent_in_joint = frame_of_body[int(m.body_parentid[b])]
        x = parent_in_joint * pin.SE3(quat_mat(m.body_quat[b]), m.body_pos[b].copy())
        joint, offset = parent_joint, np.zeros(3)
        for j in range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b]):
            name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint{j}"
            t = int(m.jnt_type[j])
            if t == FREE:
                joint = model.addJoint(joint, pin.JointModelFreeFlyer(), pin.SE3.Identity(), name)
                x = pin.SE3.Identity()
                continue
            assert m.qpos0[m.jnt_qposadr[j]] == 0.0, "joint ref must be 0"
            anchor = m.jnt_pos[j].copy()
            placement = x * pin.SE3(np.eye(3), anchor - offset)
            jm = pin.JointModelRevoluteUnaligned(m.jnt_axis[j].copy()) if t == HINGE \
                else pin.JointModelPrismaticUnaligned(m.jnt_axis[j].copy())
            joint = model.addJoint(joint, jm, placement, name)
            x, offset = pin.SE3.Identity(), anchor
        body_in_joint = x * pin.SE3(np.eye(3), -offset)
        inertia = pin.Inertia(float(m.body_mass[b]), m.body_ipos[b].copy(),
                              quat_mat(m.body_iquat[b]) @ np.diag(m.body_inertia[b]) @ quat_mat(m.body_iquat[b]).T)
        model.appendBodyToJoint(joint, inertia, body_in_joint)
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
        model.addFrame(pin.Frame(name, joint, body_in_joint, pin.FrameType.BODY), False)
        frame_of_body[b] = (joint, body_in_joint)
    for st in range(m.nsite):
        joint, body_in_joint = frame_of_body[int(m.site_bodyid[st])]
        placement = body_in_joint * pin.SE3(quat_mat(m.site_quat[st]), m.site_pos[st].copy())
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_SITE, st)
        model.addFrame(pin.Frame(name, joint, placement, pin.FrameType.OP_FRAME), False)
    model.gravity.linear[:] = m.opt.gravity
    return model


def pin_frame_id(model, name, kind):
    for i, f in enumerate(model.frames):
        if f.name == name and f.type == kind:
            return i
    raise KeyError(name)


def kinematics_agreement(mj, p, q, v, tau, bodies, sites, jacs):
    """Max differences of body poses and site Jacobians, MuJoCo vs Pinocchio."""
    qp, vp, taup, T, c = p.coords(q, v, tau)
    model, data = p.model, p.data
    pin.forwardKinematics(model, data, qp)
    pin.computeJointJacobians(model, data, qp)
    pin.updateFramePlacements(model, data)
    fk = 0.0
    for b in range(1, mj.m.nbody):
        name = mujoco.mj_id2name(mj.m, mujoco.mjtObj.mjOBJ_BODY, b)
        o = data.oMf[pin_frame_id(model, name, pin.FrameType.BODY)]
        mq = bodies[b - 1]
        fk = max(fk, np.abs(o.translation - mq[:3]).max(), np.abs(o.rotation - quat_mat(mq[3:])).max())
    jac = 0.0
    for s in range(mj.m.nsite):
        name = mujoco.mj_id2name(mj.m, mujoco.mjtObj.mjOBJ_SITE, s)
        f = pin_frame_id(model, name, pin.FrameType.OP_FRAME)
        J = pin.getFrameJacobian(model, data, f, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED) @ T
        jac = max(jac, rel(J, jacs[s]))
        fk = max(fk, np.abs(data.oMf[f].translation - sites[s][:3]).max())
    return fk, jac


def rollout(mj, q0, integrator, seconds=1.0, stride=10):
    """Samples of (q, qd); `sensitivity` is max |q(1 s) change| when q0 moves by 1e-9,
    the floor under any comparison of this chaotic motion."""
    m, d = mj.m, mj.d
    m.opt.integrator = integrator
    steps = int(round(seconds / m.opt.timestep))

    def run(start):
        mujoco.mj_resetData(m, d)
        d.qpos[:] = start
        qs, vs = [d.qpos.copy()], [d.qvel.copy()]
        for k in range(1, steps + 1):
            mujoco.mj_step(m, d)
            if k % stride == 0:
                qs.append(d.qpos.copy())
                vs.append(d.qvel.copy())
        return np.array(qs), np.array(vs)

    qs, vs = run(np.array(q0, dtype=float))
    moved, _ = run(np.array(q0, dtype=float) + 1e-9)
    name = {int(mujoco.mjtIntegrator.mjINT_RK4): "RK4", int(mujoco.mjtIntegrator.mjINT_EULER): "Euler"}[int(integrator)]
    return {"integrator": name, "dt": m.opt.timestep, "steps": steps, "stride": stride,
            "sensitivity_1e-9": float(f"{np.abs(moved[-1] - qs[-1]).max():.3g}"),
            "q": tolist(qs), "qd": tolist(vs)}


def generate(name, file, urdf, n_states, n_kin, n_deriv, tau_scale, q0, rng):
    path = os.path.join(ROOT, "assets", "robots", file)
    mj = Mj(path)
    m = mj.m
    armature = m.dof_armature.copy()
    pins = {
        "mjcf": Pin(pin.buildModelFromMJCF(path), mj.free, armature, "mjcf"),
        "built": Pin(build_pinocchio(m), mj.free, armature, "built"),
    }
    if urdf:
        pins["urdf"] = Pin(pin.buildModelFromUrdf(os.path.join(ROOT, "assets", "robots", urdf)), mj.free, armature, "urdf")
    agree = {k: {"M": 0.0, "bias": 0.0, "qdd": 0.0, "fk_abs": 0.0, "jacobian": 0.0} for k in pins}
    agree["built"].update({"d_dq": 0.0, "d_dqd": 0.0, "d_dtau": 0.0})
    states, kins, derivs = [], [], []
    for i in range(n_states):
        q, v, tau = mj.sample(rng, tau_scale)
        M, bias, qdd = mj.forward(q, v, tau)
        bodies, sites, jacs = mj.kinematics()
        assert rel(np.linalg.solve(M, tau - bias), qdd) < 1e-9
        for k, p in pins.items():
            Mp, bp, ap = p.dynamics(q, v, tau)
            a = agree[k]
            a["M"] = max(a["M"], rel(Mp, M))
            a["bias"] = max(a["bias"], rel(bp, bias))
            a["qdd"] = max(a["qdd"], rel(ap, qdd))
            if k != "urdf":
                fk, jac = kinematics_agreement(mj, p, q, v, tau, bodies, sites, jacs)
                a["fk_abs"], a["jacobian"] = max(a["fk_abs"], fk), max(a["jacobian"], jac)
        states.append({
            "q": tolist(q), "qd": tolist(v), "tau": tolist(tau),
            "M": tolist(M), "bias": tolist(bias), "qdd": tolist(qdd),
        })
        if i < n_kin:
            kins.append({"state": i, "body_poses": tolist(bodies), "site_poses": tolist(sites),
                         "site_jacobians": tolist(jacs)})
        if i < n_deriv:
            D = pins["built"].derivatives(q, v, tau)
            fd = mj.fd_derivatives(q, v, tau)
            for key, a, b in zip(["d_dq", "d_dqd", "d_dtau"], D, fd):
                agree["built"][key] = max(agree["built"][key], rel(a, b))
            derivs.append({"state": i, "dqdd_dq": tolist(D[0]), "dqdd_dqd": tolist(D[1]), "dqdd_dtau": tolist(D[2])})
    if urdf:
        agree["urdf"].update(urdf_kinematics(pins["urdf"], mj, rng, tau_scale))
    out = {
        "model": name,
        "file": f"assets/robots/{file}",
        "generator": "scripts/references/generate.py",
        "versions": {"mujoco": mujoco.__version__, "pinocchio": pin.__version__, "numpy": np.__version__},
        "conventions": "see docs/notes/references.md: MuJoCo coordinates (free joint qpos = pos + quat w x y z, "
                       "qvel = world linear + body angular), quaternions (w, x, y, z), no contacts/limits/damping, "
                       "qdd = M^-1 (tau - bias), Jacobian rows (linear; angular) in world axes, 10 significant digits",
        "nq": int(m.nq), "nv": int(m.nv),
        "timestep": float(m.opt.timestep),
        "gravity": m.opt.gravity.tolist(),
        "bodies": [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(1, m.nbody)],
        "sites": [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_SITE, s) for s in range(m.nsite)],
        "states": states,
        "kinematics": kins,
        "derivatives": derivs,
        "agreement_mujoco_vs_pinocchio": {k: {kk: float(f"{vv:.3g}") for kk, vv in a.items()} for k, a in agree.items()},
    }
    if q0 is not None:
        out["rollouts"] = {
            "q0": q0,
            "rk4": rollout(mj, q0, mujoco.mjtIntegrator.mjINT_RK4),
            "euler": rollout(mj, q0, mujoco.mjtIntegrator.mjINT_EULER),
        }
    return out, agree


def urdf_kinematics(p, mj, rng, tau_scale):
    """FK of every link and the "ee" Jacobian from the URDF model vs MuJoCo's bodies and site."""
    fk, jac = 0.0, 0.0
    for _ in range(20):
        q, v, tau = mj.sample(rng, tau_scale)
        mj.forward(q, v, tau)
        bodies, sites, jacs = mj.kinematics()
        model, data = p.model, p.data
        pin.forwardKinematics(model, data, q)
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        for b in range(1, mj.m.nbody):
            name = mujoco.mj_id2name(mj.m, mujoco.mjtObj.mjOBJ_BODY, b)
            o = data.oMf[pin_frame_id(model, name, pin.FrameType.BODY)]
            fk = max(fk, np.abs(o.translation - bodies[b - 1][:3]).max(),
                     np.abs(o.rotation - quat_mat(bodies[b - 1][3:])).max())
        f = pin_frame_id(model, "ee", pin.FrameType.BODY)
        s = mujoco.mj_name2id(mj.m, mujoco.mjtObj.mjOBJ_SITE, "ee")
        o = data.oMf[f]
        fk = max(fk, np.abs(o.rotation - quat_mat(sites[s][3:])).max(), np.abs(o.translation - sites[s][:3]).max())
        J = pin.getFrameJacobian(model, data, f, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        jac = max(jac, rel(J, jacs[s]))
    return {"fk_abs": fk, "jacobian": jac}


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(26)
    total, failures = 0, []
    print(f"MuJoCo {mujoco.__version__}, Pinocchio {pin.__version__}")
    print("max relative difference MuJoCo vs Pinocchio (fk_abs: absolute, m and rotation-matrix entries)")
    for spec in MODELS:
        out, agree = generate(*spec, rng)
        path = os.path.join(OUT, f"{spec[0]}.json")
        with open(path, "w") as f:
            json.dump(out, f, separators=(",", ":"))
            f.write("\n")
        size = os.path.getsize(path)
        total += size
        print(f"{spec[0]:16s} nq {out['nq']:2d} nv {out['nv']:2d} states {len(out['states']):3d} "
              f"kinematics {len(out['kinematics']):3d} derivatives {len(out['derivatives']):3d}  {size / 1024:6.1f} KiB")
        for k, a in agree.items():
            print(f"    pinocchio ({k}): " + "  ".join(f"{kk} {vv:.1e}" for kk, vv in a.items()))
            for kk, vv in a.items():
                # Model quantities agree to rounding; derivatives are checked against
                # MuJoCo finite differences (eps 1e-5), so to truncation error only.
                if vv > (1e-5 if kk.startswith("d_") else 1e-9):
                    failures.append(f"{spec[0]} {k} {kk} {vv:.1e}")
        for k, r in out.get("rollouts", {}).items():
            if k != "q0":
                print(f"    rollout {r['integrator']:5s} dt {r['dt']} x {r['steps']}: q(1 s) moves "
                      f"{r['sensitivity_1e-9']:.1e} when q0 moves 1e-9")
    print(f"total {total / 1024:.1f} KiB in {os.path.relpath(OUT, ROOT)}")
    if failures:
        print("DISAGREEMENT:", ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
