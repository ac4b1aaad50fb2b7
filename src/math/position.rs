//! Position encodings as matrices: the sinusoidal table added to the inputs, RoPE's rotation of a head's
//! queries and keys, and ALiBi's distance bias. Each is the paper's formula, one operation at a time, as its NumPy
//! transcription (tests/goldens/gen_modern_goldens.py) writes it.

use super::Matrix;

/// PE (n × d): PE[p, j] = sin(p / base^(2⌊j/2⌋/d)) for even j, cos(…) for odd j (Vaswani et al. 2017, §3.5), row r
/// at position p = r + `offset` (`position.offset`: every position shifted).
pub fn sinusoidal(n: usize, d: usize, base: f64, offset: u64) -> Matrix {
    let mut pe = Matrix::zeros(n, d);
    let divisors: Vec<f64> = (0..d).map(|j| base.powf((2 * (j / 2)) as f64 / d as f64)).collect();
    for r in 0..n {
        let p = (r as u64 + offset) as f64;
        for (j, (x, div)) in pe.row_mut(r).iter_mut().zip(&divisors).enumerate() {
            let angle = p / div;
            *x = if j % 2 == 0 { angle.sin() } else { angle.cos() };
        }
    }
    pe
}

/// θ_i = base^(−2i/d) for the d/2 pairs of a d-wide head.
pub fn rope_frequencies(d: usize, base: f64) -> Vec<f64> {
    (0..d / 2).map(|i| base.powf(-2.0 * i as f64 / d as f64)).collect()
}

/// Row r of `x` (n × d, d even) at position p = r + `offset`, rotated pairwise by the angles p·θ_i: pair i is (x_2i, x_2i+1) when `interleaved`
/// (RoFormer, Su et al. 2021, eq. 34: the complex number x_2i + i·x_2i+1 times e^(i·p·θ_i)), else (x_i, x_i+d/2)
/// (GPT-NeoX's and LLaMA's `rotate_half`). (a, b) ↦ (a·cos − b·sin, a·sin + b·cos).
pub fn rope(x: &Matrix, base: f64, interleaved: bool, offset: u64) -> Matrix {
    rope_partial(x, &rope_frequencies(x.cols(), base), interleaved, offset, 1.0)
}

/// [`rope`] of the first r = 2·`theta.len()` values of each row only, pair i turned by p·θ_i with the given `theta`
/// and laid out within them ((x_2i, x_2i+1), or (x_i, x_i+r/2)); values r … d − 1 pass unchanged (GPT-NeoX's, Phi's
/// and GPT-J's partial rotary). cos and sin are both multiplied by `factor` (transformers' `attention_scaling`):
/// (a, b) ↦ (a·cos·f − b·sin·f, a·sin·f + b·cos·f).
pub fn rope_partial(x: &Matrix, theta: &[f64], interleaved: bool, offset: u64, factor: f64) -> Matrix {
    let r = 2 * theta.len();
    let mut out = x.clone();
    for row in 0..x.rows() {
        let p = (row as u64 + offset) as f64;
        let (values, rotated) = (x.row(row), out.row_mut(row));
        for (i, &t) in theta.iter().enumerate() {
            let angle = p * t;
            let (sin, cos) = (angle.sin() * factor, angle.cos() * factor);
            let (a, b) = if interleaved { (2 * i, 2 * i + 1) } else { (i, i + r / 2) };
            rotated[a] = values[a] * cos - values[b] * sin;
            rotated[b] = values[a] * sin + values[b] * cos;
        }
    }
    out
}

/// ALiBi's bias (n × m) of a head with slope `slope`: −slope·|i − j| (Press et al. 2022).
pub fn alibi(n: usize, m: usize, slope: f64) -> Matrix {
    let mut bias = Matrix::zeros(n, m);
    for i in 0..n {
        for (j, x) in bias.row_mut(i).iter_mut().enumerate() {
            // 0 − (not −): the diagonal's bias is +0, not the −0 a heatmap would print as "-0".
            *x = 0.0 - slope * i.abs_diff(j) as f64;
        }
    }
    bias
}
