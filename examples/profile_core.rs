//! Where a full recompute's time goes: the core's `Session::set_value("w_q", …)` at
//! n = 256 / 512 / 1024 (d = 64, the `numpy` bench's case), piece by piece.
//!
//! ```sh
//! cargo run --release --example profile_core   # native (the scalar twins)
//! node scripts/profile_core.mjs                 # the same in WASM (simd128), under Node's V8
//! ```
//!
//! Natively the kernels are the scalar twins, so the browser's proportions come from the
//! WASM run: scripts/profile_core.mjs builds this example for wasm32 and gives it a clock
//! (`env.now`) and a printer (`env.print`). Each line is the median of several runs;
//! on a shared machine compare builds back to back (`node scripts/profile_core.mjs a.wasm`).

use attention_viz::attention::{self, naive_rows};
use attention_viz::config::{Config, Mechanism, Options, Projections, Scale};
use attention_viz::incremental::Session;
use attention_viz::math::kernels::{divide, exp_shifted_into, matmul_transposed_into, min_max};
use attention_viz::math::{softmax_stable_into, Matrix};
use attention_viz::random::RandomState;
use std::hint::black_box;

#[cfg(target_arch = "wasm32")]
mod host {
    extern "C" {
        fn now() -> f64;
        fn print(ptr: *const u8, len: usize);
    }
    pub fn ms() -> f64 {
        // SAFETY: an imported clock, no arguments.
        unsafe { now() }
    }
    pub fn line(s: &str) {
        // SAFETY: the host reads len bytes at ptr, during the call.
        unsafe { print(s.as_ptr(), s.len()) }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod host {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    pub fn ms() -> f64 {
        START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3
    }
    pub fn line(s: &str) {
        println!("{s}");
    }
}

/// Median ms of `runs` calls of `f` (after one warm-up call).
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    black_box(f());
    let mut out: Vec<f64> = (0..runs)
        .map(|_| {
            let t0 = host::ms();
            black_box(f());
            host::ms() - t0
        })
        .collect();
    out.sort_by(f64::total_cmp);
    out[runs / 2]
}

fn config(n: usize, d: usize) -> Config {
    let mut rs = RandomState::new(0);
    let mut m = |r, c| Matrix::from_vec(r, c, rs.randn(r * c)).expect("shape");
    let embeddings = m(n, d);
    let (w_q, w_k, w_v) = (m(d, d), m(d, d), m(d, d));
    Config {
        mechanism: Mechanism::SelfAttention { embeddings, projections: Some(Projections { w_q, w_k, w_v }) },
        tokens: (0..n).map(|i| format!("t{i}")).collect(),
        scale: Scale::SqrtDk,
        query: 0,
        options: Options::default(),
    }
}

fn row(name: &str, ms: f64, macs: f64) {
    let rate = if macs > 0.0 { format!("  {:5.2} GMAC/s", macs / ms / 1e6) } else { String::new() };
    host::line(&format!("  {name:<34} {ms:8.3} ms{rate}"));
}

fn main() {
    let d = 64;
    for n in [256, 512, 1024] {
        let runs = if n >= 1024 { 7 } else { 15 };
        let cfg = config(n, d);
        let Mechanism::SelfAttention { embeddings: x, projections: Some(p) } = &cfg.mechanism else { unreachable!() };
        host::line(&format!("n = {n}, d = {d}"));
        let (nf, df) = (n as f64, d as f64);
        let mut session = Session::new(cfg.clone()).expect("computes");
        let w0 = p.w_q.get(0, 0);
        let mut flip = false;
        let total = time(runs, || {
            flip = !flip;
            session.set_value("w_q", 0, 0, if flip { w0 + 0.5 } else { w0 }).expect("edits");
        });
        row("Session::set_value(w_q) total", total, 0.0);
        row("  attention::compute", time(runs, || attention::compute(&cfg)), 0.0);
        row("  Config::with_value (clone)", time(runs, || cfg.with_value("w_q", 0, 0, w0 + 0.5)), 0.0);
        row(
            "  3 projections n×d×d",
            time(runs, || (x.matmul(&p.w_q), x.matmul(&p.w_k), x.matmul(&p.w_v))),
            3.0 * nf * df * df,
        );
        let (q, k, v) = (x.matmul(&p.w_q), x.matmul(&p.w_k), x.matmul(&p.w_v));
        row(
            "  check Q, K, V finite",
            time(runs, || (q.first_non_finite(), k.first_non_finite(), v.first_non_finite())),
            0.0,
        );
        row("  Q·Kᵀ n×n×d", time(runs, || q.matmul_transposed(&k)), nf * nf * df);
        let mut buffer = vec![0.0; n * n];
        let mut into = || matmul_transposed_into(q.data(), k.data(), black_box(&mut buffer), n, d, n);
        row("  Q·Kᵀ into a reused buffer", time(runs, &mut into), nf * nf * df);
        let scores = q.matmul_transposed(&k);
        row("  scaled = scores / √d (map)", time(runs, || scores.map(|s| s / 8.0)), 0.0);
        let scaled = scores.map(|s| s / 8.0);
        row("  Matrix::zeros(n, n)", time(runs, || Matrix::zeros(n, n)), 0.0);
        let softmax = || {
            let mut w = Matrix::zeros(n, n);
            for i in 0..n {
                softmax_stable_into(scaled.row(i), w.row_mut(i));
            }
            w
        };
        row("  softmax rows (+ zeros)", time(runs, || softmax()), 0.0);
        let weights = softmax();
        let maxima: Vec<f64> = (0..n).map(|i| min_max(scaled.row(i)).1).collect();
        row("    of which: row maxima", time(runs, || (0..n).map(|i| min_max(scaled.row(i)).1).sum::<f64>()), 0.0);
        let mut e = Matrix::zeros(n, n);
        row(
            "    of which: exp(x − max)",
            time(runs, || (0..n).map(|i| exp_shifted_into(scaled.row(i), maxima[i], e.row_mut(i))).sum::<f64>()),
            0.0,
        );
        row("    of which: ÷ sum", time(runs, || (0..n).for_each(|i| divide(e.row_mut(i), 1.5))), 0.0);
        row("  W·V n×n×d", time(runs, || weights.matmul(&v)), nf * nf * df);
        let context = weights.matmul(&v);
        row(
            "  check scaled, context finite",
            time(runs, || (scaled.first_non_finite(), context.first_non_finite())),
            0.0,
        );
        row("  naive_rows (clone + row scans)", time(runs, || naive_rows(&scaled, &weights)), 0.0);
        row("  clone n×n", time(runs, || weights.clone()), 0.0);
    }
}
