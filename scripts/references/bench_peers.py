#!/usr/bin/env python3
"""Peer rates for benches/articulation.rs (issue 26 point 9): MuJoCo and Pinocchio on
the same robot files, on this machine.

    python3 -m venv /tmp/refenv && /tmp/refenv/bin/pip install -r scripts/references/requirements.txt
    /tmp/refenv/bin/python scripts/references/bench_peers.py [--quick]

- MuJoCo (`mujoco.rollout`, its C loop on `len(data)` threads): assets/robots/ant.xml
  and humanoid.xml as the files are (time step, contacts, solver: the file's or
  MuJoCo's defaults), 64 worlds, zero controls. Each world is first rolled out
  for 4 s from the file's pose (the humanoid falls over and lies on the floor,
  the ant stands: the same settling as the Weft bench); then `nstep` steps of
  all 64 from those states are timed (best of `repeats`), at 1 and 2 threads.
  steps/s = 64 x nstep / s. Each robot also at the smaller time step the Weft
  bench uses for it (ant 4 ms, humanoid 2 ms: Weft's explicit penalty contacts
  are unstable at the files' steps).
- Pinocchio: the humanoid from the same MJCF (`buildModelFromMJCF`), per call
  from Python: aba, crba, rnea, computeABADerivatives at a random state (hinges
  +-0.3 rad from the neutral pose, v in +-1, tau in +-5), best of `repeats`
  loops of `calls` calls; and 64 of each in a Python loop on one thread.

Prints a table; writes nothing.
"""

import argparse
import os
import time

import mujoco
import mujoco.rollout as rollout
import numpy as np
import pinocchio as pin

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORLDS = 64
SETTLE_S = 4.0
# The second time steps, as in benches/articulation.rs (ANT_DT, HUMANOID_DT):
# Weft's explicit penalty contacts are unstable at the files' 10 ms and 5 ms.
ANT_DT = 0.004
HUMANOID_DT = 0.002


def robot_path(name):
    return os.path.join(ROOT, "assets", "robots", f"{name}.xml")


def mujoco_rates(name, dt, threads, nstep, repeats):
    """Steps/s of 64 worlds of `name` (time step `dt`, or the file's if None) on each
    thread count, and the settled contacts."""
    m = mujoco.MjModel.from_xml_path(robot_path(name))
    if dt is not None:
        m.opt.timestep = dt
    d = mujoco.MjData(m)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    nstate = mujoco.mj_stateSize(m, spec)
    mujoco.mj_resetData(m, d)
    s0 = np.zeros(nstate)
    mujoco.mj_getState(m, d, s0, spec)
    init = np.tile(s0, (WORLDS, 1))
    settle = int(round(SETTLE_S / m.opt.timestep))
    datas = [mujoco.MjData(m) for _ in range(max(threads))]
    settled, _ = rollout.rollout(m, datas[:1], init, nstep=settle)
    start = np.ascontiguousarray(settled[:, -1, :])
    # Contacts and heights at the settled states.
    ncon, z = [], []
    for w in range(WORLDS):
        mujoco.mj_setState(m, d, start[w], spec)
        mujoco.mj_forward(m, d)
        ncon.append(d.ncon)
        z.append(d.xpos[1, 2])
    out = {
        "timestep": m.opt.timestep,
        "nv": m.nv,
        "contacts": float(np.mean(ncon)),
        "torso_z": (float(np.min(z)), float(np.max(z))),
        "rates": {},
    }
    state = np.zeros((WORLDS, nstep, nstate))
    for n in threads:
        with rollout.Rollout(nthread=n) as r:
            r.rollout(m, datas[:n], start, nstep=nstep, state=state)  # warm-up
            best = float("inf")
            for _ in range(repeats):
                t0 = time.perf_counter()
                r.rollout(m, datas[:n], start, nstep=nstep, state=state)
                best = min(best, time.perf_counter() - t0)
        out["rates"][n] = WORLDS * nstep / best
    assert np.isfinite(state).all()
    return out


def per_call(f, calls, repeats):
    """Best µs per call of f() over `repeats` loops of `calls` calls."""
    f()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        best = min(best, time.perf_counter() - t0)
    return best / calls * 1e6


def pinocchio_rates(calls, repeats):
    model = pin.buildModelFromMJCF(robot_path("humanoid"))
    data = model.createData()
    rng = np.random.default_rng(7)
    q = pin.neutral(model)
    q[2] = 1.35
    q[7:] += rng.uniform(-0.3, 0.3, model.nq - 7)
    v = rng.uniform(-1, 1, model.nv)
    tau = rng.uniform(-5, 5, model.nv)
    a = pin.aba(model, data, q, v, tau).copy()
    fns = {
        "ABA": lambda: pin.aba(model, data, q, v, tau),
        "CRBA": lambda: pin.crba(model, data, q),
        "RNEA": lambda: pin.rnea(model, data, q, v, a),
        "ABA derivatives": lambda: pin.computeABADerivatives(model, data, q, v, tau),
    }
    one = {k: per_call(f, calls, repeats) for k, f in fns.items()}

    # 64 humanoids, one after another on one thread (states differ per copy).
    qs = [q.copy() for _ in range(WORLDS)]
    for x in qs:
        x[7:] += rng.uniform(-0.05, 0.05, model.nq - 7)

    def batch(f):
        def run():
            for x in qs:
                f(x)
        return run

    batched = {
        "ABA": batch(lambda x: pin.aba(model, data, x, v, tau)),
        "CRBA": batch(lambda x: pin.crba(model, data, x)),
        "RNEA": batch(lambda x: pin.rnea(model, data, x, v, a)),
        "ABA derivatives": batch(lambda x: pin.computeABADerivatives(model, data, x, v, tau)),
    }
    b64 = {k: per_call(f, max(1, calls // WORLDS), repeats) for k, f in batched.items()}
    return model, one, b64


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    args = ap.parse_args()
    repeats = 3 if args.quick else 7
    print(f"MuJoCo {mujoco.__version__}, Pinocchio {pin.__version__}, numpy {np.__version__}; "
          f"load average {os.getloadavg()[0]:.2f}")

    print(f"\nMuJoCo rollout, {WORLDS} worlds, zero controls, after {SETTLE_S} s of settling")
    print("| model | dt (s) | nv | contacts/world | torso z (m) | 1 thread (steps/s) | 2 threads (steps/s) | 2 / 1 |")
    print("|---|---|---|---|---|---|---|---|")
    runs = (("ant", None), ("ant", ANT_DT), ("humanoid", None), ("humanoid", HUMANOID_DT))
    for name, dt in runs:
        nstep = 500
        r = mujoco_rates(name, dt, [1, 2], nstep, repeats)
        r1, r2 = r["rates"][1], r["rates"][2]
        print(f"| {name} | {r['timestep']} | {r['nv']} | {r['contacts']:.1f} | "
              f"{r['torso_z'][0]:.3f}–{r['torso_z'][1]:.3f} | {r1:,.0f} | {r2:,.0f} | {r2 / r1:.2f} |")

    model, one, b64 = pinocchio_rates(20000, repeats)
    print(f"\nPinocchio, humanoid from MJCF (nq {model.nq}, nv {model.nv}, {model.njoints - 1} joints), "
          "from Python, one thread")
    print("| call | µs per call | 64 in a Python loop (µs) | per humanoid in the loop (µs) |")
    print("|---|---|---|---|")
    for k in one:
        print(f"| {k} | {one[k]:.2f} | {b64[k]:.1f} | {b64[k] / WORLDS:.2f} |")


if __name__ == "__main__":
    main()
