// What JupyterLab shows of an untrusted notebook's text/html output: JupyterLab runs the HTML through the npm
// `sanitize-html` with the options of its `Sanitizer` class, then sets it as innerHTML (scripts never run).
// The options are transcribed from jupyterlab/jupyterlab packages/apputils/src/sanitizer.ts at commit
// 721139d4c59b29a4ba4bb93cf29d28da76c39023 (JupyterLab 4, `_generateOptions()` with its default
// `allowNamedProperties = false`, i.e. no `id`/`name` attributes).
//
// Transcribed exactly: allowedTags, allowedAttributes, transformTags, allowedSchemes, allowedSchemesByTag and
// allowedSchemesAppliedToAttributes (the last one is why an <img src="data:…"> survives: `src` is not checked
// against the schemes). Not transcribed: the value grammar of allowedStyles (CssProp, a few hundred regular
// expressions after Google Caja). Here a short list of properties with values written from the CSS grammar
// stands in for it and every other declaration is dropped, which is stricter than JupyterLab: an output whose
// picture survives this survives JupyterLab's (styles can only change layout; no style makes an <img> appear).
import sanitizeHtml from 'sanitize-html';

const LEN = String.raw`(0|[+-]?(\d*\.)?\d+(px|em|rem|ex|in|cm|mm|pt|pc|%))`;
const LEN_POS = String.raw`(0|[+]?(\d*\.)?\d+(px|em|rem|ex|in|cm|mm|pt|pc|%))`;
const COLOR = String.raw`(#(0x)?[0-9a-f]+|rgba?\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*(,\s*[0-9.]+%?\s*)?\)|[a-z]+)`;
const re = (s) => new RegExp(`^(${s})$`, 'i');
const STYLES = {
  width: [re(`${LEN_POS}|auto`)],
  height: [re(`${LEN}|auto`)],
  'max-width': [re(`${LEN_POS}|none|auto`)],
  'max-height': [re(`${LEN_POS}|none|auto`)],
  'min-width': [re(`${LEN_POS}|auto`)],
  'min-height': [re(`${LEN_POS}|auto`)],
  margin: [re(`((${LEN}|auto)\\s*){1,4}`)],
  padding: [re(`(${LEN_POS}\\s*){1,4}`)],
  display: [re('inline|block|inline-block|flex|inline-flex|grid|inline-grid|table|none|contents')],
  'vertical-align': [re(`baseline|sub|super|top|text-top|middle|bottom|text-bottom|${LEN}`)],
  color: [re(COLOR)],
  'background-color': [re(COLOR)],
  border: [re(`((thin|medium|thick|${LEN}|none|hidden|dotted|dashed|solid|double|${COLOR})\\s*){1,3}`)],
  'font-size': [re(`xx-small|x-small|small|medium|large|x-large|xx-large|smaller|larger|${LEN_POS}`)],
  'text-align': [re('left|right|center|justify')],
};

/** The options of JupyterLab's sanitizer (see the header for what is exact and what stands in). */
export const JUPYTERLAB_OPTIONS = {
  allowedTags: [
    'a', 'abbr', 'acronym', 'address', 'area', 'article', 'aside', 'audio', 'b', 'bdi', 'bdo', 'big', 'blockquote',
    'br', 'button', 'canvas', 'caption', 'center', 'cite', 'code', 'col', 'colgroup', 'colspan', 'command', 'data',
    'datalist', 'dd', 'del', 'details', 'dfn', 'dir', 'div', 'dl', 'dt', 'em', 'fieldset', 'figcaption', 'figure',
    'font', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'i', 'img', 'input',
    'ins', 'kbd', 'label', 'legend', 'li', 'map', 'mark', 'menu', 'meter', 'nav', 'nobr', 'ol', 'optgroup',
    'option', 'output', 'p', 'pre', 'progress', 'q', 'rowspan', 's', 'samp', 'section', 'select', 'small',
    'source', 'span', 'strike', 'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'textarea', 'tfoot',
    'th', 'thead', 'time', 'tr', 'track', 'tt', 'u', 'ul', 'var', 'video', 'wbr',
  ],
  allowedAttributes: {
    '*': ['class', 'dir', 'draggable', 'hidden', 'inert', 'itemprop', 'itemref', 'itemscope', 'lang', 'spellcheck',
      'style', 'title', 'translate'],
    a: ['accesskey', 'coords', 'href', 'hreflang', 'rel', 'shape', 'tabindex', 'target', 'type'],
    area: ['accesskey', 'alt', 'coords', 'href', 'nohref', 'shape', 'tabindex'],
    audio: ['autoplay', 'controls', 'loop', 'mediagroup', 'muted', 'preload', 'src'],
    bdo: ['dir'],
    blockquote: ['cite'],
    br: ['clear'],
    button: ['accesskey', 'data-commandlinker-args', 'data-commandlinker-command', 'disabled', 'tabindex', 'type',
      'value'],
    canvas: ['height', 'width'],
    caption: ['align'],
    col: ['align', 'char', 'charoff', 'span', 'valign', 'width'],
    colgroup: ['align', 'char', 'charoff', 'span', 'valign', 'width'],
    command: ['checked', 'command', 'disabled', 'icon', 'label', 'radiogroup', 'type'],
    data: ['value'],
    del: ['cite', 'datetime'],
    details: ['open'],
    dir: ['compact'],
    div: ['align'],
    dl: ['compact'],
    fieldset: ['disabled'],
    font: ['color', 'face', 'size'],
    form: ['accept', 'autocomplete', 'enctype', 'method', 'novalidate'],
    h1: ['align'], h2: ['align'], h3: ['align'], h4: ['align'], h5: ['align'], h6: ['align'],
    hr: ['align', 'noshade', 'size', 'width'],
    iframe: ['align', 'frameborder', 'height', 'marginheight', 'marginwidth', 'width'],
    img: ['align', 'alt', 'border', 'height', 'hspace', 'ismap', 'src', 'usemap', 'vspace', 'width'],
    input: ['accept', 'accesskey', 'align', 'alt', 'autocomplete', 'checked', 'disabled', 'inputmode', 'ismap',
      'list', 'max', 'maxlength', 'min', 'multiple', 'placeholder', 'readonly', 'required', 'size', 'src', 'step',
      'tabindex', 'type', 'usemap', 'value'],
    ins: ['cite', 'datetime'],
    label: ['accesskey', 'for'],
    legend: ['accesskey', 'align'],
    li: ['type', 'value'],
    map: [],
    menu: ['compact', 'label', 'type'],
    meter: ['high', 'low', 'max', 'min', 'value'],
    ol: ['compact', 'reversed', 'start', 'type'],
    optgroup: ['disabled', 'label'],
    option: ['disabled', 'label', 'selected', 'value'],
    output: ['for'],
    p: ['align'],
    pre: ['width'],
    progress: ['max', 'min', 'value'],
    q: ['cite'],
    select: ['autocomplete', 'disabled', 'multiple', 'required', 'size', 'tabindex'],
    source: ['type'],
    table: ['align', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'frame', 'rules', 'summary', 'width'],
    tbody: ['align', 'char', 'charoff', 'valign'],
    td: ['abbr', 'align', 'axis', 'bgcolor', 'char', 'charoff', 'colspan', 'headers', 'height', 'nowrap', 'rowspan',
      'scope', 'valign', 'width'],
    textarea: ['accesskey', 'autocomplete', 'cols', 'disabled', 'inputmode', 'placeholder', 'readonly', 'required',
      'rows', 'tabindex', 'wrap'],
    tfoot: ['align', 'char', 'charoff', 'valign'],
    th: ['abbr', 'align', 'axis', 'bgcolor', 'char', 'charoff', 'colspan', 'headers', 'height', 'nowrap', 'rowspan',
      'scope', 'valign', 'width'],
    thead: ['align', 'char', 'charoff', 'valign'],
    tr: ['align', 'bgcolor', 'char', 'charoff', 'valign'],
    track: ['default', 'kind', 'label', 'srclang'],
    ul: ['compact', 'type'],
    video: ['autoplay', 'controls', 'height', 'loop', 'mediagroup', 'muted', 'poster', 'preload', 'src', 'width'],
  },
  allowedStyles: { '*': STYLES },
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow' }),
    input: sanitizeHtml.simpleTransform('input', { disabled: 'disabled' }),
  },
  allowedSchemes: [...sanitizeHtml.defaults.allowedSchemes],
  allowedSchemesByTag: { img: sanitizeHtml.defaults.allowedSchemes.concat(['attachment']) },
  allowedSchemesAppliedToAttributes: ['href', 'cite'],
};

/** An untrusted output's HTML as JupyterLab puts it in the page. */
export function sanitizeUntrusted(html) {
  return sanitizeHtml(html, JUPYTERLAB_OPTIONS);
}
