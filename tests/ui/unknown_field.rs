use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>, v: Vec3) {
    out[tid()] = v.w;
}

fn main() {}
