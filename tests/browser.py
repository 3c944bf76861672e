"""Headless Chromium for the explorer's tests and benchmark (Playwright, the system browser).

Nothing downloads a browser: Playwright drives Debian's ``chromium`` (``apt-get install
chromium``; ``.ci/run`` installs it), found as ``$CHROMIUM`` or ``chromium`` on PATH.
Without it (or without the ``playwright`` package) :data:`NO_BROWSER` says why, and the
browser tests skip, counted loudly at the end of the run (conftest.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from pathlib import Path

#: Skip reason of every test that needs the browser (conftest.py counts them by its start).
NO_BROWSER = "headless Chromium not found"
NO_BROWSER_HELP = (
    "install Debian's chromium (apt-get install chromium, as .ci/run does) and the test extras "
    "(pip install -e '.[test]', for playwright); or set CHROMIUM=/path/to/chromium"
)
FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
#: JavaScript: true once BokehJS has rendered every root of the page's document.
RENDERED = "() => window.Bokeh !== undefined && Bokeh.documents.length > 0 && Bokeh.documents[0].is_idle"


def find_chromium() -> str | None:
    named = os.environ.get("CHROMIUM")
    if named:
        return shutil.which(named) or (named if Path(named).is_file() else None)
    return shutil.which("chromium") or shutil.which("chromium-browser")


def missing() -> str | None:
    """Why the browser tests cannot run (None when they can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return f"{NO_BROWSER}: the playwright package is not installed"
    if find_chromium() is None:
        return f"{NO_BROWSER}: no chromium on PATH"
    return None


@contextlib.contextmanager
def browser():
    """A headless Chromium (Playwright ``Browser``) with a fresh profile folder."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="adaptsched-chromium-") as profile, sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            profile,
            executable_path=find_chromium(),
            headless=True,
            args=list(FLAGS),
            viewport={"width": 1600, "height": 1000},
        )
        try:
            yield context
        finally:
            context.close()


class Page:
    """A page of the explorer, loaded: ``page`` (Playwright), ``errors`` (console errors and
    uncaught exceptions), ``requests`` (the URLs it asked for), ``load_s`` (from navigation to
    BokehJS idle); ``metrics=True``: ``cdp``, a DevTools session with Chromium's performance
    counters on."""

    def __init__(self, context, path, timeout_s: float = 120.0, *, metrics: bool = False):
        self.page = context.new_page()
        self.cdp = None
        if metrics:  # Chromium's performance counters, from before the navigation on
            self.cdp = context.new_cdp_session(self.page)
            self.cdp.send("Performance.enable")
        self.errors: list[str] = []
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.requests: list[str] = []  # every URL the page asked for: its own file only
        self.page.on("request", lambda request: self.requests.append(request.url))
        begin = time.perf_counter()
        self.page.goto(Path(path).resolve().as_uri(), timeout=timeout_s * 1000)
        self.page.wait_for_function(RENDERED, timeout=timeout_s * 1000, polling=50)
        self.load_s = time.perf_counter() - begin

    def model(self, name: str) -> str:
        """JavaScript expression of the model called ``name`` in the document."""
        return f"Bokeh.documents[0].get_model_by_name({name!r})"

    def js(self, code: str, arg=None):
        return self.page.evaluate(code, arg)
