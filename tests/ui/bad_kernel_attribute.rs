use weft::prelude::*;

#[weft::kernel(crate = ::weft, crate = ::weft)]
fn twice(x: &mut Array<f32>) {
    x[tid()] = 1.0;
}

#[weft::structure(runtime = ::weft)]
pub struct Wrong {
    pub a: f32,
}

fn main() {}
