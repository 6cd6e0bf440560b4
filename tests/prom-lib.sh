# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Shared by the fleet-mode tests (tests/integration/prom_*.sh), sourced
# after tests/lib.sh. Everything stays on the loopback address.

command -v curl >/dev/null || skip "curl not installed (Debian package curl)"
command -v python3 >/dev/null || skip "python3 not installed"
command -v ss >/dev/null || skip "ss not installed (Debian package iproute2)"

# free_port: a TCP port in 19000-19999 that no socket uses now.
free_port() {
	local p i
	for i in $(seq 1 200); do
		p=$((19000 + RANDOM % 1000))
		[ -z "$(ss -Hant "( sport = :$p or dport = :$p )")" ] && { echo "$p"; return 0; }
	done
	fail "no free TCP port in 19000-19999"
}

# prom_config FILE PORT...: a Prometheus configuration that scrapes the
# schedhist instances on 127.0.0.1:PORT every second (one job).
prom_config() {
	local file=$1 t
	shift
	t=$(printf "'127.0.0.1:%s', " "$@")
	cat >"$file" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: schedhist
    static_configs:
      - targets: [${t%, }]
EOF
}

# start_prometheus PORT [FLAGS...]: Debian's prometheus with the config
# $TMP/prometheus.yml, its data in $TMP/tsdb, its log in
# $TMP/prometheus.log, listening on 127.0.0.1:PORT (FLAGS: more of its
# options). Sets prom (its pid, also in CHILD_PIDS) and API (its URL).
# A second one at once: PROM_NAME=NAME, for $TMP/NAME.yml, $TMP/NAME-tsdb
# and $TMP/NAME.log (save prom and API of the first before).
start_prometheus() {
	local port=$1 name=${PROM_NAME:-prometheus}
	shift
	prometheus --config.file="$TMP/$name.yml" --storage.tsdb.path="$TMP/${PROM_NAME:+$PROM_NAME-}tsdb" \
		--web.listen-address="127.0.0.1:$port" --log.level=warn "$@" \
		>"$TMP/$name.log" 2>&1 &
	prom=$!
	CHILD_PIDS+=("$prom")
	API="http://127.0.0.1:$port"
}

# prometheus_ready: wait until it answers /-/ready (a hang guard of 30 s).
prometheus_ready() {
	local i
	for i in $(seq 1 150); do
		curl -sf --max-time 1 "$API/-/ready" >/dev/null && return 0
		kill -0 "$prom" 2>/dev/null || { cat "$TMP/${PROM_NAME:-prometheus}.log"; fail "prometheus exited at start"; }
		[ "$i" -lt 150 ] || { cat "$TMP/${PROM_NAME:-prometheus}.log"; fail "prometheus not ready within 30 s"; }
		sleep 0.2
	done
}

# stop_prometheus: SIGTERM, SIGKILL after 10 s, and reap it.
stop_prometheus() {
	kill -TERM "$prom" 2>/dev/null
	for _ in $(seq 1 100); do kill -0 "$prom" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$prom" 2>/dev/null
	wait "$prom" 2>/dev/null
}

# scrape PORT [CURL ARGS...]: the body of GET /metrics (fails the test on error).
scrape() {
	local port=$1
	shift
	curl -sS --max-time 5 "$@" "http://127.0.0.1:$port/metrics" ||
		fail "GET http://127.0.0.1:$port/metrics failed"
}

# sample TEXT SERIES: the value of the sample line "SERIES VALUE" ("" if none).
sample() {
	printf '%s\n' "$1" | awk -v s="$2" 'index($0, s " ") == 1 { print substr($0, length(s) + 2); exit }'
}

# status_caps PID: "CapInh CapPrm CapEff CapBnd CapAmb" of every task of PID, one line each.
status_caps() {
	local t
	for t in /proc/"$1"/task/*; do
		awk '/^Cap(Inh|Prm|Eff|Bnd|Amb):/ { printf "%s ", $2 } END { print "" }' "$t/status"
	done
}

# assert_nothing_leaked: like assert_nothing_loaded, but programs that a
# live process holds (another session's schedhist, running alongside on a
# shared machine) are not ours and do not count. Program ids held by a
# process show in its /proc/PID/fdinfo (prog and link fds both).
orphan_progs() {
	local held id
	held=$(cat /proc/[0-9]*/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -u)
	for id in $(bpftool prog show 2>/dev/null | awk '/ name schedhist_/ { sub(":", "", $1); print $1 }'); do
		grep -qx "$id" <<<"$held" || echo "$id"
	done
}
assert_nothing_leaked() {
	local i left
	for i in $(seq 1 20); do	# programs are freed shortly after the last fd closes
		left=$(orphan_progs)
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	fail "schedhist program(s) left loaded, held by no process: $(echo $left)"
}
