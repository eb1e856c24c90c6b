use weft::prelude::*;

#[weft::kernel]
fn integrate(x: &mut Array<Vec3>, v: &Array<Vec3>, dt: f32) {
    let i = tid();
    x[i] = x[i] + v[i] * dt;
}

#[test]
fn integrate_runs() {
    let n = 10_000;
    let mut x = Array::from_vec(Device::Cpu, vec![Vec3::ZERO; n]);
    let v = Array::from_vec(Device::Cpu, (0..n).map(|i| Vec3::new(i as f32, 1.0, 2.0)).collect());
    integrate::launch(n, &mut x, &v, 0.5).unwrap();
    let out = x.to_vec();
    assert_eq!(out[7], Vec3::new(3.5, 0.5, 1.0));
}
