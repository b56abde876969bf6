"""A real headless Chromium for the tests of the HTML picture: the DOM after layout, and a screenshot's pixels.

Chromium comes from the system (``.ci/run`` installs Debian's ``chromium``). Without one the tests
skip, unless ``WMAP_REQUIRE_CHROMIUM`` is set (``.ci/run`` sets it): then they fail, so CI never
passes without having looked at the picture.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path
from typing import Any

import pytest

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chromium-headless-shell")
WINDOW = (1280, 1000)


def chromium() -> str:
    """The browser's path; skips (or fails when CI requires it) without one."""
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    message = "no Chromium on PATH (.ci/run installs Debian's chromium package)"
    if os.environ.get("WMAP_REQUIRE_CHROMIUM"):
        pytest.fail(message)
    pytest.skip(message)


def _run(browser: str, *args: str, window: tuple[int, int] = WINDOW) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as profile:
        command = [
            browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
            "--no-first-run", "--mute-audio", f"--user-data-dir={profile}", f"--window-size={window[0]},{window[1]}",
            *args,
        ]  # fmt: skip
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


_PROBE = """
<script>
window.addEventListener("load", () => {
  const laidOut = document.documentElement.scrollHeight && performance.now();
  const box = (element) => { const r = element.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height}; };
  const data = {
    domains: [...document.querySelectorAll(".domain")].map((d) => ({id: d.dataset.id, open: d.open,
      box: box(d)})),
    nodes: [...document.querySelectorAll(".node")].map((n) => ({name: n.dataset.node, pods: +n.dataset.pods,
      box: box(n)})),
    chosen: [...document.querySelectorAll(".chosen")].map((r) => ({gang: r.dataset.gang,
      domain: r.dataset.domain, box: box(r)})),
    candidates: [...document.querySelectorAll(".candidate")].map((r) => ({gang: r.dataset.gang,
      domain: r.dataset.domain, box: box(r)})),
    rows: [...document.querySelectorAll("tr.gang")].map((tr) => ({gang: tr.dataset.gang,
      fits: tr.classList.contains("fits"), text: tr.innerText, box: box(tr)})),
    summary: [...document.querySelectorAll("li.summary")].map((li) => ({id: li.dataset.id, box: box(li)})),
    pictures: [...document.querySelectorAll(".topology")].map(box),
    scripts: document.scripts.length,
    elements: document.getElementsByTagName("*").length,
    window: {width: window.innerWidth, height: window.innerHeight},
    page: {width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight},
    milliseconds: laidOut,
  };
  const out = document.createElement("pre");
  out.id = "wmap-probe";
  out.textContent = JSON.stringify(data);
  document.body.appendChild(out);
});
</script>
"""


def layout(page: Path, window: tuple[int, int] = WINDOW) -> dict[str, Any]:
    """Element counts and positions after Chromium laid the page out in a window of this size.

    A probe script is added to a copy of the page; it also reports the page's element count, its
    laid-out size and the milliseconds from navigation to the first layout.
    """
    probe = page.with_name(page.stem + "-probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    result = _run(chromium(), "--dump-dom", probe.as_uri(), window=window)
    match = re.search(r'<pre id="wmap-probe">(.*?)</pre>', result.stdout, re.S)
    assert match, f"Chromium printed no probe: {result.stderr[-500:]}"
    data: dict[str, Any] = json.loads(html.unescape(match.group(1)))
    return data


def dump_dom(page: Path) -> str:
    """The page's DOM after Chromium loaded it, serialized (what a person's browser holds)."""
    result = _run(chromium(), "--dump-dom", page.as_uri())
    assert "<html" in result.stdout, f"Chromium printed no DOM: {result.stderr[-500:]}"
    return result.stdout


def screenshot(page: Path, target: Path, window: tuple[int, int] = WINDOW) -> list[list[tuple[int, int, int]]]:
    """A screenshot of the page (the window's size), as rows of RGB pixels."""
    result = _run(chromium(), f"--screenshot={target}", page.as_uri(), window=window)
    assert target.is_file(), f"Chromium wrote no screenshot: {result.stderr[-500:]}"
    return read_png(target.read_bytes())


def read_png(data: bytes) -> list[list[tuple[int, int, int]]]:
    """Decode an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) into rows of RGB pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, chunks, header = 8, [], b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, "an 8-bit RGB(A) PNG"
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for index in range(stride):
            left = line[index - channels] if index >= channels else 0
            up = previous[index]
            corner = previous[index - channels] if index >= channels else 0
            if kind == 1:
                line[index] = (line[index] + left) & 0xFF
            elif kind == 2:
                line[index] = (line[index] + up) & 0xFF
            elif kind == 3:
                line[index] = (line[index] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                near = min((abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner))
                line[index] = (line[index] + near[2]) & 0xFF
        rows.append(line)
        previous = line
    return [[tuple(line[i : i + 3]) for i in range(0, stride, channels)] for line in rows]  # type: ignore[misc]
