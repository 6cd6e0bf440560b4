#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Layout check of --flamegraph SVGs in a real browser.

  flamegraph_layout.py page SVG HTML   write HTML: the SVG inline, and a script
                                       that measures every frame's <rect> and
                                       <text> (getBBox() mapped by getCTM())
                                       into <pre id="out"> as JSON
  flamegraph_layout.py check DOM NAME  read Chromium's --dump-dom of that page,
                                       exit 1 naming what is wrong: a label
                                       that leaves its frame or the canvas, two
                                       labels that overlap, a frame without a
                                       <title> of time and share, no labels
"""
import re
import sys

from svg_layout import measures, overlaps, page

SCRIPT = r"""
<script>
function box(el) {
  const b = el.getBBox(), m = el.getCTM();
  const pts = [[b.x, b.y], [b.x + b.width, b.y + b.height]].map(([x, y]) =>
    [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  return {x0: Math.min(pts[0][0], pts[1][0]), y0: Math.min(pts[0][1], pts[1][1]),
          x1: Math.max(pts[0][0], pts[1][0]), y1: Math.max(pts[0][1], pts[1][1])};
}
const svg = document.querySelector("svg");
const out = {w: svg.width.baseVal.value, h: svg.height.baseVal.value, frames: []};
for (const g of svg.querySelectorAll("#frames > g")) {
  const r = g.querySelector("rect"), t = g.querySelector("text"), ti = g.querySelector("title");
  out.frames.push({rect: box(r), text: t ? Object.assign(box(t), {s: t.textContent}) : null,
                   title: ti ? ti.textContent : ""});
}
document.getElementById("out").textContent = JSON.stringify(out);
</script>
"""


def check(dom_path, name):
    d = measures(dom_path, name)
    if d is None:
        return 1
    bad, texts = [], []
    for f in d["frames"]:
        r, t = f["rect"], f["text"]
        if not re.search(r"\([0-9.]+ ms, [0-9]+ waits, [0-9.]+%\)$", f["title"]):
            bad.append(f"frame without a title of time and share: {f['title']!r}")
        if not t:
            continue
        texts.append(t)
        if t["x1"] - t["x0"] <= 0:
            bad.append(f"label {t['s']!r} has an empty box (not rendered)")
        if t["x0"] < r["x0"] or t["x1"] > r["x1"] or t["y0"] < r["y0"] - 1 or t["y1"] > r["y1"] + 1:
            bad.append(f"label {t['s']!r} ({t['x0']:.1f}-{t['x1']:.1f}) leaves its frame "
                       f"({r['x0']:.1f}-{r['x1']:.1f})")
        if t["x0"] < 0 or t["y0"] < 0 or t["x1"] > d["w"] or t["y1"] > d["h"]:
            bad.append(f"label {t['s']!r} is outside the canvas")
    bad += overlaps(texts)
    if not texts:
        bad.append("no labels")
    print(f"{name}: canvas {d['w']:.0f}x{d['h']:.0f}, {len(d['frames'])} frames, "
          f"{len(texts)} labels")
    for b in bad[:20]:
        print(f"  {name}: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "page":
        page(sys.argv[2], sys.argv[3], SCRIPT)
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
