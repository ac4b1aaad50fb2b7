//! Softmax and matrix products, including float64's edges.
#![cfg(not(target_arch = "wasm32"))]

use attention_viz::math::{softmax_naive, softmax_stable, Matrix};

#[test]
fn stable_softmax_at_1e308_scale() {
    for row in [
        vec![1e308, -1e308],
        vec![1e308, 1e308, 1e308],
        vec![-1e308, -1e308],
        vec![f64::MAX, f64::MIN, 0.0],
        vec![929.0, 397.0, 148.0, 927.0],
        vec![-1e308, 0.0, 1e308],
    ] {
        let w = softmax_stable(&row);
        assert!(w.iter().all(|x| x.is_finite() && *x >= 0.0), "{row:?} -> {w:?}");
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-15, "{row:?} -> {w:?}");
    }
    assert_eq!(softmax_stable(&[1e308, 1e308]), vec![0.5, 0.5]);
    assert_eq!(softmax_stable(&[1e308, -1e308]), vec![1.0, 0.0]);
}

#[test]
fn naive_softmax_overflows_past_709() {
    assert!(softmax_naive(&[709.0, 0.0]).iter().all(|x| x.is_finite()));
    assert!(softmax_naive(&[710.0, 0.0])[0].is_nan());
}

#[test]
fn softmax_of_empty_and_single_rows() {
    assert!(softmax_stable(&[]).is_empty());
    assert_eq!(softmax_stable(&[-5.0]), vec![1.0]);
}

#[test]
fn matmul_and_transpose() {
    let a = Matrix::from_rows(&[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).unwrap();
    let b = Matrix::from_rows(&[[1.0, 0.0, 2.0], [0.0, 1.0, 3.0]]).unwrap();
    assert_eq!(a.matmul(&b).to_rows(), vec![vec![1.0, 2.0, 8.0], vec![3.0, 4.0, 18.0], vec![5.0, 6.0, 28.0]]);
    // A·Aᵀ and Aᵀ worked out by hand: matmul_transposed is its own kernel, not matmul of a transpose.
    let a_at = vec![vec![5.0, 11.0, 17.0], vec![11.0, 25.0, 39.0], vec![17.0, 39.0, 61.0]];
    assert_eq!(a.matmul_transposed(&a).to_rows(), a_at);
    assert_eq!(a.transpose().to_rows(), vec![vec![1.0, 3.0, 5.0], vec![2.0, 4.0, 6.0]]);
    assert!(Matrix::from_rows(&[vec![1.0], vec![1.0, 2.0]]).is_none());
}

/// The core's own exp (one polynomial for the scalar and SIMD kernels) and its exact reciprocals of powers of two.
mod kernels {
    use attention_viz::math::kernels::{exact_reciprocal, exp};

    #[test]
    fn exp_is_within_an_ulp_or_two_of_libm() {
        let mut worst = 0u64;
        for i in 0..200_000 {
            let x = -745.0 + 1454.0 * (i as f64) / 200_000.0;
            let (ours, libm) = (exp(x), x.exp());
            worst = worst.max(ours.to_bits().abs_diff(libm.to_bits()));
        }
        assert!(worst <= 2, "worst {worst} ulp");
    }

    /// Against libm (glibc's exp natively, correctly rounded in practice) over the whole range where e^x is neither 0 nor
    /// ∞, subnormal results included, and densely where softmax's exponents live (x − max ≤ 0): at most 1 ulp apart.
    #[test]
    fn exp_is_within_one_ulp_of_libm_over_its_whole_range() {
        let (mut worst, mut at, mut off) = (0u64, 0.0, 0u64);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..2_000_000u64 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            let x = match i % 3 {
                0 => -745.1 + 1454.8 * u,
                1 => -40.0 * u,
                _ => -745.1 + 37.0 * u, // subnormal results
            };
            let d = exp(x).to_bits().abs_diff(x.exp().to_bits());
            off += u64::from(d > 0);
            if d > worst {
                (worst, at) = (d, x);
            }
        }
        assert!(worst <= 1, "worst {worst} ulp at {at:e}");
        // Not always correctly rounded: about one in ten is 1 ulp off.
        assert!(off < 400_000, "{off} of 2,000,000 off by an ulp");
    }

    #[test]
    fn exact_reciprocal_multiplies_as_the_division_divides() {
        let xs = [1.0, -3.7, 1e308, -1e-310, 5e-324, 2.2250738585072014e-308, 0.1, f64::INFINITY, -0.0, 123456.789];
        for k in [-1022, -60, -3, -1, 0, 1, 3, 8, 60, 1023] {
            let d = 2f64.powi(k);
            let r = exact_reciprocal(d).expect("a power of two");
            for x in xs {
                assert_eq!((x * r).to_bits(), (x / d).to_bits(), "{x} / 2^{k}");
            }
        }
        for d in [3.0, 8.000000000000002, 0.0, -8.0, f64::INFINITY, f64::NAN, 5e-324] {
            assert_eq!(exact_reciprocal(d), None, "{d}");
        }
    }

    #[test]
    fn exp_edges() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-800.0), 0.0);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(710.0), f64::INFINITY);
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(1e300), f64::INFINITY);
        assert!(exp(709.7).to_bits().abs_diff(709.7f64.exp().to_bits()) <= 2);
        assert!(exp(f64::NAN).is_nan());
        assert!(exp(-740.0) > 0.0 && exp(-740.0) < 1e-320, "subnormal results");
    }
}
