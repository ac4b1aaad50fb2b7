// The plain results page: every preset's trace as tables of numbers.
import { ready, presets, compute } from './attention-viz.js';

const status = document.getElementById('status');
const host = document.getElementById('presets');

function table(title, value) {
  const rows = Array.isArray(value[0]) ? value : [value];
  const t = document.createElement('table');
  const cap = t.createCaption();
  cap.textContent = title;
  for (const row of rows) {
    const tr = t.insertRow();
    for (const x of row) tr.insertCell().textContent = Number.isInteger(x) ? String(x) : x.toPrecision(8);
  }
  return t;
}

ready.then(() => {
  for (const [name, config] of Object.entries(presets)) {
    const section = document.createElement('section');
    const h = document.createElement('h2');
    h.textContent = name;
    section.append(h);
    const trace = compute(config);
    const stages = trace.mechanism === 'self'
      ? ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'context']
      : ['scores', 'weights', 'applied', 'context'];
    const grid = document.createElement('div');
    grid.className = 'tables';
    for (const s of stages) grid.append(table(s, trace[s]));
    section.append(grid);
    host.append(section);
  }
  status.textContent = '';
}, (e) => { status.textContent = `Could not load the WebAssembly core: ${e.message}`; });
