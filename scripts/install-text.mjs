// The npm package's own texts: its README.md, whose install instruction is README.md's ("In your own page": dist.mjs
// copies its snippets, and tests/e2e/author.test.mjs checks that www/embed.html shows the same ones), and the copy of
// www/embed.html it ships in docs/ (with docs/integrations.md), which its README links to: there is no public URL.
import { sizeSpan } from './doc-sizes.mjs';

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

/**
 * The install snippets of a Markdown or HTML text: each code block (```html … ``` or <pre><code>…</code></pre>)
 * that loads attention-viz.js or attention-viz.inline.js with a <script src>, its lines trimmed.
 */
export function installSnippets(text) {
  const blocks = [
    ...[...text.matchAll(/```html\n([\s\S]*?)```/g)].map((m) => m[1]),
    ...[...text.matchAll(/<pre[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) => unescape(m[1])),
  ];
  return blocks
    .filter((b) => /<script[^>]*\ssrc="[^"]*attention-viz(?:\.inline)?\.js"/.test(b))
    .map((b) => b.split('\n').map((l) => l.trim()).filter(Boolean).join('\n'));
}

/** dist/README.md, the npm package's, with README.md's install snippets; `sizes` (dist/sizes.json) gives the sizes it
 * quotes (without them it quotes none). Every link is to a file of the package (tests/e2e/package.test.mjs). */
export function distReadme(version, readme, sizes = null) {
  const [module, single] = installSnippets(readme);
  if (!module || !single) throw new Error('README.md has no install snippets ("In your own page")');
  const sized = (name) => (sizes ? ` (${sizeSpan(name, sizes)})` : '');
  return `# attention-viz ${version}

Live, editable attention heatmaps for tutorial pages. This package holds its reference:
[docs/embed.html](docs/embed.html), every attribute, property, event, method and config field with a live example
(serve the package's folder and open it), and [docs/integrations.md](docs/integrations.md), the tested recipes
(bundlers, static sites, notebooks, frameworks).

Copy \`attention-viz.js\`, its chunks \`attention-viz-*.js\` (what it imports only when a figure or a call needs it: a
model's weights view, train()), \`attention-viz.inline.js\` and \`pkg/\` from this package into one folder of your site,
\`attention-viz/\` at its root, and load the script by its address from the root:

\`\`\`html
${module}
\`\`\`

Keep \`pkg/\` beside the script: the module loads the figure core, \`pkg/attention_viz_figure.wasm\`, relative to
itself (and the whole core, \`pkg/attention_viz_bg.wasm\`, only when a part of a figure or \`await ready\` needs it), and
\`pkg/attention_viz_models.bin\` (the trained models) only when a figure or \`loadModels()\` asks for one. Where \`.wasm\` files cannot be served, from \`file://\` and in a notebook
cell, use the single file instead (a classic script with the WASM and the models inside; it sets
\`AttentionViz\` on \`globalThis\`, i.e. \`window.AttentionViz\` in a page):

\`\`\`html
${single}
\`\`\`

A site served under a subpath (\`https://you.github.io/project/\`) prefixes the address with its base URL (Jekyll's
\`relative_url\`, Hugo's \`relURL\`; MkDocs' \`extra_javascript\` does it itself).

With a bundler: \`import { ready, compute } from 'attention-viz'\`. The module fetches the two cores' \`.wasm\` files
and the trained models, \`pkg/attention_viz_models.bin\`, relative to the script it ends up in
(\`new URL('./pkg/attention_viz_bg.wasm', import.meta.url)\`). Vite and Parcel emit both files themselves, with no
config (the models file is \`.bin\`, which no bundler turns into a module). webpack 5 and Rspack emit them too, but in
production mode print an asset-size hint for the \`.wasm\`${sized('wasm')}, over their limit (244 KiB; Rspack's 300
KiB), unless their config leaves it out:
\`performance: { assetFilter: (file) => !file.endsWith('.wasm') && !file.endsWith('.map') }\`.
Rollup and esbuild do not emit them: copy them beside the bundle, for \`public/app.js\`:
\`mkdir -p public/pkg && cp node_modules/attention-viz/pkg/* public/pkg/\` (also exported as \`attention-viz/wasm\`
and \`attention-viz/models\`).
Your app's package.json needs \`"type": "module"\` and no \`"main"\`: npm 11's \`npm init -y\` writes \`"type": "commonjs"\` and \`"main": "index.js"\`, which break webpack, Rspack, Next.js and Parcel builds with this ES-module package.
Each recipe is tested: [docs/integrations.md](docs/integrations.md#bundlers) ("Bundlers"). Without the models file
everything works but the shipped trained models, which say that they could not be loaded.

In Node (≥ 20.16: a server, a static site's build, a test) the same import works and fetches nothing: \`ready\` reads
both files from the package, then \`compute()\`, \`renderSVG()\` (an SVG a static site can write into its pages at build
time) and \`RandomState\` work; the element is defined only where \`customElements\` exists.

Every attribute, property, event and method: [docs/embed.html](docs/embed.html); every config field: its table,
[docs/embed.html#config](docs/embed.html#config). MIT licence ([LICENSE](LICENSE)).
`;
}

/** What a text of the package must not keep from www/embed.html, and what it says instead: `[from, to]`, each `from`
 * a regular expression that must match (else www/embed.html changed, and this with it). */
const PACKAGED = [
  // The head: the package's files from docs/ (the module build is one script; its pages' styles and examples beside).
  [/(<title>[^<]*<\/title>\n)[\s\S]*?(?=<\/head>)/, '$1<link rel="stylesheet" href="page.css">\n<link rel="stylesheet" href="embed.css">\n'
    + '<script type="module" src="../attention-viz.js"></script>\n<script type="module" src="embed.js"></script>\n'],
  // The repository's examples are not in the package.
  [/\n\s*Examples: <a href="\.\.\/examples\/[\s\S]*?first\)\.(?=<\/p>)/, ''],
];

/** dist/docs/embed.html: www/embed.html loading the package's files (its examples run when the package's folder is
 * served), without the repository's examples; `../README.md` is the package's README. */
export function packagedEmbed(html) {
  for (const [from, to] of PACKAGED) {
    if (!from.test(html)) throw new Error(`www/embed.html no longer matches ${from}: update scripts/install-text.mjs`);
    html = html.replace(from, to);
  }
  return html;
}
