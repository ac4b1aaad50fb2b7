//! Port of NumPy's legacy `RandomState` (MT19937 plus the legacy `randint`,
//! `rand` and `randn` samplers), so that a seed typed into the visualizer reproduces exactly
//! the matrices a reader gets from `np.random.seed(s)` in Python. Every detail that affects
//! the output stream follows NumPy 2.4.6 (`mt19937.c`, `distributions.c`,
//! `legacy-distributions.c`): the draw order of the two words in a 64-bit output and in a
//! double, the masked rejection loop (which discards whole words), the
//! no-draw shortcut for one-value ranges, and the cached second gaussian that survives calls
//! to other methods. All arithmetic wraps or is checked, so no input can panic. `randint` and
//! `rand` are bit for bit; `randn` goes through `log`, which NumPy takes from the platform's C
//! library: natively (glibc) bit for bit, in WASM within 1 ulp (about 0.03 % of values differ).

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// The most values one call of the web API's `RandomState` (`randint`, `rand`, `randn`) may ask
/// for: 2^17 = 131 072 (a 256 × 512 matrix). `randn` is the slow one, about 1-2 µs a value in
/// WASM (its correctly rounded `log`), so this keeps every call well under a second in the
/// browser. NumPy has no such bound; a page does (`rand(65536, 65537)` crashed the tab).
pub const MAX_RANDOM: usize = 1 << 17;

/// A count of values for the web API, checked before anything is allocated: a non-negative
/// integer of at most [`MAX_RANDOM`]. It arrives as a float64 (the product of a shape's
/// dimensions), so a count of 2^32 or more is refused instead of wrapping.
pub fn check_count(count: f64) -> Result<usize, String> {
    if !(count >= 0.0 && count.fract() == 0.0) {
        return Err(format!("count must be a non-negative integer, got {count}"));
    }
    if count > MAX_RANDOM as f64 {
        return Err(format!("RandomState asks for {count} values; at most {MAX_RANDOM} are supported"));
    }
    Ok(count as usize)
}

/// The state of `np.random.RandomState`: the MT19937 key and position plus the
/// `RandomState`-level gaussian cache (which NumPy keeps outside the bit generator).
#[derive(Clone, Debug, PartialEq)]
pub struct RandomState {
    key: [u32; N],
    pos: usize,
    has_gauss: bool,
    gauss: f64,
}

impl RandomState {
    /// Same state as `np.random.seed(seed)` / `RandomState(seed)`.
    pub fn new(seed: u32) -> Self {
        let mut state = RandomState { key: [0; N], pos: N, has_gauss: false, gauss: 0.0 };
        state.seed(seed);
        state
    }

    /// Reseeds like `np.random.seed(seed)`, which also drops any cached gaussian.
    pub fn seed(&mut self, seed: u32) {
        let mut s = seed;
        for (i, word) in self.key.iter_mut().enumerate() {
            *word = s;
            s = 1_812_433_253u32.wrapping_mul(s ^ (s >> 30)).wrapping_add(i as u32 + 1);
        }
        // NumPy defers the first twist to the first draw; keeping that makes the exposed
        // state comparable with `get_state()` right after seeding.
        self.pos = N;
        self.has_gauss = false;
        self.gauss = 0.0;
    }

    /// The 624-word key, as in `get_state()[1]`.
    pub fn key(&self) -> &[u32; N] {
        &self.key
    }

    /// Index of the next key word to temper, as in `get_state()[2]`; 624 means a twist is due.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The gaussian that the next `gauss()` call will return without drawing, if any.
    pub fn cached_gauss(&self) -> Option<f64> {
        if self.has_gauss {
            Some(self.gauss)
        } else {
            None
        }
    }

    fn twist(&mut self) {
        for i in 0..N {
            let y = (self.key[i] & UPPER_MASK) | (self.key[(i + 1) % N] & LOWER_MASK);
            let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
            self.key[i] = self.key[(i + M) % N] ^ (y >> 1) ^ mag;
        }
        self.pos = 0;
    }

    /// One tempered 32-bit MT19937 output.
    pub fn next_u32(&mut self) -> u32 {
        if self.pos >= N {
            self.twist();
        }
        let mut y = self.key[self.pos];
        self.pos += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// Two 32-bit outputs; NumPy's compiled C evaluates the high word first.
    pub fn next_u64(&mut self) -> u64 {
        let high = self.next_u32() as u64;
        let low = self.next_u32() as u64;
        (high << 32) | low
    }

    /// A double in [0, 1) with 53 random bits, as one element of `rand()`.
    pub fn next_double(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        // Both products and the sum are exact in f64, so no rounding can creep in.
        (a as f64 * 67_108_864.0 + b as f64) / 9_007_199_254_740_992.0
    }

    /// randint(low, high) with NumPy's legacy masked rejection, default int64 dtype; `count` values in C order.
    /// Returns Err(message) on an empty range (low >= high) with a NumPy-like message ("low >= high").
    ///
    /// `count == 0` returns an empty vector without validating the range, because NumPy
    /// returns early for a zero-size `size` before its bounds checks. `dtype=int32` gives the
    /// same values for every range that fits in int32, so it needs no separate method.
    pub fn randint(&mut self, low: i64, high: i64, count: usize) -> Result<Vec<i64>, String> {
        if count == 0 {
            return Ok(Vec::new());
        }
        if low >= high {
            return Err("low >= high".to_string());
        }
        // high > low >= i64::MIN, so high - 1 cannot overflow.
        let closed_high = high - 1;
        let rng = (closed_high as u64).wrapping_sub(low as u64);
        let off = low as u64;
        let mut out = empty_vec(count);
        if rng == 0 {
            // NumPy fills the constant without touching the generator.
            out.resize(count, low);
        } else if rng <= 0xFFFF_FFFF {
            if rng == 0xFFFF_FFFF {
                for _ in 0..count {
                    out.push(off.wrapping_add(self.next_u32() as u64) as i64);
                }
            } else {
                let rng32 = rng as u32;
                let mask = gen_mask(rng) as u32;
                for _ in 0..count {
                    let v = loop {
                        let v = self.next_u32() & mask;
                        if v <= rng32 {
                            break v;
                        }
                    };
                    out.push(off.wrapping_add(v as u64) as i64);
                }
            }
        } else if rng == u64::MAX {
            // Unreachable with i64 bounds (it needs high == 2**63), kept to mirror NumPy.
            for _ in 0..count {
                out.push(off.wrapping_add(self.next_u64()) as i64);
            }
        } else {
            let mask = gen_mask(rng);
            for _ in 0..count {
                let v = loop {
                    let v = self.next_u64() & mask;
                    if v <= rng {
                        break v;
                    }
                };
                out.push(off.wrapping_add(v) as i64);
            }
        }
        Ok(out)
    }

    /// `randint(low, high, size=count, dtype=np.uint8)`: four values per 32-bit word.
    pub fn randint_u8(&mut self, low: i64, high: i64, count: usize) -> Result<Vec<u8>, String> {
        let raw = self.randint_small(low, high, count, 0, 0xFF, 8, "uint8")?;
        Ok(raw.into_iter().map(|v| v as u8).collect())
    }

    /// `randint(low, high, size=count, dtype=np.int16)`: two values per 32-bit word.
    pub fn randint_i16(&mut self, low: i64, high: i64, count: usize) -> Result<Vec<i16>, String> {
        let raw = self.randint_small(low, high, count, -0x8000, 0x7FFF, 16, "int16")?;
        Ok(raw.into_iter().map(|v| v as u16 as i16).collect())
    }

    /// `randint(low, high, size=count, dtype=bool)`: one bit per value, 32 per word.
    pub fn randint_bool(&mut self, low: i64, high: i64, count: usize) -> Result<Vec<bool>, String> {
        let raw = self.randint_small(low, high, count, 0, 1, 1, "bool")?;
        Ok(raw.into_iter().map(|v| v & 1 == 1).collect())
    }

    /// Shared body of NumPy's buffered fills for dtypes narrower than 32 bits. Values are
    /// returned as the unsigned `bits`-wide pattern (off + v wrapped), which callers
    /// reinterpret as their signed or unsigned type.
    #[allow(clippy::too_many_arguments)]
    fn randint_small(
        &mut self,
        low: i64,
        high: i64,
        count: usize,
        lower_bound: i64,
        upper_bound: i64,
        bits: u32,
        dtype: &str,
    ) -> Result<Vec<u32>, String> {
        if count == 0 {
            return Ok(Vec::new());
        }
        // Same order of checks as NumPy's scalar path, on the closed upper end.
        let closed_high = high as i128 - 1;
        if low < lower_bound {
            return Err(format!("low is out of bounds for {dtype}"));
        }
        if closed_high > upper_bound as i128 {
            return Err(format!("high is out of bounds for {dtype}"));
        }
        if low as i128 > closed_high {
            return Err("low >= high".to_string());
        }
        let width_mask: u32 = u32::MAX >> (32 - bits);
        let rng = ((closed_high - low as i128) as u64 as u32) & width_mask;
        let off = (low as u64 as u32) & width_mask;
        let mut out = empty_vec(count);
        if rng == 0 {
            out.resize(count, off);
            return Ok(out);
        }
        let mask = gen_mask(rng as u64) as u32;
        let per_word = 32 / bits;
        // The buffer is local to one call: NumPy throws leftover sub-words away afterwards.
        let mut buf: u32 = 0;
        let mut bcnt: u32 = 0;
        for _ in 0..count {
            let v = loop {
                if bcnt == 0 {
                    buf = self.next_u32();
                    bcnt = per_word - 1;
                } else {
                    buf >>= bits;
                    bcnt -= 1;
                }
                // A rejected sub-word still uses up its slot in the buffer.
                let v = buf & width_mask & mask;
                if v <= rng {
                    break v;
                }
            };
            out.push(off.wrapping_add(v) & width_mask);
        }
        Ok(out)
    }

    /// `rand(count)`: `count` doubles from [0, 1) in C order.
    pub fn rand(&mut self, count: usize) -> Vec<f64> {
        let mut out = empty_vec(count);
        for _ in 0..count {
            out.push(self.next_double());
        }
        out
    }

    /// `randn(count)`: `count` standard normals in C order, sharing the gaussian cache.
    pub fn randn(&mut self, count: usize) -> Vec<f64> {
        let mut out = empty_vec(count);
        for _ in 0..count {
            out.push(self.gauss());
        }
        out
    }

    /// One `legacy_gauss` draw: polar Box–Muller that returns one value of the pair and
    /// caches the other for the next call.
    pub fn gauss(&mut self) -> f64 {
        if self.has_gauss {
            let cached = self.gauss;
            self.has_gauss = false;
            self.gauss = 0.0;
            return cached;
        }
        let (x1, x2, r2) = loop {
            let x1 = 2.0 * self.next_double() - 1.0;
            let x2 = 2.0 * self.next_double() - 1.0;
            // Written as separate multiplies and an add because Rust never fuses them into an
            // FMA, matching NumPy's C build; an FMA would change the last bit.
            let r2 = x1 * x1 + x2 * x2;
            if !(r2 >= 1.0 || r2 == 0.0) {
                break (x1, x2, r2);
            }
        };
        let f = (-2.0 * c_log(r2) / r2).sqrt();
        self.gauss = f * x1;
        self.has_gauss = true;
        f * x2
    }
}

/// NumPy calls the C library's `log`. Natively on Linux `f64::ln` *is* glibc's
/// log, so results are bit-exact. On wasm32 `f64::ln` is a portable libm that is
/// off by an ulp in ~3 % of calls; the correctly rounded `math::log::ln` agrees
/// with glibc in all but ~0.03 % (glibc's own near-halfway roundings).
#[cfg(not(target_arch = "wasm32"))]
fn c_log(x: f64) -> f64 {
    x.ln()
}

#[cfg(target_arch = "wasm32")]
fn c_log(x: f64) -> f64 {
    crate::math::log::ln(x)
}

/// Smallest 2^k - 1 that is >= `rng`.
fn gen_mask(rng: u64) -> u64 {
    let mut m = rng;
    m |= m >> 1;
    m |= m >> 2;
    m |= m >> 4;
    m |= m >> 8;
    m |= m >> 16;
    m |= m >> 32;
    m
}

/// A vector with room for `count` items when the allocator can provide it; an impossible
/// request falls back to growing on demand instead of panicking on capacity overflow.
fn empty_vec<T>(count: usize) -> Vec<T> {
    let mut v = Vec::new();
    let _ = v.try_reserve_exact(count);
    v
}
