use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>) {
    let x: f32 = 1;
    out[tid()] = x;
}

fn main() {}
