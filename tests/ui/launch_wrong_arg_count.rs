use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>, s: f32) {
    out[tid()] = s;
}

fn main() {
    let mut out = Array::zeros(Device::Cpu, [4]);
    k::launch(4, &mut out).unwrap();
}
