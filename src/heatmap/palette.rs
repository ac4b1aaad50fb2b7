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
    [
        rgb[0] as f64 / 255.0,
        rgb[1] as f64 / 255.0,
        rgb[2] as f64 / 255.0,
    ]
}

/// Matplotlib (CSS4) colour names used with `light_palette`, case-insensitive,
/// or a hex colour (`#rrggbb`, `#rgb`). `"Blue"` and `"blue"` are the same
/// colour, as in matplotlib.
pub fn named_color(name: &str) -> Option<Rgb> {
    let n = name.trim().to_ascii_lowercase();
    let rgb = match n.as_str() {
        "purple" => [0x80, 0x00, 0x80],
        "orange" => [0xff, 0xa5, 0x00],
        "blue" => [0x00, 0x00, 0xff],
        "green" => [0x00, 0x80, 0x00],
        "red" => [0xff, 0x00, 0x00],
        "grey" | "gray" => [0x80, 0x80, 0x80],
        "black" => [0x00, 0x00, 0x00],
        "white" => [0xff, 0xff, 0xff],
        "navy" => [0x00, 0x00, 0x80],
        "teal" => [0x00, 0x80, 0x80],
        "olive" => [0x80, 0x80, 0x00],
        "maroon" => [0x80, 0x00, 0x00],
        "crimson" => [0xdc, 0x14, 0x3c],
        "magenta" | "fuchsia" => [0xff, 0x00, 0xff],
        "cyan" | "aqua" => [0x00, 0xff, 0xff],
        "yellow" => [0xff, 0xff, 0x00],
        "pink" => [0xff, 0xc0, 0xcb],
        "brown" => [0xa5, 0x2a, 0x2a],
        "gold" => [0xff, 0xd7, 0x00],
        "indigo" => [0x4b, 0x00, 0x82],
        "seagreen" => [0x2e, 0x8b, 0x57],
        "steelblue" => [0x46, 0x82, 0xb4],
        "darkorange" => [0xff, 0x8c, 0x00],
        "darkgreen" => [0x00, 0x64, 0x00],
        "darkblue" => [0x00, 0x00, 0x8b],
        "darkred" => [0x8b, 0x00, 0x00],
        _ if n.starts_with('#') => return parse_hex(&n),
        _ => return None,
    };
    Some(rgb)
}

// ---------------------------------------------------------------------------
// Luminance and text colour
// ---------------------------------------------------------------------------

/// seaborn's `utils.relative_luminance` on float channels:
/// `L = 0.2126 R + 0.7152 G + 0.0722 B` over linearised channels
/// (`c / 12.92` if `c <= 0.03928`, else `((c + 0.055) / 1.055) ^ 2.4`).
pub fn relative_luminance_f64(c: RgbF) -> f64 {
    let lin = |v: f64| {
        if v <= 0.03928 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    lin(c[0]) * 0.2126 + lin(c[1]) * 0.7152 + lin(c[2]) * 0.0722
}

/// [`relative_luminance_f64`] of an 8-bit colour (channels `c / 255`).
pub fn relative_luminance(rgb: Rgb) -> f64 {
    relative_luminance_f64(to_rgb_f64(rgb))
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
    let (mut lo, mut hi) = if vmax < vmin {
        (vmax, vmin)
    } else {
        (vmin, vmax)
    };
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
        let mut entries: Vec<RgbF> = entries
            .into_iter()
            .map(|c| [clean(c[0]), clean(c[1]), clean(c[2])])
            .collect();
        if entries.is_empty() {
            entries.push([0.0, 0.0, 0.0]);
        }
        Colormap {
            name: name.to_string(),
            entries,
        }
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
        Colormap {
            name: format!("{}_r", self.name),
            entries,
        }
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
        Colormap {
            name: self.name.clone(),
            entries: cc.into_iter().map(|c| self.at_f64(c)).collect(),
        }
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
        .map(|i| {
            if step == 0.0 {
                (i as f64 / div) * delta + start
            } else {
                i as f64 * step + start
            }
        })
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

    const M: [[f64; 3]; 3] = [
        [3.2406, -1.5372, -0.4986],
        [-0.9689, 1.8758, 0.0415],
        [0.0557, -0.2040, 1.0570],
    ];
    const M_INV: [[f64; 3]; 3] = [
        [0.4124, 0.3576, 0.1805],
        [0.2126, 0.7152, 0.0722],
        [0.0193, 0.1192, 0.9505],
    ];
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
        [
            from_linear(dot(&M[0], &t)),
            from_linear(dot(&M[1], &t)),
            from_linear(dot(&M[2], &t)),
        ]
    }

    fn rgb_to_xyz(t: [f64; 3]) -> [f64; 3] {
        let rgbl = [to_linear(t[0]), to_linear(t[1]), to_linear(t[2])];
        [
            dot(&M_INV[0], &rgbl),
            dot(&M_INV[1], &rgbl),
            dot(&M_INV[2], &rgbl),
        ]
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
    Colormap::from_f64(SEQUENTIAL_NAME, ROCKET_LUT.to_vec())
}

/// The diverging map for signed data: seaborn's `vlag` (blue → near-white →
/// red). Its middle is light, so annotations around 0 keep dark text.
/// Use with [`Colormap::recentred`] (exact seaborn `center=0`) or
/// [`diverging_norm`].
pub fn diverging() -> Colormap {
    Colormap::from_f64(DIVERGING_NAME, VLAG_LUT.to_vec())
}

/// A colormap by name (case-insensitive): `"sequential"`/`"rocket"`,
/// `"diverging"`/`"vlag"`, each with an optional `_r` suffix for the reversed
/// map; otherwise a light palette of a colour accepted by [`named_color`]
/// (`"purple"`, `"orange"`, `"Blue"`, `"#1f77b4"` …), optionally written the
/// seaborn way as `"light:<colour>"`.
pub fn by_name(name: &str) -> Option<Colormap> {
    let n = name.trim().to_ascii_lowercase();
    let (base, rev) = match n.strip_suffix("_r") {
        Some(b) => (b, true),
        None => (n.as_str(), false),
    };
    let fixed = match base {
        "sequential" | "rocket" => Some(sequential()),
        "diverging" | "vlag" => Some(diverging()),
        _ => None,
    };
    if let Some(cm) = fixed {
        return Some(if rev { cm.reversed() } else { cm });
    }
    let color = n.strip_prefix("light:").unwrap_or(&n);
    named_color(color).map(light_palette)
}

// ---------------------------------------------------------------------------
// Embedded tables (generated by `scripts/gen_seaborn_goldens.py --rust-tables`)
// ---------------------------------------------------------------------------

/// seaborn 0.13.2 `rocket` (`seaborn/cm.py`), 256 RGB float entries.
const ROCKET_LUT: [[f64; 3]; 256] = [
    [0.01060815, 0.01808215, 0.10018654],
    [0.01428972, 0.02048237, 0.10374486],
    [0.01831941, 0.0229766, 0.10738511],
    [0.02275049, 0.02554464, 0.11108639],
    [0.02759119, 0.02818316, 0.11483751],
    [0.03285175, 0.03088792, 0.11863035],
    [0.03853466, 0.03365771, 0.12245873],
    [0.04447016, 0.03648425, 0.12631831],
    [0.05032105, 0.03936808, 0.13020508],
    [0.05611171, 0.04224835, 0.13411624],
    [0.0618531, 0.04504866, 0.13804929],
    [0.06755457, 0.04778179, 0.14200206],
    [0.0732236, 0.05045047, 0.14597263],
    [0.0788708, 0.05305461, 0.14995981],
    [0.08450105, 0.05559631, 0.15396203],
    [0.09011319, 0.05808059, 0.15797687],
    [0.09572396, 0.06050127, 0.16200507],
    [0.10132312, 0.06286782, 0.16604287],
    [0.10692823, 0.06517224, 0.17009175],
    [0.1125315, 0.06742194, 0.17414848],
    [0.11813947, 0.06961499, 0.17821272],
    [0.12375803, 0.07174938, 0.18228425],
    [0.12938228, 0.07383015, 0.18636053],
    [0.13501631, 0.07585609, 0.19044109],
    [0.14066867, 0.0778224, 0.19452676],
    [0.14633406, 0.07973393, 0.1986151],
    [0.15201338, 0.08159108, 0.20270523],
    [0.15770877, 0.08339312, 0.20679668],
    [0.16342174, 0.0851396, 0.21088893],
    [0.16915387, 0.08682996, 0.21498104],
    [0.17489524, 0.08848235, 0.2190294],
    [0.18065495, 0.09009031, 0.22303512],
    [0.18643324, 0.09165431, 0.22699705],
    [0.19223028, 0.09317479, 0.23091409],
    [0.19804623, 0.09465217, 0.23478512],
    [0.20388117, 0.09608689, 0.23860907],
    [0.20973515, 0.09747934, 0.24238489],
    [0.21560818, 0.09882993, 0.24611154],
    [0.22150014, 0.10013944, 0.2497868],
    [0.22741085, 0.10140876, 0.25340813],
    [0.23334047, 0.10263737, 0.25697736],
    [0.23928891, 0.10382562, 0.2604936],
    [0.24525608, 0.10497384, 0.26395596],
    [0.25124182, 0.10608236, 0.26736359],
    [0.25724602, 0.10715148, 0.27071569],
    [0.26326851, 0.1081815, 0.27401148],
    [0.26930915, 0.1091727, 0.2772502],
    [0.27536766, 0.11012568, 0.28043021],
    [0.28144375, 0.11104133, 0.2835489],
    [0.2875374, 0.11191896, 0.28660853],
    [0.29364846, 0.11275876, 0.2896085],
    [0.29977678, 0.11356089, 0.29254823],
    [0.30592213, 0.11432553, 0.29542718],
    [0.31208435, 0.11505284, 0.29824485],
    [0.31826327, 0.1157429, 0.30100076],
    [0.32445869, 0.11639585, 0.30369448],
    [0.33067031, 0.11701189, 0.30632563],
    [0.33689808, 0.11759095, 0.3088938],
    [0.34314168, 0.11813362, 0.31139721],
    [0.34940101, 0.11863987, 0.3138355],
    [0.355676, 0.11910909, 0.31620996],
    [0.36196644, 0.1195413, 0.31852037],
    [0.36827206, 0.11993653, 0.32076656],
    [0.37459292, 0.12029443, 0.32294825],
    [0.38092887, 0.12061482, 0.32506528],
    [0.38727975, 0.12089756, 0.3271175],
    [0.39364518, 0.12114272, 0.32910494],
    [0.40002537, 0.12134964, 0.33102734],
    [0.40642019, 0.12151801, 0.33288464],
    [0.41282936, 0.12164769, 0.33467689],
    [0.41925278, 0.12173833, 0.33640407],
    [0.42569057, 0.12178916, 0.33806605],
    [0.43214263, 0.12179973, 0.33966284],
    [0.43860848, 0.12177004, 0.34119475],
    [0.44508855, 0.12169883, 0.34266151],
    [0.45158266, 0.12158557, 0.34406324],
    [0.45809049, 0.12142996, 0.34540024],
    [0.46461238, 0.12123063, 0.34667231],
    [0.47114798, 0.12098721, 0.34787978],
    [0.47769736, 0.12069864, 0.34902273],
    [0.48426077, 0.12036349, 0.35010104],
    [0.49083761, 0.11998161, 0.35111537],
    [0.49742847, 0.11955087, 0.35206533],
    [0.50403286, 0.11907081, 0.35295152],
    [0.51065109, 0.11853959, 0.35377385],
    [0.51728314, 0.1179558, 0.35453252],
    [0.52392883, 0.11731817, 0.35522789],
    [0.53058853, 0.11662445, 0.35585982],
    [0.53726173, 0.11587369, 0.35642903],
    [0.54394898, 0.11506307, 0.35693521],
    [0.5506426, 0.11420757, 0.35737863],
    [0.55734473, 0.11330456, 0.35775059],
    [0.56405586, 0.11235265, 0.35804813],
    [0.57077365, 0.11135597, 0.35827146],
    [0.5774991, 0.11031233, 0.35841679],
    [0.58422945, 0.10922707, 0.35848469],
    [0.59096382, 0.10810205, 0.35847347],
    [0.59770215, 0.10693774, 0.35838029],
    [0.60444226, 0.10573912, 0.35820487],
    [0.61118304, 0.10450943, 0.35794557],
    [0.61792306, 0.10325288, 0.35760108],
    [0.62466162, 0.10197244, 0.35716891],
    [0.63139686, 0.10067417, 0.35664819],
    [0.63812122, 0.09938212, 0.35603757],
    [0.64483795, 0.0980891, 0.35533555],
    [0.65154562, 0.09680192, 0.35454107],
    [0.65824241, 0.09552918, 0.3536529],
    [0.66492652, 0.09428017, 0.3526697],
    [0.67159578, 0.09306598, 0.35159077],
    [0.67824099, 0.09192342, 0.3504148],
    [0.684863, 0.09085633, 0.34914061],
    [0.69146268, 0.0898675, 0.34776864],
    [0.69803757, 0.08897226, 0.3462986],
    [0.70457834, 0.0882129, 0.34473046],
    [0.71108138, 0.08761223, 0.3430635],
    [0.7175507, 0.08716212, 0.34129974],
    [0.72398193, 0.08688725, 0.33943958],
    [0.73035829, 0.0868623, 0.33748452],
    [0.73669146, 0.08704683, 0.33543669],
    [0.74297501, 0.08747196, 0.33329799],
    [0.74919318, 0.08820542, 0.33107204],
    [0.75535825, 0.08919792, 0.32876184],
    [0.76145589, 0.09050716, 0.32637117],
    [0.76748424, 0.09213602, 0.32390525],
    [0.77344838, 0.09405684, 0.32136808],
    [0.77932641, 0.09634794, 0.31876642],
    [0.78513609, 0.09892473, 0.31610488],
    [0.79085854, 0.10184672, 0.313391],
    [0.7965014, 0.10506637, 0.31063031],
    [0.80205987, 0.10858333, 0.30783],
    [0.80752799, 0.11239964, 0.30499738],
    [0.81291606, 0.11645784, 0.30213802],
    [0.81820481, 0.12080606, 0.29926105],
    [0.82341472, 0.12535343, 0.2963705],
    [0.82852822, 0.13014118, 0.29347474],
    [0.83355779, 0.13511035, 0.29057852],
    [0.83850183, 0.14025098, 0.2876878],
    [0.84335441, 0.14556683, 0.28480819],
    [0.84813096, 0.15099892, 0.281943],
    [0.85281737, 0.15657772, 0.27909826],
    [0.85742602, 0.1622583, 0.27627462],
    [0.86196552, 0.16801239, 0.27346473],
    [0.86641628, 0.17387796, 0.27070818],
    [0.87079129, 0.17982114, 0.26797378],
    [0.87507281, 0.18587368, 0.26529697],
    [0.87925878, 0.19203259, 0.26268136],
    [0.8833417, 0.19830556, 0.26014181],
    [0.88731387, 0.20469941, 0.25769539],
    [0.89116859, 0.21121788, 0.2553592],
    [0.89490337, 0.21785614, 0.25314362],
    [0.8985026, 0.22463251, 0.25108745],
    [0.90197527, 0.23152063, 0.24918223],
    [0.90530097, 0.23854541, 0.24748098],
    [0.90848638, 0.24568473, 0.24598324],
    [0.911533, 0.25292623, 0.24470258],
    [0.9144225, 0.26028902, 0.24369359],
    [0.91717106, 0.26773821, 0.24294137],
    [0.91978131, 0.27526191, 0.24245973],
    [0.92223947, 0.28287251, 0.24229568],
    [0.92456587, 0.29053388, 0.24242622],
    [0.92676657, 0.29823282, 0.24285536],
    [0.92882964, 0.30598085, 0.24362274],
    [0.93078135, 0.31373977, 0.24468803],
    [0.93262051, 0.3215093, 0.24606461],
    [0.93435067, 0.32928362, 0.24775328],
    [0.93599076, 0.33703942, 0.24972157],
    [0.93752831, 0.34479177, 0.25199928],
    [0.93899289, 0.35250734, 0.25452808],
    [0.94036561, 0.36020899, 0.25734661],
    [0.94167588, 0.36786594, 0.2603949],
    [0.94291042, 0.37549479, 0.26369821],
    [0.94408513, 0.3830811, 0.26722004],
    [0.94520419, 0.39062329, 0.27094924],
    [0.94625977, 0.39813168, 0.27489742],
    [0.94727016, 0.4055909, 0.27902322],
    [0.94823505, 0.41300424, 0.28332283],
    [0.94914549, 0.42038251, 0.28780969],
    [0.95001704, 0.42771398, 0.29244728],
    [0.95085121, 0.43500005, 0.29722817],
    [0.95165009, 0.44224144, 0.30214494],
    [0.9524044, 0.44944853, 0.3072105],
    [0.95312556, 0.45661389, 0.31239776],
    [0.95381595, 0.46373781, 0.31769923],
    [0.95447591, 0.47082238, 0.32310953],
    [0.95510255, 0.47787236, 0.32862553],
    [0.95569679, 0.48489115, 0.33421404],
    [0.95626788, 0.49187351, 0.33985601],
    [0.95681685, 0.49882008, 0.34555431],
    [0.9573439, 0.50573243, 0.35130912],
    [0.95784842, 0.51261283, 0.35711942],
    [0.95833051, 0.51946267, 0.36298589],
    [0.95879054, 0.52628305, 0.36890904],
    [0.95922872, 0.53307513, 0.3748895],
    [0.95964538, 0.53983991, 0.38092784],
    [0.96004345, 0.54657593, 0.3870292],
    [0.96042097, 0.55328624, 0.39319057],
    [0.96077819, 0.55997184, 0.39941173],
    [0.9611152, 0.5666337, 0.40569343],
    [0.96143273, 0.57327231, 0.41203603],
    [0.96173392, 0.57988594, 0.41844491],
    [0.96201757, 0.58647675, 0.42491751],
    [0.96228344, 0.59304598, 0.43145271],
    [0.96253168, 0.5995944, 0.43805131],
    [0.96276513, 0.60612062, 0.44471698],
    [0.96298491, 0.6126247, 0.45145074],
    [0.96318967, 0.61910879, 0.45824902],
    [0.96337949, 0.6255736, 0.46511271],
    [0.96355923, 0.63201624, 0.47204746],
    [0.96372785, 0.63843852, 0.47905028],
    [0.96388426, 0.64484214, 0.4861196],
    [0.96403203, 0.65122535, 0.4932578],
    [0.96417332, 0.65758729, 0.50046894],
    [0.9643063, 0.66393045, 0.5077467],
    [0.96443322, 0.67025402, 0.51509334],
    [0.96455845, 0.67655564, 0.52251447],
    [0.96467922, 0.68283846, 0.53000231],
    [0.96479861, 0.68910113, 0.53756026],
    [0.96492035, 0.69534192, 0.5451917],
    [0.96504223, 0.7015636, 0.5528892],
    [0.96516917, 0.70776351, 0.5606593],
    [0.96530224, 0.71394212, 0.56849894],
    [0.96544032, 0.72010124, 0.57640375],
    [0.96559206, 0.72623592, 0.58438387],
    [0.96575293, 0.73235058, 0.59242739],
    [0.96592829, 0.73844258, 0.60053991],
    [0.96612013, 0.74451182, 0.60871954],
    [0.96632832, 0.75055966, 0.61696136],
    [0.96656022, 0.75658231, 0.62527295],
    [0.96681185, 0.76258381, 0.63364277],
    [0.96709183, 0.76855969, 0.64207921],
    [0.96739773, 0.77451297, 0.65057302],
    [0.96773482, 0.78044149, 0.65912731],
    [0.96810471, 0.78634563, 0.66773889],
    [0.96850919, 0.79222565, 0.6764046],
    [0.96893132, 0.79809112, 0.68512266],
    [0.96935926, 0.80395415, 0.69383201],
    [0.9698028, 0.80981139, 0.70252255],
    [0.97025511, 0.81566605, 0.71120296],
    [0.97071849, 0.82151775, 0.71987163],
    [0.97120159, 0.82736371, 0.72851999],
    [0.97169389, 0.83320847, 0.73716071],
    [0.97220061, 0.83905052, 0.74578903],
    [0.97272597, 0.84488881, 0.75440141],
    [0.97327085, 0.85072354, 0.76299805],
    [0.97383206, 0.85655639, 0.77158353],
    [0.97441222, 0.86238689, 0.78015619],
    [0.97501782, 0.86821321, 0.78871034],
    [0.97564391, 0.87403763, 0.79725261],
    [0.97628674, 0.87986189, 0.8057883],
    [0.97696114, 0.88568129, 0.81430324],
    [0.97765722, 0.89149971, 0.82280948],
    [0.97837585, 0.89731727, 0.83130786],
    [0.97912374, 0.90313207, 0.83979337],
    [0.979891, 0.90894778, 0.84827858],
    [0.98067764, 0.91476465, 0.85676611],
    [0.98137749, 0.92061729, 0.86536915],
];

/// seaborn 0.13.2 `vlag` (`seaborn/cm.py`), 256 RGB float entries.
const VLAG_LUT: [[f64; 3]; 256] = [
    [0.13850039, 0.41331206, 0.74052025],
    [0.15077609, 0.41762684, 0.73970427],
    [0.16235219, 0.4219191, 0.7389667],
    [0.1733322, 0.42619024, 0.73832537],
    [0.18382538, 0.43044226, 0.73776764],
    [0.19394034, 0.4346772, 0.73725867],
    [0.20367115, 0.43889576, 0.73685314],
    [0.21313625, 0.44310003, 0.73648045],
    [0.22231173, 0.44729079, 0.73619681],
    [0.23125148, 0.45146945, 0.73597803],
    [0.23998101, 0.45563715, 0.7358223],
    [0.24853358, 0.45979489, 0.73571524],
    [0.25691416, 0.4639437, 0.73566943],
    [0.26513894, 0.46808455, 0.73568319],
    [0.27322194, 0.47221835, 0.73575497],
    [0.28117543, 0.47634598, 0.73588332],
    [0.28901021, 0.48046826, 0.73606686],
    [0.2967358, 0.48458597, 0.73630433],
    [0.30436071, 0.48869986, 0.73659451],
    [0.3118955, 0.49281055, 0.73693255],
    [0.31935389, 0.49691847, 0.73730851],
    [0.32672701, 0.5010247, 0.73774013],
    [0.33402607, 0.50512971, 0.73821941],
    [0.34125337, 0.50923419, 0.73874905],
    [0.34840921, 0.51333892, 0.73933402],
    [0.35551826, 0.51744353, 0.73994642],
    [0.3625676, 0.52154929, 0.74060763],
    [0.36956356, 0.52565656, 0.74131327],
    [0.37649902, 0.52976642, 0.74207698],
    [0.38340273, 0.53387791, 0.74286286],
    [0.39025859, 0.53799253, 0.7436962],
    [0.39706821, 0.54211081, 0.744578],
    [0.40384046, 0.54623277, 0.74549872],
    [0.41058241, 0.55035849, 0.74645094],
    [0.41728385, 0.55448919, 0.74745174],
    [0.42395178, 0.55862494, 0.74849357],
    [0.4305964, 0.56276546, 0.74956387],
    [0.4372044, 0.56691228, 0.75068412],
    [0.4437909, 0.57106468, 0.75183427],
    [0.45035117, 0.5752235, 0.75302312],
    [0.45687824, 0.57938983, 0.75426297],
    [0.46339713, 0.58356191, 0.75551816],
    [0.46988778, 0.58774195, 0.75682037],
    [0.47635605, 0.59192986, 0.75816245],
    [0.48281101, 0.5961252, 0.75953212],
    [0.4892374, 0.60032986, 0.76095418],
    [0.49566225, 0.60454154, 0.76238852],
    [0.50206137, 0.60876307, 0.76387371],
    [0.50845128, 0.61299312, 0.76538551],
    [0.5148258, 0.61723272, 0.76693475],
    [0.52118385, 0.62148236, 0.76852436],
    [0.52753571, 0.62574126, 0.77013939],
    [0.53386831, 0.63001125, 0.77180152],
    [0.54020159, 0.63429038, 0.7734803],
    [0.54651272, 0.63858165, 0.77521306],
    [0.55282975, 0.64288207, 0.77695608],
    [0.55912585, 0.64719519, 0.77875327],
    [0.56542599, 0.65151828, 0.78056551],
    [0.57170924, 0.65585426, 0.78242747],
    [0.57799572, 0.6602009, 0.78430751],
    [0.58426817, 0.66456073, 0.78623458],
    [0.590544, 0.66893178, 0.78818117],
    [0.59680758, 0.67331643, 0.79017369],
    [0.60307553, 0.67771273, 0.79218572],
    [0.60934065, 0.68212194, 0.79422987],
    [0.61559495, 0.68654548, 0.7963202],
    [0.62185554, 0.69098125, 0.79842918],
    [0.62810662, 0.69543176, 0.80058381],
    [0.63436425, 0.69989499, 0.80275812],
    [0.64061445, 0.70437326, 0.80497621],
    [0.6468706, 0.70886488, 0.80721641],
    [0.65312213, 0.7133717, 0.80949719],
    [0.65937818, 0.71789261, 0.81180392],
    [0.66563334, 0.72242871, 0.81414642],
    [0.67189155, 0.72697967, 0.81651872],
    [0.67815314, 0.73154569, 0.81892097],
    [0.68441395, 0.73612771, 0.82136094],
    [0.69068321, 0.74072452, 0.82382353],
    [0.69694776, 0.7453385, 0.82633199],
    [0.70322431, 0.74996721, 0.8288583],
    [0.70949595, 0.75461368, 0.83143221],
    [0.7157774, 0.75927574, 0.83402904],
    [0.72206299, 0.76395461, 0.83665922],
    [0.72835227, 0.76865061, 0.8393242],
    [0.73465238, 0.7733628, 0.84201224],
    [0.74094862, 0.77809393, 0.84474951],
    [0.74725683, 0.78284158, 0.84750915],
    [0.75357103, 0.78760701, 0.85030217],
    [0.75988961, 0.79239077, 0.85313207],
    [0.76621987, 0.79719185, 0.85598668],
    [0.77255045, 0.8020125, 0.85888658],
    [0.77889241, 0.80685102, 0.86181298],
    [0.78524572, 0.81170768, 0.86476656],
    [0.79159841, 0.81658489, 0.86776906],
    [0.79796459, 0.82148036, 0.8707962],
    [0.80434168, 0.82639479, 0.87385315],
    [0.8107221, 0.83132983, 0.87695392],
    [0.81711301, 0.8362844, 0.88008641],
    [0.82351479, 0.84125863, 0.88325045],
    [0.82992772, 0.84625263, 0.88644594],
    [0.83634359, 0.85126806, 0.8896878],
    [0.84277295, 0.85630293, 0.89295721],
    [0.84921192, 0.86135782, 0.89626076],
    [0.85566206, 0.866432, 0.89959467],
    [0.86211514, 0.87152627, 0.90297183],
    [0.86857483, 0.87663856, 0.90638248],
    [0.87504231, 0.88176648, 0.90981938],
    [0.88151194, 0.88690782, 0.91328493],
    [0.88797938, 0.89205857, 0.91677544],
    [0.89443865, 0.89721298, 0.9202854],
    [0.90088204, 0.90236294, 0.92380601],
    [0.90729768, 0.90749778, 0.92732797],
    [0.91367037, 0.91260329, 0.93083814],
    [0.91998105, 0.91766106, 0.93431861],
    [0.92620596, 0.92264789, 0.93774647],
    [0.93231683, 0.9275351, 0.94109192],
    [0.93827772, 0.9322888, 0.94432312],
    [0.94404755, 0.93686925, 0.94740137],
    [0.94958284, 0.94123072, 0.95027696],
    [0.95482682, 0.9453245, 0.95291103],
    [0.9597248, 0.94909728, 0.95525103],
    [0.96422552, 0.95249273, 0.95723271],
    [0.96826161, 0.95545812, 0.95882188],
    [0.97178458, 0.95793984, 0.95995705],
    [0.97474105, 0.95989142, 0.96059997],
    [0.97708604, 0.96127366, 0.96071853],
    [0.97877855, 0.96205832, 0.96030095],
    [0.97978484, 0.96222949, 0.95935496],
    [0.9805997, 0.96155216, 0.95813083],
    [0.98152619, 0.95993719, 0.95639322],
    [0.9819726, 0.95766608, 0.95399269],
    [0.98191855, 0.9547873, 0.95098107],
    [0.98138514, 0.95134771, 0.94740644],
    [0.98040845, 0.94739906, 0.94332125],
    [0.97902107, 0.94300131, 0.93878672],
    [0.97729348, 0.93820409, 0.93385135],
    [0.9752533, 0.933073, 0.92858252],
    [0.97297834, 0.92765261, 0.92302309],
    [0.97049104, 0.92200317, 0.91723505],
    [0.96784372, 0.91616744, 0.91126063],
    [0.96507281, 0.91018664, 0.90514124],
    [0.96222034, 0.90409203, 0.89890756],
    [0.9593079, 0.89791478, 0.89259122],
    [0.95635626, 0.89167908, 0.88621654],
    [0.95338303, 0.88540373, 0.87980238],
    [0.95040174, 0.87910333, 0.87336339],
    [0.94742246, 0.87278899, 0.86691076],
    [0.94445249, 0.86646893, 0.86045277],
    [0.94150476, 0.86014606, 0.85399191],
    [0.93857394, 0.85382798, 0.84753642],
    [0.93566206, 0.84751766, 0.84108935],
    [0.93277194, 0.8412164, 0.83465197],
    [0.92990106, 0.83492672, 0.82822708],
    [0.92704736, 0.82865028, 0.82181656],
    [0.92422703, 0.82238092, 0.81541333],
    [0.92142581, 0.81612448, 0.80902415],
    [0.91864501, 0.80988032, 0.80264838],
    [0.91587578, 0.80365187, 0.79629001],
    [0.9131367, 0.79743115, 0.78994],
    [0.91041602, 0.79122265, 0.78360361],
    [0.90771071, 0.78502727, 0.77728196],
    [0.90501581, 0.77884674, 0.7709771],
    [0.90235365, 0.77267117, 0.76467793],
    [0.8997019, 0.76650962, 0.75839484],
    [0.89705346, 0.76036481, 0.752131],
    [0.89444021, 0.75422253, 0.74587047],
    [0.89183355, 0.74809474, 0.73962689],
    [0.88923216, 0.74198168, 0.73340061],
    [0.88665892, 0.73587283, 0.72717995],
    [0.88408839, 0.72977904, 0.72097718],
    [0.88153537, 0.72369332, 0.71478461],
    [0.87899389, 0.7176179, 0.70860487],
    [0.87645157, 0.71155805, 0.7024439],
    [0.8739399, 0.70549893, 0.6962854],
    [0.87142626, 0.6994551, 0.69014561],
    [0.8689268, 0.69341868, 0.68401597],
    [0.86643562, 0.687392, 0.67789917],
    [0.86394434, 0.68137863, 0.67179927],
    [0.86147586, 0.67536728, 0.665704],
    [0.85899928, 0.66937226, 0.6596292],
    [0.85654668, 0.66337773, 0.6535577],
    [0.85408818, 0.65739772, 0.64750494],
    [0.85164413, 0.65142189, 0.64145983],
    [0.84920091, 0.6454565, 0.63542932],
    [0.84676427, 0.63949827, 0.62941],
    [0.84433231, 0.63354773, 0.62340261],
    [0.84190106, 0.62760645, 0.61740899],
    [0.83947935, 0.62166951, 0.61142404],
    [0.8370538, 0.61574332, 0.60545478],
    [0.83463975, 0.60981951, 0.59949247],
    [0.83221877, 0.60390724, 0.593547],
    [0.82980985, 0.59799607, 0.58760751],
    [0.82740268, 0.59209095, 0.58167944],
    [0.82498638, 0.5861973, 0.57576866],
    [0.82258181, 0.5803034, 0.56986307],
    [0.82016611, 0.57442123, 0.56397539],
    [0.81776305, 0.56853725, 0.55809173],
    [0.81534551, 0.56266602, 0.55222741],
    [0.81294293, 0.55679056, 0.5463651],
    [0.81052113, 0.55092973, 0.54052443],
    [0.80811509, 0.54506305, 0.53468464],
    [0.80568952, 0.53921036, 0.52886622],
    [0.80327506, 0.53335335, 0.52305077],
    [0.80084727, 0.52750583, 0.51725256],
    [0.79842217, 0.5216578, 0.51146173],
    [0.79599382, 0.51581223, 0.50568155],
    [0.79355781, 0.50997127, 0.49991444],
    [0.79112596, 0.50412707, 0.49415289],
    [0.78867442, 0.49829386, 0.48841129],
    [0.7862306, 0.49245398, 0.48267247],
    [0.7837687, 0.48662309, 0.47695216],
    [0.78130809, 0.4807883, 0.47123805],
    [0.77884467, 0.47495151, 0.46553236],
    [0.77636283, 0.46912235, 0.45984473],
    [0.77388383, 0.46328617, 0.45416141],
    [0.77138912, 0.45745466, 0.44849398],
    [0.76888874, 0.45162042, 0.44283573],
    [0.76638802, 0.44577901, 0.43718292],
    [0.76386116, 0.43994762, 0.43155211],
    [0.76133542, 0.43410655, 0.42592523],
    [0.75880631, 0.42825801, 0.42030488],
    [0.75624913, 0.42241905, 0.41470727],
    [0.7536919, 0.41656866, 0.40911347],
    [0.75112748, 0.41071104, 0.40352792],
    [0.74854331, 0.40485474, 0.3979589],
    [0.74594723, 0.39899309, 0.39240088],
    [0.74334332, 0.39312199, 0.38685075],
    [0.74073277, 0.38723941, 0.3813074],
    [0.73809409, 0.38136133, 0.37578553],
    [0.73544692, 0.37547129, 0.37027123],
    [0.73278943, 0.36956954, 0.36476549],
    [0.73011829, 0.36365761, 0.35927038],
    [0.72743485, 0.35773314, 0.35378465],
    [0.72472722, 0.35180504, 0.34831662],
    [0.72200473, 0.34586421, 0.34285937],
    [0.71927052, 0.33990649, 0.33741033],
    [0.71652049, 0.33393396, 0.33197219],
    [0.71375362, 0.32794602, 0.32654545],
    [0.71096951, 0.32194148, 0.32113016],
    [0.70816772, 0.31591904, 0.31572637],
    [0.70534784, 0.30987734, 0.31033414],
    [0.70250944, 0.30381489, 0.30495353],
    [0.69965211, 0.2977301, 0.2995846],
    [0.6967754, 0.29162126, 0.29422741],
    [0.69388446, 0.28548074, 0.28887769],
    [0.69097561, 0.2793096, 0.28353795],
    [0.68803513, 0.27311993, 0.27821876],
    [0.6850794, 0.26689144, 0.27290694],
    [0.682108, 0.26062114, 0.26760246],
    [0.67911013, 0.2543177, 0.26231367],
    [0.67609393, 0.24796818, 0.25703372],
    [0.67305921, 0.24156846, 0.25176238],
    [0.67000176, 0.23511902, 0.24650278],
    [0.66693423, 0.22859879, 0.24124404],
    [0.6638441, 0.22201742, 0.2359961],
    [0.66080672, 0.21526712, 0.23069468],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_table_light_palettes() {
        let table: &[(&str, [&str; 5])] = &[
            (
                "purple",
                ["#f3f0f3", "#d6b4d6", "#b977b9", "#9c3b9c", "#800080"],
            ),
            (
                "orange",
                ["#f3f0ee", "#f6ddb3", "#f9ca77", "#fcb83b", "#ffa500"],
            ),
            (
                "Blue",
                ["#f0f0f3", "#b4b4f6", "#7878f9", "#3b3bfc", "#0000ff"],
            ),
        ];
        for (name, want) in table {
            let cm = by_name(name).unwrap();
            for (x, w) in [0.0, 0.25, 0.5, 0.75, 1.0].iter().zip(want) {
                assert_eq!(to_hex(cm.at(*x)), *w, "{name} at {x}");
            }
        }
    }

    #[test]
    fn decoder_state_example() {
        let cm = light_palette(named_color("purple").unwrap());
        let data = [5.0, 1.0, 20.0];
        let cells: Vec<String> = data
            .iter()
            .map(|&v| to_hex(cm.at(linear_norm(v, 1.0, 20.0))))
            .collect();
        assert_eq!(cells, ["#dbbedb", "#f3f0f3", "#800080"]);
        let texts: Vec<Rgb> = data
            .iter()
            .map(|&v| cm.text_color_at(linear_norm(v, 1.0, 20.0)))
            .collect();
        assert_eq!(texts, [TEXT_DARK, TEXT_DARK, TEXT_LIGHT]);
    }

    #[test]
    fn total_on_odd_inputs() {
        let cm = sequential();
        for x in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -1e300,
            1e300,
            -0.0,
            1.0,
            0.999999999,
        ] {
            let _ = cm.at(x);
            let _ = cm.text_color_at(x);
            let _ = linear_norm(x, x, x);
            let _ = diverging_norm(x, -x, x);
            let _ = cm.recentred(x, -x, 0.0);
        }
        assert_eq!(cm.index_of(f64::NAN), 0);
        assert_eq!(cm.index_of(1.0), 255);
        assert_eq!(cm.index_of(2.0), 255);
        assert_eq!(cm.index_of(-0.5), 0);
        assert_eq!(linear_norm(0.0, 0.0, 0.0), 0.5);
        assert_eq!(Colormap::from_f64("x", vec![]).at(0.5), [0, 0, 0]);
    }
}
