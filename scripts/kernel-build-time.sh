#!/usr/bin/env bash
# Measures what kernels cost at build time: builds a scratch crate with 20 kernels
# (and 5 funcs, 1 structure) and the same crate without them, in debug and release,
# after the dependencies are built, and prints the wall time of each (crate only).
# Usage: scripts/kernel-build-time.sh   (from the repository root)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/target/build-time"
mkdir -p "$dir/src"
cat > "$dir/Cargo.toml" <<TOML
[package]
name = "weft-build-time"
version = "0.0.0"
edition = "2024"
publish = false
[dependencies]
weft = { path = "$root/crates/weft" }
[workspace]
TOML

gen_kernels() {
  echo 'use weft::prelude::*;'
  echo '#[weft::structure] pub struct Body { pub x: Vec3, pub v: Vec3, pub m: f32 }'
  for f in 0 1 2 3 4; do
    cat <<RS
#[weft::func]
pub fn f$f(a: Vec3, b: Vec3, k: f32) -> Vec3 {
    let d = b - a;
    let l = length(d);
    if l < 1e-6 { return Vec3::ZERO; }
    d * (k * (l - 1.0) / l) + cross(a, b) * sin(k * $f.0)
}
RS
  done
  for k in $(seq 0 19); do
    cat <<RS
#[weft::kernel]
pub fn k$k(x: &mut Array<Vec3>, v: &mut Array<Vec3>, b: &Array<Body>, out: &mut Array<f32>, dt: f32) {
    let i = tid();
    let n = x.len();
    let mut f = Vec3::new(0.0, 0.0, -9.81);
    for j in 0..4 {
        let o = (i + j + 1) % n;
        f += f$((k % 5))(x[i], x[o], 10.0 + $k.0);
    }
    let mut vel = v[i] + f * dt;
    let mut pos = x[i] + vel * dt;
    if pos.z < 0.0 { pos.z = 0.0; vel.z = -0.5 * vel.z; }
    let q = quat_from_axis_angle(Vec3::Z, dt * $k.0);
    x[i] = quat_rotate(q, pos) + b[i % b.len()].x;
    v[i] = vel;
    atomic_add(&mut out[0], dot(vel, vel) * b[0].m);
}
RS
  done
  # Instantiate every launch (they are generic over the grid type), so the
  # measurement includes code generation, as in a real program.
  echo 'pub fn run_all(x: &mut Array<Vec3>, v: &mut Array<Vec3>, b: &Array<Body>, out: &mut Array<f32>) -> Result<(), weft::Error> {'
  for k in $(seq 0 19); do echo "    k$k::launch(x.len(), x, v, b, out, 0.01)?;"; done
  echo '    Ok(())'
  echo '}'
}

measure() { # profile flag label
  local flag="$1" label="$2"
  (cd "$dir" && cargo build -q $flag >/dev/null 2>&1)   # dependencies and a first build
  touch "$dir/src/lib.rs"
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$dir" && cargo build -q $flag)
  t1=$(date +%s.%N)
  printf '%-28s %6.2f s\n' "$label" "$(echo "$t1 - $t0" | bc)"
}

echo 'pub fn nothing() {}' > "$dir/src/lib.rs"
measure "" "debug, no kernels"
measure "--release" "release, no kernels"
gen_kernels > "$dir/src/lib.rs"
measure "" "debug, 20 kernels"
measure "--release" "release, 20 kernels"
