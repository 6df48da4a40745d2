#!/bin/bash
# t90-attack-files: a hostile local user against a root gq serve, through
# every path the server touches on a user's behalf (gq-serve(8), SECURITY).
# User A plants symlinks in its job's spool directory and requeues the job,
# points -o at root's files and at a FIFO, runs a job whose cwd is user B's
# private home, escapes its directory through %x; user B reads the journal
# and the spool, and squats A's /tmp runtime directory. Root's files stay
# root's and unread, B's stay B's, A's secrets stay A's.
# Needs root: it creates two users, and removes them at exit.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/api.sh"
if [ "$(id -u)" != 0 ]; then echo "ok 1 - t90-attack-files # skip needs root (creates users)"; exit 0; fi
UA=gqt90a$$ UB=gqt90b$$
users_cleanup() {
	t_cleanup
	[ -n "${squat:-}" ] && rm -rf "$squat"
	userdel "$UA" 2>/dev/null
	userdel "$UB" 2>/dev/null
}
trap users_cleanup EXIT
useradd -M -N -g users -s /bin/sh "$UA"
useradd -M -N -g users -s /bin/sh "$UB"
uida=$(id -u "$UA")
chmod 755 "$T_DIR"
HA="$T_DIR/home-a" HB="$T_DIR/home-b"
mkdir -p "$HA/sub" "$HB"
chown -R "$UA:users" "$HA"
chown "$UB:users" "$HB"
chmod 700 "$HA" "$HB"
echo BSECRET >"$HB/secret.txt"
chown "$UB:users" "$HB/secret.txt"
# Root's: a private directory and a private file.
mkdir "$T_DIR/rootdir"
chmod 700 "$T_DIR/rootdir"
echo ROOTSECRET >"$T_DIR/rootfile"
chmod 600 "$T_DIR/rootfile"
sum0=$(sha256sum <"$T_DIR/rootfile")

port=$(free_ports 1)
tok=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s %s user\n' "$(printf %s "$tok" | sha256sum | cut -d' ' -f1)" "$UA" >"$T_DIR/tokens"
server_start --gpus 2 --listen "127.0.0.1:$port" --tokens "$T_DIR/tokens"

as() { # USER CMD...: CMD as USER, with its own HOME, talking to our server
	local u=$1 h
	shift
	[ "$u" = "$UA" ] && h=$HA || h=$HB
	setpriv --reuid "$u" --regid users --init-groups env -u XDG_RUNTIME_DIR -u XDG_STATE_HOME -u XDG_CONFIG_HOME HOME="$h" \
		GQ_SERVER="unix:$SERVER_SOCK" "$@"
}
asapi() { # USER METHOD PATH [BODY]: the body of the API's answer to USER
	local u=$1
	shift
	as "$u" curl -s --unix-socket "$SERVER_SOCK" -X "$1" ${3:+--data-binary "$3"} "http://gq$2"
}
jid() { sed -n 's/^submitted job \([0-9]*\).*/\1/p'; }
ended() { wait_state "$1" completed failed cancelled timeout; }

# 1. Symlinks in the job's own directory, followed at its next start.
plant="echo PWNED; d=\$(dirname \"\$GQ_CHECKPOINT_DIR\"); rm -rf \"\$d/checkpoint\"; \
ln -s $T_DIR/rootdir \"\$d/checkpoint\"; rm -f \"\$d/stdout\" \"\$d/stderr\"; \
ln -s $T_DIR/rootfile \"\$d/stdout\"; ln -s $T_DIR/rootfile \"\$d/stderr\""
p=$(cd "$HA" && as "$UA" "$GQ" submit --gpus 1 --name plant -- sh -c "$plant" | jid)
check "A's planting job runs and ends" ended "$p"
check "A requeues it" as "$UA" "$GQ" requeue "$p"
check "its second run ends" ended "$p"
check_eq "root's private directory is still root's, mode 700" "$(stat -c '%U %a' "$T_DIR/rootdir")" "root 700"
check_eq "root's private file is still root's, mode 600" "$(stat -c '%U %a' "$T_DIR/rootfile")" "root 600"
check_eq "nothing was written to root's file" "$(sha256sum <"$T_DIR/rootfile")" "$sum0"
out=$(as "$UA" "$GQ" logs "$p" 2>&1)
check_eq "gq logs of the job whose log is a symlink to root's file does not print it" \
	"$(echo "$out" | grep -c ROOTSECRET)" 0

# 2. -o at a file only root may read: gq logs reads it as the job's user.
o=$(cd "$HA" && as "$UA" "$GQ" submit --hold -o "$T_DIR/rootfile" -- true | jid)
out=$(as "$UA" "$GQ" logs "$o" 2>&1)
rc=$?
check_eq "gq logs of a job whose -o is root's file does not print it (unix socket)" \
	"$(echo "$out" | grep -c ROOTSECRET)" 0
check_match "... and says why, exit 4 (not allowed)" "$rc $out" "^4 .*cannot read '$T_DIR/rootfile'.*Permission denied"
out=$(curl -s -H "Authorization: Bearer $tok" "http://127.0.0.1:$port/v1/jobs/$o/logs")
check_eq "... nor over TCP with A's token" "$(echo "$out" | grep -c ROOTSECRET)" 0
check_eq "root's file keeps its owner" "$(stat -c '%U %a' "$T_DIR/rootfile")" "root 600"
as "$UA" mkfifo "$HA/fifo"
f=$(cd "$HA" && as "$UA" "$GQ" submit --hold -o "$HA/fifo" -- true | jid)
out=$(as "$UA" timeout 10 "$GQ" logs "$f" 2>&1)
rc=$?
check_match "gq logs of a job whose -o is a FIFO answers at once, exit 1" "$rc $out" "^1 .*not a regular file"
check "the server still answers" as "$UB" "$GQ" ls

# 3. cwd in another user's private home: entered as the job's user, or not.
c=$(asapi "$UA" POST /v1/jobs "{\"argv\":[\"cat\",\"secret.txt\"],\"cwd\":\"$HB\",\"req\":{\"gpus\":0}}" | jq -r .id)
check "A's job with cwd in B's home ends" ended "$c"
check_eq "... failed" "$(state "$c")" failed
out=$(as "$UA" "$GQ" logs --stderr "$c" 2>&1)
check_eq "... without reading B's file" "$(echo "$out" | grep -c BSECRET)" 0
check_match "... saying it could not enter the directory" "$out" "cannot enter '$HB': Permission denied"

# 4. The journal and the spool are private.
s=$(asapi "$UA" POST /v1/jobs '{"argv":["true"],"env":["TOKEN=ENVSECRET"],"held":true,"cwd":"/"}' | jq -r .id)
check_eq "A's job with a secret in its environment is held" "$(api GET "/v1/jobs/$s" | jq -r .held)" true
modes=$(cd "$SERVER_STATE" && find . -maxdepth 1 -name 'gq.db*' -printf '%f %m\n' | sort)
check_match "the journal's files exist" "$modes" "gq.db-wal"
check_eq "the journal's files are 0600" "$(echo "$modes" | awk '$2 != 600')" ""
found=$(for f in gq.db gq.db-wal gq.db-shm "run/$s/spec"; do as "$UB" cat "$SERVER_STATE/$f"; done 2>/dev/null | grep -ac ENVSECRET)
check_eq "B reads A's secret in none of the journal's files" "$found" 0
check_eq "the spool of A's jobs is A's, 0700" "$(stat -c '%U %a' "$SERVER_STATE/jobs/$p")" "$UA 700"
check_eq "the server's run directory is root's, 0700" "$(stat -c '%U %a' "$SERVER_STATE/run")" "root 700"

# 5. %x cannot carry a job's files out of its directory.
x=$(asapi "$UA" POST /v1/jobs "{\"argv\":[\"echo\",\"hi\"],\"cwd\":\"$HA/sub\",\"name\":\"../esc\",\"output\":\"%x.out\",\"req\":{\"gpus\":0}}" | jq -r .id)
check "the job named '../esc' ends" ended "$x"
check_eq "its %x.out is in its cwd, the '/' replaced" "$(ls -A "$HA/sub" | grep esc)" ".._esc.out"
check_eq "nothing escaped to the parent" "$(ls -A "$HA" | grep -c esc)" 0

# 7. A finished job's spool is removed 7 days after its end, as its user:
# links A left in it are removed, not followed.
mkdir "$T_DIR/rootdir2"
echo KEEP >"$T_DIR/rootdir2/keep"
chmod 700 "$T_DIR/rootdir2"
sw=$(cd "$HA" && as "$UA" "$GQ" submit --gpus 0 -- sh -c "echo out; d=\$(dirname \"\$GQ_CHECKPOINT_DIR\"); \
ln -s $T_DIR/rootdir2 \"\$d/link\"; mkdir -p \"\$d/deep/er\"; ln -s $T_DIR/rootdir2/keep \"\$d/deep/er/k\"" | jid)
check "A's job with links in its spool ends" ended "$sw"
check_eq "its spool is there, A's" "$(stat -c %U "$SERVER_STATE/jobs/$sw")" "$UA"
"$GQ" clock +8d >/dev/null
for _ in $(seq 1 100); do [ -e "$SERVER_STATE/jobs/$sw" ] || break; sleep 0.05; done
check_eq "8 days on, the spool is gone" "$(ls -d "$SERVER_STATE/jobs/$sw" 2>/dev/null)" ""
check_eq "root's directory it linked to is intact" "$(cat "$T_DIR/rootdir2/keep")" KEEP
out=$(as "$UA" "$GQ" logs "$sw" 2>&1)
rc=$?
check_match "gq logs says the output was removed, exit 3" "$rc $out" \
	"^3 .*the output of job '$sw' was removed 7 days after it ended"

# 6. A runtime directory squatted by another user is refused, and the
# squatter hears nothing.
squat=/tmp/gq-$uida
rm -rf "$squat"
as "$UB" mkdir -m 777 "$squat"
as "$UB" python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1] + "/sock"); s.listen(8)
s.settimeout(20)
while True:
    try: c, _ = s.accept()
    except Exception: break
    c.settimeout(2)
    try: d = c.recv(65536)
    except Exception: d = b""
    open(sys.argv[1] + "/heard", "ab").write(d)
    c.close()
' "$squat" &
lp=$!
for _ in $(seq 1 100); do [ -S "$squat/sock" ] && break; sleep 0.05; done
out=$(setpriv --reuid "$UA" --regid users --init-groups env -u XDG_RUNTIME_DIR -u XDG_STATE_HOME -u XDG_CONFIG_HOME -u GQ_SERVER \
	HOME="$HA" SQUATSECRET=SQUATSECRET "$GQ" submit -- true 2>&1)
rc=$?
check_match "A's gq refuses the runtime directory B made, naming it, exit 4" "$rc $out" \
	"^4 .*'$squat': a directory owned by $UB with mode 0777"
check_eq "... in one line" "$(echo "$out" | wc -l)" 1
check_eq "B heard nothing" "$(cat "$squat/heard" 2>/dev/null | grep -c SQUATSECRET)" 0
kill "$lp" 2>/dev/null
wait "$lp" 2>/dev/null
finish
