use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>) {
    let x = 1.0;
    x = 2.0;
    out[tid()] = x;
}

fn main() {}
