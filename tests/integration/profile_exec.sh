#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --profile names each program's stacks with that program's symbols: one
# process runs progA and progB in turn (tests/helpers/execpair.c: one
# source, funcA_sleeper and funcB_sleeper at the same offset, each sleeps
# 30 ms then execs the other), under `--profile -p PID -k pid -i 1
# --cumulative`. Every stack of comm progB that names a sleeper names
# funcB_sleeper, every one of progA funcA_sleeper (same offset: maps read
# after the exec would give the other program's name), and both programs
# have named stacks: the exec watcher read each program's maps while it ran.
# Its -v totals count execve()s seen and none missed: one execve() per
# 30 ms at most, while the exec log holds far more than the 3 s run makes.
. "$(dirname "$0")/../lib.sh"
need_root
"$HELPERS/progA" "$HELPERS/progB" "$HELPERS/progA" 150 30 >"$TMP/pair.txt" &
PAIR=$!
CHILD_PIDS+=("$PAIR")
wait_for "$TMP/pair.txt" "^ready" 5
start_sh fold --profile -p "$PAIR" -k pid -i 1 --cumulative -v
sleep 3
stop_sh "$SH_PID" || fail "schedhist exited with $?: $(cat "$TMP/fold.err")"
kill "$PAIR" 2>/dev/null
EW=$(grep 'exec watcher:' "$TMP/fold.err") || fail "no exec watcher totals: $(tail -3 "$TMP/fold.err")"
echo "$EW"
[[ $EW =~ ": "([0-9]+)" execve()s seen, ".*", "([0-9]+)" missed " ]] || fail "cannot parse: $EW"
[ "${BASH_REMATCH[1]}" -gt 0 ] || fail "the exec watcher saw no execve(): $EW"
[ "${BASH_REMATCH[2]}" -eq 0 ] || fail "the exec watcher missed execve()s: $EW"

python3 - "$TMP/fold.out" <<'PY' || { tail -3 "$TMP/fold.err"; exit 1; }
import sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if ";" in l]
named = {"progA": 0, "progB": 0}
bad = []
for l in lines:
    stack, _, value = l.rpartition(" ")
    frames = stack.split(";")
    comm = frames[0]
    if comm not in named:
        continue
    own, other = ("funcA_sleeper", "funcB_sleeper") if comm == "progA" else ("funcB_sleeper", "funcA_sleeper")
    if other in frames:
        bad.append(f"{comm} named with the other program's symbol: {l}")
    if own in frames:
        named[comm] += 1
print(f"{len(lines)} folded lines; named stacks: {named}")
if not all(named.values()):
    bad.append(f"a program has no stack named with its own function: {named}")
if bad:
    sys.exit("FAIL: " + "\n".join(bad[:10]))
PY
