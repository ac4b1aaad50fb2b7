//! The correctly rounded `ln` (used by randn in the browser) against the C library's log.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::math::log::ln;
use attention_viz::random::RandomState;

#[test]
fn agrees_with_glibc_log_but_for_its_near_halfway_roundings() {
    // Native f64::ln is glibc's log here (within 0.52 ulp, so not always correctly rounded).
    let mut rng = RandomState::new(7);
    let (mut differ, total) = (0, 400_000);
    for i in 0..total {
        let x = match i % 4 {
            0 => rng.next_double(), // randn's r2 lives in (0, 1)
            1 => rng.next_double() * rng.next_double(),
            2 => f64::from_bits(rng.next_u64() >> 1), // any positive double
            _ => 1.0 + (rng.next_double() - 0.5) * 1e-6,
        };
        if x > 0.0 && x.is_finite() && ln(x) != x.ln() {
            differ += 1;
            let ulps = (ln(x).to_bits() as i64 - x.ln().to_bits() as i64).abs();
            assert_eq!(ulps, 1, "ln({x:e}) = {:e}, glibc {:e}", ln(x), x.ln());
        }
    }
    assert!(differ * 1000 < total, "{differ} of {total} differ");
    for x in [1.0, 2.0, 0.5, f64::MIN_POSITIVE, 5e-324, f64::MAX, std::f64::consts::E, 1.0 + f64::EPSILON] {
        assert_eq!(ln(x), x.ln(), "ln({x:e})");
    }
    assert!(ln(0.0) == f64::NEG_INFINITY && ln(-1.0).is_nan() && ln(f64::NAN).is_nan());
}

#[test]
fn correctly_rounded_where_glibc_is_not() {
    // ln(0.12870319565151547) = -2.05024633445121584598…: the nearer double is …156, glibc gives …16.
    assert_eq!(ln(0.12870319565151547), -2.0502463344512156);
}
