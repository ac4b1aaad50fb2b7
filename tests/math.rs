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
    assert_eq!(a.matmul_transposed(&a), a.matmul(&a.transpose()));
    assert_eq!(a.transpose().shape(), (2, 3));
    assert!(Matrix::from_rows(&[vec![1.0], vec![1.0, 2.0]]).is_none());
}
