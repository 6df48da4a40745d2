#!/bin/bash
# t61-prometheus: a real Prometheus (Debian's package; make deps installs
# it) on loopback with a scratch config and storage directory scrapes a
# real gq serve twice, over TCP with a bearer token (its scrape config's
# authorization) and on the read-only --metrics-listen, and its HTTP query
# API (/api/v1/query) shows the series with the values the queue has:
# pending jobs after N submissions, then after a cancellation.
. "$(dirname "$0")/lib.sh"
PROM=$(command -v prometheus || true)
if [ -z "$PROM" ]; then
	t_report 0 "# skip: prometheus is not installed (make deps installs it: apt-get install prometheus)"
	finish
fi
{ read -r port; read -r mport; read -r pport; } < <(free_ports 3)
tok="$T_DIR/tokens"
secret=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s prometheus user 4242\n' "$(printf %s "$secret" | sha256sum | cut -d' ' -f1)" >"$tok"
printf '%s\n' "$secret" >"$T_DIR/scrape.token"
chmod 600 "$T_DIR/scrape.token"
server_start --gpus 8 --listen "127.0.0.1:$port" --tokens "$tok" --metrics-listen "127.0.0.1:$mport"

cat >"$T_DIR/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: gq
    authorization:
      type: Bearer
      credentials_file: $T_DIR/scrape.token
    static_configs:
      - targets: ['127.0.0.1:$port']
  - job_name: gq-open
    static_configs:
      - targets: ['127.0.0.1:$mport']
YML
"$PROM" --config.file="$T_DIR/prometheus.yml" --storage.tsdb.path="$T_DIR/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$T_DIR/prometheus.log" 2>&1 &
T_PIDS="$T_PIDS $!"

# q EXPR: the query's one value now ("" when there is none yet).
q() {
	curl -s --get --data-urlencode "query=$1" "http://127.0.0.1:$pport/api/v1/query" |
		jq -r '.data.result[0].value[1] // empty' 2>/dev/null
}
# await EXPR WANT: polls (up to 60 s: Prometheus starts, then scrapes every
# second) until the query says WANT; prints what it last said.
await() {
	local v=""
	for _ in $(seq 1 300); do
		v=$(q "$1")
		[ "$v" = "$2" ] && break
		sleep 0.2
	done
	printf '%s' "$v"
}

for i in 1 2 3 4 5; do "$GQ" submit --gpus 8 --estimate 1h -- sleep 300 >/dev/null; done
wait_state 1 running
got=$(await 'up{job="gq"}' 1)
check_eq "Prometheus scrapes gq serve over TCP with the token" "$got" 1
[ "$got" = 1 ] || { echo "# prometheus.log:"; tail -20 "$T_DIR/prometheus.log" | sed 's/^/#   /'; }
check_eq "and the read-only listener without one" "$(await 'up{job="gq-open"}' 1)" 1
check_eq "4 jobs pending after 5 submissions on 8 GPUs of 8-GPU jobs" \
	"$(await 'sum(gq_jobs{job="gq",state="pending"})' 4)" 4
check_eq "1 running" "$(await 'gq_jobs{job="gq",queue="default",tier="P1",state="running"}' 1)" 1
check_eq "8 GPUs busy" "$(await 'gq_gpus{job="gq",state="busy"}' 8)" 8
check_eq "5 submitted, through the metrics listener" "$(await 'gq_jobs_submitted_total{job="gq-open"}' 5)" 5
check_eq "the journal's commits arrive as a histogram" \
	"$(await 'count(gq_journal_commit_seconds_bucket{job="gq"}) > bool 0' 1)" 1
"$GQ" cancel 5 >/dev/null
check_eq "a cancellation: 3 pending" "$(await 'sum(gq_jobs{job="gq",state="pending"})' 3)" 3
check_eq "and 1 cancelled" "$(await 'sum(gq_jobs{job="gq",state="cancelled"})' 1)" 1

# The Grafana dashboard of contrib/: each query parses in this Prometheus,
# and names only series gq serve declares.
ROOT=$(cd "$T_SRC/../.." && pwd)
dash="$ROOT/contrib/grafana-gq.json"
bad=""
while IFS= read -r expr; do
	st=$(curl -s --get --data-urlencode "query=$expr" "http://127.0.0.1:$pport/api/v1/query" | jq -r .status)
	[ "$st" = success ] || bad="$bad [$expr: $st]"
done < <(jq -r '.panels[].targets[].expr' "$dash")
check_eq "every query of the Grafana dashboard is valid PromQL" "$bad" ""
declared=$(curl -s "http://127.0.0.1:$mport/metrics" | awk '$1 == "#" && $2 == "HELP" {print $3}')
unknown=""
for n in $(jq -r '.panels[].targets[].expr' "$dash" | grep -o 'gq_[a-z0-9_]*' | sort -u); do
	f=$(printf '%s' "$n" | sed 's/_bucket$//')
	printf '%s\n' "$declared" | grep -qx "$f" || unknown="$unknown $n"
done
check_eq "and uses only series gq serve declares" "$unknown" ""
finish
