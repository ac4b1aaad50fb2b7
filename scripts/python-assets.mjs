// Prints the Python package's data (the core's colormap tables and the seed presets: src/facts.rs python_assets) as
// JSON on stdout, from the built .wasm (www/pkg/, `make build`): scripts/wheel.py writes it into the wheel.
import { readFileSync } from 'node:fs';
import { initSync, pythonAssets } from '../www/pkg/attention_viz.js';

initSync({ module: readFileSync(new URL('../www/pkg/attention_viz_bg.wasm', import.meta.url)) });
process.stdout.write(`${pythonAssets()}\n`);
