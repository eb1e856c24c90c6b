use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>, a: f32, n: i32) {
    out[tid()] = a + n;
}

fn main() {}
