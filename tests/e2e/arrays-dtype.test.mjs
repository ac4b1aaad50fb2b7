// parseArray of NumPy and PyTorch reprs that name a narrower float dtype: the numbers are what NumPy's
// (or PyTorch's) own eval of the text stores, not the decimal digits read as float64. Golden values from NumPy:
// tests/goldens/gen_dtype_fixtures.py → tests/fixtures/array-dtypes.json. Node only: www/arrays.js is plain JavaScript
// (arrays.test.mjs checks the same module runs in Chromium).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseArray, parseArrays } from '../../www/arrays.js';

const { cases } = JSON.parse(readFileSync(new URL('../fixtures/array-dtypes.json', import.meta.url), 'utf8'));
const number = (v) => (v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v);
const flat = (a) => (Array.isArray(a) ? a.flatMap(flat) : [a]);
const shape = (a) => (Array.isArray(a) ? [a.length, ...shape(a[0])] : []);

test('a repr naming float32, float16 or bfloat16 reads as NumPy/PyTorch store it, bit for bit', () => {
  assert.ok(cases.length >= 10);
  const failures = [];
  for (const { text, how, values, shape: want } of cases) {
    const got = parseArray(text);
    assert.deepEqual(shape(got), want, text);
    flat(got).forEach((x, i) => {
      if (!Object.is(x, number(values[i]))) failures.push(`${JSON.stringify(text)} [${i}] (${how}): ${x}, NumPy gives ${values[i]}`);
    });
  }
  assert.deepEqual(failures, []);
});

test('the same rounding inside a JSON object of arrays (parseArrays)', () => {
  const f32 = cases.find((c) => c.text.startsWith('array(') && c.text.endsWith('dtype=float32)') && !c.text.includes('\n'));
  const got = parseArrays(`{"w": ${f32.text}, "plain": [0.1]}`);
  assert.deepEqual(got.w, f32.values.map(number));
  assert.deepEqual(got.plain, [0.1]);
});
