//! Dense float64 linear algebra and softmax: the few operations attention needs.
//!
//! Everything here mirrors what the seed documents do with NumPy/SciPy, in the
//! same order of operations, so results agree with NumPy to the last few ulps.

pub mod decimal;
pub mod log;
mod matrix;
pub mod position;
mod softmax;

/// The hot loops, a crate of their own (crates/kernels) so that they build at opt-level 3 while the rest is built for
/// size (Cargo.toml's profile).
pub use attention_viz_kernels as kernels;
pub use kernels::exp;
pub use matrix::{dot, Matrix};
pub use softmax::{
    entropy_bits, naive_equals_stable, softmax_naive, softmax_naive_given, softmax_stable, softmax_stable_into,
};
