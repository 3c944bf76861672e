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
from pathlib import Path

from bokeh.core.json_encoder import serialize_json
from bokeh.document import Document
from bokeh.embed.bundle import bundle_for_objs_and_resources
from bokeh.embed.util import OutputDocumentFor, standalone_docs_json_and_render_items
from bokeh.resources import INLINE

#: Inflates the payload and runs it; says why when the browser cannot.
LOADER = """
(async () => {
  const say = (text) => { document.getElementById("adaptsched-loading").textContent = text; };
  if (typeof DecompressionStream === "undefined") {
    say("This page needs a browser with DecompressionStream (Chromium 80, Firefox 113, Safari 16.4 or later).");
    return;
  }
  const inflate = async (id) => {
    const text = atob(document.getElementById(id).textContent), bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  };
  const [library, doc] = await Promise.all([inflate("adaptsched-library"), inflate("adaptsched-document")]);
  const script = document.createElement("script");
  script.textContent = library;
  document.head.appendChild(script);
  const {docs, items} = JSON.parse(doc);
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
    library = packed("\n;\n".join(bundle.js_raw))
    document = packed(serialize_json({"docs": docs_json, "items": items}))
    roots = "\n".join(
        f'<div id="{html.escape(str(r.elementid))}" data-root-id="{html.escape(str(r.id))}" '
        'style="display: contents;"></div>'
        for item in render_items
        for r in item.roots
    )
    css = "\n".join(f"<style>{text}</style>" for text in bundle.css_raw)
    return PAGE.format(
        title=html.escape(title), css=css, roots=roots, library=library, document=document, loader=LOADER
    )


def packed(text: str) -> str:
    """``text`` as the page carries it: UTF-8, gzip, base64."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")


def write_page(doc: Document, path, title: str) -> int:
    """Writes the page of ``doc`` to ``path``; returns its size in bytes."""
    path = Path(path)
    path.write_text(page_text(doc, title), encoding="utf-8")
    return path.stat().st_size
