use weft::prelude::*;

#[weft::kernel]
fn k(n: i32, out: &mut Array<i32>) {
    let s = [0; n];
    out[tid()] = s[0];
}

fn main() {}
