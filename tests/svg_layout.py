#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Layout check of heatmap SVGs in a real browser.

  svg_layout.py page SVG HTML   write HTML: the SVG inline, and a script that
                                measures every <text> with getBBox() (mapped
                                to the canvas by getCTM()) and writes what it
                                found into <pre id="out"> as JSON
  svg_layout.py check DOM NAME  read Chromium's --dump-dom of that page, print
                                the measures, exit 1 naming what is wrong:
                                two labels that overlap, a label outside the
                                canvas, the legend more than 40 px from the
                                plot (or not beside it), no tick labels
"""
import html
import json
import re
import sys

SCRIPT = r"""
<script>
function box(el) {
  const b = el.getBBox(), m = el.getCTM();
  const pts = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height],
               [b.x + b.width, b.y + b.height]].map(([x, y]) =>
    [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  const xs = pts.map(p => p[0]), ys = pts.map(p => p[1]);
  return {x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys)};
}
const svg = document.querySelector("svg");
const out = {w: svg.width.baseVal.value, h: svg.height.baseVal.value, texts: [],
             plot: box(document.getElementById("plot")),
             legend: box(document.getElementById("legend"))};
for (const t of svg.querySelectorAll("text")) {
  const b = box(t);
  b.s = t.textContent;
  b.cls = t.parentNode.getAttribute("class") || t.parentNode.id || t.getAttribute("class") || "";
  out.texts.push(b);
}
document.getElementById("out").textContent = JSON.stringify(out);
</script>
"""


def page(svg_path, html_path, script=SCRIPT):
    """HTML with the SVG inline and @script, which measures it into <pre id="out">."""
    svg = open(svg_path, encoding="utf-8").read()
    svg = re.sub(r"^<\?xml[^>]*\?>\s*", "", svg)
    with open(html_path, "w", encoding="utf-8") as f:
        f.write('<!DOCTYPE html><html><head><meta charset="utf-8"></head>'
                '<body style="margin:0">' + svg + '<pre id="out"></pre>' + script +
                "</body></html>\n")


def measures(dom_path, name):
    """What the page's script wrote, from Chromium's --dump-dom; None (said) if nothing."""
    dom = open(dom_path, encoding="utf-8").read()
    m = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
    if not m or not m.group(1).strip():
        print(f"{name}: the page's script wrote nothing (did it run?)")
        return None
    return json.loads(html.unescape(m.group(1)))


def overlaps(texts):
    """A message for every two label boxes that overlap."""
    bad = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            ox = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
            oy = min(a["y1"], b["y1"]) - max(a["y0"], b["y0"])
            if ox > 0 and oy > 0:
                bad.append(f"labels {a['s']!r} and {b['s']!r} overlap by {ox:.1f}x{oy:.1f} px")
    return bad


def check(dom_path, name):
    d = measures(dom_path, name)
    if d is None:
        return 1
    texts, bad = d["texts"], []
    for t in texts:
        if t["x1"] - t["x0"] <= 0 or t["y1"] - t["y0"] <= 0:
            bad.append(f"label {t['s']!r} has an empty box (not rendered)")
        if t["x0"] < 0 or t["y0"] < 0 or t["x1"] > d["w"] or t["y1"] > d["h"]:
            bad.append(f"label {t['s']!r} at ({t['x0']:.1f},{t['y0']:.1f})-"
                       f"({t['x1']:.1f},{t['y1']:.1f}) is outside the {d['w']}x{d['h']} canvas")
    bad += overlaps(texts)
    p, g = d["plot"], d["legend"]
    gap = g["x0"] - p["x1"]
    if not 0 <= gap <= 40:
        bad.append(f"the legend is {gap:.1f} px from the plot (want 0 to 40)")
    if g["y0"] > p["y1"] or g["y1"] < p["y0"]:
        bad.append("the legend is not beside the plot")
    ticks = [t for t in texts if t["cls"] == "xaxis" and ":" in t["s"]]
    rows = [t for t in texts if t["cls"] == "yaxis" and t["s"] != "wait"]
    if len(ticks) < 2 or not rows:
        bad.append(f"{len(ticks)} x tick labels, {len(rows)} row labels")
    print(f"{name}: canvas {d['w']:.0f}x{d['h']:.0f}, plot {p['x1'] - p['x0']:.0f}x"
          f"{p['y1'] - p['y0']:.0f}, {len(texts)} labels ({len(ticks)} x ticks, {len(rows)} rows), "
          f"legend {gap:.0f} px from the plot")
    for b in bad[:20]:
        print(f"  {name}: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "page":
        page(sys.argv[2], sys.argv[3])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
