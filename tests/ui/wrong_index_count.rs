use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32, 2>) {
    let i = tid();
    out[i] = 1.0;
}

fn main() {}
