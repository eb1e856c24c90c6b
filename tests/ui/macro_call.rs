use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>) {
    println!("hello");
    out[tid()] = 0.0;
}

fn main() {}
