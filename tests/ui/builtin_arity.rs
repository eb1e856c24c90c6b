use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>, a: f32) {
    out[tid()] = atan2(a);
}

fn main() {}
