use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<Vec2>, a: Vec2) {
    out[tid()] = cross(a, a);
}

fn main() {}
