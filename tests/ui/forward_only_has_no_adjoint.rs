use weft::prelude::*;

#[weft::kernel(forward_only)]
fn step(x: &mut Array<f32>) {
    x[tid()] = x[tid()] + 1.0;
}

fn main() {
    // No adjoint launch is generated for a `forward_only` kernel.
    let x = Array::<f32>::zeros(Device::Cpu, [1]);
    let _ = step::__adjoint(Device::Cpu, 1, &x);
}
