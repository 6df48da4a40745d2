#!/bin/bash
# t18-auth-matrix: every endpoint of the API x every kind of caller, over
# the unix socket (identity from the kernel: two real local users and root)
# and over TCP (bearer tokens: the owner's, another user's, an admin's, none,
# a wrong one, and one revoked by editing the tokens file while the server
# runs). The expected status of every cell is in the one table below. Also:
# nobody reads another user's command, environment or output; a refused
# call changes nothing; the tokens file is read again when it changes.
# Needs root: it creates two users, and removes them at exit.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/api.sh"
if [ "$(id -u)" != 0 ]; then echo "ok 1 - t18-auth-matrix # skip needs root (creates users)"; exit 0; fi
U1=gqt18a$$ U2=gqt18b$$
users_cleanup() {
	t_cleanup
	userdel "$U1" 2>/dev/null
	userdel "$U2" 2>/dev/null
}
trap users_cleanup EXIT
useradd -M -N -g users -s /bin/sh "$U1"
useradd -M -N -g users -s /bin/sh "$U2"
chmod 755 "$T_DIR" # the users reach the socket through it

# The expected status of each cell. Columns: the job's owner (U1), another
# user (U2), an admin (root), and U2 sending the admin's bearer token (the
# unix socket ignores tokens) on the unix socket; on TCP the owner's token,
# U2's, an admin's, no token, a wrong token, and a revoked token of the
# owner. FIXTURE is the job {J} a row acts on, made afresh for each cell
# when the call changes it: running (job R, U1's, always the same), held,
# pending (waits behind R), p0held (a held P0 job), cancelled; "-" none.
# The gq command that calls each endpoint is in the comment after it.
matrix=$(cat <<'EOF'
# name        method path                        body                         fixture   u:own u:oth u:adm u:tok t:own t:oth t:adm t:none t:bad t:rev
ping          GET    /v1/ping                    -                            -         200 200 200 200 200 200 200 401 401 401 # every command
snapshot      GET    /v1/snapshot                -                            -         200 200 200 200 200 200 200 401 401 401 # ls, why, eta, nodes, top
snapshot-rows GET    /v1/snapshot?form=rows      -                            -         200 200 200 200 200 200 200 401 401 401 # the form gq asks for
jobs-list     GET    /v1/jobs?all=1              -                            -         200 200 200 200 200 200 200 401 401 401
submit        POST   /v1/jobs                    {"argv":["true"],"held":true} -        201 201 201 201 201 201 201 401 401 401 # submit
job           GET    /v1/jobs/{J}                -                            running   200 200 200 200 200 200 200 401 401 401 # show
command       GET    /v1/jobs/{J}/command        -                            running   200 403 200 403 200 403 200 401 401 401 # show --command
logs          GET    /v1/jobs/{J}/logs           -                            running   200 403 200 403 200 403 200 401 401 401 # logs
logs-stderr   GET    /v1/jobs/{J}/logs?stream=stderr -                        running   200 403 200 403 200 403 200 401 401 401 # logs --stderr
cancel        POST   /v1/jobs/{J}/cancel         -                            held      200 403 200 403 200 403 200 401 401 401 # cancel
hold          POST   /v1/jobs/{J}/hold           -                            pending   200 403 200 403 200 403 200 401 401 401 # hold
release       POST   /v1/jobs/{J}/release        -                            held      200 403 200 403 200 403 200 401 401 401 # release
requeue       POST   /v1/jobs/{J}/requeue        -                            cancelled 200 403 200 403 200 403 200 401 401 401 # requeue
override      POST   /v1/jobs/{J}/override       {"tier":"P2","reason":"t18"} held      403 403 200 403 403 403 200 401 401 401 # prio
confirm       POST   /v1/jobs/{J}/confirm        -                            p0held    200 403 200 403 200 403 200 401 401 401 # confirm
checkpoint    POST   /v1/jobs/{J}/checkpoint     -                            running   200 403 200 403 200 403 200 401 401 401 # checkpoint
update        POST   /v1/jobs/{J}/update         {"name":"t18u"}              pending   200 403 200 403 200 403 200 401 401 401 # update
events        GET    /v1/events?after=0          -                            -         200 200 200 200 200 200 200 401 401 401 # events
stats         GET    /v1/stats                   -                            -         200 200 200 200 200 200 200 401 401 401 # stats
preemptions   GET    /v1/preemptions             -                            -         200 200 200 200 200 200 200 401 401 401 # preemptions
reclaim       GET    /v1/reclaim                 -                            -         200 200 200 200 200 200 200 401 401 401 # reclaim
clock         POST   /v1/clock                   {"advance":1}                -         403 403 200 403 403 403 200 401 401 401 # clock
policy        GET    /v1/policy                  -                            -         200 200 200 200 200 200 200 401 401 401 # policy show
policy-apply  POST   /v1/policy/apply            {}                           -         403 403 200 403 403 403 200 401 401 401 # policy apply
no-endpoint   GET    /v1/nope                    -                            -         404 404 404 404 404 404 404 401 401 401
bad-method    DELETE /v1/jobs/{J}                -                            running   405 405 405 405 405 405 405 401 401 401
EOF
)
callers="u:own u:oth u:adm u:tok t:own t:oth t:adm t:none t:bad t:rev"

# Every route of api.c has a row: a new endpoint cannot miss the matrix.
routes=$(grep -oE '\{"(GET|POST)", "[^"]*", h_' "$T_SRC/../../server/api.c" | sed 's/{"\([A-Z]*\)", "\([^"]*\)".*/\1 \2/')
actions=$(sed -n '/job_actions\[\] = {/,/};/p' "$T_SRC/../../server/api.c" | grep -oE '"[a-z]+"' | tr -d '"')
rows=$(echo "$matrix" | grep -v '^#' | awk '{p=$3; sub(/\?.*/, "", p); sub(/^\/v1\//, "", p); gsub(/\{J\}/, "#", p); print $2, p}' | sort -u)
missing=""
while read -r m p; do
	if [ "$p" = 'jobs/#/*' ]; then
		for a in $actions; do echo "$rows" | grep -qx "$m jobs/#/$a" || missing="$missing $m:jobs/#/$a"; done
	else
		echo "$rows" | grep -qx "$m $p" || missing="$missing $m:$p"
	fi
done <<<"$routes"
check_eq "the table has a row for every route of server/api.c ($(echo "$routes" | wc -l) routes)" "${missing# }" ""

port=$(free_ports 1)
tokf="$T_DIR/tokens"
rnd() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
hash() { printf %s "$1" | sha256sum | cut -d' ' -f1; }
T_OWN=$(rnd) T_OTH=$(rnd) T_ADM=$(rnd) T_REV=$(rnd) T_BAD=$(rnd) T_NEW=$(rnd)
tokens_write() { # lines...: the tokens file, replaced atomically
	printf '# t18 tokens\n' >"$tokf.new"
	printf '%s\n' "$@" >>"$tokf.new"
	mv "$tokf.new" "$tokf"
}
L_OWN="$(hash "$T_OWN") $U1 user" L_OTH="$(hash "$T_OTH") $U2 user" L_ADM="$(hash "$T_ADM") boss admin"
L_REV="$(hash "$T_REV") $U1 user"
tokens_write "$L_OWN" "$L_OTH" "$L_ADM" "$L_REV"
server_start --gpus 1 --listen "127.0.0.1:$port" --tokens "$tokf"

unix_as() { # USER ARGS...: curl on the unix socket as USER
	local u=$1
	shift
	if [ "$u" = root ]; then curl -s --unix-socket "$SERVER_SOCK" "$@"; else
		setpriv --reuid "$u" --regid users --init-groups curl -s --unix-socket "$SERVER_SOCK" "$@"
	fi
}
# call CALLER METHOD PATH BODY OUT: the status; the answer's body into OUT.
call() {
	local who=$1 m=$2 p=$3 b=$4 out=$5 args
	args=(-o "$out" -w '%{http_code}' -X "$m")
	[ "$b" != - ] && args+=(--data-binary "$b")
	case $who in
	u:own) unix_as "$U1" "${args[@]}" "http://gq$p" ;;
	u:oth) unix_as "$U2" "${args[@]}" "http://gq$p" ;;
	u:adm) unix_as root "${args[@]}" "http://gq$p" ;;
	u:tok) unix_as "$U2" -H "Authorization: Bearer $T_ADM" "${args[@]}" "http://gq$p" ;;
	t:none) curl -s "${args[@]}" "http://127.0.0.1:$port$p" ;;
	t:*)
		local t
		case $who in t:own) t=$T_OWN ;; t:oth) t=$T_OTH ;; t:adm) t=$T_ADM ;; t:bad) t=$T_BAD ;; t:rev) t=$T_REV ;; esac
		curl -s -H "Authorization: Bearer $t" "${args[@]}" "http://127.0.0.1:$port$p"
		;;
	esac
}
submit_u1() { unix_as "$U1" -X POST --data-binary "$1" http://gq/v1/jobs | jq -r .id; }

# Job R: U1's, running on the only GPU, with a command, an environment and
# output that only U1 and admins may see.
R=$(submit_u1 '{"argv":["sh","-c","echo logsecret$((6*7)); echo errsecret$((6*7)) >&2; exec sleep 1000","argvsecret"],"env":["GQ_T18=envsecret","PATH=/usr/bin:/bin"],"cwd":"/tmp"}')
check "job R ($R) runs" wait_state "$R" running
for _ in $(seq 1 100); do api GET "/v1/jobs/$R/logs?stream=stderr" | grep -q errsecret42 && break; sleep 0.05; done
check_match "and has written its output" "$(api GET "/v1/jobs/$R/logs")" '^logsecret42$'

fixture() { # KIND: a job id in that state
	local id
	case $1 in
	running) echo "$R" ;;
	held) submit_u1 '{"argv":["true"],"held":true,"cwd":"/tmp"}' ;;
	pending) submit_u1 '{"argv":["true"],"cwd":"/tmp"}' ;;
	p0held) submit_u1 '{"argv":["true"],"held":true,"tier":"P0","cwd":"/tmp"}' ;;
	cancelled)
		id=$(submit_u1 '{"argv":["true"],"held":true,"cwd":"/tmp"}')
		api POST "/v1/jobs/$id/cancel" >/dev/null
		echo "$id"
		;;
	esac
}
job_view() { api GET "/v1/jobs/$1" | jq -cS .; }

# The revoked token works, then leaves the file while the server runs.
check_eq "the token to revoke works" "$(call t:rev GET /v1/ping - /dev/null)" 200
tokens_write "$L_OWN" "$L_OTH" "$L_ADM"

mkdir -p "$T_DIR/cells"
chmod 1777 "$T_DIR/cells" # curl run as U1 or U2 writes the answers
cells=0 match=0 unchanged_checks=0 changed=""
while read -r name m p b fix e1 e2 e3 e4 e5 e6 e7 e8 e9 e10 _; do
	case $name in '#'* | '') continue ;; esac
	want=($e1 $e2 $e3 $e4 $e5 $e6 $e7 $e8 $e9 $e10)
	i=0
	for who in $callers; do
		w=${want[$i]}
		i=$((i + 1))
		j=""
		[ "$fix" != - ] && j=$(fixture "$fix")
		path=${p//\{J\}/$j}
		before=""
		[ -n "$j" ] && case $w in 4*) before=$(job_view "$j") ;; esac
		out="$T_DIR/cells/$name.${who/:/-}"
		got=$(call "$who" "$m" "$path" "$b" "$out")
		cells=$((cells + 1))
		if [ "$got" = "$w" ]; then
			match=$((match + 1))
			t_report 0 "$name $m $path as $who: $got"
		else
			t_report 1 "$name $m $path as $who: got $got, want $w"
			{ cat "$out"; echo; } | sed 's/^/#   /' | head -5
		fi
		if [ -n "$before" ]; then
			unchanged_checks=$((unchanged_checks + 1))
			[ "$(job_view "$j")" = "$before" ] || changed="$changed $name/$who"
		fi
	done
done <<<"$matrix"
echo "# $match/$cells cells match"
check_eq "$match/$cells cells match" "$match" "$cells"
check_eq "no refused call on a job changed it ($unchanged_checks calls)" "${changed# }" ""

# What another user sees of job R: its public fields, never its command,
# environment or output; the owner and an admin see them (the control that
# shows the search would find them).
secrets='argvsecret|envsecret|logsecret42|errsecret42'
leaks="" nread=0
for name in $(echo "$matrix" | grep -v '^#' | awk '{print $1}'); do
	for who in u-oth t-oth u-tok; do
		f="$T_DIR/cells/$name.$who"
		if [ ! -f "$f" ]; then leaks="$leaks $name.$who(missing)"; continue; fi
		nread=$((nread + 1))
		grep -Eq "$secrets" "$f" && leaks="$leaks $name.$who"
	done
done
check_eq "another user's answers hold none of R's argv, env or output ($nread answers)" "${leaks# }" ""
check_eq "the owner reads them (unix, TCP)" \
	"$(cat "$T_DIR/cells/command.u-own" "$T_DIR/cells/logs.u-own" "$T_DIR/cells/logs-stderr.t-own" | grep -oE "$secrets" | sort -u | tr '\n' ' ')" \
	"argvsecret envsecret errsecret42 logsecret42 "
check_eq "an admin reads them (unix, TCP)" \
	"$(cat "$T_DIR/cells/command.t-adm" "$T_DIR/cells/logs.u-adm" "$T_DIR/cells/logs-stderr.u-adm" | grep -oE "$secrets" | sort -u | tr '\n' ' ')" \
	"argvsecret envsecret errsecret42 logsecret42 "
check_eq "another user sees R in the list, with its public fields" \
	"$(jq -c --argjson r "$R" '.jobs[] | select(.id == $r) | [.user, .name, .state]' "$T_DIR/cells/jobs-list.u-oth")" "[\"$U1\",\"sh\",\"running\"]"
check_eq "a token on the unix socket is ignored: U2 with the admin's token submits as U2" \
	"$(jq -r .job.user "$T_DIR/cells/submit.u-tok")" "$U2"
check_eq "and is refused R's command as U2" "$(jq -r .error.message "$T_DIR/cells/command.u-tok")" \
	"job '$R' belongs to '$U1'; you may act on your own jobs only"
check_eq "the revoked token is told so" "$(jq -r .error.message "$T_DIR/cells/ping.t-rev")" "unknown bearer token; ask an admin for one"
check_eq "R still runs" "$(state "$R")" running

# Idempotency keys are kept per uid: two token users of one account must
# not get each other's jobs (before the fix, dave got carol's job: 200).
T_C=$(rnd) T_D=$(rnd)
tokens_write "$L_OWN" "$L_OTH" "$L_ADM" "$(hash "$T_C") carol user 5000" "$(hash "$T_D") dave user 5000"
idem() { curl -s -w ' %{http_code}' -H "Authorization: Bearer $1" -H 'Idempotency-Key: t18-key' \
	--data-binary '{"argv":["true"],"held":true}' "http://127.0.0.1:$port/v1/jobs" | sed 's/^\(.*\) \([0-9]*\)$/\2 \1/'; }
first=$(idem "$T_C")
check_eq "carol submits with a key" "$(echo "$first" | { read -r st b; echo "$st $(echo "$b" | jq -r .job.user)"; })" "201 carol"
check_eq "dave, same uid, same key: 409, not carol's job" "$(idem "$T_D" | { read -r st b; echo "$st $(echo "$b" | jq -r .error.code)"; })" "409 conflict"
check_eq "carol's retry gets her job back" "$(idem "$T_C" | { read -r st b; echo "$st $(echo "$b" | jq -r .id)"; })" \
	"200 $(echo "$first" | cut -d' ' -f2- | jq -r .id)"

# The tokens file is read again when it changes, without a restart.
tcp_code() { curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" "http://127.0.0.1:$port/v1/ping"; }
check_eq "a token not yet in the file: 401" "$(tcp_code "$T_NEW")" 401
tokens_write "$L_OWN" "$L_OTH" "$L_ADM" "$(hash "$T_NEW") $U2 user"
check_eq "added to the file: works at once" "$(tcp_code "$T_NEW")" 200
# Rewritten in place, same inode, same size, the same second: only the
# content tells (timestamps move in ticks).
ino=$(stat -c %i "$tokf") size=$(stat -c %s "$tokf")
printf '# t18 tokens\n%s\n%s\n%s\n%s\n' "$L_OWN" "$L_OTH" "$L_ADM" "$(hash "$T_REV") $U2 user" >"$tokf"
check_eq "(the same inode and size)" "$(stat -c %i "$tokf") $(stat -c %s "$tokf")" "$ino $size"
check_eq "rewritten in place (same inode, same size): the old token goes, the new one works" \
	"$(tcp_code "$T_NEW") $(tcp_code "$T_REV")" "401 200"
warns0=$(grep -c 'warn .*tokens file' "$T_DIR/server.log")
printf 'this is not a tokens file\n' >"$tokf.new" && mv "$tokf.new" "$tokf"
codes="$(tcp_code "$T_REV") $(tcp_code "$T_OWN") $(tcp_code "$T_REV")"
check_eq "a malformed file keeps the last good tokens" "$codes" "200 200 200"
check_eq "with one warning for it, however many requests" "$(($(grep -c 'warn .*tokens file' "$T_DIR/server.log") - warns0))" 1
check_match "that names the line" "$(grep 'warn .*tokens file' "$T_DIR/server.log" | tail -1)" "tokens file '$tokf' line 1: expected 'SHA256HEX USER ROLE \[UID\]'; the 4 tokens read before stay in force"
rm -f "$tokf"
check_eq "so does a removed file" "$(tcp_code "$T_REV")" 200
tokens_write "$L_OWN" "$L_ADM"
check_eq "a good file again: U2's tokens are gone" "$(tcp_code "$T_REV") $(tcp_code "$T_OTH") $(tcp_code "$T_OWN")" "401 401 200"
kill -HUP "$SERVER_PID"
for _ in $(seq 1 50); do grep -q 'SIGHUP: reading the tokens file again' "$T_DIR/server.log" && break; sleep 0.05; done
for _ in $(seq 1 50); do grep -q "tokens file '$tokf' read again: unchanged, 2 tokens" "$T_DIR/server.log" && break; sleep 0.05; done
check_match "SIGHUP reads it again too" "$(grep 'tokens file' "$T_DIR/server.log" | tail -1)" "read again: unchanged, 2 tokens"
check_eq "the server is still up for everyone" "$(call u:oth GET /v1/ping - /dev/null) $(call t:own GET /v1/ping - /dev/null)" "200 200"

# A root server refuses a user token that would run jobs as root.
printf '%s nobodyhere%s user\n' "$(hash x)" $$ >"$T_DIR/rootish"
check_match "a user token with no account and no UID on a root server is refused" \
	"$("$GQ" serve --listen "unix:$T_DIR/s2" --state-dir "$T_DIR/st2" --tokens "$T_DIR/rootish" 2>&1; echo "rc=$?")" \
	"user 'nobodyhere$$' has no local account, so its jobs would run as root; add the UID they run as"
finish
