use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>, s: f32) {
    out[tid()] = s[0];
}

fn main() {}
