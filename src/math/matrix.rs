//! A row-major `rows × cols` matrix of f64.
//!
//! Row-major storage matches NumPy's C order, so a row is a contiguous slice
//! and matrix products walk memory in the same order NumPy's loops do.

use super::kernels::{all_finite, matmul_into, matmul_transposed_into};

#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Matrix {
    pub fn zeros(rows: usize, cols: usize) -> Matrix {
        Matrix { rows, cols, data: vec![0.0; rows * cols] }
    }

    /// Builds a matrix from row-major data; `None` when the length does not match.
    pub fn from_vec(rows: usize, cols: usize, data: Vec<f64>) -> Option<Matrix> {
        (rows.checked_mul(cols) == Some(data.len())).then_some(Matrix { rows, cols, data })
    }

    /// Builds a matrix from rows of equal length; `None` when they differ.
    pub fn from_rows<R: AsRef<[f64]>>(rows: &[R]) -> Option<Matrix> {
        let cols = rows.first().map_or(0, |r| r.as_ref().len());
        if rows.iter().any(|r| r.as_ref().len() != cols) {
            return None;
        }
        let data = rows.iter().flat_map(|r| r.as_ref().iter().copied()).collect();
        Some(Matrix { rows: rows.len(), cols, data })
    }

    /// A 1 × n matrix holding one vector.
    pub fn row_vector(values: &[f64]) -> Matrix {
        Matrix { rows: 1, cols: values.len(), data: values.to_vec() }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    pub fn data(&self) -> &[f64] {
        &self.data
    }

    pub fn into_data(self) -> Vec<f64> {
        self.data
    }

    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        &mut self.data[i * self.cols..(i + 1) * self.cols]
    }

    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.cols + j]
    }

    pub fn set(&mut self, i: usize, j: usize, value: f64) {
        self.data[i * self.cols + j] = value;
    }

    /// Overwrites this matrix with `other`, which has the same shape.
    pub fn copy_from(&mut self, other: &Matrix) {
        assert_eq!(self.shape(), other.shape(), "copy_from: shapes differ");
        self.data.copy_from_slice(&other.data);
    }

    pub fn to_rows(&self) -> Vec<Vec<f64>> {
        (0..self.rows).map(|i| self.row(i).to_vec()).collect()
    }

    pub fn transpose(&self) -> Matrix {
        let mut out = Matrix::zeros(self.cols, self.rows);
        for i in 0..self.rows {
            for j in 0..self.cols {
                out.data[j * self.rows + i] = self.data[i * self.cols + j];
            }
        }
        out
    }

    /// `self @ other`. The caller guarantees `self.cols == other.rows`.
    ///
    /// Each output element accumulates its terms in k order, as a plain dot
    /// product (see `kernels` for the blocking around it).
    pub fn matmul(&self, other: &Matrix) -> Matrix {
        debug_assert_eq!(self.cols, other.rows);
        let mut out = Matrix::zeros(self.rows, other.cols);
        matmul_into(&self.data, &other.data, &mut out.data, self.rows, self.cols, other.cols);
        out
    }

    /// `self @ other.T`: every row of `self` dotted with every row of `other`.
    ///
    /// The same numbers as `self @ transpose(other)`, without the transposed copy (the
    /// kernel packs `other`'s rows as it goes); each element sums its terms in k
    /// order, exactly as `dot` would.
    pub fn matmul_transposed(&self, other: &Matrix) -> Matrix {
        debug_assert_eq!(self.cols, other.cols);
        let mut out = Matrix::zeros(self.rows, other.rows);
        matmul_transposed_into(&self.data, &other.data, &mut out.data, self.rows, self.cols, other.rows);
        out
    }

    /// Columns `start .. start + count` (one head's slice of Q, K or V).
    pub fn columns(&self, start: usize, count: usize) -> Matrix {
        let mut out = Matrix::zeros(self.rows, count);
        for i in 0..self.rows {
            out.row_mut(i).copy_from_slice(&self.row(i)[start..start + count]);
        }
        out
    }

    /// The matrices side by side (the heads' contexts, concatenated); all have the same rows.
    pub fn hconcat(parts: &[&Matrix]) -> Matrix {
        let rows = parts.first().map_or(0, |m| m.rows);
        let cols = parts.iter().map(|m| m.cols).sum();
        let mut out = Matrix::zeros(rows, cols);
        for i in 0..rows {
            let mut at = 0;
            for m in parts {
                out.row_mut(i)[at..at + m.cols].copy_from_slice(m.row(i));
                at += m.cols;
            }
        }
        out
    }

    pub fn map(&self, f: impl Fn(f64) -> f64) -> Matrix {
        Matrix { rows: self.rows, cols: self.cols, data: self.data.iter().map(|&x| f(x)).collect() }
    }

    /// Largest absolute finite value, 0 for an empty matrix.
    pub fn max_abs(&self) -> f64 {
        self.data.iter().fold(0.0, |m, &x| if x.abs() > m { x.abs() } else { m })
    }

    /// Position of the first non-finite entry, if any.
    pub fn first_non_finite(&self) -> Option<(usize, usize)> {
        if all_finite(&self.data) {
            return None;
        }
        let cols = self.cols.max(1);
        self.data.iter().position(|x| !x.is_finite()).map(|p| (p / cols, p % cols))
    }
}

/// Dot product accumulated left to right, like `np.dot` on short vectors.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |acc, (x, y)| acc + x * y)
}
