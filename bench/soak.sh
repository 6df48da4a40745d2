#!/bin/sh
# bench/soak.sh - SOAK_SECONDS (600) of mixed load against a real gq serve
# on a unix socket in a scratch directory: submissions (with
# Idempotency-Keys), jobs that end (true, a short sleep, a failure), cancels,
# holds and releases, gq ls, gq why, the event stream, snapshots and a
# manual clock that moves, all in bounded loops that pause between
# requests. Prints the server's resident memory (VmRSS, VmHWM) and open file
# descriptors (/proc/PID/fd) at the start, every minute and at the end, the
# growth and a verdict. Not a pass/fail test: the figures go to
# bench/README.md ("Soak").
#
# Two submitters (about 20 jobs a second, what the server runs here, so
# that no backlog of pending jobs grows). The clock moves 3 h every 10 s,
# so that from about 90 s on the jobs that ended over 25 h ago leave
# memory (the journal keeps them): from then on memory must stay flat
# however many jobs run, and growth is measured from the first sample
# after that (minute 2) to the end, in all and per job run since; inmem is
# gq_jobs_in_memory. File descriptors must come back to where they
# started. SOAK_SERVER_WRAP runs the server under a wrapper, e.g.
# "valgrind --leak-check=full --log-file=/tmp/vg.%p" (then slower).
set -u
SECS=${SOAK_SECONDS:-600}
BENCH_KEEP=${SOAK_KEEP:-0} BENCH_SERVER_WRAP=${SOAK_SERVER_WRAP:-}
BENCH_NAME=soak
. "$(dirname "$0")/lib.inc"
SOCK="$T/sock"
bench_serve --manual-clock

# The load: one python3 process of threads, each a bounded loop over the
# unix socket that pauses between requests (a new connection each, as
# curl and gq do); it counts its requests in $T/n. gq ls, gq why and
# gq eta (the CLI, a process each) run in a shell loop beside it.
LOAD=$(cat <<'EOF'
import http.client, json, os, random, socket, sys, threading, time
sock, secs, counter = sys.argv[1], float(sys.argv[2]), sys.argv[3]
end = time.time() + secs
lock = threading.Lock()
n = {"req": 0, "sub": 0, "err": 0}
ids = []
class C(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(30)
        self.sock.connect(sock)
def api(method, path, body=None, hdrs=None):
    c = C("gq", timeout=30)
    try:
        c.request(method, path, None if body is None else json.dumps(body).encode(), hdrs or {})
        r = c.getresponse()
        data = r.read()
        with lock:
            n["req"] += 1
            n["err"] += r.status >= 500
        return r.status, data
    except (OSError, http.client.HTTPException):
        with lock:
            n["err"] += 1
        return 0, b""
    finally:
        c.close()
KINDS = [["true"], ["sleep", "0.3"], ["sh", "-c", "exit 3"], ["sh", "-c", "echo out; echo err >&2"]]
def submitter(k):
    i = 0
    while time.time() < end:
        i += 1
        st, data = api("POST", "/v1/jobs", {"argv": KINDS[i % 4], "name": "s%d-%d" % (k, i),
                                            "held": i % 10 == 0}, {"Idempotency-Key": "s%d-%d" % (k, i)})
        if st in (200, 201):
            with lock:
                n["sub"] += 1
                ids.append(json.loads(data)["id"])
        time.sleep(0.1)
def pick(r, last=50):
    with lock:
        return r.choice(ids[-last:]) if ids else None
def actor():
    r = random.Random(1)
    while time.time() < end:
        j = pick(r)
        if j:
            api("POST", "/v1/jobs/%d/%s" % (j, r.choice(["cancel", "hold", "release", "release"])), {})
        time.sleep(0.1)
def reader(k):
    r = random.Random(k)
    seq = 0
    while time.time() < end:
        st, data = api("GET", "/v1/events?after=%d&limit=1000" % seq)
        if st == 200:
            seq = json.loads(data)["next"]
        api("GET", "/v1/snapshot?form=rows")
        api("GET", "/v1/jobs")
        j = pick(r, 200)
        if j:
            api("GET", "/v1/jobs/%d" % j)
            api("GET", "/v1/jobs/%d/logs?stream=stderr" % j)
        api("GET", "/v1/stats")
        time.sleep(0.2)
def waiter():
    seq = 0
    while time.time() < end:
        st, data = api("GET", "/v1/events?after=%d&wait=3000&limit=1000" % seq)
        if st == 200:
            seq = json.loads(data)["next"]
def clocker():
    while time.time() < end:
        time.sleep(10)
        api("POST", "/v1/clock", {"advance": 10800})
ths = [threading.Thread(target=submitter, args=(k,)) for k in range(2)]
ths += [threading.Thread(target=reader, args=(k,)) for k in range(2)]
ths += [threading.Thread(target=f) for f in (actor, waiter, clocker)]
for t in ths:
    t.daemon = True
    t.start()
while any(t.is_alive() for t in ths):
    with lock:
        line = "%d %d %d\n" % (n["req"], n["sub"], n["err"])
    with open(counter + ".tmp", "w") as f:
        f.write(line)
    os.rename(counter + ".tmp", counter)
    time.sleep(1)
with open(counter, "w") as f:
    f.write("%d %d %d\n" % (n["req"], n["sub"], n["err"]))
EOF
)
END=$(($(date +%s) + SECS))
alive() { [ "$(date +%s)" -lt "$END" ]; }
: >"$T/n.cli"
clis() { # gq ls, gq why on a pending job, gq eta: about one a second
	while alive; do
		"$GQ" ls >/dev/null 2>&1
		id=$(curl -s --unix-socket "$SOCK" 'http://gq/v1/jobs?state=pending&limit=1' |
			jq -r '.jobs[0].id // empty')
		[ -n "$id" ] && "$GQ" why "$id" >/dev/null 2>&1
		"$GQ" eta >/dev/null 2>&1
		echo x >>"$T/n.cli"
		sleep 1
	done
}

# valgrind runs the server in its own process: SPID either way.
spid() { echo "$SPID"; }
rss() { awk '/^VmRSS/ {print $2}' "/proc/$(spid)/status"; }
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$(spid)/status"; }
fds() { ls "/proc/$(spid)/fd" | wc -l; }
jobs_n() { curl -s --unix-socket "$SOCK" 'http://gq/v1/jobs?all=1&limit=1' | jq -r '.jobs[-1].id // 0'; }
inmem() { curl -s --unix-socket "$SOCK" http://gq/metrics | awk '$1 == "gq_jobs_in_memory" {print $2}'; }
reqs() { # API requests + CLI rounds (3 commands, 4 requests each or more)
	a=$(cut -d' ' -f1 "$T/n" 2>/dev/null || echo 0)
	c=$(wc -l <"$T/n.cli" 2>/dev/null || echo 0)
	echo $((${a:-0} + 3 * ${c:-0}))
}

printf '# soak: %d s against gq serve pid %s (%s), load average %s\n' "$SECS" "$(spid)" \
	"$("$GQ" version 2>/dev/null | head -1)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%6s %9s %9s %5s %6s %6s %9s %6s\n' t rss_kB hwm_kB fds jobs inmem requests load
sample() { # T
	printf '%6d %9d %9d %5d %6d %6d %9d %6s\n' "$1" "$(rss)" "$(hwm)" "$(fds)" "$(jobs_n)" \
		"$(inmem)" "$(reqs)" "$(cut -d' ' -f1 /proc/loadavg)"
}
S0=$(sample 0)
echo "$S0"

python3 -c "$LOAD" "$SOCK" "$SECS" "$T/n" &
BENCH_PIDS="$!"
clis &
BENCH_PIDS="$BENCH_PIDS $!"

START=$(date +%s)
S1=""
m=1
while [ "$(date +%s)" -lt "$END" ]; do
	next=$((START + 60 * m))
	[ "$next" -gt "$END" ] && next=$END
	while [ "$(date +%s)" -lt "$next" ]; do sleep 1; done
	line=$(sample $(($(date +%s) - START)))
	echo "$line"
	[ -z "$S1" ] && [ "$m" -ge 2 ] && S1=$line
	m=$((m + 1))
done
for p in $BENCH_PIDS; do wait "$p" 2>/dev/null; done
sleep 2 # the last jobs end, their files close
SE=$(sample $(($(date +%s) - START)))
echo "$SE (after the load, jobs ended)"
if ! kill -0 "$SPID" 2>/dev/null; then
	echo "# soak: THE SERVER DIED; its log ends:"
	tail -5 "$T/server.log" | sed 's/^/#   /'
fi

[ -n "$S1" ] || S1=$SE # a soak shorter than 2 minutes measures no growth
set -- $S0; r0=$2 f0=$4 j0=$5
set -- $S1; r1=$2 j1=$5
set -- $SE; re=$2 fe=$4 je=$5 nreq=$7
per_job=$(awk -v a="$r1" -v b="$re" -v ja="$j1" -v jb="$je" \
	'BEGIN { if (jb > ja) printf "%.2f", (b - a) / (jb - ja); else print "n/a" }')
printf '# growth: RSS %+d kB from the start, %+d kB from minute 2 (%s kB per job submitted since, %d jobs); fds %+d; %d requests\n' \
	$((re - r0)) $((re - r1)) "$per_job" $((je - j1)) $((fe - f0)) "$nreq"
set -- $(cat "$T/n")
printf '# load: %d API requests (%d submissions, %d without an answer or 5xx), %d CLI rounds of ls, why and eta\n' \
	"$1" "$2" "$3" "$(wc -l <"$T/n.cli")"
bad=""
[ "$3" -gt 0 ] && bad="$bad, $3 REQUESTS FAILED"
[ $((fe - f0)) -gt 2 ] && bad="$bad, FDS GROW"
# From minute 2 on, jobs leave memory as fast as they come: more than
# 2 kB per job run since, or 8 MB overall, is a leak to look for.
if [ "$per_job" != n/a ] && awk -v p="$per_job" 'BEGIN { exit !(p > 2.0) }'; then
	bad="$bad, RSS GROWS PER JOB"
fi
[ $((re - r1)) -gt 8192 ] && bad="$bad, RSS GROWS"
bad=${bad#, }
echo "# verdict: ${bad:-no growth}"
grep -E 'out of memory|BUG|fatal|error' "$T/server.log" | head -5 | sed 's/^/# server log: /'
