//! Gradients through structure values (structures without arrays): built from
//! literals, returned from funcs, passed to funcs, updated field by field, nested,
//! held in tuples and carried across loop iterations — against central finite
//! differences (f64 kernels, so the check is tight); with a GPU, the CUDA
//! gradients against the CPU's. Before structures carried adjoints, each of these
//! kernels was refused ("gradients through structure values are not supported").

use weft::prelude::*;

use weft_testkit::fd_check::{Run, inputs};

/// [`weft_testkit::fd_check::check`] with this file's weights.
fn check(n: usize, x0: &[f64], run: Run) -> f64 {
    weft_testkit::fd_check::check(n, x0, 7, true, run)
}
/// A frame: a direction and a scale.
#[weft::structure]
pub struct Frame {
    /// Direction.
    pub n: DVec3,
    /// Scale.
    pub s: f64,
}

/// A query-like result: a flag, floats, an index and a nested structure.
#[weft::structure]
pub struct Probe {
    /// Whether the probe found something.
    pub ok: bool,
    /// A distance.
    pub t: f64,
    /// Two weights.
    pub uv: DVec2,
    /// An index (-1 for none).
    pub id: i32,
    /// A nested structure.
    pub frame: Frame,
}

/// Builds a result on both branches: a literal, then field updates.
#[weft::func]
fn probe(x: f64, y: f64) -> Probe {
    let mut out = Probe {
        ok: false,
        t: 0.0,
        uv: DVec2::ZERO,
        id: -1,
        frame: Frame {
            n: DVec3::ZERO,
            s: 0.0,
        },
    };
    if x > 0.0 {
        out = Probe {
            ok: true,
            t: x * y,
            uv: DVec2::new(sin(x), y * y),
            id: 3,
            frame: Frame {
                n: DVec3::new(x, y, 1.0),
                s: 1.5,
            },
        };
    } else {
        out.t = exp(x);
        out.uv = DVec2::new(x * y, 2.0);
        out.frame.s = y;
    }
    out
}

/// Takes a structure and reads its fields (nested ones too).
#[weft::func]
fn weigh(p: Probe, w: f64) -> f64 {
    let mut s = p.t * w + p.uv.x - 2.0 * p.uv.y;
    if p.ok {
        s += dot(p.frame.n, p.frame.n) * p.frame.s;
    } else {
        s += p.frame.s * p.frame.s;
    }
    s
}

#[weft::kernel]
fn through_funcs(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let a = x[i];
    let p = probe(a, a * a + 0.5);
    let mut q = p;
    q.t = q.t * 2.0;
    y[i] = weigh(q, 0.5) + p.uv.y + p.t;
}

#[test]
fn structures_returned_from_and_passed_to_funcs() {
    let n = 40;
    // Both branches of `probe`, away from its kink at 0.
    let x0: Vec<f64> = inputs(n, 11, 0.1, 1.5)
        .into_iter()
        .enumerate()
        .map(|(k, x)| if k % 2 == 0 { x } else { -x })
        .collect();
    let err = check(n, &x0, &|x, y| through_funcs::launch(n, x, y).unwrap());
    assert!(err < 1e-6, "worst relative error {err}");
}

#[weft::kernel]
fn carried_in_loop(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let mut f = Frame {
        n: DVec3::new(x[i], 1.0, 0.5),
        s: x[i],
    };
    for k in 0..4 {
        f = Frame {
            n: f.n * (0.5 + 0.2 * f.s),
            s: sin(f.s) + k as f64 * 0.1,
        };
        if f.s > 0.5 {
            f.n.y = f.n.y * f.s;
        }
    }
    y[i] = f.n.x + f.n.y * f.s + f.n.z;
}

#[test]
fn structures_carried_across_loop_iterations() {
    let n = 32;
    let x0 = inputs(n, 12, -1.5, 1.5);
    let err = check(n, &x0, &|x, y| carried_in_loop::launch(n, x, y).unwrap());
    assert!(err < 1e-6, "worst relative error {err}");
}

/// A structure inside a tuple result.
#[weft::func]
fn framed(x: f64) -> (Frame, f64) {
    (
        Frame {
            n: DVec3::new(x, x * x, -x),
            s: cos(x),
        },
        x * 3.0,
    )
}

#[weft::kernel]
fn in_tuples(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let (f, k) = framed(x[i]);
    y[i] = length(f.n) * f.s + k;
}

#[test]
fn structures_inside_tuples() {
    let n = 24;
    let x0 = inputs(n, 13, -2.0, 2.0);
    let err = check(n, &x0, &|x, y| in_tuples::launch(n, x, y).unwrap());
    assert!(err < 1e-6, "worst relative error {err}");
}

#[test]
fn every_kernel_here_has_ptx() {
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(through_funcs, carried_in_loop, in_tuples),
        &[],
    );
}
