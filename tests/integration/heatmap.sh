#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The heatmap of a 5-interval run: well-formed XML (xmllint), 5 columns,
# and every cell's count equals the same interval's JSON report; one key
# with --heatmap-key; the p50/p99 lines are drawn (and gone with
# --heatmap-lines none); a key that matches nothing warns once and the
# picture says "no waits for KEY"; a path in a missing directory is
# refused (status 2) before anything loads.
. "$(dirname "$0")/../lib.sh"
need_root
command -v xmllint >/dev/null || skip "xmllint missing (Debian package libxml2-utils)"

"$HELPERS/spinners" -n 2 -c 0 -t 15 -N hspin -x >/dev/null &
CHILD_PIDS+=($!)
"$SCHEDHIST" -M runq -i 0.5 -n 5 -j --heatmap "$TMP/all.svg" >"$TMP/all.json" 2>"$TMP/all.err" ||
	fail "run failed: $(cat "$TMP/all.err")"
"$SCHEDHIST" -M runq -k comm -i 0.5 -n 3 -j --heatmap "$TMP/key.svg" --heatmap-key hspin \
	>"$TMP/key.json" 2>"$TMP/key.err" || fail "keyed run failed: $(cat "$TMP/key.err")"
"$SCHEDHIST" -M runq -k comm -i 0.3 -n 3 --heatmap "$TMP/none.svg" --heatmap-key hspni \
	--heatmap-lines none >/dev/null 2>"$TMP/none.err" || fail "run failed: $(cat "$TMP/none.err")"
[ "$(grep -c "heatmap-key 'hspni'" "$TMP/none.err")" -eq 1 ] ||
	fail "a key that matches nothing: not warned once: $(cat "$TMP/none.err")"
grep -q '>no waits for hspni</text>' "$TMP/none.svg" || fail "the picture does not say no waits"
grep -q '<polyline' "$TMP/none.svg" && fail "--heatmap-lines none still draws lines"
grep -q '<polyline class="p50"' "$TMP/all.svg" && grep -q '<polyline class="p99"' "$TMP/all.svg" ||
	fail "no p50/p99 lines by default"
grep -q "heatmap-key" "$TMP/key.err" && fail "a key that matches warned: $(cat "$TMP/key.err")"
xmllint --noout "$TMP/all.svg" "$TMP/key.svg" "$TMP/none.svg" || fail "SVG is not well-formed XML"
grep -q '<script' "$TMP/all.svg" && fail "SVG has a script"
python3 - "$TMP" <<'PY' || exit 1
import json, sys, xml.etree.ElementTree as ET
tmp = sys.argv[1]
ns = {"s": "http://www.w3.org/2000/svg"}
def cols(path):
    root = ET.parse(path).getroot()
    out = []
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        if g.get("class") == "column":
            out.append({int(r.get("data-bucket")): int(r.get("data-count"))
                        for r in g.findall("s:rect", ns)})
    title = "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    return out, title
# the bucket index of a JSON bucket, by its lo_ns: the grid of include/schedhist.h
N = 41	# SH_NBUCKETS
E = [10**9 << (j - 20) if j >= 20 else 10**9 >> (20 - j) for j in range(0, N - 1)]
slot_of_lo = {0: 0, **{E[j - 1] + 1: j for j in range(1, N)}}
def json_buckets(path, key=None):
    res = []
    for l in open(path):
        r = json.loads(l)
        b = {}
        for g in r["groups"]:
            if key is None or g["key"] == key:
                for x in g["buckets"]:
                    i = slot_of_lo[x["lo_ns"]]
                    b[i] = b.get(i, 0) + x["count"]
        res.append(b)
    return res
for svg, js, key, n in (("all.svg", "all.json", None, 5), ("key.svg", "key.json", "hspin", 3)):
    c, title = cols(f"{tmp}/{svg}")
    j = json_buckets(f"{tmp}/{js}", key)
    print(f"{svg}: {len(c)} columns, {sum(sum(x.values()) for x in c)} waits")
    assert len(c) == n == len(j), (len(c), len(j))
    for i, (col, rep) in enumerate(zip(c, j)):
        for b in set(col) | set(rep):
            assert col.get(b, 0) == rep.get(b, 0), f"{svg} column {i} bucket {b}: {col.get(b)} vs {rep.get(b)}"
        assert sum(col.values()) > 0, f"{svg} column {i} empty"
    assert "run-queue latency" in title, title
PY
before=$(our_objects)
"$SCHEDHIST" -d 1 --heatmap /nonexistent-dir/x.svg >/dev/null 2>"$TMP/e"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ] &&
	grep -q 'cannot open the directory of --heatmap' "$TMP/e" ||
	fail "heatmap in a missing directory: exit $rc, $(cat "$TMP/e")"
assert_no_new_objects "$before"
