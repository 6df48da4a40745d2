#!/bin/bash
# t92-attack-flood: one local user opens connections to a root gq serve's
# unix socket as fast as it can (the kernel's queue of connections is shared
# by every user); another user's gq ls and gq submit must still be answered,
# every time. Correctness only: the latencies are bench/fair.sh's.
# Needs root: it creates two users, and removes them at exit.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then echo "ok 1 - t92-attack-flood # skip needs root (creates users)"; exit 0; fi
UA=gqt92a$$ UB=gqt92b$$
users_cleanup() {
	[ -n "${fp:-}" ] && kill "$fp" 2>/dev/null
	t_cleanup
	userdel "$UA" 2>/dev/null
	userdel "$UB" 2>/dev/null
}
trap users_cleanup EXIT
useradd -M -N -g users -s /bin/sh "$UA"
useradd -M -N -g users -s /bin/sh "$UB"
chmod 755 "$T_DIR"
mkdir -p "$T_DIR/hb"
chown "$UB:users" "$T_DIR/hb"
server_start --gpus 2
asb() { setpriv --reuid "$UB" --regid users --init-groups env HOME="$T_DIR/hb" XDG_RUNTIME_DIR= \
	XDG_STATE_HOME="$T_DIR/hb/.s" XDG_CONFIG_HOME="$T_DIR/hb/.c" GQ_SERVER="unix:$SERVER_SOCK" "$@"; }

# A: 4 threads connecting without a pause, holding at most 300 at once.
setpriv --reuid "$UA" --regid users --init-groups env python3 - "$SERVER_SOCK" 20 >"$T_DIR/flood" 2>&1 <<'EOF' &
import socket, sys, threading, time
sock, secs = sys.argv[1], float(sys.argv[2])
end = time.time() + secs
n = [0]
def storm():
    held = []
    while time.time() < end:
        try:
            s = socket.socket(socket.AF_UNIX); s.setblocking(False); s.connect(sock); held.append(s)
            n[0] += 1
        except OSError:
            pass
        if len(held) > 300:
            for s in held[:150]:
                s.close()
            held = held[150:]
ts = [threading.Thread(target=storm) for _ in range(4)]
for t in ts: t.start()
for t in ts: t.join()
print("connections", n[0])
EOF
fp=$!
sleep 1
fails=0 runs=0 first=""
for i in $(seq 1 30); do
	kill -0 "$fp" 2>/dev/null || break
	runs=$((runs + 1))
	if ! out=$(asb "$GQ" ls 2>&1); then
		fails=$((fails + 1))
		[ -n "$first" ] || first=$out
	fi
done
check_match "the flood ran during B's commands ($runs of them)" "$runs" '^(1[0-9]|2[0-9]|30)$'
check_eq "B's gq ls is answered every time under A's connection flood" "$fails${first:+: $first}" 0
out=$(asb "$GQ" submit --hold --gpus 0 -- true 2>&1)
check_match "B's gq submit too" "$out" '^submitted job [0-9]+$'
kill "$fp" 2>/dev/null
wait "$fp" 2>/dev/null
fp=""
ok=1
for _ in $(seq 1 100); do
	setpriv --reuid "$UA" --regid users --init-groups curl -sf --unix-socket "$SERVER_SOCK" \
		http://gq/v1/ping >/dev/null 2>&1 && { ok=0; break; }
	sleep 0.1
done
t_report $ok "after the flood, A's connections are counted off: A is answered again"
finish
