// Owns text85: bytes written as text of the core's 85-character alphabet (`TEXT85`, src/facts.rs), the text of
// Python's packed arrays (`"text85"`, python/attention_viz/_figure.py) and of the notebooks' engine
// (scripts/python-assets.mjs). Five characters for four bytes where base64 takes 5⅓, and none that an HTML attribute,
// a JS string or a notebook's JSON escapes.
// Pure, no DOM: the element, the engine's loader and Node's tests read it alike.
import { TEXT85 } from './element/facts.js';

/** Each character code's digit (−1: not of the alphabet). */
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < TEXT85.length; i++) DIGIT[TEXT85.charCodeAt(i)] = i;

/**
 * The bytes of `text`: each 5 characters a big-endian 32-bit word in base 85, most significant digit first; a last
 * group of k + 1 characters (k = 1…3) the first k bytes of its word, read with the missing digits at 84 (as RFC 1924's
 * base85, in another alphabet). Throws, saying where, on a character outside the alphabet, a group over 2³² − 1 or a
 * last group of one character: `what` names the text in the message.
 */
export function fromText85(text, what = 'the text') {
  const rest = text.length % 5;
  if (rest === 1) throw new Error(`${what} is not text85: its length ${text.length} leaves one character over`);
  const full = text.length - rest;
  const out = new Uint8Array((full / 5) * 4 + (rest ? rest - 1 : 0));
  let o = 0;
  // The whole groups, without a branch per character: a character outside the alphabet makes a digit −1 (or, past
  // code 127, undefined: the word NaN), which the one test per group sends to `refuse`.
  for (let at = 0; at < full; at += 5, o += 4) {
    const d0 = DIGIT[text.charCodeAt(at)], d1 = DIGIT[text.charCodeAt(at + 1)], d2 = DIGIT[text.charCodeAt(at + 2)];
    const d3 = DIGIT[text.charCodeAt(at + 3)], d4 = DIGIT[text.charCodeAt(at + 4)];
    const word = (((d0 * 85 + d1) * 85 + d2) * 85 + d3) * 85 + d4;
    if ((d0 | d1 | d2 | d3 | d4) < 0 || !(word <= 0xffffffff)) refuse(text, at, what);
    out[o] = word >>> 24; out[o + 1] = (word >>> 16) & 255; out[o + 2] = (word >>> 8) & 255; out[o + 3] = word & 255;
  }
  if (rest) {
    let word = 0;
    for (let k = 0; k < 5; k++) {
      const digit = k < rest ? DIGIT[text.charCodeAt(full + k)] ?? -1 : 84;
      if (digit < 0) refuse(text, full, what);
      word = word * 85 + digit;
    }
    for (let k = 0; k < rest - 1; k++) out[o + k] = (word >>> (24 - 8 * k)) & 255;
  }
  return out;
}

/** Throws what is wrong with the group of 5 characters at `at`: a character outside the alphabet, or a word over
 * 2³² − 1. */
function refuse(text, at, what) {
  for (let k = at; k < at + 5 && k < text.length; k++) {
    const code = text.charCodeAt(k);
    if (!(code < 128 && DIGIT[code] >= 0)) throw new Error(`${what} is not text85: character ${k} is ${JSON.stringify(text[k])}`);
  }
  throw new Error(`${what} is not text85: characters ${at}…${at + 4} are over 2³² − 1`);
}

/** `bytes` (a Uint8Array) as text85: what Python's `_figure.text85` writes, for the build's scripts and the tests. */
export function toText85(bytes) {
  const out = new Uint8Array(Math.ceil(bytes.length / 4) * 5);
  for (let at = 0, o = 0; at < bytes.length; at += 4, o += 5) {
    let word = 0;
    for (let k = 0; k < 4; k++) word = word * 256 + (at + k < bytes.length ? bytes[at + k] : 0);
    for (let k = 4; k >= 0; k--, word = Math.floor(word / 85)) out[o + k] = TEXT85.charCodeAt(word % 85);
  }
  const cut = bytes.length % 4 ? 4 - (bytes.length % 4) : 0;
  return new TextDecoder().decode(out.subarray(0, out.length - cut));
}
