#!/bin/bash
# t19-limits: a client that trickles a byte a second (slowloris) or holds
# hundreds of idle connections gets its own share of the server (64
# connections: per uid on the unix socket, per IP address on TCP) and no
# more; everybody else's gq ls and gq submit still answer, well within 10 s.
# And the server's log file is rotated at GQ_SERVE_LOG_MAX: it cannot grow
# without bound. The unix socket part needs root (a second local user).
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
LIMIT=64 # HTTP_MAX_PER_CLIENT in server/http.h
ATTACK_PIDS=""
port=$(free_ports 1)

# The attacker: N connections to a unix PATH or a TCP HOST:PORT (from source
# address SRC), each idle or sending one byte a second of a request that
# never ends. Writes "held K of N" to OUT once the server has had its say,
# then holds them until killed.
cat >"$T_DIR/attack.py" <<'EOF'
import os, select, socket, sys, time
mode, target, src, n, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
socks = []
for i in range(n):
    try:
        if target.startswith("unix:"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(target[5:])
        else:
            host, port = target.rsplit(":", 1)
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            if src != "-":
                s.bind((src, 0))
            s.connect((host, int(port)))
        socks.append(s)
    except OSError:
        break
time.sleep(1.5)
# A connection the server answered (503) or closed is readable; a held
# one is not.
held = [s for s in socks if not select.select([s], [], [], 0)[0]]
with open(out + ".tmp", "w") as f:
    f.write("held %d of %d\n" % (len(held), n))
os.rename(out + ".tmp", out)
req = b"GET /v1/ping HTTP/1.1\r\nHost: gq\r\nX-Slow: " + b"a" * 100000
i = 0
while True:
    if mode == "slow":
        for s in held:
            try:
                s.send(req[i:i + 1])
            except OSError:
                pass
        i += 1
    time.sleep(1)
EOF
chmod 644 "$T_DIR/attack.py"
mkdir -p "$T_DIR/out"
chmod 1777 "$T_DIR/out" # the attacker, maybe another user, reports there
attack() { # USER MODE TARGET SRC N NAME: in the background, as USER
	if [ "$1" = root ]; then "$PY" "$T_DIR/attack.py" "${@:2:4}" "$T_DIR/out/$6.held" & else
		setpriv --reuid "$1" --regid users --init-groups "$PY" "$T_DIR/attack.py" "${@:2:4}" "$T_DIR/out/$6.held" &
	fi
	T_PIDS="$T_PIDS $!"
	ATTACK_PIDS="$ATTACK_PIDS $!"
}
held() { # NAME: waits for the count
	for _ in $(seq 1 200); do [ -s "$T_DIR/out/$1.held" ] && break; sleep 0.05; done
	cut -d' ' -f2 "$T_DIR/out/$1.held" 2>/dev/null
}
attack_stop() {
	for p in $ATTACK_PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	ATTACK_PIDS=""
}
ms() { date +%s%3N; }
timed() { # DESC CMD...: ok when CMD succeeds within 10 s; keeps the time
	local t0 t1 out rc desc=$1
	shift
	t0=$(ms)
	out=$(timeout 10 "$@" 2>&1)
	rc=$?
	t1=$(ms)
	LAST_MS=$((t1 - t0))
	if [ $rc = 0 ]; then t_report 0 "$desc ($LAST_MS ms)"; else
		t_report 1 "$desc: exit $rc after $LAST_MS ms"
		echo "$out" | sed 's/^/#   /' | head -5
	fi
}
latency() { # CMD...: "median max" of 20 runs, in ms
	local t0 i
	for i in $(seq 1 20); do
		t0=$(ms)
		timeout 10 "$@" >/dev/null 2>&1
		echo $(($(ms) - t0))
	done | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)], v[NR]}'
}

tok=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$tok" >"$T_DIR/me.token"
chmod 600 "$T_DIR/me.token"
me=$(id -un)
printf '%s %s admin %s\n' "$(printf %s "$tok" | sha256sum | cut -d' ' -f1)" "$me" "$(id -u)" >"$T_DIR/tokens"
server_start --gpus 2 --listen "127.0.0.1:$port" --tokens "$T_DIR/tokens"
tcp_gq=(env GQ_SERVER="http://127.0.0.1:$port" GQ_TOKEN_FILE="$T_DIR/me.token" "$GQ")
base=$(latency "$GQ" ls)
echo "# gq ls on the unix socket, no load: median/max $(echo "$base" | tr ' ' /) ms"

# TCP: the attacker comes from 127.0.0.2, gq from 127.0.0.1.
attack root slow "127.0.0.1:$port" 127.0.0.2 20 tslow
check_eq "TCP slowloris: its 20 connections are held" "$(held tslow)" 20
attack root idle "127.0.0.1:$port" 127.0.0.2 300 tidle
check_eq "TCP, the same address: of 300 idle connections the server holds the $((LIMIT - 20)) left of $LIMIT" "$(held tidle)" $((LIMIT - 20))
timed "meanwhile gq ls over TCP from another address answers" "${tcp_gq[@]}" ls
timed "and gq submit" "${tcp_gq[@]}" submit --hold -- true
under=$(latency "${tcp_gq[@]}" ls)
echo "# gq ls over TCP under slowloris + idle flood from 127.0.0.2: median/max $(echo "$under" | tr ' ' /) ms"
check_match "the attacker's address gets no more" "$(curl -s -m 5 -H "Authorization: Bearer $tok" --interface 127.0.0.2 "http://127.0.0.1:$port/v1/ping" 2>&1; echo " rc=$?")" 'rc=(52|56|7)$'
attack_stop

if [ "$(id -u)" = 0 ]; then
	U=gqt19$$
	users_cleanup() {
		t_cleanup
		userdel "$U" 2>/dev/null
	}
	trap users_cleanup EXIT
	useradd -M -N -g users -s /bin/sh "$U"
	chmod 755 "$T_DIR"
	attack "$U" slow "unix:$SERVER_SOCK" - 20 uslow
	check_eq "unix socket slowloris as $U: its 20 connections are held" "$(held uslow)" 20
	attack "$U" idle "unix:$SERVER_SOCK" - 300 uidle
	check_eq "300 idle connections as $U: the server holds the $((LIMIT - 20)) left of $LIMIT" "$(held uidle)" $((LIMIT - 20))
	timed "meanwhile another user's gq ls answers" "$GQ" ls
	timed "and gq submit" "$GQ" submit --hold -- true
	timed "and gq ls over TCP" "${tcp_gq[@]}" ls
	under=$(latency "$GQ" ls)
	echo "# gq ls on the unix socket under slowloris + idle flood by another uid: median/max $(echo "$under" | tr ' ' /) ms"
	out=$(setpriv --reuid "$U" --regid users --init-groups curl -s --unix-socket "$SERVER_SOCK" http://gq/v1/ping 2>&1)
	check_match "$U itself gets no more (a 503 when it reads before it writes)" "$out" '^$|"code":"unavailable"'
	check_match "the server says so in its log, once" "$(grep -c 'over the limit of 64 per uid' "$T_DIR/server.log")" '^1$'
	attack_stop
	for _ in $(seq 1 100); do
		setpriv --reuid "$U" --regid users --init-groups curl -sf --unix-socket "$SERVER_SOCK" http://gq/v1/ping >/dev/null && break
		sleep 0.05
	done
	check_eq "once it lets go, $U is served again" \
		"$(setpriv --reuid "$U" --regid users --init-groups curl -s --unix-socket "$SERVER_SOCK" http://gq/v1/ping | jq -r .user)" "$U"
else
	echo "ok - t19-limits: the unix socket part # skip needs root"
fi
check "the server is still up" "$GQ" ls

# The log file: rotated at GQ_SERVE_LOG_MAX bytes, 3 old files kept.
server_stop
mv "$T_DIR/server.log" "$T_DIR/first.log"
GQ_SERVE_LOG_MAX=2000 server_start --gpus 1
# Paced: signals sent faster than the server takes them merge into one.
for _ in $(seq 1 150); do kill -HUP "$SERVER_PID"; sleep 0.01; done
check "the server still answers" "$GQ" ls
sizes=$(for f in server.log server.log.1 server.log.2 server.log.3; do stat -c %s "$T_DIR/$f" 2>/dev/null || echo none; done | tr '\n' ' ')
check_eq "150 SIGHUPs later: serve.log and 3 old files" "$(cd "$T_DIR" && ls server.log*)" "server.log
server.log.1
server.log.2
server.log.3"
check_eq "each at most 2000 bytes ($sizes)" "$(for f in "$T_DIR"/server.log*; do [ "$(stat -c %s "$f")" -le 2000 ] || echo "$f"; done)" ""
check_eq "no line cut" "$(cat "$T_DIR"/server.log* | grep -vcE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z (info|warn) ')" 0
check_match "the newest line is in serve.log" "$(tail -1 "$T_DIR/server.log")" 'SIGHUP'
server_stop
check_eq "a bad GQ_SERVE_LOG_MAX is refused" "$(GQ_SERVE_LOG_MAX=10x "$GQ" serve --listen "unix:$T_DIR/s3" --state-dir "$T_DIR/st3" 2>&1; echo "rc=$?")" \
	"gq serve: GQ_SERVE_LOG_MAX '10x': not a whole number: '10x' (bytes; 0 for no cap); see 'gq serve -h'
rc=2"
finish
