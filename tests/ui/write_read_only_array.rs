use weft::prelude::*;

#[weft::kernel]
fn k(x: &Array<f32>) {
    x[tid()] = 1.0;
}

fn main() {}
