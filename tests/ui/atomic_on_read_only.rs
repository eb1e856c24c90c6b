use weft::prelude::*;

#[weft::kernel]
fn k(c: &Array<i32>) {
    atomic_add(&mut c[0], 1);
}

fn main() {}
