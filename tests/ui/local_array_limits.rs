use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>) {
    let s = [0.0; 2000];
    out[tid()] = s[0];
}

#[weft::kernel]
fn j(out: &mut Array<f32>) {
    let s = [0.0; 3];
    s[1] = 1.0;
    out[tid()] = s[1];
}

fn main() {}
