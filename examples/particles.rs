//! Weft's first demo: a million particles fall under gravity and bounce on the
//! ground, integrated by a kernel written in Rust and compiled by `#[weft::kernel]`.
//!
//! Run: `cargo run --release --example particles`

use std::time::Instant;

use weft::prelude::*;

/// Semi-implicit Euler with a bouncy ground plane at z = 0.
#[weft::kernel]
fn integrate(x: &mut Array<Vec3>, v: &mut Array<Vec3>, gravity: Vec3, restitution: f32, dt: f32) {
    let i = tid();
    let mut vel = v[i] + gravity * dt;
    let mut pos = x[i] + vel * dt;
    if pos.z < 0.0 {
        pos.z = -pos.z * restitution;
        vel.z = -vel.z * restitution;
    }
    x[i] = pos;
    v[i] = vel;
}

/// Seeds positions in a 1 m cube above the ground and random velocities.
#[weft::kernel]
fn seed(x: &mut Array<Vec3>, v: &mut Array<Vec3>, seed: u32) {
    let i = tid();
    let mut rng = rand_init(seed, i as u32);
    x[i] = Vec3::new(randf(&mut rng), randf(&mut rng), 1.0 + randf(&mut rng));
    v[i] = Vec3::new(randn(&mut rng), randn(&mut rng), randn(&mut rng)) * 0.5;
}

/// Per-particle energy (unit mass), summed with an atomic add.
#[weft::kernel]
fn energy(x: &Array<Vec3>, v: &Array<Vec3>, g: f32, total: &mut Array<f64>) {
    let i = tid();
    let e = 0.5 * v[i].length_squared() + g * x[i].z;
    atomic_add(&mut total[0], e as f64);
}

fn main() -> Result<(), weft::Error> {
    let n = 1 << 20;
    let device = Device::best();
    println!("weft particles demo: {n} particles on {device}");

    let mut x = Array::zeros(device, [n]);
    let mut v = Array::zeros(device, [n]);
    seed::launch(n, &mut x, &mut v, 42)?;

    let g = 9.81;
    let e = |x: &Array<Vec3>, v: &Array<Vec3>| -> Result<f64, weft::Error> {
        let mut total = Array::zeros(device, [1]);
        energy::launch(n, x, v, g, &mut total)?;
        Ok(total.to_vec()[0] / n as f64)
    };
    let e0 = e(&x, &v)?;

    let (steps, dt) = (600, 1.0 / 600.0);
    let t0 = Instant::now();
    for _ in 0..steps {
        integrate::launch(n, &mut x, &mut v, Vec3::new(0.0, 0.0, -g), 0.8, dt)?;
    }
    let secs = t0.elapsed().as_secs_f64();

    let pos = x.to_vec();
    let on_ground = pos.iter().filter(|p| p.z < 0.01).count();
    let mean_z = pos.iter().map(|p| p.z as f64).sum::<f64>() / n as f64;
    println!(
        "simulated {steps} steps of {dt:.5} s in {secs:.3} s ({:.1} M particle-steps/s)",
        (n * steps) as f64 / secs / 1e6
    );
    println!("mean height {mean_z:.3} m, {on_ground} particles within 1 cm of the ground");
    println!(
        "energy per particle: {e0:.4} J -> {:.4} J (the bounces dissipate it)",
        e(&x, &v)?
    );
    Ok(())
}
