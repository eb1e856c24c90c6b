//! Optimizes the initial velocity of a bouncing ball so that it ends at a target,
//! by gradient descent through 288 simulation steps with ground and wall contacts.
//! The model for Weft's optimization scripts: gradcheck first, progress while it
//! runs, the loss curve at the end, and a plot.
//!
//! Run: `cargo run --release --example bounce` (writes `out/bounce_loss.png`).

use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;
use weft::prelude::*;

const STEPS: usize = 36 * 8; // 36 frames × 8 substeps
const DT: f32 = 1.0 / 480.0;

/// Penalty contact forces against the ground (z = 0) and a wall (x = 2), with
/// damping proportional to the depth (Hunt–Crossley). Hard contact makes the loss
/// only piecewise smooth — plain gradient descent then stalls at about 1 % of the
/// initial loss, crossing its creases back and forth — so the depths are softened.
#[weft::kernel]
fn contact_forces(x: &Array<Vec3>, v: &Array<Vec3>, f: &mut Array<Vec3>, ke: f32, kd: f32) {
    let i = tid();
    let p = x[i];
    let u = v[i];
    // Softplus penetration depths (sharpness 100/m): smooth everywhere, so the
    // loss has no creases where contact starts.
    let depth = log(1.0 + exp(-100.0 * p.z)) / 100.0;
    let wall = log(1.0 + exp(100.0 * (p.x - 2.0))) / 100.0;
    let mut force = Vec3::Z * (depth * (ke - kd * u.z));
    force += Vec3::NEG_X * (wall * (ke + kd * u.x));
    f[i] = force;
}

/// Semi-implicit Euler with gravity (unit mass).
#[weft::kernel]
fn integrate(
    x: &Array<Vec3>,
    v: &Array<Vec3>,
    f: &Array<Vec3>,
    x_new: &mut Array<Vec3>,
    v_new: &mut Array<Vec3>,
    dt: f32,
) {
    let i = tid();
    let vel = v[i] + (f[i] + Vec3::new(0.0, 0.0, -9.81)) * dt;
    v_new[i] = vel;
    x_new[i] = x[i] + vel * dt;
}

/// Squared distance to the target.
#[weft::kernel]
fn distance_loss(x: &Array<Vec3>, target: Vec3, loss: &mut Array<f32>) {
    let i = tid();
    let d = x[i] - target;
    atomic_add(&mut loss[0], dot(d, d));
}

/// Runs the simulation from `x0` with velocity `v0` and writes the loss. Every step
/// writes new arrays, so the tape can replay any of them.
fn simulate(
    x0: &Array<Vec3>,
    v0: &Array<Vec3>,
    target: Vec3,
    loss: &mut Array<f32>,
) -> Result<Vec3, weft::Error> {
    let dev = Device::Cpu;
    let mut x = x0.clone();
    let mut v = v0.tape_handle();
    let mut first = true;
    for _ in 0..STEPS {
        let mut f = Array::zeros(dev, [1]);
        let mut x_new = Array::zeros(dev, [1]);
        let mut v_new = Array::zeros(dev, [1]);
        let xs = if first { x0 } else { &x };
        contact_forces::launch(1, xs, &v, &mut f, 2.0e4, 500.0)?;
        integrate::launch(1, xs, &v, &f, &mut x_new, &mut v_new, DT)?;
        x = x_new;
        v = v_new;
        first = false;
    }
    loss.fill(0.0);
    distance_loss::launch(1, &x, target, loss)?;
    Ok(x.to_vec()[0])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dev = Device::Cpu;
    let x0 = Array::from_slice(dev, &[Vec3::new(-0.5, 0.0, 1.0)]);
    // A target the ball can reach: where a throw at (11, 0, -3) m/s ends after it
    // bounces off the ground and the wall.
    let target = {
        let mut loss = Array::zeros(dev, [1]);
        let throw = Array::from_slice(dev, &[Vec3::new(11.0, 0.0, -3.0)]);
        simulate(&x0, &throw, Vec3::ZERO, &mut loss)?
    };
    // (5, 0, -5) would reach the wall exactly at a step boundary, a kink of the
    // discretized trajectory; start nearby instead.
    let mut v0 = Array::from_slice(dev, &[Vec3::new(4.7, 0.0, -5.3)]).requires_grad();

    // Check the gradient once before trusting it.
    let report = gradcheck(&mut [&mut v0], Some(1e-4), |v, loss| {
        simulate(&x0, v[0], target, loss).map(|_| ())
    })?;
    println!("{report}");

    let iterations = 200;
    let lr = 0.1;
    let bar = ProgressBar::new(iterations);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} loss {msg}",
    )?);
    let mut losses = Vec::new();
    for _ in 0..iterations {
        let mut loss = Array::zeros(dev, [1]).requires_grad();
        v0.zero_grad();
        let mut tape = Tape::new();
        tape.record(|| simulate(&x0, &v0, target, &mut loss))?;
        tape.backward(&mut loss)?;
        let l = loss.to_vec()[0];
        losses.push(l);
        let g = v0.grad_to_vec().unwrap()[0];
        let v = v0.to_vec()[0] - g * lr;
        v0.copy_from_slice(&[v])?;
        bar.set_message(format!("{l:.6}"));
        bar.inc(1);
    }
    bar.finish();

    let mut loss = Array::zeros(dev, [1]);
    let end = simulate(&x0, &v0, target, &mut loss)?;
    let final_loss = loss.to_vec()[0];
    println!("loss curve (every 20 iterations):");
    for (k, l) in losses.iter().enumerate().step_by(20) {
        println!("  {k:4}  {l:.6}");
    }
    println!(
        "initial velocity {:?} -> ends at {end:?} (target {target:?})",
        v0.to_vec()[0]
    );
    println!(
        "loss {:.6} -> {final_loss:.6} ({:.2e} of the initial)",
        losses[0],
        final_loss / losses[0]
    );

    std::fs::create_dir_all("out")?;
    plot(&losses, "out/bounce_loss.png")?;
    println!("wrote out/bounce_loss.png");
    Ok(())
}

/// The loss per iteration, log scale (no text: plotters is built without fonts).
fn plot(losses: &[f32], path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (640, 400)).into_drawing_area();
    root.fill(&WHITE)?;
    let lo = losses
        .iter()
        .cloned()
        .fold(f32::INFINITY, f32::min)
        .max(1e-9)
        .log10();
    let hi = losses.iter().cloned().fold(0.0, f32::max).max(1e-9).log10();
    let mut chart = ChartBuilder::on(&root)
        .margin(20)
        .build_cartesian_2d(0f32..losses.len() as f32, lo - 0.1..hi + 0.1)?;
    chart.configure_mesh().x_labels(0).y_labels(0).draw()?;
    chart.draw_series(LineSeries::new(
        losses
            .iter()
            .enumerate()
            .map(|(i, l)| (i as f32, l.max(1e-9).log10())),
        BLUE.stroke_width(2),
    ))?;
    root.present()?;
    Ok(())
}
