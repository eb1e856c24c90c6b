use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<f32>, s: f32) {
    out[tid()] = s;
}

fn main() {
    let out = Array::<f32>::zeros(Device::Cpu, [4]);
    k::launch(4, &out, 1.0).unwrap();
}
