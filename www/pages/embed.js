// The live examples of embed.html (an external script, so the page works under a strict CSP).
import { ready, compute, renderSVG, RandomState, presets } from '../attention-viz.js';

const $ = (id) => document.getElementById(id);
const short = (x) => JSON.stringify(x, (k, v) => (typeof v === 'number' ? Number(v.toPrecision(4)) : v));

await ready;

const prop = $('prop-demo');
const showProp = () => { $('prop-out').textContent = `el.trace.weights → ${short(prop.trace.weights)}\nel.config.tokens → ${short(prop.config.tokens)}`; };
prop.addEventListener('change', showProp);
prop.addEventListener('error', (e) => { $('prop-out').textContent = `error event: ${e.detail.message}`; });
$('prop-set').addEventListener('click', () => { prop.config = { embeddings: [[1, 0], [0, 1]], tokens: ['yes', 'no'] }; });
$('prop-bad').addEventListener('click', () => { prop.config = { embeddings: [[1, 2], [3]] }; });
$('prop-palette').addEventListener('click', () => { prop.palette = 'vlag'; });
// `ready` is the WASM core, not the figure: the element loads its preset later (one figure per task) and
// `trace` is null until then. Its first `change` event (listened to above) fills the output; a figure
// that already loaded is shown now.
if (prop.trace) showProp();

const ev = $('event-demo');
ev.addEventListener('change', (e) => { $('event-out').textContent = `change: weights = ${short(e.detail.trace.weights)}`; });
ev.addEventListener('error', (e) => { $('event-out').textContent = `error: ${e.detail.message}`; });

const m = $('method-demo');
for (const b of document.querySelectorAll('[data-method]')) {
  b.addEventListener('click', async () => {
    const out = $('method-out');
    const img = $('method-img');
    img.replaceChildren();
    switch (b.dataset.method) {
      case 'toSVG': out.textContent = m.toSVG('weights'); break;
      case 'toPNG': {
        const blob = await m.toPNG('weights');
        const i = document.createElement('img');
        i.src = URL.createObjectURL(blob);
        i.alt = 'PNG export of the weights heatmap';
        img.append(i);
        out.textContent = `Blob ${blob.type}, ${blob.size} bytes`;
        break;
      }
      case 'toJSON': out.textContent = JSON.stringify(m.toJSON()); break;
      case 'toNumPy': out.textContent = m.toNumPy(); break;
      case 'shareURL': out.textContent = m.shareURL(); break;
      default:
    }
  });
}

const rs = new RandomState(42);
let bad;
try { compute({ embeddings: [[1, 0, 0], [0, 1, 0], [1, 1, 0, 5]] }); } catch (e) { bad = e.message; }
$('module-out').textContent = [
  `compute(presets['seed-003']).weights → ${short(compute(presets['seed-003']).weights)}`,
  `new RandomState(42).randint(3, null, [3, 3]) → ${JSON.stringify(rs.randint(3, null, [3, 3]))}`,
  `compute({embeddings: [[1,0,0],[0,1,0],[1,1,0,5]]}) throws "${bad}"`,
  `renderSVG(presets['seed-003'], 'decoder_state') → ${renderSVG(presets['seed-003'], 'decoder_state').length} characters of SVG`,
].join('\n');
