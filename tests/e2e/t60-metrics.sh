#!/bin/bash
# t60-metrics: GET /metrics in the Prometheus text format, under a
# decimal-comma locale (de_DE.UTF-8, built with localedef as t1e does):
# every family has its # HELP and # TYPE, every sample line parses, no
# number has a comma, no NaN or Inf where a number belongs; the values
# follow the queue (jobs by state, GPUs busy and free, submissions); it is
# served on the unix socket, over TCP only with a bearer token, and on the
# read-only --metrics-listen without one, which serves nothing else.
. "$(dirname "$0")/lib.sh"
loc="$T_DIR/locale"
mkdir -p "$loc"
localedef -i de_DE -f UTF-8 "$loc/de_DE.UTF-8" >"$T_DIR/localedef.log" 2>&1
export LOCPATH="$loc" LC_ALL=de_DE.UTF-8
export LSAN_OPTIONS="suppressions=$T_SRC/glibc-locale.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
check_eq "the locale is in force: printf(1) writes 1,5" "$(env printf '%.1f' 1.5)" "1,5"

{ read -r port; read -r mport; } < <(free_ports 2)
tok="$T_DIR/tokens"
alice=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s alice user 4242\n' "$(printf %s "$alice" | sha256sum | cut -d' ' -f1)" >"$tok"
server_start --gpus 8 --listen "127.0.0.1:$port" --tokens "$tok" \
	--metrics-listen "127.0.0.1:$mport"

m() { curl -s --unix-socket "$SERVER_SOCK" http://gq/metrics; }
# value NAME{LABELS}: the sample's value, exactly as written.
value() { m | awk -v k="$1" '$1 == k { print $2 }'; }

"$GQ" submit --gpus 4 --estimate 1h -- sleep 300 >/dev/null
wait_state 1 running
for i in 2 3 4; do "$GQ" submit --gpus 8 --estimate 30m -- true >/dev/null; done
"$GQ" submit --gpus 1 --tier P2 --hold -- true >/dev/null

out=$(m)
check_eq "Content-Type is the text format 0.0.4" \
	"$(curl -s -o /dev/null -w '%{content_type}' --unix-socket "$SERVER_SOCK" http://gq/metrics)" \
	"text/plain; version=0.0.4; charset=utf-8"
bad=$(printf '%s\n' "$out" | grep -v '^#' |
	grep -Ev '^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? -?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$')
check_eq "every sample line is name{labels} number, with a decimal point" "$bad" ""
check_eq "no NaN or Inf outside a histogram's le=\"+Inf\"" \
	"$(printf '%s\n' "$out" | grep -v '^#' | sed 's/le="+Inf"//' | grep -iE '(nan|inf)[,}]|(nan|inf)$')" ""
families=$(printf '%s\n' "$out" | grep -v '^#' | sed 's/[{ ].*//; s/_bucket$//; s/_sum$//; s/_count$//' | sort -u)
missing=""
for f in $families; do
	printf '%s\n' "$out" | grep -q "^# HELP $f " || missing="$missing $f(help)"
	printf '%s\n' "$out" | grep -q "^# TYPE $f " || missing="$missing $f(type)"
done
check_eq "every family has # HELP and # TYPE" "$missing" ""
check_eq "counters end in _total" \
	"$(printf '%s\n' "$out" | awk '$1 == "#" && $2 == "TYPE" && $4 == "counter" && $3 !~ /_total$/')" ""

check_eq "3 P1 jobs pending" "$(value 'gq_jobs{queue="default",tier="P1",state="pending"}')" 3
check_eq "1 running" "$(value 'gq_jobs{queue="default",tier="P1",state="running"}')" 1
check_eq "the held P2 job is pending too" "$(value 'gq_jobs{queue="default",tier="P2",state="pending"}')" 1
check_eq "4 GPUs busy" "$(value 'gq_gpus{state="busy"}')" 4
check_eq "4 GPUs free" "$(value 'gq_gpus{state="free"}')" 4
check_eq "headroom: floor(0.15 x 8) = 1" "$(value gq_gpus_headroom)" 1
check_eq "5 jobs submitted" "$(value gq_jobs_submitted_total)" 5
check_eq "one start in the wait summary" "$(value 'gq_job_wait_seconds_count{queue="default",tier="P1"}')" 1
"$GQ" clock +2h >/dev/null
check_eq "the oldest P1 job has waited 2 h" "$(value 'gq_pending_oldest_wait_seconds{queue="default",tier="P1"}')" 7200
check_match "the scheduler's passes are timed" "$(value gq_scheduler_pass_seconds_count)" '^[1-9][0-9]*$'
check_match "and the journal's commits" "$(value gq_journal_commit_seconds_count)" '^[1-9][0-9]*$'
check_match "a time sum has a decimal point" "$(value gq_journal_commit_seconds_sum)" '^[0-9]+\.[0-9]+(e-[0-9]+)?$'
check_eq "the histogram's +Inf bucket is its count" \
	"$(value 'gq_journal_commit_seconds_bucket{le="+Inf"}')" "$(value gq_journal_commit_seconds_count)"

# TCP: the bearer token Prometheus' scrape config sends (authorization).
check_eq "over TCP with the token: 200" \
	"$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $alice" "http://127.0.0.1:$port/metrics")" 200
check_eq "and the same series" \
	"$(curl -s -H "Authorization: Bearer $alice" "http://127.0.0.1:$port/metrics" | grep -c '^gq_jobs{')" \
	"$(m | grep -c '^gq_jobs{')"
check_eq "over TCP without a token: 401" \
	"$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" 401
check_eq "POST /metrics: 405" \
	"$(curl -s -o /dev/null -w '%{http_code}' -X POST --unix-socket "$SERVER_SOCK" http://gq/metrics)" 405

# The read-only listener: no token, and only /metrics.
check_eq "the metrics listener answers without a token" \
	"$(curl -s "http://127.0.0.1:$mport/metrics" | awk '$1 == "gq_jobs_submitted_total" {print $2}')" 5
check_eq "and nothing else: /v1/jobs is 404" \
	"$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/v1/jobs")" 404
check_eq "a submission there is refused: 405" \
	"$(curl -s -o /dev/null -w '%{http_code}' -X POST -d '{}' "http://127.0.0.1:$mport/metrics")" 405
check_eq "the refusal says what it serves" \
	"$(curl -s "http://127.0.0.1:$mport/v1/jobs" | jq -r .error.message)" \
	"no endpoint '/v1/jobs': this listener serves GET /metrics only (gq-api(7))"
check_fail 2 "a bad --metrics-listen is a usage error" "$GQ" serve --metrics-listen nonsense
finish
