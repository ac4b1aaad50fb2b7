"""Streamlit: ``attention_viz.streamlit.figure(av.show(...))`` shows the live figure in the app's page.

Streamlit's ``components.html`` puts HTML in an iframe of a fixed height (the figure is 1,000–2,000 px tall, by its
config and the page's width), and ``st.html`` drops the ``<attention-viz>`` element. ``figure`` mounts the figure as
an ``st.components.v2`` component instead: in the app's page (a shadow root), as tall as it is, the engine sent
once with the component's code. Streamlit without ``st.components.v2`` (before 1.5x) gets ``components.html`` with
``Figure.page()``, which makes its frame as tall as the figure, and ``height`` as the space Streamlit keeps for it.
"""

from __future__ import annotations

from ._figure import Figure, build_js

# The component's code: the engine, then the mount Streamlit calls with the figure's HTML (on each rerun: the same
# HTML leaves the figure and the reader's edits as they are).
_MOUNT = """
export default function ({ parentElement, data }) {
  let root = parentElement.querySelector('.attention-viz-streamlit');
  if (!root) {
    root = document.createElement('div');
    root.className = 'attention-viz-streamlit';
    parentElement.append(root);
  }
  if (root.dataset.html !== data.html) {
    root.dataset.html = data.html;
    root.innerHTML = data.html;
  }
}
"""

_component: list = [None]


def component_js() -> str:
    """The component's JavaScript: the engine and the mount."""
    return build_js() + "\n" + _MOUNT


def figure(fig: Figure, *, key: str | None = None, height: int = 1200):
    """Shows ``fig`` (``av.show(...)``, ``av.show_attention(...)``) in the Streamlit app. ``key``: Streamlit's, for
    several figures whose place changes between reruns. ``height``: only for Streamlit without components v2."""
    import streamlit as st

    v2 = getattr(getattr(st, "components", None), "v2", None)
    if v2 is None:
        import streamlit.components.v1 as components

        return components.html(fig.page(), height=height)
    if _component[0] is None:
        _component[0] = v2.component("attention_viz.figure", js=component_js())
    return _component[0](data={"html": fig.to_html(script=False)}, key=key)
