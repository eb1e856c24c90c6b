use weft::prelude::*;

#[weft::kernel(forward_only, crate = ::weft, forward_only)]
fn twice(x: &mut Array<f32>) {
    x[tid()] = 1.0;
}

#[weft::kernel(forward_only = true)]
fn with_value(x: &mut Array<f32>) {
    x[tid()] = 1.0;
}

#[weft::kernel(forward)]
fn misspelt(x: &mut Array<f32>) {
    x[tid()] = 1.0;
}

#[weft::func(forward_only)]
fn f(x: f32) -> f32 {
    x
}

#[weft::structure(forward_only)]
pub struct S {
    pub a: f32,
}

fn main() {}
