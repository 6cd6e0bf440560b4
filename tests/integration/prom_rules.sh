#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# contrib/prometheus/schedhist.rules.yml: promtool check rules passes, and
# promtool test rules passes tests/prometheus/schedhist.rules.test.yml
# (recording rules' values and the container labels they keep; each alert
# fires where it must and not where it must not: the throttled fraction in
# quota periods, a target down, no target at all). The unit test can fail: with the run-queue threshold raised
# from 50 ms to 500 ms, or the lost-events alert taking no_start too, the
# same test file fails. Loads no BPF program.
source "$(dirname "$0")/../lib.sh"
command -v promtool >/dev/null || skip "promtool not installed (Debian package prometheus)"

RULES=contrib/prometheus/schedhist.rules.yml
TESTS=tests/prometheus/schedhist.rules.test.yml
promtool check rules "$RULES" >"$TMP/check.out" 2>&1 || { cat "$TMP/check.out"; fail "promtool check rules"; }
grep -q 'SUCCESS: 9 rules found' "$TMP/check.out" || { cat "$TMP/check.out"; fail "not the 9 rules"; }
promtool test rules "$TESTS" >"$TMP/test.out" 2>&1 || { cat "$TMP/test.out"; fail "promtool test rules"; }
grep -q SUCCESS "$TMP/test.out" || { cat "$TMP/test.out"; fail "promtool test rules: no SUCCESS"; }

# mutants of the rules, next to a copy of the test file (it names the rules by a relative path)
mutant() {	# mutant NAME SED-EXPRESSION: the test must fail on the rules edited so
	local d="$TMP/$1"
	mkdir -p "$d/contrib/prometheus" "$d/tests/prometheus"
	cp "$TESTS" "$d/tests/prometheus/"
	sed "$2" "$RULES" >"$d/$RULES"
	cmp -s "$RULES" "$d/$RULES" && fail "mutant $1 changed nothing"
	promtool check rules "$d/$RULES" >/dev/null 2>&1 || fail "mutant $1 is not valid rules"
	if promtool test rules "$d/$TESTS" >"$d/out" 2>&1; then
		fail "promtool test rules passes on mutant $1"
	fi
	grep -q FAILED "$d/out" || { cat "$d/out"; fail "mutant $1: no FAILED"; }
}
mutant threshold 's/key_type="cgroup"} > 0.05/key_type="cgroup"} > 0.5/'
mutant no_start 's/reason=~"dropped|clock_skew"/reason=~"dropped|clock_skew|no_start"/'
mutant sustained 's/^        for: 10m$/        for: 1m/'
mutant throttled 's/^          ) > 0.5$/          ) > 0.95/'
mutant throttled_any_metric 's/max by (job, instance, key_type, key, container_id, pod_uid, unit) (/(/'
# the throttled fraction in seconds summed over the CPUs, as it once was: /wide fires
mutant throttled_seconds 's/rate(schedhist_cgroup_throttled_periods_total\[5m\])/rate(schedhist_cgroup_throttled_seconds_total[5m])/; s|/ rate(schedhist_cgroup_periods_total\[5m\])|/ 1|'
# the recording rules dropping the container labels
mutant container_labels 's/key_type, key, container_id, pod_uid, qos, unit/key_type, key/g'
mutant target_down 's/^        expr: up{job="schedhist"} == 0$/        expr: up{job="schedhist"} == 2/'
mutant target_absent 's/absent(up{job="schedhist"})/absent(up)/'
