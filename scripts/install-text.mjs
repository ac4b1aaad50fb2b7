// The install instruction is written once, in README.md ("In your own page"): dist.mjs copies its snippets into the
// npm package's README.md, and tests/e2e/author.test.mjs checks that www/embed.html shows the same ones.

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

/** dist/README.md, the npm package's, with README.md's install snippets. */
export function distReadme(version, readme) {
  const [module, single] = installSnippets(readme);
  if (!module || !single) throw new Error('README.md has no install snippets ("In your own page")');
  return `# attention-viz ${version}

Live, editable attention heatmaps for tutorial pages.

Copy \`attention-viz.js\`, its chunks \`attention-viz-*.js\` (what it imports only when a figure or a call needs it: a
model's weights view, train()), \`attention-viz.inline.js\` and \`pkg/\` from this package into one folder of your site,
\`attention-viz/\` at its root, and load the script by its address from the root:

\`\`\`html
${module}
\`\`\`

Keep \`pkg/\` beside the script: the module loads \`pkg/attention_viz_bg.wasm\` relative to itself, and
\`pkg/attention_viz_models.bin\` (the trained models) only when a figure or \`loadModels()\` asks for one. Where \`.wasm\` files cannot be served, from \`file://\` and in a notebook
cell, use the single file instead (a classic script with the WASM and the models inside; it sets
\`AttentionViz\` on \`globalThis\`, i.e. \`window.AttentionViz\` in a page):

\`\`\`html
${single}
\`\`\`

A site served under a subpath (\`https://you.github.io/project/\`) prefixes the address with its base URL (Jekyll's
\`relative_url\`, Hugo's \`relURL\`; MkDocs' \`extra_javascript\` does it itself).

With a bundler: \`import { ready, compute } from 'attention-viz'\`. The module fetches \`pkg/attention_viz_bg.wasm\`
and the trained models, \`pkg/attention_viz_models.bin\`, relative to the script it ends up in
(\`new URL('./pkg/attention_viz_bg.wasm', import.meta.url)\`). webpack 5, Rspack, Vite and Parcel emit both files
themselves, with no config (the models file is \`.bin\`, which no bundler turns into a module); webpack and Rspack
hint that the ~660 KiB \`.wasm\` is over their asset size hint unless \`performance.assetFilter\` leaves \`.wasm\`
out. Rollup and esbuild do not emit them: copy them beside the bundle, for \`public/app.js\`:
\`mkdir -p public/pkg && cp node_modules/attention-viz/pkg/* public/pkg/\` (also exported as \`attention-viz/wasm\`
and \`attention-viz/models\`). Each recipe is tested: docs/integrations.md in the project repository. Without the models file everything works but the
shipped trained models, which say that they could not be loaded.

In Node (≥ 20.16: a server, a static site's build, a test) the same import works and fetches nothing: \`ready\` reads
both files from the package, then \`compute()\`, \`renderSVG()\` (an SVG a static site can write into its pages at build
time) and \`RandomState\` work; the element is defined only where \`customElements\` exists.

Every attribute, property, event and method: embed.html in the project repository; every config field: the table in
its README.md ("Config"). MIT licence (LICENSE).
`;
}
