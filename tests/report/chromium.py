"""Helpers for the HTML report's browser tests: headless Chromium, and a PNG decoder to look at
its screenshots. Standard library only.

Chromium runs with a fresh profile each time, no sandbox (the tests may run as root), nothing in
the background, and its log on stderr: every message a page writes to the console, and every
Content-Security-Policy violation, appears there as a line with ":CONSOLE". The report has no
script, so any such line is a failure.
"""

import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77  # ctest's SKIP_RETURN_CODE
CHROMIUM = os.environ.get("MUSTER_CHROMIUM", "/usr/bin/chromium")


def require_chromium():
    """The browser's path; without one the test is skipped, except under CI, where it fails."""
    if os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        print(f"FAIL: {CHROMIUM} is missing and CI is set (scripts/install-deps installs chromium)")
        sys.exit(1)
    print(f"SKIP: no {CHROMIUM} (scripts/install-deps installs chromium)")
    sys.exit(SKIP)


def default_binary():
    return sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build", "release", "muster")


class Load:
    """What one headless Chromium run of a page gave."""

    def __init__(self, dom, console, seconds, log):
        self.dom = dom            # --dump-dom's output ("" without it)
        self.console = console    # the console lines of its log
        self.seconds = seconds    # wall time of the whole browser run
        self.log = log


def load(path, dump_dom=False, screenshot=None, window=(1400, 2400), timeout=120):
    """Opens the file `path` in headless Chromium: prints its DOM (dump_dom) or saves a PNG of
    the window (screenshot: the PNG's path)."""
    profile = tempfile.mkdtemp(prefix="muster-chromium-")
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-extensions", "--hide-scrollbars",
            f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=1",
            f"--window-size={window[0]},{window[1]}"]
    if dump_dom:
        args.append("--dump-dom")
    if screenshot:
        args.append(f"--screenshot={screenshot}")
    args.append("file://" + os.path.abspath(path))
    start = time.monotonic()
    # Its own process group, so that no renderer or zygote outlives the test.
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
    seconds = time.monotonic() - start
    log = err.decode("utf-8", "replace")
    if proc.returncode != 0:
        raise AssertionError(f"chromium exited {proc.returncode}:\n{log[-4000:]}")
    console = [line for line in log.splitlines() if ":CONSOLE" in line]
    return Load(out.decode("utf-8", "replace"), console, seconds, log)


# ---- PNG ----

class Image:
    def __init__(self, width, height, channels, rows):
        self.width = width
        self.height = height
        self.channels = channels  # 3 (RGB) or 4 (RGBA)
        self.rows = rows          # bytes per row, unfiltered

    def pixel(self, x, y):
        i = x * self.channels
        return tuple(self.rows[y][i:i + 3])


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(data):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium's screenshots are)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace != 0:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {color}, "
                         f"interlace {interlace}")
    bpp = 3 if color == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(b"".join(idat))
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:  # Sub
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 0xFF
        elif kind == 2:  # Up
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 0xFF
        elif kind == 3:  # Average
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for x in range(stride):
                if x >= bpp:
                    line[x] = (line[x] + _paeth(line[x - bpp], prev[x], prev[x - bpp])) & 0xFF
                else:
                    line[x] = (line[x] + prev[x]) & 0xFF
        elif kind != 0:
            raise ValueError(f"row {y}: unknown filter type {kind}")
        rows.append(bytes(line))
        prev = line
    return Image(width, height, bpp, rows)


def write_png(path, width, height, rows, filters):
    """Writes an 8-bit RGB PNG whose rows use the given filter types (for testing decode_png)."""
    raw = bytearray()
    prev = bytes(width * 3)
    for row, kind in zip(rows, filters):
        line = bytearray(row)
        out = bytearray(len(line))
        for x in range(len(line)):
            a = line[x - 3] if x >= 3 else 0
            b = prev[x]
            c = prev[x - 3] if x >= 3 else 0
            predictor = [0, a, b, (a + b) >> 1, _paeth(a, b, c)][kind]
            out[x] = (line[x] - predictor) & 0xFF
        raw += bytes([kind]) + out
        prev = bytes(line)

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(data)


def near(pixel, color, tolerance=8):
    return all(abs(p - c) <= tolerance for p, c in zip(pixel, color))


def hex_color(text):
    return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))


def analyse(image, palette, step=2):
    """Counts over the screenshot, every `step`th pixel of every `step`th row: distinct colours,
    pixels that are not the page's background or white, and per palette colour (name ->
    "#rrggbb") the pixels near it and the rows where it is frequent (a band of colour is a drawn
    chart)."""
    distinct = set()
    background = {(0xF4, 0xF5, 0xF7), (0xFF, 0xFF, 0xFF)}
    colours = {name: hex_color(value) for name, value in palette.items()}
    counts = {name: 0 for name in palette}
    rows_with = {name: 0 for name in palette}
    drawn = 0
    c = image.channels
    sampled = 0
    for y in range(0, image.height, step):
        row = image.rows[y]
        per_row = {name: 0 for name in palette}
        for x in range(0, image.width * c, c * step):
            sampled += 1
            pixel = (row[x], row[x + 1], row[x + 2])
            distinct.add(pixel)
            if pixel in background:
                continue
            drawn += 1
            for name, colour in colours.items():
                if near(pixel, colour):
                    per_row[name] += 1
        for name, n in per_row.items():
            counts[name] += n * step * step
            if n >= 50 // step:
                rows_with[name] += step
    return {"distinct": len(distinct), "drawn": drawn * step * step,
            "drawn_fraction": drawn / sampled,
            "counts": counts, "rows_with": rows_with}


def static_checks(html):
    """What the page's text must not hold: anything that could load."""
    for needle in ("<script", "<link", "<img", "<iframe", "<object", "url(", "@import"):
        assert needle not in html.lower(), f"the report holds {needle!r}"
    assert html.count("://") == html.count('xmlns="http://www.w3.org/2000/svg"'), \
        "an address besides SVG's namespace"
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
