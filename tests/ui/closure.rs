use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>) {
    let f = |x: f32| x * 2.0;
    out[tid()] = 0.0;
}

fn main() {}
