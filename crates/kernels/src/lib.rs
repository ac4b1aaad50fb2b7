//! The hot loops of attention — matrix product, exponential, row softmax — as
//! WebAssembly SIMD (f64x2) kernels, each with a plain scalar twin.
//!
//! The twins compute *bit-identical* results: a SIMD lane performs exactly the
//! scalar operations in the same order (no fused multiply-add, no reassociation
//! inside a lane), so the native tests, which run the scalar code, check the
//! numbers the browser shows, and a wasm test checks the twins agree bit for bit.
//! Each product element is summed in k order, as a plain dot product; only the
//! blocking around it differs: B is copied once into 8-column panels read
//! sequentially, and 2 × 8 output blocks stay in eight f64x2 accumulators across
//! the whole k loop (measured in V8: ~20 % faster than 4 × 4 blocks on B in place,
//! which hit power-of-two strides; 12 accumulators spill).

/// `out = a @ b` for row-major `a` (m × k), `b` (k × p), `out` (m × p).
pub fn matmul_into(a: &[f64], b: &[f64], out: &mut [f64], m: usize, k: usize, p: usize) {
    assert!(a.len() == m * k && b.len() == k * p && out.len() == m * p, "matmul: shapes do not match");
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    simd::product(a, out, m, k, p, |kk, j| b[kk * p + j]);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    matmul_scalar(a, b, out, m, k, p);
}

/// `out = a @ bt.T` for row-major `a` (m × k), `bt` (p × k), `out` (m × p): every row
/// of `a` dotted with every row of `bt` (the scores Q·Kᵀ), with no transposed copy.
/// The same numbers as `matmul_into(a, transpose(bt))`.
pub fn matmul_transposed_into(a: &[f64], bt: &[f64], out: &mut [f64], m: usize, k: usize, p: usize) {
    assert!(a.len() == m * k && bt.len() == p * k && out.len() == m * p, "matmul: shapes do not match");
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    simd::product(a, out, m, k, p, |kk, j| bt[j * k + kk]);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    matmul_transposed_scalar(a, bt, out, m, k, p);
}

/// The scalar twin of [`matmul_into`]: each element is `0 + a_i0·b_0j + a_i1·b_1j + …`.
pub fn matmul_scalar(a: &[f64], b: &[f64], out: &mut [f64], m: usize, k: usize, p: usize) {
    assert!(a.len() == m * k && b.len() == k * p && out.len() == m * p, "matmul: shapes do not match");
    out.fill(0.0);
    for i in 0..m {
        let out_row = &mut out[i * p..(i + 1) * p];
        for (kk, &x) in a[i * k..(i + 1) * k].iter().enumerate() {
            for (o, &y) in out_row.iter_mut().zip(&b[kk * p..(kk + 1) * p]) {
                *o += x * y;
            }
        }
    }
}

/// The scalar twin of [`matmul_transposed_into`]: each element is `0 + a_i0·bt_j0 + a_i1·bt_j1 + …`
/// (through a transposed copy, so the i-k-j loop of [`matmul_scalar`] stays vectorisable natively).
pub fn matmul_transposed_scalar(a: &[f64], bt: &[f64], out: &mut [f64], m: usize, k: usize, p: usize) {
    assert!(a.len() == m * k && bt.len() == p * k && out.len() == m * p, "matmul: shapes do not match");
    let mut b = vec![0.0; k * p];
    for j in 0..p {
        for kk in 0..k {
            b[kk * p + j] = bt[j * k + kk];
        }
    }
    matmul_scalar(a, &b, out, m, k, p);
}

/// Below this, exp underflows to 0 (exp(-745.14) is half the smallest subnormal).
const EXP_MIN: f64 = -746.0;
/// Above this, exp overflows to ∞ (the largest f64 is e^709.78).
const EXP_MAX: f64 = 710.0;
const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// ln 2 split so that `k · LN2_HI` is exact for |k| < 2^11 (Cody–Waite
/// reduction): LN2_HI keeps only the top 32 bits of ln 2's mantissa.
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
/// 1/n! for n = 13 down to 0: on |r| ≤ ln2/2 the degree-13 Taylor polynomial's
/// truncation error, r^14/14! < 5e-18, is below half an ulp of e^r.
const TAYLOR: [f64; 14] = [
    1.0 / 6_227_020_800.0,
    1.0 / 479_001_600.0,
    1.0 / 39_916_800.0,
    1.0 / 3_628_800.0,
    1.0 / 362_880.0,
    1.0 / 40_320.0,
    1.0 / 5_040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
    1.0,
    1.0,
];

/// e^x within about 1 ulp, for any x (NaN → NaN, below −746 → 0, above 709.78 → ∞).
///
/// Written out (rather than `f64::exp`) so the SIMD kernel can compute the very
/// same numbers two at a time: libm's exp is one call per element in wasm.
/// x = k·ln2 + r, e^x = 2^k · P(r), with 2^k applied as two factors 2^⌊k/2⌋ ·
/// 2^(k−⌊k/2⌋) so that subnormal results and overflow come out right.
pub fn exp(x: f64) -> f64 {
    // Clamped (NaN passes through) so that k below stays in [-1077, 1025].
    let x = x.clamp(EXP_MIN, EXP_MAX);
    let k = (x * LOG2_E).round_ties_even();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut p = TAYLOR[0];
    for &c in &TAYLOR[1..] {
        p = p * r + c;
    }
    // 2^k as 2^k1 · 2^k2 (k1 = ⌊k/2⌋): each factor is a normal number, so
    // subnormal results are rounded once, and e^710 overflows to ∞.
    let k1 = (k * 0.5).floor();
    p * pow2(k1) * pow2(k - k1)
}

/// 2^k for an integer k in [-1022, 1023]: k + 2^52 + 1023 holds k + 1023 in
/// its low mantissa bits, and shifting them into the exponent field drops the
/// rest. Float arithmetic and a left shift only, because those are single
/// instructions in WebAssembly SIMD, unlike float-to-int conversions and
/// arithmetic right shifts of i64 lanes.
fn pow2(k: f64) -> f64 {
    f64::from_bits((k + POW2_MAGIC).to_bits() << 52)
}

const POW2_MAGIC: f64 = 4_503_599_627_370_496.0 + 1023.0;

/// `out[j] = exp(x[j] - shift)`; returns Σ out[j], summed as two interleaved
/// partial sums (even and odd j) then added — the order the SIMD kernel uses.
pub fn exp_shifted_into(x: &[f64], shift: f64, out: &mut [f64]) -> f64 {
    assert_eq!(x.len(), out.len(), "exp_shifted_into: lengths differ");
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd::exp_shifted_into(x, shift, out);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    exp_shifted_scalar(x, shift, out)
}

/// The scalar twin of [`exp_shifted_into`].
pub fn exp_shifted_scalar(x: &[f64], shift: f64, out: &mut [f64]) -> f64 {
    assert_eq!(x.len(), out.len(), "exp_shifted_scalar: lengths differ");
    for (o, &v) in out.iter_mut().zip(x) {
        *o = exp(v - shift);
    }
    pair_sum(out)
}

/// The sum of `x` in the order [`exp_shifted_into`] sums: even and odd entries apart.
pub fn pair_sum(x: &[f64]) -> f64 {
    let (mut even, mut odd) = (0.0, 0.0);
    for pair in x.chunks(2) {
        even += pair[0];
        if let Some(&y) = pair.get(1) {
            odd += y;
        }
    }
    even + odd
}

/// The smallest and largest entries of `x`, ignoring NaN ((∞, −∞) when empty).
/// (Order does not matter for a minimum and maximum, so no twin is needed.)
pub fn min_max(x: &[f64]) -> (f64, f64) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd::min_max(x);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    x.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)))
}

/// Whether every entry of `x` is finite.
pub fn all_finite(x: &[f64]) -> bool {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd::all_finite(x);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    x.iter().all(|v| v.is_finite())
}

/// 1 / d when that is exact and `x * (1 / d)` is `x / d` bit for bit for every x: d a normal power of two (both
/// then round the exact x · 2^−k once, subnormal results included). A multiplication instead of a division per
/// score: √d_k is 8 for d_k = 64, and f64x2.div issues at a quarter of f64x2.mul's rate.
pub fn exact_reciprocal(d: f64) -> Option<f64> {
    (d.is_normal() && d > 0.0 && d.to_bits() & ((1 << 52) - 1) == 0).then(|| 1.0 / d)
}

/// `x[j] *= factor` for every j: the scaled scores (`s · (1/√d_k)` when that reciprocal is exact), an n × n pass
/// after every W_Q step, which the size-optimised crate did not vectorise.
pub fn multiply(x: &mut [f64], factor: f64) {
    for v in x {
        *v *= factor;
    }
}

/// `x[j] /= divisor` for every j.
pub fn divide(x: &mut [f64], divisor: f64) {
    // Plain enough that LLVM vectorises it; a division per element keeps the
    // results identical to NumPy's `x / divisor`.
    for v in x {
        *v /= divisor;
    }
}

/// FNV-1a's step `lane = (lane ^ word) · 0x100000001b3` over `x`'s bits, word k into lane k mod 4, for the whole
/// groups of four (the caller folds the rest in): a view's key hashes every value of every view after each edit, four
/// n × n grids at n = 1024, and the size-optimised loop was most of a scrub's snapshot.
pub fn fnv_lanes(lanes: &mut [u64; 4], x: &[f64]) {
    for w in x.chunks_exact(4) {
        for (lane, v) in lanes.iter_mut().zip(w) {
            *lane = (*lane ^ v.to_bits()).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The largest entry of each block of `m`-wide row-major `w`: block (p, q) is rows `rows[p]` × columns `cols[q]`
/// (half-open), into `out[p · cols.len() + q]`, 0 when none is larger. A model's grid colours each thumbnail pixel
/// by its block's largest weight: every weight of a 12 × 12 × 128 stack read once a load.
pub fn block_max(w: &[f64], m: usize, rows: &[(usize, usize)], cols: &[(usize, usize)], out: &mut [f64]) {
    assert_eq!(out.len(), rows.len() * cols.len(), "block_max: out has one entry a block");
    for (p, &(r0, r1)) in rows.iter().enumerate() {
        for (q, &(c0, c1)) in cols.iter().enumerate() {
            let mut top = 0.0f64;
            for i in r0..r1 {
                // Comparisons, not f64::max: its NaN rule is a call to libm's fmax in WebAssembly.
                for &x in &w[i * m + c0..i * m + c1] {
                    if x > top {
                        top = x;
                    }
                }
            }
            out[p * cols.len() + q] = top;
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    //! The f64x2 kernels. Every function mirrors its scalar twin lane by lane.
    use super::{EXP_MAX, EXP_MIN, LN2_HI, LN2_LO, LOG2_E, POW2_MAGIC, TAYLOR};
    use core::arch::wasm32::*;

    #[inline(always)]
    fn splat(x: f64) -> v128 {
        f64x2_splat(x)
    }

    #[inline(always)]
    fn mac(acc: v128, x: v128, y: v128) -> v128 {
        f64x2_add(acc, f64x2_mul(x, y))
    }

    /// `out = a @ B` where `b(kk, j)` is B's entry (k × p). B's first p − p mod 8 columns are
    /// copied into panels of 8 (k × 8 each, row by row) so the kernel reads them in order;
    /// rows go in chunks whose part of `a` fits in L2 (W·V's rows are n long), each chunk
    /// against every panel; the last p mod 8 columns are plain dot products.
    pub fn product(a: &[f64], out: &mut [f64], m: usize, k: usize, p: usize, b: impl Fn(usize, usize) -> f64) {
        let panels = p / 8;
        let mut packed = Vec::with_capacity(panels * k * 8);
        for c in 0..panels {
            for kk in 0..k {
                packed.extend((8 * c..8 * c + 8).map(|j| b(kk, j)));
            }
        }
        // 2^14 values of `a` (128 KiB) a chunk, an even number of rows.
        let chunk = ((1 << 14) / k.max(1)).max(2) & !1;
        // SAFETY: rows i, i + 1 < m, panel columns j + 8 ≤ p, and kk < k; the caller
        // checked a.len() = m·k and out.len() = m·p, and packed holds panels·k·8 values.
        unsafe {
            let (a, o) = (a.as_ptr(), out.as_mut_ptr());
            for i0 in (0..m).step_by(chunk) {
                let i1 = (i0 + chunk).min(m);
                for c in 0..panels {
                    let (panel, j) = (packed.as_ptr().add(c * k * 8), 8 * c);
                    let mut i = i0;
                    while i + 2 <= i1 {
                        block_2x8(a.add(i * k), a.add((i + 1) * k), panel, k, o.add(i * p + j), o.add((i + 1) * p + j));
                        i += 2;
                    }
                    if i < i1 {
                        block_1x8(a.add(i * k), panel, k, o.add(i * p + j));
                    }
                }
            }
        }
        for i in 0..m {
            for j in panels * 8..p {
                let mut acc = 0.0;
                for kk in 0..k {
                    acc += a[i * k + kk] * b(kk, j);
                }
                out[i * p + j] = acc;
            }
        }
    }

    /// Rows a0, a1 (k values each) times one panel (k × 8) into out0[..8], out1[..8].
    #[inline(always)]
    unsafe fn block_2x8(a0: *const f64, a1: *const f64, panel: *const f64, k: usize, out0: *mut f64, out1: *mut f64) {
        let mut c = [splat(0.0); 8];
        for kk in 0..k {
            let b = panel.add(kk * 8);
            let (b0, b1) = (v128_load(b as *const v128), v128_load(b.add(2) as *const v128));
            let (b2, b3) = (v128_load(b.add(4) as *const v128), v128_load(b.add(6) as *const v128));
            let x = splat(*a0.add(kk));
            c[0] = mac(c[0], x, b0);
            c[1] = mac(c[1], x, b1);
            c[2] = mac(c[2], x, b2);
            c[3] = mac(c[3], x, b3);
            let x = splat(*a1.add(kk));
            c[4] = mac(c[4], x, b0);
            c[5] = mac(c[5], x, b1);
            c[6] = mac(c[6], x, b2);
            c[7] = mac(c[7], x, b3);
        }
        for t in 0..4 {
            v128_store(out0.add(2 * t) as *mut v128, c[t]);
            v128_store(out1.add(2 * t) as *mut v128, c[4 + t]);
        }
    }

    /// One row times one panel: [`block_2x8`] for the last row of an odd count.
    #[inline(always)]
    unsafe fn block_1x8(a0: *const f64, panel: *const f64, k: usize, out0: *mut f64) {
        let mut c = [splat(0.0); 4];
        for kk in 0..k {
            let x = splat(*a0.add(kk));
            for (t, c) in c.iter_mut().enumerate() {
                *c = mac(*c, x, v128_load(panel.add(kk * 8 + 2 * t) as *const v128));
            }
        }
        for (t, c) in c.iter().enumerate() {
            v128_store(out0.add(2 * t) as *mut v128, *c);
        }
    }

    #[inline(always)]
    fn exp2x(x: v128) -> v128 {
        // pmax/pmin keep NaN, like the scalar comparisons.
        let x = f64x2_pmin(f64x2_pmax(x, splat(EXP_MIN)), splat(EXP_MAX));
        let k = f64x2_nearest(f64x2_mul(x, splat(LOG2_E)));
        let r = f64x2_sub(f64x2_sub(x, f64x2_mul(k, splat(LN2_HI))), f64x2_mul(k, splat(LN2_LO)));
        let mut p = splat(TAYLOR[0]);
        for &c in &TAYLOR[1..] {
            p = f64x2_add(f64x2_mul(p, r), splat(c));
        }
        let k1 = f64x2_floor(f64x2_mul(k, splat(0.5)));
        let k2 = f64x2_sub(k, k1);
        let pow2 = |k: v128| i64x2_shl(f64x2_add(k, splat(POW2_MAGIC)), 52);
        f64x2_mul(f64x2_mul(p, pow2(k1)), pow2(k2))
    }

    pub fn min_max(x: &[f64]) -> (f64, f64) {
        let pairs = x.len() / 2 * 2;
        let (mut lo, mut hi) = (splat(f64::INFINITY), splat(f64::NEG_INFINITY));
        // SAFETY: j + 2 ≤ pairs ≤ x.len().
        unsafe {
            for j in (0..pairs).step_by(2) {
                let v = v128_load(x.as_ptr().add(j) as *const v128);
                // pmin(lo, v) = v < lo ? v : lo — a NaN in v is skipped, as f64::min skips it.
                lo = f64x2_pmin(lo, v);
                hi = f64x2_pmax(hi, v);
            }
        }
        let mut lo = f64x2_extract_lane::<0>(lo).min(f64x2_extract_lane::<1>(lo));
        let mut hi = f64x2_extract_lane::<0>(hi).max(f64x2_extract_lane::<1>(hi));
        for &v in &x[pairs..] {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        (lo, hi)
    }

    pub fn all_finite(x: &[f64]) -> bool {
        let pairs = x.len() / 2 * 2;
        // v − v is 0 for finite v and NaN for ±∞ and NaN; NaN survives the sum.
        let mut acc = splat(0.0);
        // SAFETY: j + 2 ≤ pairs ≤ x.len().
        unsafe {
            for j in (0..pairs).step_by(2) {
                let v = v128_load(x.as_ptr().add(j) as *const v128);
                acc = f64x2_add(acc, f64x2_sub(v, v));
            }
        }
        f64x2_extract_lane::<0>(acc) == 0.0
            && f64x2_extract_lane::<1>(acc) == 0.0
            && x[pairs..].iter().all(|v| v.is_finite())
    }

    pub fn exp_shifted_into(x: &[f64], shift: f64, out: &mut [f64]) -> f64 {
        let n = x.len();
        let pairs = n / 2 * 2;
        let mut sum = splat(0.0);
        // Four pairs a turn: their exponentials are independent chains of ~40 operations each (the polynomial's 13
        // multiply-adds one after another), which the CPU then overlaps; the sum still takes them in order, so the
        // result is the scalar twin's bit for bit.
        let octets = n / 8 * 8;
        // SAFETY: j + 8 ≤ octets ≤ n and j + 2 ≤ pairs ≤ n, with n = x.len() = out.len().
        unsafe {
            let s = splat(shift);
            let (x, o) = (x.as_ptr(), out.as_mut_ptr());
            for j in (0..octets).step_by(8) {
                let e0 = exp2x(f64x2_sub(v128_load(x.add(j) as *const v128), s));
                let e1 = exp2x(f64x2_sub(v128_load(x.add(j + 2) as *const v128), s));
                let e2 = exp2x(f64x2_sub(v128_load(x.add(j + 4) as *const v128), s));
                let e3 = exp2x(f64x2_sub(v128_load(x.add(j + 6) as *const v128), s));
                v128_store(o.add(j) as *mut v128, e0);
                v128_store(o.add(j + 2) as *mut v128, e1);
                v128_store(o.add(j + 4) as *mut v128, e2);
                v128_store(o.add(j + 6) as *mut v128, e3);
                sum = f64x2_add(f64x2_add(f64x2_add(f64x2_add(sum, e0), e1), e2), e3);
            }
            for j in (octets..pairs).step_by(2) {
                let e = exp2x(f64x2_sub(v128_load(x.add(j) as *const v128), s));
                v128_store(o.add(j) as *mut v128, e);
                sum = f64x2_add(sum, e);
            }
        }
        let mut even = f64x2_extract_lane::<0>(sum);
        let odd = f64x2_extract_lane::<1>(sum);
        if pairs < n {
            out[n - 1] = super::exp(x[n - 1] - shift);
            even += out[n - 1];
        }
        even + odd
    }
}
