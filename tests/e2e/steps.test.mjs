// Chapter 1 shows one word's attention step by step (www/element/steps.js, the `steps` panel): q₀·k_j → ÷√d_k →
// exp(· − max) → ÷Σ → weights → Σ_j w_j·v_j, with the exp column and its sum in the breakdown too. Golden values:
// NumPy's (tests/fixtures/numpy-query-steps.json, tests/goldens/gen_query_steps.py) and the seed document's printed
// numbers; the page shows them to 4 significant digits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, fixture, done, typeInCell } from './harness.mjs';

const STEPS = fixture('numpy-query-steps.json');
let site;
before(async () => { site = await open(); });
after(() => site.close());

/** Shown to 4 significant digits (3 in exponent form): equal to the golden within half a unit of the last digit. */
function near(shown, golden, what) {
  const x = Number(shown);
  const g = Number(golden);
  const tol = shown.includes('e') ? 5e-3 : 5e-4;
  assert.ok(Math.abs(x - g) <= tol * Math.max(Math.abs(g), 1e-300), `${what}: shown ${shown}, NumPy ${golden}`);
}

async function chapter1(page) {
  await page.waitForFunction(() => document.getElementById('chapter-1')?.shadowRoot?.querySelector('.steps tbody tr'));
  return page.evaluate(() => {
    const root = document.getElementById('chapter-1').shadowRoot;
    const rows = [...root.querySelectorAll('.steps tbody tr[data-key]')].map((tr) => [...tr.querySelectorAll('td:not(.arrow)')].map((td) => td.textContent.trim()));
    const bd = [...root.querySelectorAll('.breakdown tr')].map((tr) => [...tr.children].map((c) => c.textContent.trim()));
    return {
      caption: root.querySelector('.steps-title').textContent,
      ops: [...root.querySelectorAll('.steps thead .op-name')].map((o) => o.textContent),
      rows,
      sum: root.querySelector('.steps [data-sum="exp"]').textContent,
      context: root.querySelector('.steps [data-sum="context"]').textContent,
      breakdown: bd,
      weightsHeatmap: Boolean(root.querySelector('canvas[data-view="weights"]')),
    };
  });
}

test('chapter 1: query 0 flows score → ÷√3 → exp → ÷Σ → weight → context, as NumPy computes it', async () => {
  const page = await site.page('index.html');
  const s = await chapter1(page);
  const golden = STEPS['seed-000'];
  assert.match(s.caption, /query 0 \(word_1\), q₀ = \[2, 0, 2\]/);
  assert.deepEqual(s.ops, ['÷ √3', 'exp(· − max)', '÷ Σ', '× v_j']);
  assert.equal(s.rows.length, 4);
  s.rows.forEach((r, j) => {
    near(r[0], golden.scores[j], `score ${j}`);
    near(r[1], golden.scaled[j], `scaled ${j}`);
    near(r[2], golden.exp[j], `exp ${j}`);
    near(r[3], golden.weights[j], `weight ${j}`);
  });
  near(s.sum, golden.sum, 'Σ exp');
  // The document's printed context row: [0.98522025 1.74174051 0.75652026].
  assert.match(s.context, /^z₀ = \[0\.9852, 1\.742, 0\.7565\]$/);
  // Chapter 1 is not chapter 2's figure: no matrix of weights, one word's strip instead.
  assert.equal(s.weightsHeatmap, false);
  // The breakdown has the exp column and its sum.
  assert.ok(s.breakdown[0].includes('exp(scaled − max)'), s.breakdown[0].join(' | '));
  const sumRow = s.breakdown.find((r) => r[0] === 'Σ');
  near(sumRow[2], golden.sum, 'breakdown Σ');
  await done(page);
});

test('the strip follows an edit typed with the keyboard, and another query picked in the toolbar', async () => {
  const page = await site.page('index.html');
  await chapter1(page);
  const fig = page.locator('#chapter-1');
  // W_K's middle row raised: word_2's key now points like word_1's query (the page's "Try" suggestion).
  await typeInCell(page, 'chapter-1', 'w_k', 1, 0, '3');
  await page.keyboard.press('Enter');
  const after = await chapter1(page);
  const trace = await page.evaluate(() => document.getElementById('chapter-1').trace.query);
  after.rows.forEach((r, j) => {
    near(r[0], trace.scores[j], `score ${j} after the edit`);
    near(r[3], trace.weights[j], `weight ${j} after the edit`);
  });
  await fig.locator('select[data-control="query"]').selectOption('2');
  const q2 = await chapter1(page);
  assert.match(q2.caption, /query 2 \(word_3\)/);
  await done(page);
});
