use weft::prelude::*;

#[weft::func]
fn first(s: i32) -> i32 {
    s
}

#[weft::kernel]
fn k(out: &mut Array<i32>) {
    let mut s = [0; 4];
    s[1] = 2;
    out[tid()] = first(s);
}

fn main() {}
