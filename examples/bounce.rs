//! Optimizes the initial velocity of a bouncing ball so that it ends at a target,
//! by gradient descent through 288 simulation steps with ground and wall contacts.
//! The model for Weft's optimization scripts: gradcheck first, progress while it
//! runs, the loss curve at the end, and a plot.
//!
//! Run: `cargo run --release --example bounce` (writes `out/bounce_loss.png`).

use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;
use weft::prelude::*;
use weft_testkit::bounce::Rollout;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dev = Device::Cpu;
    let x0 = [Vec3::new(-0.5, 0.0, 1.0)];
    // A target the ball can reach: where a throw at (11, 0, -3) m/s ends after it
    // bounces off the ground and the wall.
    let target = {
        let mut probe = Rollout::new(dev, &x0, Vec3::ZERO);
        let throw = Array::from_slice(dev, &[Vec3::new(11.0, 0.0, -3.0)]);
        probe.run(&throw, &mut Array::zeros(dev, [1]))?;
        probe.final_positions()[0]
    };
    let mut rollout = Rollout::new(dev, &x0, target);
    // (5, 0, -5) would reach the wall exactly at a step boundary, a kink of the
    // discretized trajectory; start nearby instead.
    let mut v0 = Array::from_slice(dev, &[Vec3::new(4.7, 0.0, -5.3)]).requires_grad();

    // Check the gradient once before trusting it.
    let report = gradcheck(&mut [&mut v0], Some(1e-4), |v, loss| {
        rollout.run(v[0], loss)
    })?;
    println!("{report}");

    let iterations = 200;
    let lr = 0.1;
    let bar = ProgressBar::new(iterations);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} loss {msg}",
    )?);
    let mut losses = Vec::new();
    let mut loss = Array::zeros(dev, [1]).requires_grad();
    let mut tape = Tape::new();
    for _ in 0..iterations {
        rollout.gradient(&mut tape, &v0, &mut loss)?;
        let l = loss.to_vec()[0];
        losses.push(l);
        let g = v0.grad_to_vec().expect("v0 requires grad")[0];
        let v = v0.to_vec()[0] - g * lr;
        v0.copy_from_slice(&[v])?;
        bar.set_message(format!("{l:.6}"));
        bar.inc(1);
    }
    bar.finish();

    rollout.run(&v0, &mut loss)?;
    let (end, final_loss) = (rollout.final_positions()[0], loss.to_vec()[0]);
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
