// The anywidget front end of attention_viz.Widget: one <attention-viz> element whose edits flow back to
// Python and whose config follows Python's. It sends the config and the page's error message, never the trace:
// Python computes the trace from the config with the same core. The single-file build is prepended to this
// module by _widget.py, so the widget needs no network and no second file.

// The learner's edits reach the kernel throttled: at most one message (the config) every SYNC_MS while they type or
// scrub, and always the last one. Every keystroke's config, each computed again by Python, would queue behind one
// another in the kernel.
const SYNC_MS = 300;

// The picture output Widget._ipython_display_ puts beside the widget view (what a static export shows) is hidden by
// a stylesheet while a live view of the widget is on the page: CSS, not a script that walks the DOM, so a picture
// the kernel replaces (display updates) stays hidden too.
const live = new Map();
function hidePicture(uid) {
  if (!uid || typeof document === 'undefined') return () => {};
  let entry = live.get(uid);
  if (!entry) {
    const style = document.createElement('style');
    style.dataset.attentionVizWidget = uid;
    style.textContent = `.attention-viz-widget-picture.attention-viz-widget-${CSS.escape(uid)}{display:none!important}`;
    document.head.appendChild(style);
    entry = { style, views: 0 };
    live.set(uid, entry);
  }
  entry.views += 1;
  return () => {
    if (--entry.views > 0) return;
    entry.style.remove();
    live.delete(uid);
  };
}

function render({ model, el }) {
  const fig = document.createElement('attention-viz');
  const apply = (opts) => {
    for (const [name, value] of Object.entries(opts || {})) fig.setAttribute(name, String(value));
  };
  apply(model.get('options'));
  // Python's config comes as the element's config attribute reads it (its big arrays packed: _widget.py `_wire`),
  // so it goes in as that attribute. The element's `change` after it is not reported back: the config is Python's
  // (a picked head's million weights would only travel back as lists). `own` is cleared by that change, or by the
  // element's error when it refuses the config.
  let sent = JSON.stringify(model.get('config'));
  let own = true;
  fig.setAttribute('config', sent);
  let timer = null;
  let last = -Infinity;
  const send = () => {
    timer = null;
    last = Date.now();
    const config = fig.config;
    if (!config) return;
    sent = JSON.stringify(config);
    model.set('config', config);
    model.save_changes();
  };
  // The learner's edit: report the config, throttled. The error is cleared now, not when the send runs: a config
  // refused meanwhile keeps its message.
  const onChange = () => {
    if (own) { own = false; return; }
    if (model.get('error')) model.set('error', '');
    if (timer !== null) return;
    timer = setTimeout(send, Math.max(0, last + SYNC_MS - Date.now()));
  };
  const onError = (e) => { own = false; model.set('error', String(e.detail?.message ?? 'error')); model.save_changes(); };
  const onConfig = () => {
    const text = JSON.stringify(model.get('config'));
    if (text !== sent) { sent = text; own = true; fig.setAttribute('config', text); }
  };
  const onOptions = () => apply(model.get('options'));
  // A model's stack over the core's limit: the core's overview of every head beside the figure (its SVG, each head a
  // rectangle naming it); a click on one asks Python for that head in full.
  const overview = document.createElement('div');
  overview.className = 'attention-viz-overview';
  const onOverview = () => { overview.innerHTML = model.get('overview') || ''; };
  const onPick = (e) => {
    const target = e.target.closest?.('[data-layer]');
    if (target) model.send({ pick: [Number(target.dataset.layer), Number(target.dataset.head)] });
  };
  onOverview();
  overview.addEventListener('click', onPick);
  model.on('change:overview', onOverview);
  fig.addEventListener('change', onChange);
  fig.addEventListener('error', onError);
  model.on('change:config', onConfig);
  model.on('change:options', onOptions);
  el.appendChild(fig);
  el.appendChild(overview);
  const shown = hidePicture(model.get('_uid'));
  return () => {
    if (timer !== null) { clearTimeout(timer); send(); } // an edit still waiting is not lost with the view
    shown();
    fig.removeEventListener('change', onChange);
    fig.removeEventListener('error', onError);
    model.off('change:config', onConfig);
    model.off('change:options', onOptions);
    model.off('change:overview', onOverview);
    overview.removeEventListener('click', onPick);
  };
}

export default { render };
