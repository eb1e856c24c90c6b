use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>, n: i32) {
    if n {
        out[tid()] = 1.0;
    }
}

fn main() {}
