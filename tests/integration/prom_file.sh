#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --prom-file: rewritten every 100 ms while a reader re-reads it in a tight
# loop for 3 s; every read must be a whole exposition (it parses, and ends
# with the build_info line), and the reads must have seen many versions.
# The file is mode 0644 with no temporary file left beside it, holds the
# final reading after SIGTERM (status 0), and nothing is printed without
# --print. Refused at start-up, with status 2 and nothing loaded: a
# symlink at the path (its target untouched), a directory, a missing
# directory; a directory the user it runs as (--user, or nobody by
# default as root) cannot write fails with status 1, naming that user.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../prom-lib.sh"
need_root

# fleet mode runs as nobody once attached: its directory must let it write
mkdir -p "$TMP/out"
chmod 0711 "$TMP"
chown nobody "$TMP/out"
out=$TMP/out/schedhist.prom
start_sh file -M runq -k comm --prom-file "$out" -i 100ms
sh=$SH_PID
[ -f "$out" ] || fail "no $out after start-up"

"$HELPERS/spinners" -n 2 -c 0 -t 3 -x >/dev/null &
CHILD_PIDS+=($!)
python3 - "$out" <<'EOF' || fail "a reader saw a partial --prom-file"
import re, sys, time
path = sys.argv[1]
last = re.compile(r'schedhist_build_info\{version="[^"]*"\} 1\n\Z')
sample = re.compile(r'[a-z_]+(\{.*\})? [0-9.e+-]+|[a-z_]+\{.*\} \+Inf')
reads, versions, end = 0, set(), time.time() + 3
while time.time() < end:
    with open(path) as f:
        text = f.read()
    reads += 1
    if not last.search(text):
        sys.exit(f'read {reads}: does not end with the build_info line: ...{text[-200:]!r}')
    for line in text.splitlines():
        if not line.startswith('#') and not sample.fullmatch(line):
            sys.exit(f'read {reads}: bad line {line!r}')
    m = re.search(r'^schedhist_events_total\{metric="runq"\} (\d+)$', text, re.M)
    versions.add(m.group(1))
print(f'{reads} reads, {len(versions)} versions, never a partial file')
if reads < 100 or len(versions) < 10:
    sys.exit('too few reads or rewrites to tell')
EOF
wait "${CHILD_PIDS[@]}" 2>/dev/null

[ "$(stat -c %a "$out")" = 644 ] || fail "mode $(stat -c %a "$out"), want 644"
python3 tests/prom-check.py "$out" || fail "the file is not a valid exposition"
before=$(sample "$(cat "$out")" 'schedhist_events_total{metric="runq"}')
stop_sh "$sh" TERM || fail "schedhist exited with $? on SIGTERM"
after=$(sample "$(cat "$out")" 'schedhist_events_total{metric="runq"}')
[ "$after" -ge "$before" ] || fail "the final reading went back ($before -> $after)"
[ "$(ls -A "$TMP/out")" = schedhist.prom ] || fail "left beside the file: $(ls -A "$TMP/out")"
[ ! -s "$TMP/file.out" ] || fail "printed on stdout without --print"
assert_nothing_leaked

# refused before anything is loaded
refused() {	# refused STATUS MESSAGE ARGS...: schedhist ARGS exits STATUS saying MESSAGE
	local want=$1 msg=$2 rc
	shift 2
	"$SCHEDHIST" -M runq "$@" >"$TMP/r.out" 2>"$TMP/r.err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "schedhist $* exited $rc, want $want: $(cat "$TMP/r.err")"
	grep -q -- "$msg" "$TMP/r.err" || fail "schedhist $*: no '$msg' in: $(cat "$TMP/r.err")"
	assert_nothing_leaked
}
echo keep >"$TMP/target"
ln -s "$TMP/target" "$TMP/out/link.prom"
refused 2 "symbolic link" --prom-file "$TMP/out/link.prom"
[ "$(cat "$TMP/target")" = keep ] || fail "the symlink's target was written"
refused 2 "not a regular file" --prom-file "$TMP/out"
refused 2 "cannot open the directory" --prom-file "$TMP/nodir/x.prom"
mkdir -p "$TMP/rootonly" && chmod 0755 "$TMP/rootonly"
refused 1 "cannot write --prom-file .*(as user nobody; --user names another)" \
	--prom-file "$TMP/rootonly/x.prom" --user nobody
# the default user when started as root: nobody too
refused 1 "cannot write --prom-file .*(as user nobody; --user names another)" \
	--prom-file "$TMP/rootonly/x.prom"
echo "--prom-file: atomic rewrites, symlink and bad paths refused"
