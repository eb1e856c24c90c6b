use weft::prelude::*;

fn helper(x: f32) -> f32 {
    x * 2.0
}

#[weft::kernel]
fn k(out: &mut Array<f32>) {
    out[tid()] = helper(1.0);
}

fn main() {}
