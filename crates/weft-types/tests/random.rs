//! Random builtins: state threading and distribution sanity.

use weft_types::builtins::*;

#[test]
fn state_advances_and_is_deterministic() {
    let mut a = rand_init(42, 7);
    let mut b = rand_init(42, 7);
    let s0 = a;
    let x = randi(&mut a);
    assert_ne!(a, s0, "randi advances the state");
    assert_eq!(x, randi(&mut b));
    assert_eq!(randf(&mut a), randf(&mut b));
    assert_eq!(randn(&mut a), randn(&mut b));
    assert_eq!(
        randf_range(&mut a, -2.0, 3.0),
        randf_range(&mut b, -2.0, 3.0)
    );
    assert_eq!(a, b);
    assert_ne!(
        rand_init(42, 7),
        rand_init(42, 8),
        "offsets give different streams"
    );
    assert_ne!(
        rand_init(42, 7),
        rand_init(43, 7),
        "seeds give different streams"
    );
}

#[test]
fn distributions() {
    const N: usize = 20_000;
    let mut s = rand_init(1, 0);
    let (mut sum, mut sum_sq, mut nsum, mut nsum_sq) = (0f64, 0f64, 0f64, 0f64);
    for _ in 0..N {
        let u = randf(&mut s);
        assert!((0.0..1.0).contains(&u), "randf in [0, 1): {u}");
        sum += u as f64;
        sum_sq += (u as f64).powi(2);
        let r = randf_range(&mut s, -3.0, 5.0);
        assert!((-3.0..=5.0).contains(&r), "randf_range in [lo, hi]: {r}");
        let n = randn(&mut s) as f64;
        assert!(n.is_finite());
        nsum += n;
        nsum_sq += n * n;
    }
    let n = N as f64;
    let (mean, var) = (sum / n, sum_sq / n - (sum / n).powi(2));
    assert!((mean - 0.5).abs() < 0.01, "uniform mean {mean}");
    assert!((var - 1.0 / 12.0).abs() < 0.005, "uniform variance {var}");
    let (nmean, nvar) = (nsum / n, nsum_sq / n - (nsum / n).powi(2));
    assert!(nmean.abs() < 0.03, "normal mean {nmean}");
    assert!((nvar - 1.0).abs() < 0.05, "normal variance {nvar}");
}
