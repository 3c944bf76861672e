"""The explorer's HTML file: one Bokeh document, self-contained and compressed.

BokehJS alone is about 2 MB of JavaScript, and Bokeh writes a page's arrays as base64 text
inside its JSON: written as they are, a page of 5,000 jobs would weigh 3 MB. This module
writes the same page gzip-compressed instead: BokehJS, the document (its JSON) and its arrays
are three gzip streams in the page, and a few lines of script inflate them with the browser's
own ``DecompressionStream`` (Chromium 80, Firefox 113, Safari 16.4 and later), run BokehJS and
hand it the document (``JSON.parse``: much faster than running the JSON as a script).
Nothing is fetched: the page opens offline, from a disk or an e-mail. A browser without
``DecompressionStream`` gets a sentence saying so, not a blank page.

The streams are carried as raw bytes, not base64 (a third more): the page is declared
``windows-1252``, in which every byte is one character the script reads back, and the four
bytes the HTML parser would change or end the script on (NUL, carriage return, ``<``, and the
escape byte itself) are escaped as two bytes (:func:`carried`). The file is therefore not
UTF-8 text. A web server that overrides the declared encoding (``Content-Type: text/html;
charset=utf-8``) garbles the bytes: the page then says so and asks to be opened as a file.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
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
#: each item the difference from the one before (wrapping, as the item's unsigned integer);
#: with ``"text": true``, 32-bit integers written as texts.
LOADER = """
(async () => {
  const say = (text) => { document.getElementById("adaptsched-loading").textContent = text; };
  if (typeof DecompressionStream === "undefined") {
    say("This page needs a browser with DecompressionStream (Chromium 80, Firefox 113, Safari 16.4 or later).");
    return;
  }
  if (document.characterSet.toLowerCase() !== "windows-1252") {
    say("This page carries its data as raw bytes in the windows-1252 encoding, but it was read as " +
        document.characterSet + " (a web server's charset?): save it and open it as a file.");
    return;
  }
  const cp1252 = new Map(%(cp1252)s.map((code, i) => [code, 0x80 + i])), escaped = %(escaped)s;
  const inflate = (id) => {
    const text = document.getElementById(id).textContent, bytes = new Uint8Array(text.length);
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i), byte = code < 256 ? code : cp1252.get(code);
      bytes[n++] = byte === %(escape)d ? escaped[text.charCodeAt(++i) - 65] : byte;
    }
    return new Response(new Blob([bytes.subarray(0, n)]).stream().pipeThrough(new DecompressionStream("gzip")));
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
        const bytes = array(data, value.adaptsched);
        node[key] = value.text ? Array.from(new Int32Array(bytes.buffer), String) : bytes;
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
#: The byte that starts an escape, and the bytes escaped (as it and "A", "B"...): those the HTML
#: parser replaces (NUL), normalises (carriage return) or may end the script on (``<``).
ESCAPE, ESCAPED = 0x1B, b"\x00\r<\x1b"
#: The characters windows-1252 decodes the bytes 0x80 to 0x9F to (five of them to themselves).
CP1252 = [ord(bytes([byte]).decode("cp1252", errors="ignore") or chr(byte)) for byte in range(0x80, 0xA0)]
LOADER = LOADER % {"cp1252": json.dumps(CP1252), "escaped": json.dumps(list(ESCAPED)), "escape": ESCAPE}

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="windows-1252">
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


def page_bytes(doc: Document, title: str) -> bytes:
    """The HTML file of the page of the Bokeh document ``doc`` (module doc)."""
    with OutputDocumentFor(doc.roots, always_new=False):
        docs_json, render_items = standalone_docs_json_and_render_items(doc)
        bundle = bundle_for_objs_and_resources([doc], INLINE)
    items = [item.to_json() for item in render_items]
    text, data = arrays_apart(serialize_json({"docs": docs_json, "items": items}))
    roots = "\n".join(
        f'<div id="{html.escape(str(r.elementid))}" data-root-id="{html.escape(str(r.id))}" '
        'style="display: contents;"></div>'
        for item in render_items
        for r in item.roots
    )
    css = "\n".join(f"<style>{text}</style>" for text in bundle.css_raw)
    page = PAGE.format(title=html.escape(title), css=css, roots=roots, library="\0", document="\0", data="\0",
                       loader=LOADER)  # fmt: skip
    head, library, document, tail = page.encode("ascii", "xmlcharrefreplace").split(b"\0")
    streams = ("\n;\n".join(bundle.js_raw).encode("utf-8"), text.encode("utf-8"))
    return b"".join((head, carried(streams[0]), library, carried(streams[1]), document, carried(data, level=6), tail))


def carried(data: bytes, level: int = 9) -> bytes:
    """``data`` as the page carries it: gzip, its NUL, carriage return, ``<`` and escape bytes
    escaped (module doc). ``level``: 6 for the arrays: 9 takes 8x the time for 1.5 % less."""
    packed = gzip.compress(data, compresslevel=level, mtime=0)
    return re.sub(b"[" + re.escape(ESCAPED) + b"]", lambda m: bytes([ESCAPE, 65 + ESCAPED.index(m[0])]), packed)


def uncarried(text: bytes) -> bytes:
    """The bytes :func:`carried` wrote, inflated."""
    return gzip.decompress(
        re.sub(bytes([ESCAPE]) + b"(.)", lambda m: ESCAPED[m[1][0] - 65 : m[1][0] - 64], text, flags=re.S)
    )


def arrays_apart(text: str) -> tuple[str, bytes]:
    """The document's JSON ``text`` without its arrays, and the arrays' bytes (:data:`LOADER`).

    Bokeh writes each array as its own gzip stream in base64, which a second gzip cannot
    shrink. Apart, in one stream, byte planes apart (the high bytes of times and counts are
    mostly alike) and integers as differences from the item before when that compresses
    better (times in order, host numbers), they weigh about a third less. The same array
    written twice (a callback's argument) is carried once. A column of texts that are all
    whole numbers (job ids, most often) is carried as 32-bit integers, and made texts again."""
    document, data, seen = json.loads(text), bytearray(), {}

    def place(values: np.ndarray) -> list:
        raw = values.tobytes()
        if (raw, values.dtype.str) not in seen:
            planes, delta = _planes(values)
            seen[raw, values.dtype.str] = [len(data), len(raw), values.dtype.itemsize, delta]
            data.extend(planes)
        return seen[raw, values.dtype.str]

    def walk(node) -> None:
        values = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for value in values:
            if isinstance(value, dict) and value.get("type") == "ndarray" and _bytes(value.get("array")):
                raw = base64.b64decode(value["array"]["data"])
                raw = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
                dtype = np.dtype(value["dtype"]).newbyteorder("<" if value.get("order") == "little" else ">")
                value["array"]["data"] = {"adaptsched": place(np.frombuffer(raw, dtype=dtype))}
            elif isinstance(value, dict) and value.get("type") == "ndarray" and _numbers(value.get("array")):
                value["array"] = {"adaptsched": place(np.array(value["array"], dtype="<i4")), "text": True}
            else:
                walk(value)

    walk(document)
    return json.dumps(document, separators=(",", ":")), bytes(data)


def _numbers(array) -> bool:
    """Texts that are all whole numbers as Python and JavaScript write them (no sign, no
    leading zero), below 2**31."""
    return (
        isinstance(array, list)
        and len(array) > 1
        and all(isinstance(item, str) and _WHOLE.fullmatch(item) for item in array)
    )


_WHOLE = re.compile(r"0|[1-9][0-9]{0,8}")


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
    path.write_bytes(page_bytes(doc, title))
    return path.stat().st_size
