use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>) {
    let mut a = 1.0;
    let mut b = 2.0;
    (a, b) = (b, a, 3.0);
    out[tid()] = a + b;
}

fn main() {}
