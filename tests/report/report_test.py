"""`muster simulate --report` on the built-in demo, opened in headless Chromium: the page logs
nothing to the console and violates no Content-Security-Policy (and a page that does both is
caught, so the check is known to work), its DOM holds the SVG charts with their drawn shapes,
and a screenshot shows them drawn: bands of the charts' colours, many colours, not a blank page.

Usage: report_test.py [MUSTER_BINARY]. Skipped without /usr/bin/chromium unless CI is set."""

import os
import re
import shutil
import subprocess
import tempfile

import chromium

# The report's colours (src/muster/report/charts.h).
PALETTE = {"running": "#0072B2", "pending": "#E69F00", "succeeded": "#009E73"}


def test_png_decoder(tmp):
    """decode_png against rows written with each filter type, 0 to 4."""
    width, rows = 5, []
    for y in range(5):
        rows.append(bytes((x * 40 + y * 7 + c * 90) % 256 for x in range(width) for c in range(3)))
    path = os.path.join(tmp, "filters.png")
    chromium.write_png(path, width, len(rows), rows, [0, 1, 2, 3, 4])
    with open(path, "rb") as f:
        image = chromium.decode_png(f.read())
    assert (image.width, image.height, image.channels) == (5, 5, 3)
    assert image.rows == rows, "decoded rows differ from the rows written"


def test_detection_works(tmp):
    """A page that logs an error and loads an image its policy blocks: both must be seen."""
    page = os.path.join(tmp, "bad.html")
    with open(page, "w") as f:
        f.write("<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" "
                "content=\"default-src 'none'; img-src data:; script-src 'unsafe-inline'\">"
                "</head><body><p>bad</p><img src=\"http://127.0.0.1:9/blocked.png\">"
                "<script>console.error('deliberate console error')</script></body></html>")
    result = chromium.load(page, dump_dom=True)
    text = "\n".join(result.console)
    assert "deliberate console error" in text, f"console.error not seen:\n{text}"
    assert "Content Security Policy" in text and "blocked.png" in text, \
        f"the CSP violation not seen:\n{text}"


def test_demo(binary, tmp):
    report = os.path.join(tmp, "demo.html")
    run = subprocess.run([binary, "simulate", "--report", report], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "NAME" in run.stdout, "the usual table is still printed"
    with open(report) as f:
        html = f.read()
    chromium.static_checks(html)
    # Byte-identical the second time.
    again = os.path.join(tmp, "again.html")
    subprocess.run([binary, "simulate", "--report", again], capture_output=True, check=True,
                   timeout=120)
    with open(again) as f:
        assert f.read() == html, "two runs of the demo wrote different reports"

    loaded = chromium.load(report, dump_dom=True)
    assert not loaded.console, "console output:\n" + "\n".join(loaded.console)
    dom = loaded.dom
    for section in ("pods-over-time", "nodes", "podgroups", "unschedulable", "configuration",
                    "pods"):
        assert f'id="{section}"' in dom, f"section {section} missing from the DOM"
    svgs = re.findall(r"<svg\b.*?</svg>", dom, re.S)
    assert len(svgs) >= 3, f"{len(svgs)} SVG charts in the DOM"
    areas = re.findall(r'<path d="M[^"]*[VH][^"]*"', svgs[0])
    assert len(areas) >= 2, "the pods chart has no drawn areas"
    cells = re.findall(r"<rect\b", svgs[1])
    assert len(cells) >= 8, f"the heat map has {len(cells)} cells"
    assert "3 of 6 pods pending" in dom

    png = os.path.join(tmp, "demo.png")
    shot = chromium.load(report, screenshot=png, window=(1400, 2400))
    assert not shot.console, "console output:\n" + "\n".join(shot.console)
    with open(png, "rb") as f:
        image = chromium.decode_png(f.read())
    assert (image.width, image.height) == (1400, 2400), (image.width, image.height)
    stats = chromium.analyse(image, PALETTE)
    print(f"demo report: {len(html)} bytes; DOM in {loaded.seconds:.2f}s, screenshot in "
          f"{shot.seconds:.2f}s; {stats['distinct']} distinct colours, "
          f"{stats['drawn_fraction']:.0%} drawn; {stats['counts']}, rows {stats['rows_with']}")
    assert stats["distinct"] >= 50, f"only {stats['distinct']} colours: a blank page?"
    assert stats["drawn_fraction"] >= 0.05, "almost nothing drawn"
    # The pods chart: three running (blue) under three pending (orange), across the plot.
    for name in ("running", "pending"):
        assert stats["counts"][name] >= 50_000, f"{name}: {stats['counts'][name]} pixels"
        assert stats["rows_with"][name] >= 60, f"{name}: no band of colour"


def main():
    chromium.require_chromium()
    binary = chromium.default_binary()
    tmp = tempfile.mkdtemp(prefix="muster-report-test-")
    try:
        test_png_decoder(tmp)
        test_detection_works(tmp)
        test_demo(binary, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
