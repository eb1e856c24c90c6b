use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>) {
    let i = tid();
    out[i] = speed * 2.0;
}

fn main() {}
