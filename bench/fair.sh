#!/bin/bash
# bench/fair.sh - one user floods a shared (root) gq serve, another uses it:
# the second user's `gq ls` and pings, timed while the first one's threads
# pull the heaviest reads (the snapshot in rows form and every job's list),
# open connections without sending anything, and queue jobs. Prints the
# victim's gq ls latency (p50, p99, max, failures) quiet and under the flood,
# and the server's RSS before and after. Not a pass/fail test: the figures
# go to bench/README.md ("One user cannot starve the others").
#
# Needs root (two local users, created and removed here). FAIR_JOBS (5000)
# jobs queued first, FAIR_SECONDS (15) of flood, FAIR_THREADS (8).
set -u
[ "$(id -u)" = 0 ] || { echo "fair: needs root (two local users); skipped"; exit 0; }
JOBS=${FAIR_JOBS:-5000}
SECS=${FAIR_SECONDS:-15}
THREADS=${FAIR_THREADS:-8}
BENCH_NAME=fair
. "$(dirname "$0")/lib.inc"
chmod 755 "$T"
UA=gqfaira$$ UB=gqfairb$$
fair_cleanup() {
	[ -n "${FPID:-}" ] && kill "$FPID" 2>/dev/null
	bench_cleanup
	userdel "$UA" 2>/dev/null
	userdel "$UB" 2>/dev/null
}
trap fair_cleanup EXIT
useradd -M -N -g users -s /bin/sh "$UA"
useradd -M -N -g users -s /bin/sh "$UB"
mkdir -p "$T/ha" "$T/hb"
chown "$UA:users" "$T/ha"
chown "$UB:users" "$T/hb"
SOCK="$T/sock"
bench_serve --manual-clock
rss() { bench_rss; }
as() { local u=$1 h; shift; [ "$u" = "$UA" ] && h=$T/ha || h=$T/hb
	setpriv --reuid "$u" --regid users --init-groups env HOME="$h" XDG_RUNTIME_DIR= \
		XDG_STATE_HOME="$h/.s" XDG_CONFIG_HOME="$h/.c" GQ_SERVER="unix:$SOCK" LC_ALL=C "$@"; }

# The queue: JOBS held jobs of A's, in arrays of 500.
n=0
while [ $n -lt "$JOBS" ]; do
	as "$UA" "$GQ" submit --hold --gpus 1 --array "0-499" -- true >/dev/null || break
	n=$((n + 500))
done
echo "# queued $n jobs of $UA; server RSS $(rss) kB"

# victim SECONDS: B's gq ls in a loop; one latency (ms) a line, or "fail".
victim() {
	as "$UB" python3 - "$GQ" "$1" <<'EOF'
import subprocess, sys, time
gq, secs = sys.argv[1], float(sys.argv[2])
end = time.time() + secs
while time.time() < end:
    t0 = time.time()
    r = subprocess.run([gq, "ls"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.stderr.write(r.stderr.decode(errors="replace"))
    ms = (time.time() - t0) * 1000
    print("%.1f" % ms if r.returncode == 0 else "fail", flush=True)
    time.sleep(0.05)
EOF
}
summary() { # FILE LABEL
	python3 - "$1" "$2" <<'EOF'
import sys
v = open(sys.argv[1]).read().split()
ok = sorted(float(x) for x in v if x != "fail")
fail = sum(1 for x in v if x == "fail")
def pct(p):
    return ok[min(len(ok) - 1, int(p * len(ok)))] if ok else float("nan")
print("%-28s n=%4d  p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms  failed %d" % (
    sys.argv[2], len(v), pct(0.5), pct(0.99), ok[-1] if ok else float("nan"), fail))
EOF
}

victim 5 >"$T/quiet"
summary "$T/quiet" "gq ls of $UB, quiet"

# The flood: THREADS threads of A's, each pulling the heaviest reads in a
# loop; one thread opening connections that send nothing; one submitting.
as "$UA" python3 - "$SOCK" "$SECS" "$THREADS" >"$T/flood" 2>&1 <<'EOF' &
import socket, sys, threading, time
sock, secs, threads = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
end = time.time() + secs
count = [0, 0]
def req(path, method="GET", body=b""):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(sock)
    s.sendall(b"%s %s HTTP/1.1\r\nHost: gq\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % (
        method.encode(), path.encode(), len(body)) + body)
    while s.recv(1 << 20):
        pass
    s.close()
def reader(k):
    paths = ["/v1/snapshot?form=rows", "/v1/jobs?all=1"]
    i = k
    while time.time() < end:
        try:
            req(paths[i % 2]); count[0] += 1
        except OSError:
            count[1] += 1
        i += 1
def idle():
    held = []
    while time.time() < end:
        try:
            s = socket.socket(socket.AF_UNIX); s.connect(sock); held.append(s)
        except OSError:
            time.sleep(0.01)
        if len(held) > 400:
            for s in held[:200]:
                s.close()
            held = held[200:]
def submitter():
    body = b'{"argv":["true"],"held":true}'
    while time.time() < end:
        try:
            req("/v1/jobs", "POST", body)
        except OSError:
            pass
ts = [threading.Thread(target=reader, args=(k,)) for k in range(threads)]
ts += [threading.Thread(target=idle), threading.Thread(target=submitter)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print("flood: %d reads answered, %d failed" % tuple(count))
EOF
FPID=$!
sleep 1
victim "$((SECS - 2))" >"$T/flood-ls" 2>"$T/flood-ls.err"
sort "$T/flood-ls.err" | uniq -c | sort -rn | head -3 | sed "s/^/# victim: /"
wait "$FPID" 2>/dev/null
FPID=""
summary "$T/flood-ls" "gq ls of $UB, under the flood"
sed 's/^/# /' "$T/flood"
echo "# server RSS after: $(rss) kB; jobs $(curl -s --unix-socket "$SOCK" 'http://gq/v1/jobs?all=1' | jq '.jobs | length')"
