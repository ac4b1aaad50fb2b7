// The anywidget front end of attention_viz.Widget: one <attention-viz> element whose edits flow back to
// Python (config, trace) and whose config follows Python's. The single-file build is prepended to this
// module by _widget.py, so the widget needs no network and no second file.
function render({ model, el }) {
  const fig = document.createElement('attention-viz');
  const apply = (opts) => {
    for (const [name, value] of Object.entries(opts || {})) fig.setAttribute(name, String(value));
  };
  apply(model.get('options'));
  let sent = JSON.stringify(model.get('config'));
  fig.setAttribute('config', sent);
  // The learner's edit (or a config from Python, once the element took it): report config and trace.
  const onChange = () => {
    const config = fig.config;
    if (!config) return;
    sent = JSON.stringify(config);
    model.set('config', config);
    model.set('trace', fig.trace);
    model.set('error', '');
    model.save_changes();
  };
  const onError = (e) => { model.set('error', String(e.detail?.message ?? 'error')); model.save_changes(); };
  const onConfig = () => {
    const config = model.get('config');
    const text = JSON.stringify(config);
    if (text !== sent) { sent = text; fig.config = config; }
  };
  const onOptions = () => apply(model.get('options'));
  fig.addEventListener('change', onChange);
  fig.addEventListener('error', onError);
  model.on('change:config', onConfig);
  model.on('change:options', onOptions);
  el.appendChild(fig);
  // The first drawing fires no `change`: report the trace once the element has one.
  let tries = 0;
  const first = () => {
    let trace = null;
    try { trace = fig.trace; } catch (e) { /* not drawn yet */ }
    if (trace) { model.set('trace', trace); model.save_changes(); } else if (++tries < 600) setTimeout(first, 50);
  };
  first();
  return () => {
    fig.removeEventListener('change', onChange);
    fig.removeEventListener('error', onError);
    model.off('change:config', onConfig);
    model.off('change:options', onOptions);
  };
}

export default { render };
