// Owns what cells hold: the text typed into one cell (parseCell), a pasted block of them (parseBlock: spreadsheet
// rows, Python lists, NumPy and PyTorch reprs, NumPy's print form) and the matrices of a config that cells edit.
// Pure functions: no DOM, no element; the messages they return are shown to the reader as they are.

/** The rows of an input matrix of a config (the decoder state is one row). */
export const matrixRows = (cfg, name) => (name === 'decoder_state' ? [cfg.decoder_state] : cfg[name]);

/** Parses what the user typed in a cell: a finite number, or a message saying why not. */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function parseCell(text) {
  const t = String(text).trim().replace(/\u2212/g, '-');
  if (t === '') return { error: 'empty: type a number' };
  if (/^[+-]?nan$/i.test(t)) return { error: 'NaN is not allowed: every value must be a finite number' };
  if (/^[+-]?(inf|infinity)$/i.test(t)) return { error: `${t} is not allowed: every value must be a finite number` };
  if (!NUMBER.test(t)) {
    const shown = t.length > 24 ? `${t.slice(0, 23)}…` : t;
    return { error: `“${shown}” is not a number` };
  }
  const x = Number(t);
  if (!Number.isFinite(x)) return { error: `${t} is too large for float64 (the largest is about 1.8e308)` };
  return { value: x };
}

/** Does a paste of this text fill a block of cells (the element's), or go into one cell as typed text (the browser's)? */
export const isBlock = (text) => /[\s,[\]]/.test(String(text).trim());

// `array(` / `np.array(` / `torch.tensor(` … `)`, around the bracketed numbers.
const WRAPPER = /^(?:(?:np|numpy|torch)\.)?(?:array|tensor|matrix)\s*\(([\s\S]*)\)$/;
// What may follow the numbers inside the wrapper: `, dtype=float32`, `, device='cuda:0', requires_grad=True`…
const KEYWORDS = /^(?:\s*,\s*[A-Za-z_]\w*\s*=\s*[^,=]+?)*\s*,?\s*$/;
const NO_NUMBERS = { error: 'the pasted text holds no numbers' };

/**
 * Reads a pasted block of numbers: `{rows}` (each row an array of finite numbers; rows may differ in length) or
 * `{error}` saying what is wrong and where (row and column from 0, as in NumPy).
 *
 * Without brackets, each non-blank line is a row of numbers separated by tabs, commas or spaces (a spreadsheet,
 * CSV, or `print` of a row). With brackets, the brackets say where rows are, not the lines: NumPy wraps long rows
 * over several lines (`[[0.1 0.2\n  0.3]\n [0.4 0.5\n  0.6]]`). A list of lists is a matrix, one list a single
 * row, several lists in a row (`[1, 2]\n[3, 4]`) are rows.
 */
export function parseBlock(text) {
  let t = String(text).replace(/\u2212/g, '-').trim();
  let rows;
  if (!t.includes('[') && !t.includes(']')) {
    rows = t.split(/\r?\n|\r/).map((line) => line.split(/[\t, ]+/).filter((x) => x !== '')).filter((r) => r.length);
  } else {
    const wrapped = WRAPPER.exec(t);
    if (wrapped) {
      t = wrapped[1];
      const end = t.lastIndexOf(']');
      if (end >= 0 && KEYWORDS.test(t.slice(end + 1))) t = t.slice(0, end + 1);
    }
    const nested = brackets(t);
    if (nested.error) return nested;
    rows = nested.rows;
  }
  if (!rows.some((r) => r.length)) return NO_NUMBERS;
  const out = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const values = new Array(row.length);
    for (let j = 0; j < row.length; j++) {
      const s = row[j];
      // The common case first, without parseCell's checks: a paste can hold 200 000 numbers.
      const x = NUMBER.test(s) ? Number(s) : NaN;
      if (Number.isFinite(x)) { values[j] = x; continue; }
      if (s === '...' || s === '…') {
        return { error: 'the text is summarised (“...”): NumPy leaves out values of big arrays; print it whole with np.set_printoptions(threshold=sys.maxsize)' };
      }
      return { error: `row ${i}, column ${j}: ${parseCell(s).error}` };
    }
    out[i] = values;
  }
  return { rows: out };
}

/** Bracketed text → {rows: [[token…]…]} of number-like tokens, or {error}. Linear in the text: pastes can be 1 MB. */
function brackets(text) {
  const top = [];
  const stack = [top];
  let atoms = 0;
  for (const [token] of text.matchAll(/\[|\]|[^\s,[\]]+/g)) {
    if (token === '[') {
      const list = [];
      stack[stack.length - 1].push(list);
      stack.push(list);
    } else if (token === ']') {
      if (stack.length === 1) return { error: 'the brackets do not match: a “]” closes nothing' };
      stack.pop();
    } else {
      stack[stack.length - 1].push(token);
      atoms++;
    }
  }
  if (stack.length > 1) return { error: `the brackets do not match: ${stack.length - 1} “[” never closed` };
  if (!atoms) return NO_NUMBERS;
  // The outer brackets of a single list: `[[1, 2], [3, 4]]` is the list of its rows, `[1, 2]` one row.
  const items = top.length === 1 && Array.isArray(top[0]) ? top[0] : top;
  const isList = Array.isArray;
  if (items.every((x) => !isList(x))) return { rows: [items] };
  if (items.every(isList)) {
    for (const row of items) {
      if (row.some(isList)) {
        return { error: row.every(isList) ? 'this is a 3-D (or deeper) array: paste one 2-D matrix' : 'a row mixes numbers and nested lists: paste one 2-D matrix' };
      }
    }
    return { rows: items };
  }
  // Numbers beside lists: report a stray word (`print(`, `+ 1`) as what it is, else the nesting.
  const stray = items.find((x) => !isList(x) && parseCell(x).error);
  if (stray !== undefined) return { error: `${parseCell(stray).error} (outside the brackets)` };
  return { error: 'the text mixes numbers and nested lists: paste one 2-D matrix' };
}
