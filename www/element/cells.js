// Owns what cells hold: the text typed into one cell (parseCell), a pasted block of them (parseBlock: any text form
// parseArray reads, as one 2-D block).
// No DOM, no element; the messages they return are shown to the reader as they are.

import { parseArray } from '../arrays.js';
// The core reads a typed number (text::cell_number) and says why not; cells exist only once the core is ready.
import { call } from '../core.js';
// The longest paste read, in characters (the core's `controls::MAX_PASTE`): a paste within it is read without asking.
import { MAX_PASTE } from './facts.js';

export { MAX_PASTE };

/** What the user typed in a cell (or a number field): `{value}`, a finite number, or `{error}`, the core's words. */
export const parseCell = (text) => call({ kind: 'cell_number', text: String(text) });

/** What the user typed in a whole-number field: its number when it is digits alone (the core's reading), else null. */
export const parseWhole = (text) => call({ kind: 'whole_number', text: String(text) }) ?? null;

/** The user's text as the core's messages quote it (escaped, cut short). */
export const quoteText = (text) => call({ kind: 'text', quote: String(text) });

/** `{error}` for a paste too long to read (the core's limit and words: `controls::paste_refused`), else null. */
export function tooLong(text) {
  if (text.length <= MAX_PASTE) return null;
  const why = call({ kind: 'paste_length', length: text.length });
  return why === undefined ? null : { error: why };
}

/** Does a paste of this text fill a block of cells (the element's), or go into one cell as typed text (the browser's)? */
export const isBlock = (text) => /[\s,[\]]/.test(String(text).trim());

const NO_NUMBERS = { error: 'the pasted text holds no numbers' };

/**
 * Reads a pasted block of numbers: `{rows}` (rows of finite numbers, all of one length) or `{error}` saying what is
 * wrong and where (row and column from 0, as in NumPy, and the line:column of the text).
 *
 * The text is read by parseArray (www/arrays.js), so a paste takes every text form a file does: rows separated by
 * tabs, commas or spaces (a spreadsheet, CSV, a `print` of a row; a first row of names is skipped), Python lists,
 * JSON, NumPy's and PyTorch's reprs, NumPy's print form wrapped over lines (`[[0.1 0.2\n  0.3]\n [0.4 0.5\n  0.6]]`),
 * several lists in a row (`[1, 2]\n[3, 4]`) as rows. One list or one number is a single row; a cell takes one 2-D
 * block at the most.
 */
export function parseBlock(text) {
  const t = String(text);
  const refused = tooLong(t);
  if (refused) return refused;
  // Only separators and brackets: say there is nothing to paste rather than what is wrong with their shape.
  if (/^[\s,;[\]]*$/.test(t)) return NO_NUMBERS;
  let array;
  try {
    array = parseArray(t);
  } catch (e) {
    return { error: e.message };
  }
  const rows = !Array.isArray(array) ? [[array]] : Array.isArray(array[0]) ? array : [array];
  if (Array.isArray(rows[0]?.[0])) return { error: 'this is a 3-D (or deeper) array: paste one 2-D matrix' };
  if (!rows.some((r) => r.length)) return NO_NUMBERS;
  for (let i = 0; i < rows.length; i++) {
    const j = rows[i].findIndex((x) => !Number.isFinite(x));
    if (j >= 0) return { error: `row ${i}, column ${j}: ${parseCell(String(rows[i][j])).error}` };
  }
  return { rows };
}
