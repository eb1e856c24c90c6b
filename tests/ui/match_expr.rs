use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>, n: i32) {
    let v = match n {
        0 => 1.0,
        _ => 2.0,
    };
    out[tid()] = v;
}

fn main() {}
