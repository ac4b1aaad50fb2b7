//! Colours for heatmaps that read exactly like seaborn 0.13.2's
//! `sns.heatmap(annot=True, cmap=..., linewidths=1)`: seaborn's
//! `light_palette(color, as_cmap=True)` (a port of seaborn's bundled `husl.py`
//! plus matplotlib's `LinearSegmentedColormap.from_list` lookup table), the
//! sequential `rocket` map (seaborn's default heatmap colormap) and the
//! diverging `vlag` map (light in the middle, so annotations stay legible),
//! matplotlib's colormap lookup (`entry = min(int(x * 256), 255)`), the value
//! normalisation seaborn's heatmap effectively applies (including the widening
//! of a singular range done by its colour bar), seaborn's `center=` re-centring,
//! and the annotation text colour chosen from the cell's relative luminance.
//! Colormaps keep matplotlib's float lookup table, so luminance decisions are
//! taken on the same floats seaborn uses; hex/`u8` values are rounded the way
//! `matplotlib.colors.to_hex` does (round half to even). Pure `std`; nothing
//! here panics for any `f64` input.

use std::f64::consts::PI;

/// An 8-bit sRGB colour, `[r, g, b]`.
pub type Rgb = [u8; 3];

/// A colour as matplotlib holds it: sRGB channels as floats in `[0, 1]`.
pub type RgbF = [f64; 3];

/// seaborn's dark annotation text colour, `".15"` (`#262626`).
pub const TEXT_DARK: Rgb = [0x26, 0x26, 0x26];
/// seaborn's light annotation text colour, `"w"` (`#ffffff`).
pub const TEXT_LIGHT: Rgb = [0xff, 0xff, 0xff];
/// Black: the dark text colour of `contrast = "more"` (with [`TEXT_LIGHT`]), the pair whose
/// better choice reaches WCAG's 4.5:1 against every colour (at worst 4.58:1).
pub const TEXT_BLACK: Rgb = [0, 0, 0];
/// Luminance above which seaborn writes dark text (`lum > .408`).
pub const LUMINANCE_THRESHOLD: f64 = 0.408;
/// Name of the perceptual sequential map returned by [`sequential`].
pub const SEQUENTIAL_NAME: &str = "rocket";
/// Name of the diverging map returned by [`diverging`].
pub const DIVERGING_NAME: &str = "vlag";
/// Number of entries seaborn's light palettes and re-centred maps have.
pub const LUT_SIZE: usize = 256;

// ---------------------------------------------------------------------------
// Hex and named colours
// ---------------------------------------------------------------------------

/// `#rrggbb` (lower case), like `matplotlib.colors.to_hex`.
pub fn to_hex(rgb: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2])
}

/// Parse `#rrggbb` or `#rgb` (the `#` is optional, case-insensitive,
/// surrounding whitespace ignored). `None` for anything else.
pub fn parse_hex(s: &str) -> Option<Rgb> {
    let s = s.trim();
    let h = s.strip_prefix('#').unwrap_or(s);
    if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let digit = |i: usize| u8::from_str_radix(&h[i..i + 1], 16).ok();
    match h.len() {
        6 => Some([
            u8::from_str_radix(&h[0..2], 16).ok()?,
            u8::from_str_radix(&h[2..4], 16).ok()?,
            u8::from_str_radix(&h[4..6], 16).ok()?,
        ]),
        3 => Some([digit(0)? * 17, digit(1)? * 17, digit(2)? * 17]),
        _ => None,
    }
}

/// A float colour rounded to 8 bits the way `matplotlib.colors.to_hex` does:
/// `round(c * 255)` with Python's round-half-to-even, clamped; NaN gives 0.
pub fn to_rgb8(c: RgbF) -> Rgb {
    let q = |v: f64| -> u8 {
        let r = (v * 255.0).round_ties_even();
        if r.is_nan() {
            0
        } else {
            r.clamp(0.0, 255.0) as u8
        }
    };
    [q(c[0]), q(c[1]), q(c[2])]
}

/// An 8-bit colour as matplotlib reads a hex string: each channel `c / 255`.
pub fn to_rgb_f64(rgb: Rgb) -> RgbF {
    [rgb[0] as f64 / 255.0, rgb[1] as f64 / 255.0, rgb[2] as f64 / 255.0]
}

/// The colour names `named_color` knows (matplotlib's CSS4 values).
const NAMED_COLORS: [(&str, Rgb); 29] = [
    ("purple", [0x80, 0x00, 0x80]),
    ("orange", [0xff, 0xa5, 0x00]),
    ("blue", [0x00, 0x00, 0xff]),
    ("green", [0x00, 0x80, 0x00]),
    ("red", [0xff, 0x00, 0x00]),
    ("grey", [0x80, 0x80, 0x80]),
    ("gray", [0x80, 0x80, 0x80]),
    ("black", [0x00, 0x00, 0x00]),
    ("white", [0xff, 0xff, 0xff]),
    ("navy", [0x00, 0x00, 0x80]),
    ("teal", [0x00, 0x80, 0x80]),
    ("olive", [0x80, 0x80, 0x00]),
    ("maroon", [0x80, 0x00, 0x00]),
    ("crimson", [0xdc, 0x14, 0x3c]),
    ("magenta", [0xff, 0x00, 0xff]),
    ("fuchsia", [0xff, 0x00, 0xff]),
    ("cyan", [0x00, 0xff, 0xff]),
    ("aqua", [0x00, 0xff, 0xff]),
    ("yellow", [0xff, 0xff, 0x00]),
    ("pink", [0xff, 0xc0, 0xcb]),
    ("brown", [0xa5, 0x2a, 0x2a]),
    ("gold", [0xff, 0xd7, 0x00]),
    ("indigo", [0x4b, 0x00, 0x82]),
    ("seagreen", [0x2e, 0x8b, 0x57]),
    ("steelblue", [0x46, 0x82, 0xb4]),
    ("darkorange", [0xff, 0x8c, 0x00]),
    ("darkgreen", [0x00, 0x64, 0x00]),
    ("darkblue", [0x00, 0x00, 0x8b]),
    ("darkred", [0x8b, 0x00, 0x00]),
];

/// Matplotlib (CSS4) colour names used with `light_palette`, case-insensitive,
/// or a hex colour (`#rrggbb`, `#rgb`). `"Blue"` and `"blue"` are the same
/// colour, as in matplotlib.
pub fn named_color(name: &str) -> Option<Rgb> {
    let n = name.trim().to_ascii_lowercase();
    if n.starts_with('#') {
        return parse_hex(&n);
    }
    NAMED_COLORS.iter().find(|(k, _)| *k == n).map(|&(_, rgb)| rgb)
}

/// Whether `name` is a palette [`by_name`] knows; if not, a message that says what is (a palette name
/// that is not one would otherwise give the view's default colours without a word).
pub fn check_name(name: &str) -> Result<(), String> {
    if by_name(name).is_some() {
        return Ok(());
    }
    let colors: Vec<&str> = NAMED_COLORS.iter().map(|(k, _)| *k).collect();
    Err(format!(
        "palette {} is not a palette: use rocket (sequential), vlag (diverging), mako, Blues, a colour for a light \
         palette ({}), light:<colour>, #rrggbb or #rgb; any of them with _r reversed",
        crate::text::quote(name),
        colors.join(", ")
    ))
}

// ---------------------------------------------------------------------------
// Luminance and text colour
// ---------------------------------------------------------------------------

/// seaborn's `utils.relative_luminance` on float channels:
/// `L = 0.2126 R + 0.7152 G + 0.0722 B` over linearised channels
/// (`c / 12.92` if `c <= 0.03928`, else `((c + 0.055) / 1.055) ^ 2.4`).
pub fn relative_luminance_f64(c: RgbF) -> f64 {
    linear(c[0]) * 0.2126 + linear(c[1]) * 0.7152 + linear(c[2]) * 0.0722
}

/// One sRGB channel, linearised as seaborn does.
fn linear(v: f64) -> f64 {
    if v <= 0.03928 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

/// [`relative_luminance_f64`] of an 8-bit colour (channels `c / 255`), bit for bit.
pub fn relative_luminance(rgb: Rgb) -> f64 {
    // The 256 linearised channels once: each heatmap looks for its palette's darkest entry, and the three `powf`s per
    // colour were 1 ms of an edit's 7 repaints (bench/element.mjs).
    static LINEAR8: std::sync::OnceLock<[f64; 256]> = std::sync::OnceLock::new();
    let table = LINEAR8.get_or_init(|| std::array::from_fn(|c| linear(c as f64 / 255.0)));
    let [r, g, b] = rgb.map(|c| table[c as usize]);
    r * 0.2126 + g * 0.7152 + b * 0.0722
}

/// seaborn's annotation colour for a cell: dark grey `#262626` if the cell's
/// relative luminance is above 0.408, otherwise white.
pub fn text_color(cell: Rgb) -> Rgb {
    text_color_f64(to_rgb_f64(cell))
}

/// [`text_color`] on the float colour seaborn actually tests (a colormap's
/// float entry); use this (or [`Colormap::text_color_at`]) for exact
/// agreement near the threshold.
pub fn text_color_f64(cell: RgbF) -> Rgb {
    if relative_luminance_f64(cell) > LUMINANCE_THRESHOLD {
        TEXT_DARK
    } else {
        TEXT_LIGHT
    }
}

/// WCAG 2's contrast ratio of two colours, `(L1 + 0.05) / (L2 + 0.05)` with `L1` the lighter
/// relative luminance: 1 (same luminance) to 21 (black on white). Text needs 4.5, other
/// visual information (lines, outlines) 3.
pub fn contrast_ratio(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (relative_luminance(a), relative_luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Whichever of `candidates` has the higher contrast ratio with `against` (the first on a tie).
pub fn more_contrast(against: Rgb, candidates: [Rgb; 2]) -> Rgb {
    let [a, b] = candidates;
    if contrast_ratio(b, against) > contrast_ratio(a, against) {
        b
    } else {
        a
    }
}

// ---------------------------------------------------------------------------
// Normalisation
// ---------------------------------------------------------------------------

/// The range matplotlib's colour bar leaves on the heatmap's norm:
/// `matplotlib.transforms._nonsingular(vmin, vmax, expander=0.1)`. seaborn
/// draws the colour bar before annotating, so cells are coloured with this
/// range. Non-finite ends, or both ends tinier in magnitude than about
/// 2.2e-287, give `(-0.1, 0.1)`; a range narrower than `1e-15` times its
/// largest end is widened by 10 % of each end's magnitude (`(0, 0)` becomes
/// `(-0.1, 0.1)`); ends given in decreasing order are swapped.
pub fn nonsingular(vmin: f64, vmax: f64) -> (f64, f64) {
    const EXPANDER: f64 = 0.1;
    const TINY: f64 = 1e-15;
    if !vmin.is_finite() || !vmax.is_finite() {
        return (-EXPANDER, EXPANDER);
    }
    let (mut lo, mut hi) = if vmax < vmin { (vmax, vmin) } else { (vmin, vmax) };
    let maxabs = lo.abs().max(hi.abs());
    if maxabs < (1e6 / TINY) * f64::MIN_POSITIVE {
        lo = -EXPANDER;
        hi = EXPANDER;
    } else if hi - lo <= maxabs * TINY {
        if hi == 0.0 && lo == 0.0 {
            lo = -EXPANDER;
            hi = EXPANDER;
        } else {
            lo -= EXPANDER * lo.abs();
            hi += EXPANDER * hi.abs();
        }
    }
    (lo, hi)
}

/// Where `value` falls on the colormap, as seaborn's heatmap computes it for
/// data whose (finite) minimum and maximum are `vmin` and `vmax`:
/// `(value - lo) / (hi - lo)` with `(lo, hi) = nonsingular(vmin, vmax)`.
///
/// A constant matrix therefore does **not** divide by zero and does not map to
/// 0 (what a bare `matplotlib.colors.Normalize` would give): seaborn's colour
/// bar widens the range by ±10 %, so every cell lands just below the middle
/// (`2.0` in `[2, 2]` gives 0.4999999999999997, entry 127), and an all-zero
/// matrix gives exactly 0.5. Values outside the range give results outside
/// `[0, 1]` (the colormap clamps them); NaN gives NaN.
pub fn linear_norm(value: f64, vmin: f64, vmax: f64) -> f64 {
    let (lo, hi) = nonsingular(vmin, vmax);
    let span = hi - lo;
    if span == 0.0 || span.is_nan() {
        // Unreachable through `nonsingular` for finite input; kept total.
        return 0.0;
    }
    (value - lo) / span
}

/// Single-step centred normalisation for signed data, with 0 at 0.5: the
/// range is made symmetric, `vrange = max(vmax, -vmin)`, and the result is
/// `0.5 + value / (2 vrange)`. If `vrange` is not positive and finite (all
/// data zero, or bad bounds) every value maps to 0.5.
///
/// seaborn's `center=0` instead re-samples the colormap to 256 entries
/// spanning only the data's part of the symmetric range and then normalises
/// linearly, which can pick a neighbouring entry. For pixel-exact agreement
/// use `cmap.recentred(vmin, vmax, 0.0).at(linear_norm(value, vmin, vmax))`.
pub fn diverging_norm(value: f64, vmin: f64, vmax: f64) -> f64 {
    let vrange = (vmax - 0.0).max(0.0 - vmin);
    if vrange.is_nan() || vrange <= 0.0 || vrange.is_infinite() {
        return 0.5;
    }
    0.5 + value / (2.0 * vrange)
}

// ---------------------------------------------------------------------------
// Colormap
// ---------------------------------------------------------------------------

/// A lookup-table colormap, as matplotlib's `ListedColormap` /
/// `LinearSegmentedColormap` hold it (float RGB entries, usually 256).
#[derive(Clone, Debug, PartialEq)]
pub struct Colormap {
    name: String,
    entries: Vec<RgbF>,
}

impl Colormap {
    /// A colormap from float entries in `[0, 1]` (values are clamped, NaN
    /// becomes 0). An empty list gives a one-entry black map rather than
    /// panicking later.
    pub fn from_f64(name: &str, entries: Vec<RgbF>) -> Colormap {
        let clean = |v: f64| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
        let mut entries: Vec<RgbF> = entries.into_iter().map(|c| [clean(c[0]), clean(c[1]), clean(c[2])]).collect();
        if entries.is_empty() {
            entries.push([0.0, 0.0, 0.0]);
        }
        Colormap { name: name.to_string(), entries }
    }

    /// A colormap from 8-bit entries (each channel read as `c / 255`).
    pub fn from_rgb(name: &str, entries: &[Rgb]) -> Colormap {
        Colormap::from_f64(name, entries.iter().map(|&c| to_rgb_f64(c)).collect())
    }

    /// The name it was built with (`"rocket"`, `"vlag"`, `"light:#800080"` …).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of entries (256 for every map this module builds).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: a colormap has at least one entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The float lookup table.
    pub fn lut(&self) -> &[RgbF] {
        &self.entries
    }

    /// Every entry rounded to 8 bits (as `to_hex(cmap(i))`).
    pub fn entries(&self) -> Vec<Rgb> {
        self.entries.iter().map(|&c| to_rgb8(c)).collect()
    }

    /// Entry `i` rounded to 8 bits; `i` past the end gives the last entry.
    pub fn entry(&self, i: usize) -> Rgb {
        to_rgb8(self.entry_f64(i))
    }

    /// Entry `i` as floats; `i` past the end gives the last entry.
    pub fn entry_f64(&self, i: usize) -> RgbF {
        let last = self.entries.len() - 1;
        self.entries[i.min(last)]
    }

    /// Matplotlib's lookup index for a normalised value: `int(x * N)`, with
    /// `x == 1` taking the last entry, values below 0 (and `-inf`) the first,
    /// above 1 (and `+inf`) the last. **NaN** (matplotlib's transparent "bad"
    /// colour, which seaborn never draws) falls back to the first entry.
    pub fn index_of(&self, x: f64) -> usize {
        let n = self.entries.len();
        if x.is_nan() {
            return 0;
        }
        let mut xa = x * n as f64;
        if xa == n as f64 {
            xa = (n - 1) as f64;
        }
        if xa < 0.0 {
            0
        } else if xa >= n as f64 {
            n - 1
        } else {
            // 0 <= xa < n: truncation is in range.
            (xa as usize).min(n - 1)
        }
    }

    /// The colour of a normalised value `x` (see [`Colormap::index_of`]),
    /// rounded to 8 bits like `to_hex`.
    pub fn at(&self, x: f64) -> Rgb {
        to_rgb8(self.at_f64(x))
    }

    /// Every entry rounded to 8 bits: `table[self.index_of(x)] == self.at(x)`.
    pub fn rgb8_table(&self) -> Vec<Rgb> {
        self.entries.iter().map(|&c| to_rgb8(c)).collect()
    }

    /// The float colour matplotlib gives a cell for normalised value `x`.
    pub fn at_f64(&self, x: f64) -> RgbF {
        self.entries[self.index_of(x)]
    }

    /// The annotation colour seaborn picks for a cell of normalised value `x`
    /// (luminance of the float entry, like seaborn).
    pub fn text_color_at(&self, x: f64) -> Rgb {
        text_color_f64(self.at_f64(x))
    }

    /// The same colours in reverse order (seaborn's `_r` maps).
    pub fn reversed(&self) -> Colormap {
        let mut entries = self.entries.clone();
        entries.reverse();
        Colormap { name: format!("{}_r", self.name), entries }
    }

    /// seaborn's `heatmap(center=...)` re-centring: the colormap restricted to
    /// the data's part of a range made symmetric about `center`, re-sampled to
    /// 256 entries (`ListedColormap(cmap(np.linspace(cmin, cmax, 256)))`).
    /// Colour cells with `recentred.at(linear_norm(v, vmin, vmax))`.
    pub fn recentred(&self, vmin: f64, vmax: f64, center: f64) -> Colormap {
        let a = vmax - center;
        let b = center - vmin;
        // Python's max(a, b): a unless b > a.
        let vrange = if b > a { b } else { a };
        let lo = center - vrange;
        let hi = center + vrange;
        // matplotlib Normalize(lo, hi) without clipping; lo == hi fills 0.
        let norm = |x: f64| if lo == hi { 0.0 } else { (x - lo) / (hi - lo) };
        let cc = linspace(norm(vmin), norm(vmax), LUT_SIZE);
        Colormap { name: self.name.clone(), entries: cc.into_iter().map(|c| self.at_f64(c)).collect() }
    }
}

/// `numpy.linspace(start, stop, num)` (endpoint included), computed the way
/// NumPy does so the samples are bit-identical.
fn linspace(start: f64, stop: f64, num: usize) -> Vec<f64> {
    if num == 0 {
        return Vec::new();
    }
    if num == 1 {
        return vec![start];
    }
    let div = (num - 1) as f64;
    let delta = stop - start;
    let step = delta / div;
    let mut y: Vec<f64> = (0..num)
        .map(|i| if step == 0.0 { (i as f64 / div) * delta + start } else { i as f64 * step + start })
        .collect();
    y[num - 1] = stop;
    y
}

// ---------------------------------------------------------------------------
// HUSL (port of seaborn/external/husl.py 2.1.0)
// ---------------------------------------------------------------------------

/// Port of seaborn's bundled `husl.py`, operation for operation (same
/// constants, same evaluation order, libm `pow`/`sin`/`cos`/`atan2`), so its
/// results agree with seaborn's to the last bit or nearly so.
pub mod husl {
    use super::PI;

    const M: [[f64; 3]; 3] = [[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]];
    const M_INV: [[f64; 3]; 3] = [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]];
    #[allow(dead_code)]
    const REF_X: f64 = 0.95047;
    const REF_Y: f64 = 1.00000;
    #[allow(dead_code)]
    const REF_Z: f64 = 1.08883;
    const REF_U: f64 = 0.19784;
    const REF_V: f64 = 0.46834;
    const LAB_E: f64 = 0.008856;
    const LAB_K: f64 = 903.3;

    /// Python's `math.radians`: `x * (pi / 180)`.
    fn radians(x: f64) -> f64 {
        x * (PI / 180.0)
    }

    /// Python's `math.degrees`: `x * (180 / pi)`.
    fn degrees(x: f64) -> f64 {
        x * (180.0 / PI)
    }

    /// `sum(map(operator.mul, a, b))`: left to right, starting from 0.
    fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
        0.0 + a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    /// `husl.husl_to_rgb(h, s, l)` (unclipped float RGB).
    pub fn husl_to_rgb(h: f64, s: f64, l: f64) -> [f64; 3] {
        let [l, c, h] = husl_to_lch([h, s, l]);
        lch_to_rgb(l, c, h)
    }

    /// `husl.rgb_to_husl(r, g, b)` → `[h, s, l]`.
    pub fn rgb_to_husl(r: f64, g: f64, b: f64) -> [f64; 3] {
        lch_to_husl(rgb_to_lch(r, g, b))
    }

    fn lch_to_rgb(l: f64, c: f64, h: f64) -> [f64; 3] {
        xyz_to_rgb(luv_to_xyz(lch_to_luv([l, c, h])))
    }

    fn rgb_to_lch(r: f64, g: f64, b: f64) -> [f64; 3] {
        luv_to_lch(xyz_to_luv(rgb_to_xyz([r, g, b])))
    }

    /// `husl.max_chroma(L, H)`.
    pub fn max_chroma(l: f64, h: f64) -> f64 {
        let hrad = radians(h);
        let sin_h = hrad.sin();
        let cos_h = hrad.cos();
        let sub1 = (l + 16.0).powf(3.0) / 1560896.0;
        let sub2 = if sub1 > 0.008856 { sub1 } else { l / 903.3 };
        let mut result = f64::INFINITY;
        for row in M.iter() {
            let (m1, m2, m3) = (row[0], row[1], row[2]);
            let top = (0.99915 * m1 + 1.05122 * m2 + 1.14460 * m3) * sub2;
            let rbottom = 0.86330 * m3 - 0.17266 * m2;
            let lbottom = 0.12949 * m3 - 0.38848 * m1;
            let bottom = (rbottom * sin_h + lbottom * cos_h) * sub2;
            for t in [0.0, 1.0] {
                let c = l * (top - 1.05122 * t) / (bottom + 0.17266 * sin_h * t);
                if c > 0.0 && c < result {
                    result = c;
                }
            }
        }
        result
    }

    fn f(t: f64) -> f64 {
        if t > LAB_E {
            t.powf(1.0 / 3.0)
        } else {
            7.787 * t + 16.0 / 116.0
        }
    }

    fn f_inv(t: f64) -> f64 {
        if t.powf(3.0) > LAB_E {
            t.powf(3.0)
        } else {
            (116.0 * t - 16.0) / LAB_K
        }
    }

    fn from_linear(c: f64) -> f64 {
        if c <= 0.0031308 {
            12.92 * c
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        }
    }

    fn to_linear(c: f64) -> f64 {
        let a = 0.055;
        if c > 0.04045 {
            ((c + a) / (1.0 + a)).powf(2.4)
        } else {
            c / 12.92
        }
    }

    fn xyz_to_rgb(t: [f64; 3]) -> [f64; 3] {
        [from_linear(dot(&M[0], &t)), from_linear(dot(&M[1], &t)), from_linear(dot(&M[2], &t))]
    }

    fn rgb_to_xyz(t: [f64; 3]) -> [f64; 3] {
        let rgbl = [to_linear(t[0]), to_linear(t[1]), to_linear(t[2])];
        [dot(&M_INV[0], &rgbl), dot(&M_INV[1], &rgbl), dot(&M_INV[2], &rgbl)]
    }

    fn xyz_to_luv([x, y, z]: [f64; 3]) -> [f64; 3] {
        if x == 0.0 && y == 0.0 && z == 0.0 {
            return [0.0, 0.0, 0.0];
        }
        let var_u = (4.0 * x) / (x + (15.0 * y) + (3.0 * z));
        let var_v = (9.0 * y) / (x + (15.0 * y) + (3.0 * z));
        let l = 116.0 * f(y / REF_Y) - 16.0;
        if l == 0.0 {
            return [0.0, 0.0, 0.0];
        }
        let u = 13.0 * l * (var_u - REF_U);
        let v = 13.0 * l * (var_v - REF_V);
        [l, u, v]
    }

    fn luv_to_xyz([l, u, v]: [f64; 3]) -> [f64; 3] {
        if l == 0.0 {
            return [0.0, 0.0, 0.0];
        }
        let var_y = f_inv((l + 16.0) / 116.0);
        let var_u = u / (13.0 * l) + REF_U;
        let var_v = v / (13.0 * l) + REF_V;
        let y = var_y * REF_Y;
        let x = 0.0 - (9.0 * y * var_u) / ((var_u - 4.0) * var_v - var_u * var_v);
        let z = (9.0 * y - (15.0 * var_v * y) - (var_v * x)) / (3.0 * var_v);
        [x, y, z]
    }

    fn luv_to_lch([l, u, v]: [f64; 3]) -> [f64; 3] {
        let c = (u.powf(2.0) + v.powf(2.0)).powf(1.0 / 2.0);
        let hrad = v.atan2(u);
        let mut h = degrees(hrad);
        if h < 0.0 {
            h += 360.0;
        }
        [l, c, h]
    }

    fn lch_to_luv([l, c, h]: [f64; 3]) -> [f64; 3] {
        let hrad = radians(h);
        [l, hrad.cos() * c, hrad.sin() * c]
    }

    fn husl_to_lch([h, s, l]: [f64; 3]) -> [f64; 3] {
        if l > 99.9999999 {
            return [100.0, 0.0, h];
        }
        if l < 0.00000001 {
            return [0.0, 0.0, h];
        }
        let mx = max_chroma(l, h);
        [l, mx / 100.0 * s, h]
    }

    fn lch_to_husl([l, c, h]: [f64; 3]) -> [f64; 3] {
        if l > 99.9999999 {
            return [h, 0.0, 100.0];
        }
        if l < 0.00000001 {
            return [h, 0.0, 0.0];
        }
        let mx = max_chroma(l, h);
        [h, c / mx * 100.0, l]
    }
}

// ---------------------------------------------------------------------------
// Palettes
// ---------------------------------------------------------------------------

/// The light end seaborn's `light_palette` blends from:
/// `HUSL(h, 0.15 s, 95)` of the colour's HUSL `(h, s, l)`, clipped to `[0, 1]`.
pub fn light_end(color: Rgb) -> RgbF {
    let [r, g, b] = to_rgb_f64(color);
    let [h, s, _] = husl::rgb_to_husl(r, g, b);
    let gray = husl::husl_to_rgb(h, 0.15 * s, 95.0);
    // np.clip(color, 0, 1)
    let clip = |v: f64| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    [clip(gray[0]), clip(gray[1]), clip(gray[2])]
}

/// seaborn's `light_palette(color, as_cmap=True)`: a 256-entry linear RGB
/// blend from [`light_end`] (value 0) to `color` (value 1), computed like
/// matplotlib's `LinearSegmentedColormap.from_list(..)` lookup table.
pub fn light_palette(color: Rgb) -> Colormap {
    let c0 = light_end(color);
    let c1 = to_rgb_f64(color);
    let n = LUT_SIZE;
    // matplotlib _create_lookup_table with x = [0, N-1]:
    // xind = (N-1) * linspace(0, 1, N) ** 1.0; distance = xind / (N-1);
    // lut = [c0] + distance * (c1 - c0) + c0 + [c1], clipped.
    let lin = linspace(0.0, 1.0, n);
    let nm1 = (n - 1) as f64;
    let mut entries = Vec::with_capacity(n);
    for (i, &t) in lin.iter().enumerate() {
        let mut e = [0.0; 3];
        for k in 0..3 {
            e[k] = if i == 0 {
                c0[k]
            } else if i == n - 1 {
                c1[k]
            } else {
                let xind = nm1 * t;
                let distance = (xind - 0.0) / (nm1 - 0.0);
                distance * (c1[k] - c0[k]) + c0[k]
            };
        }
        entries.push(e);
    }
    Colormap::from_f64(&format!("light:{}", to_hex(color)), entries)
}

/// The perceptual sequential map: seaborn's `rocket` (dark purple-black →
/// red → cream), the colormap `sns.heatmap` uses when none is given.
pub fn sequential() -> Colormap {
    Colormap::from_f64(SEQUENTIAL_NAME, decimal_lut(&ROCKET_LUT))
}

/// The diverging map for signed data: seaborn's `vlag` (blue → near-white →
/// red). Its middle is light, so annotations around 0 keep dark text.
/// Use with [`Colormap::recentred`] (exact seaborn `center=0`) or
/// [`diverging_norm`].
pub fn diverging() -> Colormap {
    Colormap::from_f64(DIVERGING_NAME, decimal_lut(&VLAG_LUT))
}

/// matplotlib's `Blues` (`matplotlib/_cm.py`): ColorBrewer's nine colours, n / 255.
const BLUES: [[u8; 3]; 9] = [
    [247, 251, 255],
    [222, 235, 247],
    [198, 219, 239],
    [158, 202, 225],
    [107, 174, 214],
    [66, 146, 198],
    [33, 113, 181],
    [8, 81, 156],
    [8, 48, 107],
];

/// `Blues` as matplotlib makes its 256 entries (`LinearSegmentedColormap.from_list`, then `_create_lookup_table`),
/// in the same float operations, so each entry is matplotlib's bit for bit: the colours sit at
/// `np.linspace(0, 1, 9) * 255`, entry i at `255 * np.linspace(0, 1, 256)[i]`, linearly between its two colours.
fn blues() -> Colormap {
    const N: usize = 256;
    let stops: Vec<RgbF> = BLUES.iter().map(|c| c.map(|v| f64::from(v) / 255.0)).collect();
    let at: Vec<f64> =
        (0..stops.len()).map(|k| (k as f64 * (1.0 / (stops.len() - 1) as f64)) * (N - 1) as f64).collect();
    let step = 1.0 / (N - 1) as f64;
    let lut = (0..N)
        .map(|i| {
            if i == 0 {
                return stops[0];
            }
            if i == N - 1 {
                return stops[stops.len() - 1];
            }
            let x = (N - 1) as f64 * (i as f64 * step);
            let k = at.iter().position(|&a| a >= x).expect("x ≤ 255, the last stop");
            let distance = (x - at[k - 1]) / (at[k] - at[k - 1]);
            [0, 1, 2].map(|c| (distance * (stops[k][c] - stops[k - 1][c]) + stops[k - 1][c]).clamp(0.0, 1.0))
        })
        .collect();
    Colormap::from_f64("Blues", lut)
}

/// A colormap by name (case-insensitive): `"sequential"`/`"rocket"`,
/// `"diverging"`/`"vlag"`, seaborn's `"mako"`, matplotlib's `"Blues"`; otherwise a light palette of a colour
/// accepted by [`named_color`] (`"purple"`, `"orange"`, `"Blue"`, `"#1f77b4"` …), optionally written the
/// seaborn way as `"light:<colour>"`. Each with an optional `_r` suffix for the reversed map.
pub fn by_name(name: &str) -> Option<Colormap> {
    let n = name.trim().to_ascii_lowercase();
    let (base, rev) = match n.strip_suffix("_r") {
        Some(b) => (b, true),
        None => (n.as_str(), false),
    };
    let cm = match base {
        "sequential" | "rocket" => sequential(),
        "diverging" | "vlag" => diverging(),
        "mako" => Colormap::from_f64("mako", decimal_lut(&MAKO_LUT)),
        "blues" => blues(),
        _ => named_color(base.strip_prefix("light:").unwrap_or(base)).map(light_palette)?,
    };
    Some(if rev { cm.reversed() } else { cm })
}

// ---------------------------------------------------------------------------
// Embedded tables (generated by `tests/goldens/gen_seaborn_goldens.py --rust-tables`)
// ---------------------------------------------------------------------------

/// The tables hold seaborn's 8-decimal values times 1e8: `n / 1e8` is the
/// correctly rounded quotient, the same f64 that parsing the decimal gives,
/// at half the size of f64 literals in the wasm bundle.
fn decimal_lut(table: &[[u32; 3]; 256]) -> Vec<RgbF> {
    table.iter().map(|c| c.map(|n| n as f64 / 1e8)).collect()
}

/// seaborn 0.13.2 `rocket` (`seaborn/cm.py`), 256 RGB float entries.
const ROCKET_LUT: [[u32; 3]; 256] = [
    [1060815, 1808215, 10018654],
    [1428972, 2048237, 10374486],
    [1831941, 2297660, 10738511],
    [2275049, 2554464, 11108639],
    [2759119, 2818316, 11483751],
    [3285175, 3088792, 11863035],
    [3853466, 3365771, 12245873],
    [4447016, 3648425, 12631831],
    [5032105, 3936808, 13020508],
    [5611171, 4224835, 13411624],
    [6185310, 4504866, 13804929],
    [6755457, 4778179, 14200206],
    [7322360, 5045047, 14597263],
    [7887080, 5305461, 14995981],
    [8450105, 5559631, 15396203],
    [9011319, 5808059, 15797687],
    [9572396, 6050127, 16200507],
    [10132312, 6286782, 16604287],
    [10692823, 6517224, 17009175],
    [11253150, 6742194, 17414848],
    [11813947, 6961499, 17821272],
    [12375803, 7174938, 18228425],
    [12938228, 7383015, 18636053],
    [13501631, 7585609, 19044109],
    [14066867, 7782240, 19452676],
    [14633406, 7973393, 19861510],
    [15201338, 8159108, 20270523],
    [15770877, 8339312, 20679668],
    [16342174, 8513960, 21088893],
    [16915387, 8682996, 21498104],
    [17489524, 8848235, 21902940],
    [18065495, 9009031, 22303512],
    [18643324, 9165431, 22699705],
    [19223028, 9317479, 23091409],
    [19804623, 9465217, 23478512],
    [20388117, 9608689, 23860907],
    [20973515, 9747934, 24238489],
    [21560818, 9882993, 24611154],
    [22150014, 10013944, 24978680],
    [22741085, 10140876, 25340813],
    [23334047, 10263737, 25697736],
    [23928891, 10382562, 26049360],
    [24525608, 10497384, 26395596],
    [25124182, 10608236, 26736359],
    [25724602, 10715148, 27071569],
    [26326851, 10818150, 27401148],
    [26930915, 10917270, 27725020],
    [27536766, 11012568, 28043021],
    [28144375, 11104133, 28354890],
    [28753740, 11191896, 28660853],
    [29364846, 11275876, 28960850],
    [29977678, 11356089, 29254823],
    [30592213, 11432553, 29542718],
    [31208435, 11505284, 29824485],
    [31826327, 11574290, 30100076],
    [32445869, 11639585, 30369448],
    [33067031, 11701189, 30632563],
    [33689808, 11759095, 30889380],
    [34314168, 11813362, 31139721],
    [34940101, 11863987, 31383550],
    [35567600, 11910909, 31620996],
    [36196644, 11954130, 31852037],
    [36827206, 11993653, 32076656],
    [37459292, 12029443, 32294825],
    [38092887, 12061482, 32506528],
    [38727975, 12089756, 32711750],
    [39364518, 12114272, 32910494],
    [40002537, 12134964, 33102734],
    [40642019, 12151801, 33288464],
    [41282936, 12164769, 33467689],
    [41925278, 12173833, 33640407],
    [42569057, 12178916, 33806605],
    [43214263, 12179973, 33966284],
    [43860848, 12177004, 34119475],
    [44508855, 12169883, 34266151],
    [45158266, 12158557, 34406324],
    [45809049, 12142996, 34540024],
    [46461238, 12123063, 34667231],
    [47114798, 12098721, 34787978],
    [47769736, 12069864, 34902273],
    [48426077, 12036349, 35010104],
    [49083761, 11998161, 35111537],
    [49742847, 11955087, 35206533],
    [50403286, 11907081, 35295152],
    [51065109, 11853959, 35377385],
    [51728314, 11795580, 35453252],
    [52392883, 11731817, 35522789],
    [53058853, 11662445, 35585982],
    [53726173, 11587369, 35642903],
    [54394898, 11506307, 35693521],
    [55064260, 11420757, 35737863],
    [55734473, 11330456, 35775059],
    [56405586, 11235265, 35804813],
    [57077365, 11135597, 35827146],
    [57749910, 11031233, 35841679],
    [58422945, 10922707, 35848469],
    [59096382, 10810205, 35847347],
    [59770215, 10693774, 35838029],
    [60444226, 10573912, 35820487],
    [61118304, 10450943, 35794557],
    [61792306, 10325288, 35760108],
    [62466162, 10197244, 35716891],
    [63139686, 10067417, 35664819],
    [63812122, 9938212, 35603757],
    [64483795, 9808910, 35533555],
    [65154562, 9680192, 35454107],
    [65824241, 9552918, 35365290],
    [66492652, 9428017, 35266970],
    [67159578, 9306598, 35159077],
    [67824099, 9192342, 35041480],
    [68486300, 9085633, 34914061],
    [69146268, 8986750, 34776864],
    [69803757, 8897226, 34629860],
    [70457834, 8821290, 34473046],
    [71108138, 8761223, 34306350],
    [71755070, 8716212, 34129974],
    [72398193, 8688725, 33943958],
    [73035829, 8686230, 33748452],
    [73669146, 8704683, 33543669],
    [74297501, 8747196, 33329799],
    [74919318, 8820542, 33107204],
    [75535825, 8919792, 32876184],
    [76145589, 9050716, 32637117],
    [76748424, 9213602, 32390525],
    [77344838, 9405684, 32136808],
    [77932641, 9634794, 31876642],
    [78513609, 9892473, 31610488],
    [79085854, 10184672, 31339100],
    [79650140, 10506637, 31063031],
    [80205987, 10858333, 30783000],
    [80752799, 11239964, 30499738],
    [81291606, 11645784, 30213802],
    [81820481, 12080606, 29926105],
    [82341472, 12535343, 29637050],
    [82852822, 13014118, 29347474],
    [83355779, 13511035, 29057852],
    [83850183, 14025098, 28768780],
    [84335441, 14556683, 28480819],
    [84813096, 15099892, 28194300],
    [85281737, 15657772, 27909826],
    [85742602, 16225830, 27627462],
    [86196552, 16801239, 27346473],
    [86641628, 17387796, 27070818],
    [87079129, 17982114, 26797378],
    [87507281, 18587368, 26529697],
    [87925878, 19203259, 26268136],
    [88334170, 19830556, 26014181],
    [88731387, 20469941, 25769539],
    [89116859, 21121788, 25535920],
    [89490337, 21785614, 25314362],
    [89850260, 22463251, 25108745],
    [90197527, 23152063, 24918223],
    [90530097, 23854541, 24748098],
    [90848638, 24568473, 24598324],
    [91153300, 25292623, 24470258],
    [91442250, 26028902, 24369359],
    [91717106, 26773821, 24294137],
    [91978131, 27526191, 24245973],
    [92223947, 28287251, 24229568],
    [92456587, 29053388, 24242622],
    [92676657, 29823282, 24285536],
    [92882964, 30598085, 24362274],
    [93078135, 31373977, 24468803],
    [93262051, 32150930, 24606461],
    [93435067, 32928362, 24775328],
    [93599076, 33703942, 24972157],
    [93752831, 34479177, 25199928],
    [93899289, 35250734, 25452808],
    [94036561, 36020899, 25734661],
    [94167588, 36786594, 26039490],
    [94291042, 37549479, 26369821],
    [94408513, 38308110, 26722004],
    [94520419, 39062329, 27094924],
    [94625977, 39813168, 27489742],
    [94727016, 40559090, 27902322],
    [94823505, 41300424, 28332283],
    [94914549, 42038251, 28780969],
    [95001704, 42771398, 29244728],
    [95085121, 43500005, 29722817],
    [95165009, 44224144, 30214494],
    [95240440, 44944853, 30721050],
    [95312556, 45661389, 31239776],
    [95381595, 46373781, 31769923],
    [95447591, 47082238, 32310953],
    [95510255, 47787236, 32862553],
    [95569679, 48489115, 33421404],
    [95626788, 49187351, 33985601],
    [95681685, 49882008, 34555431],
    [95734390, 50573243, 35130912],
    [95784842, 51261283, 35711942],
    [95833051, 51946267, 36298589],
    [95879054, 52628305, 36890904],
    [95922872, 53307513, 37488950],
    [95964538, 53983991, 38092784],
    [96004345, 54657593, 38702920],
    [96042097, 55328624, 39319057],
    [96077819, 55997184, 39941173],
    [96111520, 56663370, 40569343],
    [96143273, 57327231, 41203603],
    [96173392, 57988594, 41844491],
    [96201757, 58647675, 42491751],
    [96228344, 59304598, 43145271],
    [96253168, 59959440, 43805131],
    [96276513, 60612062, 44471698],
    [96298491, 61262470, 45145074],
    [96318967, 61910879, 45824902],
    [96337949, 62557360, 46511271],
    [96355923, 63201624, 47204746],
    [96372785, 63843852, 47905028],
    [96388426, 64484214, 48611960],
    [96403203, 65122535, 49325780],
    [96417332, 65758729, 50046894],
    [96430630, 66393045, 50774670],
    [96443322, 67025402, 51509334],
    [96455845, 67655564, 52251447],
    [96467922, 68283846, 53000231],
    [96479861, 68910113, 53756026],
    [96492035, 69534192, 54519170],
    [96504223, 70156360, 55288920],
    [96516917, 70776351, 56065930],
    [96530224, 71394212, 56849894],
    [96544032, 72010124, 57640375],
    [96559206, 72623592, 58438387],
    [96575293, 73235058, 59242739],
    [96592829, 73844258, 60053991],
    [96612013, 74451182, 60871954],
    [96632832, 75055966, 61696136],
    [96656022, 75658231, 62527295],
    [96681185, 76258381, 63364277],
    [96709183, 76855969, 64207921],
    [96739773, 77451297, 65057302],
    [96773482, 78044149, 65912731],
    [96810471, 78634563, 66773889],
    [96850919, 79222565, 67640460],
    [96893132, 79809112, 68512266],
    [96935926, 80395415, 69383201],
    [96980280, 80981139, 70252255],
    [97025511, 81566605, 71120296],
    [97071849, 82151775, 71987163],
    [97120159, 82736371, 72851999],
    [97169389, 83320847, 73716071],
    [97220061, 83905052, 74578903],
    [97272597, 84488881, 75440141],
    [97327085, 85072354, 76299805],
    [97383206, 85655639, 77158353],
    [97441222, 86238689, 78015619],
    [97501782, 86821321, 78871034],
    [97564391, 87403763, 79725261],
    [97628674, 87986189, 80578830],
    [97696114, 88568129, 81430324],
    [97765722, 89149971, 82280948],
    [97837585, 89731727, 83130786],
    [97912374, 90313207, 83979337],
    [97989100, 90894778, 84827858],
    [98067764, 91476465, 85676611],
    [98137749, 92061729, 86536915],
];

/// seaborn 0.13.2 `vlag` (`seaborn/cm.py`), 256 RGB float entries.
const VLAG_LUT: [[u32; 3]; 256] = [
    [13850039, 41331206, 74052025],
    [15077609, 41762684, 73970427],
    [16235219, 42191910, 73896670],
    [17333220, 42619024, 73832537],
    [18382538, 43044226, 73776764],
    [19394034, 43467720, 73725867],
    [20367115, 43889576, 73685314],
    [21313625, 44310003, 73648045],
    [22231173, 44729079, 73619681],
    [23125148, 45146945, 73597803],
    [23998101, 45563715, 73582230],
    [24853358, 45979489, 73571524],
    [25691416, 46394370, 73566943],
    [26513894, 46808455, 73568319],
    [27322194, 47221835, 73575497],
    [28117543, 47634598, 73588332],
    [28901021, 48046826, 73606686],
    [29673580, 48458597, 73630433],
    [30436071, 48869986, 73659451],
    [31189550, 49281055, 73693255],
    [31935389, 49691847, 73730851],
    [32672701, 50102470, 73774013],
    [33402607, 50512971, 73821941],
    [34125337, 50923419, 73874905],
    [34840921, 51333892, 73933402],
    [35551826, 51744353, 73994642],
    [36256760, 52154929, 74060763],
    [36956356, 52565656, 74131327],
    [37649902, 52976642, 74207698],
    [38340273, 53387791, 74286286],
    [39025859, 53799253, 74369620],
    [39706821, 54211081, 74457800],
    [40384046, 54623277, 74549872],
    [41058241, 55035849, 74645094],
    [41728385, 55448919, 74745174],
    [42395178, 55862494, 74849357],
    [43059640, 56276546, 74956387],
    [43720440, 56691228, 75068412],
    [44379090, 57106468, 75183427],
    [45035117, 57522350, 75302312],
    [45687824, 57938983, 75426297],
    [46339713, 58356191, 75551816],
    [46988778, 58774195, 75682037],
    [47635605, 59192986, 75816245],
    [48281101, 59612520, 75953212],
    [48923740, 60032986, 76095418],
    [49566225, 60454154, 76238852],
    [50206137, 60876307, 76387371],
    [50845128, 61299312, 76538551],
    [51482580, 61723272, 76693475],
    [52118385, 62148236, 76852436],
    [52753571, 62574126, 77013939],
    [53386831, 63001125, 77180152],
    [54020159, 63429038, 77348030],
    [54651272, 63858165, 77521306],
    [55282975, 64288207, 77695608],
    [55912585, 64719519, 77875327],
    [56542599, 65151828, 78056551],
    [57170924, 65585426, 78242747],
    [57799572, 66020090, 78430751],
    [58426817, 66456073, 78623458],
    [59054400, 66893178, 78818117],
    [59680758, 67331643, 79017369],
    [60307553, 67771273, 79218572],
    [60934065, 68212194, 79422987],
    [61559495, 68654548, 79632020],
    [62185554, 69098125, 79842918],
    [62810662, 69543176, 80058381],
    [63436425, 69989499, 80275812],
    [64061445, 70437326, 80497621],
    [64687060, 70886488, 80721641],
    [65312213, 71337170, 80949719],
    [65937818, 71789261, 81180392],
    [66563334, 72242871, 81414642],
    [67189155, 72697967, 81651872],
    [67815314, 73154569, 81892097],
    [68441395, 73612771, 82136094],
    [69068321, 74072452, 82382353],
    [69694776, 74533850, 82633199],
    [70322431, 74996721, 82885830],
    [70949595, 75461368, 83143221],
    [71577740, 75927574, 83402904],
    [72206299, 76395461, 83665922],
    [72835227, 76865061, 83932420],
    [73465238, 77336280, 84201224],
    [74094862, 77809393, 84474951],
    [74725683, 78284158, 84750915],
    [75357103, 78760701, 85030217],
    [75988961, 79239077, 85313207],
    [76621987, 79719185, 85598668],
    [77255045, 80201250, 85888658],
    [77889241, 80685102, 86181298],
    [78524572, 81170768, 86476656],
    [79159841, 81658489, 86776906],
    [79796459, 82148036, 87079620],
    [80434168, 82639479, 87385315],
    [81072210, 83132983, 87695392],
    [81711301, 83628440, 88008641],
    [82351479, 84125863, 88325045],
    [82992772, 84625263, 88644594],
    [83634359, 85126806, 88968780],
    [84277295, 85630293, 89295721],
    [84921192, 86135782, 89626076],
    [85566206, 86643200, 89959467],
    [86211514, 87152627, 90297183],
    [86857483, 87663856, 90638248],
    [87504231, 88176648, 90981938],
    [88151194, 88690782, 91328493],
    [88797938, 89205857, 91677544],
    [89443865, 89721298, 92028540],
    [90088204, 90236294, 92380601],
    [90729768, 90749778, 92732797],
    [91367037, 91260329, 93083814],
    [91998105, 91766106, 93431861],
    [92620596, 92264789, 93774647],
    [93231683, 92753510, 94109192],
    [93827772, 93228880, 94432312],
    [94404755, 93686925, 94740137],
    [94958284, 94123072, 95027696],
    [95482682, 94532450, 95291103],
    [95972480, 94909728, 95525103],
    [96422552, 95249273, 95723271],
    [96826161, 95545812, 95882188],
    [97178458, 95793984, 95995705],
    [97474105, 95989142, 96059997],
    [97708604, 96127366, 96071853],
    [97877855, 96205832, 96030095],
    [97978484, 96222949, 95935496],
    [98059970, 96155216, 95813083],
    [98152619, 95993719, 95639322],
    [98197260, 95766608, 95399269],
    [98191855, 95478730, 95098107],
    [98138514, 95134771, 94740644],
    [98040845, 94739906, 94332125],
    [97902107, 94300131, 93878672],
    [97729348, 93820409, 93385135],
    [97525330, 93307300, 92858252],
    [97297834, 92765261, 92302309],
    [97049104, 92200317, 91723505],
    [96784372, 91616744, 91126063],
    [96507281, 91018664, 90514124],
    [96222034, 90409203, 89890756],
    [95930790, 89791478, 89259122],
    [95635626, 89167908, 88621654],
    [95338303, 88540373, 87980238],
    [95040174, 87910333, 87336339],
    [94742246, 87278899, 86691076],
    [94445249, 86646893, 86045277],
    [94150476, 86014606, 85399191],
    [93857394, 85382798, 84753642],
    [93566206, 84751766, 84108935],
    [93277194, 84121640, 83465197],
    [92990106, 83492672, 82822708],
    [92704736, 82865028, 82181656],
    [92422703, 82238092, 81541333],
    [92142581, 81612448, 80902415],
    [91864501, 80988032, 80264838],
    [91587578, 80365187, 79629001],
    [91313670, 79743115, 78994000],
    [91041602, 79122265, 78360361],
    [90771071, 78502727, 77728196],
    [90501581, 77884674, 77097710],
    [90235365, 77267117, 76467793],
    [89970190, 76650962, 75839484],
    [89705346, 76036481, 75213100],
    [89444021, 75422253, 74587047],
    [89183355, 74809474, 73962689],
    [88923216, 74198168, 73340061],
    [88665892, 73587283, 72717995],
    [88408839, 72977904, 72097718],
    [88153537, 72369332, 71478461],
    [87899389, 71761790, 70860487],
    [87645157, 71155805, 70244390],
    [87393990, 70549893, 69628540],
    [87142626, 69945510, 69014561],
    [86892680, 69341868, 68401597],
    [86643562, 68739200, 67789917],
    [86394434, 68137863, 67179927],
    [86147586, 67536728, 66570400],
    [85899928, 66937226, 65962920],
    [85654668, 66337773, 65355770],
    [85408818, 65739772, 64750494],
    [85164413, 65142189, 64145983],
    [84920091, 64545650, 63542932],
    [84676427, 63949827, 62941000],
    [84433231, 63354773, 62340261],
    [84190106, 62760645, 61740899],
    [83947935, 62166951, 61142404],
    [83705380, 61574332, 60545478],
    [83463975, 60981951, 59949247],
    [83221877, 60390724, 59354700],
    [82980985, 59799607, 58760751],
    [82740268, 59209095, 58167944],
    [82498638, 58619730, 57576866],
    [82258181, 58030340, 56986307],
    [82016611, 57442123, 56397539],
    [81776305, 56853725, 55809173],
    [81534551, 56266602, 55222741],
    [81294293, 55679056, 54636510],
    [81052113, 55092973, 54052443],
    [80811509, 54506305, 53468464],
    [80568952, 53921036, 52886622],
    [80327506, 53335335, 52305077],
    [80084727, 52750583, 51725256],
    [79842217, 52165780, 51146173],
    [79599382, 51581223, 50568155],
    [79355781, 50997127, 49991444],
    [79112596, 50412707, 49415289],
    [78867442, 49829386, 48841129],
    [78623060, 49245398, 48267247],
    [78376870, 48662309, 47695216],
    [78130809, 48078830, 47123805],
    [77884467, 47495151, 46553236],
    [77636283, 46912235, 45984473],
    [77388383, 46328617, 45416141],
    [77138912, 45745466, 44849398],
    [76888874, 45162042, 44283573],
    [76638802, 44577901, 43718292],
    [76386116, 43994762, 43155211],
    [76133542, 43410655, 42592523],
    [75880631, 42825801, 42030488],
    [75624913, 42241905, 41470727],
    [75369190, 41656866, 40911347],
    [75112748, 41071104, 40352792],
    [74854331, 40485474, 39795890],
    [74594723, 39899309, 39240088],
    [74334332, 39312199, 38685075],
    [74073277, 38723941, 38130740],
    [73809409, 38136133, 37578553],
    [73544692, 37547129, 37027123],
    [73278943, 36956954, 36476549],
    [73011829, 36365761, 35927038],
    [72743485, 35773314, 35378465],
    [72472722, 35180504, 34831662],
    [72200473, 34586421, 34285937],
    [71927052, 33990649, 33741033],
    [71652049, 33393396, 33197219],
    [71375362, 32794602, 32654545],
    [71096951, 32194148, 32113016],
    [70816772, 31591904, 31572637],
    [70534784, 30987734, 31033414],
    [70250944, 30381489, 30495353],
    [69965211, 29773010, 29958460],
    [69677540, 29162126, 29422741],
    [69388446, 28548074, 28887769],
    [69097561, 27930960, 28353795],
    [68803513, 27311993, 27821876],
    [68507940, 26689144, 27290694],
    [68210800, 26062114, 26760246],
    [67911013, 25431770, 26231367],
    [67609393, 24796818, 25703372],
    [67305921, 24156846, 25176238],
    [67000176, 23511902, 24650278],
    [66693423, 22859879, 24124404],
    [66384410, 22201742, 23599610],
    [66080672, 21526712, 23069468],
];

/// seaborn 0.13.2 `mako` (seaborn/cm.py), 256 RGB entries: the 8-decimal floats times 1e8.
const MAKO_LUT: [[u32; 3]; 256] = [
    [4503935, 1482344, 2092227],
    [4933018, 1709292, 2535719],
    [5356262, 1950702, 3018802],
    [5774337, 2205989, 3545515],
    [6188095, 2474764, 4115287],
    [6598247, 2756650, 4691409],
    [7005374, 3051278, 5264306],
    [7409947, 3358324, 5834631],
    [7812339, 3677446, 6403249],
    [8212852, 4008330, 6970862],
    [8611731, 4339148, 7538208],
    [9009161, 4664706, 8105568],
    [9405308, 4985685, 8673591],
    [9800301, 5302279, 9242646],
    [10194255, 5614641, 9813162],
    [10587261, 5922941, 10385400],
    [10979420, 6227277, 10959847],
    [11370826, 6527747, 11536893],
    [11761516, 6824548, 12116393],
    [12151575, 7117741, 12698763],
    [12541095, 7407363, 13284420],
    [12930083, 7693611, 13873064],
    [13317849, 7976988, 14465095],
    [13701138, 8259683, 15060265],
    [14079223, 8542126, 15659379],
    [14452486, 8824175, 16262484],
    [14820351, 9106304, 16869476],
    [15183185, 9388372, 17480366],
    [15540398, 9670855, 18094993],
    [15892417, 9953561, 18713384],
    [16238588, 10236998, 19335329],
    [16579435, 10520905, 19960847],
    [16914226, 10805832, 20589698],
    [17243586, 11091443, 21221911],
    [17566717, 11378321, 21857219],
    [17884322, 11666074, 22495650],
    [18195582, 11955283, 23136943],
    [18501213, 12245547, 23781116],
    [18800459, 12537395, 24427914],
    [19093944, 12830470, 25077369],
    [19381092, 13125179, 25729255],
    [19662307, 13421303, 26383543],
    [19937337, 13719028, 27040111],
    [20206187, 14018372, 27698891],
    [20469116, 14319196, 28359861],
    [20725547, 14621882, 29022775],
    [20976258, 14925954, 29687795],
    [21220409, 15231929, 30354703],
    [21458611, 15539445, 31023563],
    [21690827, 15848519, 31694355],
    [21916481, 16159489, 32366939],
    [22136310, 16471913, 33041431],
    [22349947, 16785990, 33717781],
    [22557140, 17101850, 34395925],
    [22758415, 17419169, 35075983],
    [22953569, 17738041, 35757941],
    [23142077, 18058733, 36441730],
    [23324540, 18380872, 37127514],
    [23500920, 18704459, 37815280],
    [23670785, 19029700, 38504973],
    [23834119, 19356547, 39196711],
    [23991189, 19684817, 39890581],
    [24141903, 20014508, 40586670],
    [24286214, 20345642, 41284840],
    [24423453, 20678459, 41985299],
    [24554109, 21012669, 42688124],
    [24678150, 21348266, 43393244],
    [24795393, 21685249, 44100880],
    [24905614, 22023618, 44811300],
    [25007383, 22365053, 45519562],
    [25098926, 22710664, 46223892],
    [25179696, 23060342, 46925447],
    [25249346, 23414353, 47623196],
    [25307401, 23772973, 48316271],
    [25353152, 24136961, 49001976],
    [25386167, 24506548, 49679407],
    [25406082, 24881640, 50348932],
    [25412435, 25262843, 51007843],
    [25404842, 25650743, 51653282],
    [25383134, 26044852, 52286845],
    [25347050, 26446165, 52903422],
    [25296722, 26854280, 53503572],
    [25232260, 27269346, 54085315],
    [25153974, 27691629, 54645752],
    [25062402, 28120467, 55185939],
    [24958205, 28556371, 55701246],
    [24842386, 28998148, 56194601],
    [24715928, 29446327, 56660884],
    [24580099, 29899398, 57104399],
    [24436202, 30357852, 57519929],
    [24285591, 30819938, 57913247],
    [24129828, 31286235, 58278615],
    [23970131, 31754950, 58622720],
    [23807973, 32226344, 58941872],
    [23644557, 32699241, 59240198],
    [23481130, 33173196, 59518282],
    [23318874, 33648036, 59775543],
    [23158550, 34122763, 60016456],
    [23001121, 34597357, 60240251],
    [22847480, 35071512, 60447840],
    [22698081, 35544612, 60642528],
    [22553305, 36016515, 60825252],
    [22413977, 36487341, 60994938],
    [22280246, 36956728, 61154118],
    [22152555, 37424409, 61304472],
    [22030752, 37890437, 61446646],
    [21915380, 38354668, 61581561],
    [21806257, 38817169, 61709794],
    [21703799, 39277882, 61831922],
    [21607792, 39736958, 61948028],
    [21518463, 40194196, 62059763],
    [21435467, 40649717, 62167507],
    [21358663, 41103579, 62271724],
    [21288172, 41555771, 62373011],
    [21223835, 42006355, 62471794],
    [21165312, 42455441, 62568371],
    [21112526, 42903064, 62663180],
    [21065161, 43349321, 62756504],
    [21023306, 43794288, 62848279],
    [20985996, 44238227, 62938329],
    [20951045, 44680966, 63030696],
    [20916709, 45122981, 63124483],
    [20882976, 45564335, 63219599],
    [20849798, 46005094, 63315928],
    [20817199, 46445309, 63413391],
    [20785149, 46885041, 63511876],
    [20753716, 47324327, 63611321],
    [20722876, 47763224, 63711608],
    [20692679, 48201774, 63812656],
    [20663156, 48640018, 63914367],
    [20634336, 49078002, 64016638],
    [20606303, 49515755, 64119390],
    [20578999, 49953341, 64222457],
    [20552612, 50390766, 64325811],
    [20527189, 50828072, 64429331],
    [20502868, 51265277, 64532947],
    [20479718, 51702417, 64636539],
    [20457804, 52139527, 64739979],
    [20437304, 52576622, 64843198],
    [20418396, 53013715, 64946117],
    [20401238, 53450825, 65048638],
    [20385896, 53887991, 65150606],
    [20372653, 54325208, 65251978],
    [20361709, 54762490, 65352660],
    [20353258, 55199854, 65452542],
    [20347472, 55637318, 65551500],
    [20344718, 56074869, 65649508],
    [20345161, 56512531, 65746419],
    [20349089, 56950304, 65842151],
    [20356842, 57388184, 65936642],
    [20368663, 57826181, 66029768],
    [20384884, 58264293, 66121450],
    [20405904, 58702506, 66211645],
    [20431921, 59140842, 66300179],
    [20463464, 59579264, 66387079],
    [20500731, 60017798, 66472159],
    [20544449, 60456387, 66555409],
    [20596097, 60894927, 66636568],
    [20654832, 61333521, 66715744],
    [20721003, 61772167, 66792838],
    [20795035, 62210845, 66867802],
    [20877302, 62649546, 66940555],
    [20968223, 63088252, 67011050],
    [21068163, 63526951, 67079211],
    [21177544, 63965621, 67145005],
    [21298582, 64404072, 67208182],
    [21430361, 64842404, 67268861],
    [21572716, 65280655, 67326978],
    [21726052, 65718791, 67382550],
    [21890636, 66156803, 67435491],
    [22066800, 66594665, 67485792],
    [22255447, 67032297, 67533374],
    [22458372, 67469531, 67578061],
    [22673713, 67906542, 67620044],
    [22901625, 68343320, 67659251],
    [23142316, 68779836, 67695703],
    [23395924, 69216072, 67729378],
    [23663857, 69651881, 67760151],
    [23946645, 70087194, 67788018],
    [24242624, 70522162, 67813088],
    [24549008, 70957083, 67835215],
    [24863372, 71392166, 67854868],
    [25187832, 71827158, 67872193],
    [25524083, 72261873, 67887024],
    [25870947, 72696469, 67898912],
    [26229238, 73130855, 67907645],
    [26604085, 73564353, 67914062],
    [26993099, 73997282, 67917264],
    [27397488, 74429484, 67917096],
    [27822463, 74860229, 67914468],
    [28264201, 75290034, 67907959],
    [28730160, 75717817, 67899164],
    [29215894, 76144162, 67886578],
    [29729823, 76567816, 67871894],
    [30268199, 76989232, 67853896],
    [30835665, 77407636, 67833512],
    [31435139, 77822478, 67811118],
    [32066710, 78233575, 67786729],
    [32733158, 78640315, 67761027],
    [33437168, 79042043, 67734882],
    [34182112, 79437948, 67709394],
    [34968889, 79827511, 67685638],
    [35799244, 80210037, 67664969],
    [36675371, 80584651, 67649539],
    [37598160, 80950627, 67641393],
    [38566792, 81307432, 67642947],
    [39579804, 81654592, 67656899],
    [40634556, 81991799, 67686215],
    [41730243, 82318339, 67735255],
    [42858280, 82635051, 67805640],
    [44012728, 82942353, 67900049],
    [45189421, 83240398, 68021733],
    [46378379, 83530763, 68170620],
    [47573199, 83814472, 68347352],
    [48769865, 84092197, 68552698],
    [49962354, 84365379, 68783929],
    [51140270, 84637180, 69029789],
    [52301693, 84908401, 69288545],
    [53447549, 85179048, 69561066],
    [54578602, 85449130, 69848331],
    [55695565, 85718723, 70150427],
    [56798832, 85987893, 70468261],
    [57888639, 86256715, 70802931],
    [58965410, 86525320, 71154204],
    [60028928, 86793835, 71523675],
    [61079441, 87062438, 71910895],
    [62116633, 87331311, 72317003],
    [63140509, 87600675, 72741689],
    [64150735, 87870746, 73185717],
    [65147219, 88141790, 73648495],
    [66129632, 88414030, 74130658],
    [67097934, 88687758, 74631123],
    [68051833, 88963189, 75150483],
    [68991419, 89240612, 75687187],
    [69916533, 89520211, 76241714],
    [70827373, 89802257, 76812286],
    [71723995, 90086891, 77399039],
    [72606665, 90374337, 78000410],
    [73475675, 90664718, 78615802],
    [74331358, 90958151, 79244474],
    [75174143, 91254787, 79884925],
    [76004473, 91554656, 80536823],
    [76827704, 91856549, 81196513],
    [77647029, 92160300, 81855729],
    [78462009, 92466151, 82514119],
    [79273542, 92773848, 83172131],
    [80081090, 93083672, 83829355],
    [80885107, 93395528, 84485982],
    [81685878, 93709380, 85142101],
    [82483206, 94025378, 85797510],
    [83277661, 94343371, 86452477],
    [84069127, 94663473, 87106853],
    [84857662, 94985730, 87760590],
    [85644310, 95309792, 88414253],
    [86429066, 95635719, 89067759],
    [87218969, 95960708, 89725384],
];
