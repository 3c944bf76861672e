"""The explorer's HTML file: one Bokeh document, self-contained and compressed.

BokehJS alone is about 2 MB of JavaScript, and Bokeh writes a page's arrays as base64 text
inside its JSON: written as they are, a page of 5,000 jobs would weigh 3 MB. This module
writes the same page gzip-compressed instead: BokehJS and the document (its JSON) are two gzip
streams, base64-encoded in the page, and a few lines of script inflate them with the browser's
own ``DecompressionStream`` (Chromium 80, Firefox 113, Safari 16.4 and later), run BokehJS and
hand it the document (``JSON.parse``: much faster than running the JSON as a script).
Nothing is fetched: the page opens offline, from a disk or an e-mail. A browser without
``DecompressionStream`` gets a sentence saying so, not a blank page.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import sys
import zlib
from pathlib import Path

import numpy as np
from bokeh.core.json_encoder import serialize_json
from bokeh.document import Document
from bokeh.embed.bundle import bundle_for_objs_and_resources
from bokeh.embed.util import OutputDocumentFor, standalone_docs_json_and_render_items
from bokeh.resources import INLINE

#: Inflates the payload, puts the arrays back into the document and runs it; says why when the
#: browser cannot. An array (:func:`arrays_apart`) is ``{"adaptsched": [offset, length, item
#: size, delta]}`` in the document: its bytes in the data, byte planes apart, and, with delta,
#: each item the difference from the one before (wrapping, as the item's unsigned integer).
LOADER = """
(async () => {
  const say = (text) => { document.getElementById("adaptsched-loading").textContent = text; };
  if (typeof DecompressionStream === "undefined") {
    say("This page needs a browser with DecompressionStream (Chromium 80, Firefox 113, Safari 16.4 or later).");
    return;
  }
  const inflate = (id) => {
    const text = atob(document.getElementById(id).textContent), bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")));
  };
  const array = (data, [offset, length, size, delta]) => {
    const out = new Uint8Array(length), count = length / size;
    for (let b = 0; b < size; b++) {
      const plane = offset + b * count;
      for (let i = 0; i < count; i++) out[i * size + b] = data[plane + i];
    }
    if (delta) {
      const items = new [Uint8Array, Uint16Array, null, Uint32Array][size - 1](out.buffer);
      for (let i = 1; i < count; i++) items[i] += items[i - 1];
    }
    return out;
  };
  const restore = (node, data) => {
    if (node === null || typeof node !== "object") return;
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (value !== null && typeof value === "object" && Array.isArray(value.adaptsched)) {
        node[key] = array(data, value.adaptsched);
      } else restore(value, data);
    }
  };
  const [library, doc, data] = await Promise.all([
    inflate("adaptsched-library").text(),
    inflate("adaptsched-document").text(),
    inflate("adaptsched-data").arrayBuffer(),
  ]);
  const script = document.createElement("script");
  script.textContent = library;
  document.head.appendChild(script);
  const {docs, items} = JSON.parse(doc);
  restore(docs, new Uint8Array(data));
  Bokeh.embed.embed_items(docs, items);
  document.getElementById("adaptsched-loading").remove();
})();
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>html, body {{ box-sizing: border-box; display: flow-root; margin: 0; padding: 0; }}</style>
{css}
</head>
<body>
<p id="adaptsched-loading" style="font: 14px sans-serif; margin: 8px">Loading the page...</p>
{roots}
<script id="adaptsched-library" type="text/plain">{library}</script>
<script id="adaptsched-document" type="text/plain">{document}</script>
<script id="adaptsched-data" type="text/plain">{data}</script>
<script>{loader}</script>
</body>
</html>
"""


def page_text(doc: Document, title: str) -> str:
    """The HTML text of the page of the Bokeh document ``doc`` (module doc)."""
    with OutputDocumentFor(doc.roots, always_new=False):
        docs_json, render_items = standalone_docs_json_and_render_items(doc)
        bundle = bundle_for_objs_and_resources([doc], INLINE)
    items = [item.to_json() for item in render_items]
    library = packed("\n;\n".join(bundle.js_raw).encode("utf-8"))
    text, data = arrays_apart(serialize_json({"docs": docs_json, "items": items}))
    document = packed(text.encode("utf-8"))
    roots = "\n".join(
        f'<div id="{html.escape(str(r.elementid))}" data-root-id="{html.escape(str(r.id))}" '
        'style="display: contents;"></div>'
        for item in render_items
        for r in item.roots
    )
    css = "\n".join(f"<style>{text}</style>" for text in bundle.css_raw)
    return PAGE.format(
        title=html.escape(title),
        css=css,
        roots=roots,
        library=library,
        document=document,
        data=packed(data),
        loader=LOADER,
    )


def packed(data: bytes) -> str:
    """``data`` as the page carries it: gzip, base64."""
    return base64.b64encode(gzip.compress(data, compresslevel=9, mtime=0)).decode("ascii")


def arrays_apart(text: str) -> tuple[str, bytes]:
    """The document's JSON ``text`` without its arrays, and the arrays' bytes (:data:`LOADER`).

    Bokeh writes each array as its own gzip stream in base64, which a second gzip cannot
    shrink. Apart, in one stream, byte planes apart (the high bytes of times and counts are
    mostly alike) and integers as differences from the item before when that compresses
    better (times in order, host numbers), they weigh about a third less. The same array
    written twice (a callback's argument) is carried once."""
    document, data, seen = json.loads(text), bytearray(), {}

    def walk(node) -> None:
        values = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for value in values:
            if isinstance(value, dict) and value.get("type") == "ndarray" and _bytes(value.get("array")):
                raw = base64.b64decode(value["array"]["data"])
                raw = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
                dtype = np.dtype(value["dtype"]).newbyteorder("<" if value.get("order") == "little" else ">")
                if (raw, dtype.str) not in seen:
                    planes, delta = _planes(np.frombuffer(raw, dtype=dtype))
                    seen[raw, dtype.str] = [len(data), len(raw), dtype.itemsize, delta]
                    data.extend(planes)
                value["array"]["data"] = {"adaptsched": seen[raw, dtype.str]}
            else:
                walk(value)

    walk(document)
    return json.dumps(document, separators=(",", ":")), bytes(data)


def _bytes(array) -> bool:
    return isinstance(array, dict) and array.get("type") == "bytes" and isinstance(array.get("data"), str)


def _planes(values: np.ndarray) -> tuple[bytes, bool]:
    """``values``' bytes, byte planes apart (all first bytes, then all second bytes...), of the
    values or, for integers, of their differences (wrapping), whichever compresses better."""
    size = values.dtype.itemsize
    apart = values.view(np.uint8).reshape(-1, size).T.tobytes() if size > 1 else values.tobytes()
    little = values.dtype.byteorder == "<" or (values.dtype.byteorder in "=|" and sys.byteorder == "little")
    if values.dtype.kind not in "iu" or len(values) < 2 or size not in (1, 2, 4) or not little:
        return apart, False  # the browser adds the differences up as little-endian unsigned integers
    unsigned = values.view(np.dtype(f"<u{size}"))
    steps = np.diff(unsigned, prepend=unsigned.dtype.type(0))
    delta = steps.view(np.uint8).reshape(-1, size).T.tobytes() if size > 1 else steps.tobytes()
    if len(zlib.compress(delta, 6)) < len(zlib.compress(apart, 6)):
        return delta, True
    return apart, False


def write_page(doc: Document, path, title: str) -> int:
    """Writes the page of ``doc`` to ``path``; returns its size in bytes."""
    path = Path(path)
    path.write_text(page_text(doc, title), encoding="utf-8")
    return path.stat().st_size
