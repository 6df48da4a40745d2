#!/bin/bash
# ts09-slurm-front-actions.sh - actions through gq serve --slurm reach
# Slurm as the user who asks (gq-serve(8), "In front of a Slurm cluster"):
# 1 on its unix socket (the front as root, 0666), with a token it gets
# from scontrol for the peer: alice's submit is alice's job in squeue, her
# hold, release and cancel work, a script's #SBATCH lines are read (the
# user's options winning); her cancel of bob's job is refused and
# the job stays; the front's own token (root's) never acts: alice's
# operator priority is refused by Slurm, a user with no Slurm account
# cannot submit, a uid without an account name is refused; 2 a front that
# cannot get alice's token (a stand-in scontrol that refuses it) refuses
# her action with one line, and renews its own short-lived token from
# scontrol; 3 PrivateData=jobs (the stand-in says so): bob sees only his
# jobs, root every one; 4 over TCP with alice's forwarded SLURM_JWT her
# actions work, without one, with bob's or with a bad one they are
# refused; 5 a SLURM_JWT or token file about to expire is warned about, a
# token file that changes is read again; no token is ever in a front's
# log. Runs as root (clients through runuser / setpriv); cancels alice's
# and bob's jobs first and last. Skips with one line when the kit is not
# running.
TS=ts09
. "$(dirname "$0")/slurm.sh"
slurm_env
work=$(mktemp -d)
chmod 1777 "$work"
fronts=()
cleanup() {
	local p
	for p in "${fronts[@]}"; do kill "$p" 2>/dev/null; done
	scancel -u alice >/dev/null 2>&1
	scancel -u bob >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
scancel -u alice >/dev/null 2>&1
scancel -u bob >/dev/null 2>&1
# front NAME PATH ARGS...: gq serve --slurm as root with no SLURM_JWT (its
# own token from scontrol), scontrol looked up in PATH, on
# unix:$work/NAME.sock and ARGS; its log in $work/NAME.log.
front() {
	local name=$1 path=$2
	shift 2
	mkdir -p "$work/$name-home"
	env -i HOME="$work/$name-home" XDG_CACHE_HOME="$work/$name-home/cache" PATH="$path" \
		TZ=UTC LC_ALL=C "$GQ" serve --slurm "$SLURM_URL" --listen "unix:$work/$name.sock" \
		"$@" --log-level debug >"$work/$name.log" 2>&1 &
	fronts+=($!)
	for ((i = 0; i < 50; i++)); do [ -S "$work/$name.sock" ] && break; sleep 0.1; done
}
# as USER FRONT CMD...: gq CMD as USER through the unix socket of FRONT.
as() {
	local u=$1 f=$2
	shift 2
	(cd "$work" && runuser -u "$u" -- env -i GQ_SERVER="unix:$work/$f.sock" HOME="$work" \
		XDG_CONFIG_HOME="$work/cfg" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" "$@")
}
# tcp JWT CMD...: gq CMD as alice over TCP with SLURM_JWT=JWT ("" none).
tcp() {
	local jwt=$1
	shift
	(cd "$work" && runuser -u alice -- env -i ${jwt:+SLURM_JWT="$jwt"} \
		GQ_SERVER="http://127.0.0.1:$port" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
		PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" "$@")
}
state() { squeue -h -j "$1" -o '%T %r' 2>/dev/null; }
owner() { squeue -h -j "$1" -o '%u' 2>/dev/null; }
# waits until squeue says job $1 is gone or ended (scancel is asynchronous)
gone() {
	for ((i = 0; i < 20; i++)); do
		case "$(state "$1")" in "" | CANCELLED* | COMPLETED*) return 0 ;; esac
		sleep 0.5
	done
	return 1
}
waitlog() { # NAME REGEX: up to 40 s for the front's log to say it
	for ((i = 0; i < 80; i++)); do grep -Eq -- "$2" "$work/$1.log" && return 0; sleep 0.5; done
	return 1
}
job_id() { sed -n 's/^submitted job \([0-9]*\).*/\1/p'; }
later=(--gpus 0 --queue debug --begin now+1h)
# one TEXT: TEXT when it is one line, else "(N lines)"
one() { local k; k=$(printf '%s\n' "$1" | wc -l); [ "$k" = 1 ] && printf '%s' "$1" || echo "($k lines)"; }

# 1: through the unix socket
front main /usr/bin:/bin
out=$(as alice main submit "${later[@]}" --name ts09a -- sleep 300 2>&1)
check_eq "alice submits through the front: exit 0" "$?" 0
ja=$(echo "$out" | job_id)
check_eq "... and squeue shows the job as alice's" "$(owner "$ja")" alice
out=$(as alice main hold "$ja" 2>&1)
check_eq "alice holds her job: exit 0" "$?" 0
check_match "... squeue: held by its user" "$(state "$ja")" "^PENDING JobHeldUser"
out=$(as alice main release "$ja" 2>&1)
check_eq "alice releases it: exit 0" "$?" 0
check_match "... squeue: no longer held" "$(state "$ja")" "^PENDING (BeginTime|None)"
out=$(as bob main submit "${later[@]}" --name ts09b -- sleep 300 2>&1)
jb=$(echo "$out" | job_id)
check_eq "bob submits through the same front: his job" "$(owner "$jb")" bob
out=$(as alice main cancel "$jb" 2>&1)
rc=$?
check_eq "alice cancels bob's job: refused (exit 4)" "$rc" 4
check_match "... in one line, Slurm's" "$(one "$out")" "^gq: Slurm: Access/permission denied"
check_match "... and bob's job is still there" "$(state "$jb")" "^PENDING"
# The front's own token is root's: with it this would be done.
out=$(as alice main prio --priority 5 "$ja" 2>&1)
rc=$?
check_eq "alice sets an operator priority: refused by Slurm (not the front's root token)" \
	"$([ "$rc" != 0 ] && echo refused)" refused
check_match "... in one line, Slurm's" "$(one "$out")" "^gq: Slurm: "
out=$(as root main prio --priority 5 "$ja" 2>&1)
check_eq "root sets it through the front: done" "$out" "job $ja: priority 5"
out=$(as nobody main submit "${later[@]}" -- true 2>&1)
check_eq "a user with no Slurm account cannot submit through it: exit 2" "$?" 2
check_match "... Slurm's line" "$out" "^gq: Slurm: Invalid account"
out=$(as nobody main cancel "$ja" 2>&1)
check_eq "... nor cancel alice's job: exit 4" "$?" 4
check_match "... which is still there" "$(state "$ja")" "^PENDING"
out=$(cd "$work" && setpriv --reuid=4242 --regid=4242 --clear-groups env -i \
	GQ_SERVER="unix:$work/main.sock" HOME="$work" PATH=/usr/bin:/bin "$GQ" cancel "$ja" 2>&1)
check_eq "a uid without an account name: exit 4" "$?" 4
check_eq "... says why" "$out" \
	"gq: your uid has no account name on the front's host: gq serve --slurm acts in Slurm only as a named user"
# What the Slurm backend refuses, the front refuses in the same words.
direct() {
	(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$ALICE_JWT" GQ_BACKEND=slurm \
		GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
		XDG_CACHE_HOME="$work/cache-direct" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$GQ" "$@")
}
for cmd in "clock +5" "hold --reason why $ja" "update --estimate 1h $ja"; do
	out=$(as alice main $cmd 2>&1)
	rc=$?
	check_eq "gq ${cmd% $ja} through the front: refused as on Slurm (exit 5, its line)" \
		"$rc $out" "5 $(direct $cmd 2>&1)"
done
# A script's #SBATCH lines are read (as with GQ_BACKEND=slurm), and what
# the user gave gq wins over them.
printf '#!/bin/sh\n#SBATCH -J sbname\n#SBATCH -p debug\nsleep 300\n' >"$work/job.sh"
chmod 644 "$work/job.sh"
out=$(as alice main submit --gpus 0 job.sh 2>&1)
js=$(echo "$out" | job_id)
check_eq "a script through the front: its #SBATCH name and partition, no warning" \
	"$(squeue -h -j "$js" -o '%j %P') $(echo "$out" | grep -c warning)" "sbname debug 0"
out=$(as alice main submit --gpus 0 --begin now+1h --name given job.sh 2>&1)
js2=$(echo "$out" | job_id)
check_eq "... with --name: the user's name wins over #SBATCH -J" "$(squeue -h -j "$js2" -o '%j')" given
scancel "$js" "$js2" 2>/dev/null
out=$(as alice main cancel "$ja" 2>&1)
check_eq "alice cancels her own job: exit 0" "$?" 0
gone "$ja"
check_eq "... and squeue no longer has it pending" "$?" 0
# gq history through the front: slurmdbd's records, asked as alice.
for ((i = 0; i < 40; i++)); do
	as alice main history --since now-1h --csv 2>/dev/null | grep -q "^$ja," && break
	sleep 0.5
done
out=$(as alice main history --since now-1h --csv 2>&1)
check_match "history through the front: alice's cancelled job from slurmdbd" "$out" \
	"^$ja,ts09a,alice,[^,]*,[^,]*,P[0-2],cancelled,"
# A window that ended 2 s ago on both sides (a job ending now is in one
# query and not the other): the jobs that ended in [t0, t1).
t1=$(($(date +%s) - 2)) t0=$(($(date +%s) - 3600))
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%S; }
check_eq "... --user alice: the jobs sacct lists for her in the hour, no other" \
	"$(as alice main history --since "$t0" --until "$t1" --user alice --format '{id}' 2>&1 | tr '\n' ' ')" \
	"$(sacct -X -n -P -u alice -S "$(iso "$t0")" -E "$(iso "$t1")" -s CA,CD,F,TO,PR,NF,OOM,DL,BF \
		-o JobIDRaw,End 2>/dev/null | awk -F'|' -v a="$(iso "$t0")" -v z="$(iso "$t1")" \
		'$2 >= a && $2 < z {print $1}' | sort -n | tr '\n' ' ')"
out=$(as alice main history --state running 2>&1)
check_eq "history --state running: a usage error (exit 2)" "$?" 2
# gq logs and gq show through the front: where Slurm writes the output
# (GET /v1/jobs/ID/files, asked as alice), read by the client as alice.
out=$(as alice main submit --gpus 0 --queue debug --time-limit 5m --name ts09l -- \
	sh -c 'echo hello-from-ts09; sleep 300' 2>&1)
jl=$(echo "$out" | job_id)
for ((i = 0; i < 40; i++)); do
	as alice main logs "$jl" 2>/dev/null | grep -q hello-from-ts09 && break
	sleep 0.5
done
check_eq "logs through the front: the job's output, read as alice" "$(as alice main logs "$jl" 2>&1)" \
	hello-from-ts09
check_match "show through the front: where Slurm writes it" "$(as alice main show "$jl" 2>&1)" \
	"output +$work/slurm-$jl\.out"
out=$(as alice main preemptions 2>&1)
check_eq "preemptions through the front: exit 5, the Slurm backend's line" "$?:$out" \
	"5:gq: gq preemptions is not available on Slurm: it does not record which job preempted which (gq events through gq serve --slurm lists the preemptions it saw)"
out=$(as alice main reclaim 2>&1)
check_eq "reclaim through the front: exit 5, why" "$?:$out" \
	"5:gq: gq reclaim is not available on Slurm: gq cannot see there whether a job's GPUs are idle"

# 2: a front that cannot get alice's token
mkdir -p "$work/bin"
cat >"$work/bin/scontrol" <<'EOF'
#!/bin/sh
# scontrol, but it refuses alice's token, gives root's for 5 minutes
# only, and says PrivateData=jobs
case "$*" in
"token username=alice"*) echo "scontrol: error: stand-in refusal for alice" >&2; exit 1 ;;
"token username=root"*) exec /usr/bin/scontrol token username=root lifespan=300 ;;
"show config") # PrivateData=jobs,usage; only usage once pd-open is beside it
	pd='jobs,usage'
	[ -e "$(dirname "$0")/pd-open" ] && pd=usage
	/usr/bin/scontrol show config | sed "s/^PrivateData .*/PrivateData             = $pd/"; exit ;;
esac
exec /usr/bin/scontrol "$@"
EOF
chmod 755 "$work/bin/scontrol"
front notoken "$work/bin:/usr/bin:/bin"
out=$(as alice notoken cancel "$jb" 2>&1)
check_eq "no token for alice: refused, exit 5" "$?" 5
check_eq "... in one line saying why and what to do" "$out" \
	"gq: gq serve --slurm cannot act as 'alice': 'scontrol token username=alice' failed: stand-in refusal for alice (slurmctld issues other users' tokens only to root and SlurmUser); run the command with GQ_BACKEND=slurm and your own SLURM_JWT meanwhile"
check_match "... bob's job is still there" "$(state "$jb")" "^PENDING"
for ((i = 0; i < 40; i++)); do # the front's first snapshot
	as alice notoken show "$jl" >/dev/null 2>&1 && break
	sleep 0.5
done
out=$(as alice notoken logs "$jl" 2>&1)
check_eq "no token for alice: gq logs exits 5" "$?" 5
check_match "... saying why" "$(one "$out")" "^gq: where job $jl writes: gq serve --slurm cannot act as 'alice'"
out=$(as alice notoken show "$jl" 2>&1)
check_eq "... gq show still shows the job (exit 0)" "$?" 0
scancel "$jl"

# 3: PrivateData=jobs (the same stand-in): bob sees his jobs only
ja2=$(runuser -u alice -- env -u SLURM_JWT sbatch --parsable -p debug --begin=now+1hour \
	-J ts09c -o /dev/null --wrap 'sleep 300')
for ((i = 0; i < 40; i++)); do
	all=$(as root notoken ls --format '{id} {user}' 2>/dev/null | grep -E " (alice|bob)\$" | sort -n)
	echo "$all" | grep -q "^$ja2 alice\$" && break
	sleep 0.5
done
check_eq "PrivateData=jobs: root sees alice's and bob's jobs" "$all" "$(printf '%s bob\n%s alice' "$jb" "$ja2")"
check_eq "... bob only his own" "$(as bob notoken ls --format '{id} {user}' 2>&1)" "$jb bob"
out=$(as bob notoken show "$ja2" 2>&1)
check_eq "... bob's gq show of alice's job: exit 3" "$?" 3
check_match "... as if it did not exist" "$out" "no job $ja2"
check_match "the front's log says what PrivateData means here" "$(cat "$work/notoken.log")" \
	"PrivateData hides jobs: each user sees only their own jobs through the front"
check_match "the main front's says the kit's" "$(cat "$work/main.log")" \
	"PrivateData does not hide jobs: every user sees every job"
# gq top through it as bob: the events are refused (403), the queue is not
# (issue 30, item 9): his job is in the Queue view, the Events view says why
# it is empty.
if command -v tmux >/dev/null; then
	tmux -L "ts09$$" new-session -d -x 140 -y 30 "runuser -u bob -- env -i GQ_SERVER=unix:$work/notoken.sock HOME=$work TERM=xterm TZ=UTC LC_ALL=C $GQ top"
	for ((i = 0; i < 20; i++)); do
		pane=$(tmux -L "ts09$$" capture-pane -p 2>/dev/null)
		printf '%s\n' "$pane" | grep -Eq "^ +[0-9]+ +$jb +bob " && break
		sleep 0.5
	done
	check_match "top through the front under PrivateData=jobs: bob's job in the queue" "$pane" "^ +[0-9]+ +$jb +bob "
	tmux -L "ts09$$" send-keys 4
	for ((i = 0; i < 10; i++)); do
		pane=$(tmux -L "ts09$$" capture-pane -p 2>/dev/null)
		printf '%s\n' "$pane" | grep -q "no events here" && break
		sleep 0.3
	done
	tmux -L "ts09$$" kill-server 2>/dev/null
	check_match "... its Events view says why it has none" "$pane" "no events here: .*PrivateData"
fi
# Its own token from that scontrol lasts 5 minutes, less than the 10 it
# renews before expiry: it asks again at its next poll.
waitlog notoken "renewed the front's own token \(scontrol\), valid until [0-9-]+T[0-9:]+Z"
check_eq "the front's own token from scontrol: renewed before it expires" "$?" 0
# slurm.conf changed while the front runs: PrivateData read again within
# a minute (FRONT_PRIVATE_EVERY), no restart.
touch "$work/bin/pd-open"
for ((i = 0; i < 80; i++)); do
	as bob notoken ls --format '{id} {user}' 2>/dev/null | grep -q "^$ja2 alice\$" && break
	sleep 1
done
check_match "PrivateData without jobs now: bob sees alice's job, no restart" \
	"$(as bob notoken ls --format '{id} {user}' 2>&1 | tr '\n' ' ')" "(^| )$ja2 alice "
check_match "... the front's log says so" "$(cat "$work/notoken.log")" \
	"PrivateData does not hide jobs: every user sees every job"

# 4: over TCP, with the forwarded token
port=6921
while ss -ltn | awk '{print $4}' | grep -q ":$port\$"; do port=$((port + 1)); done
front tcp /usr/bin:/bin --listen "127.0.0.1:$port"
out=$(tcp "" ls 2>&1)
check_eq "TCP without SLURM_JWT: exit 4" "$?" 4
check_eq "... says what to set" "$out" \
	"gq: gq serve --slurm over TCP answers only with your own Slurm token: set SLURM_JWT (from 'scontrol token')"
out=$(tcp "$ALICE_JWT" submit "${later[@]}" --name ts09t -- sleep 300 2>&1)
check_eq "TCP with alice's SLURM_JWT: submit works" "$?" 0
jt=$(echo "$out" | job_id)
check_eq "... the job is alice's" "$(owner "$jt")" alice
out=$(tcp "$BOB_JWT" cancel "$jt" 2>&1)
check_eq "TCP with bob's token: alice's job not cancelled (exit 4)" "$?" 4
check_match "... still there" "$(state "$jt")" "^PENDING"
out=$(tcp "${ALICE_JWT}x" cancel "$jt" 2>&1)
check_eq "TCP with a token Slurm refuses: exit 4" "$?" 4
check_match "... says so" "$out" "^gq: Slurm refused the token"
out=$(tcp "$ALICE_JWT" cancel "$jt" 2>&1)
check_eq "TCP with alice's token: her cancel works" "$?" 0
gone "$jt"
check_eq "... squeue agrees" "$?" 0

# 5: the front's own token. SLURM_JWT cannot be renewed: the front warns
# 10 minutes before it expires; a token file is read again when it changes.
tok() { scontrol token username=root lifespan="$1" | sed -n 's/^SLURM_JWT=//p'; }
own() { # NAME ENV...: a front of root's with its own token as ENV says
	local name=$1
	shift
	mkdir -p "$work/$name-home"
	env -i "$@" HOME="$work/$name-home" XDG_CACHE_HOME="$work/$name-home/cache" PATH=/usr/bin:/bin \
		TZ=UTC LC_ALL=C "$GQ" serve --slurm "$SLURM_URL" --listen "unix:$work/$name.sock" \
		${tokfile:+--slurm-token-file "$tokfile"} --log-level debug >"$work/$name.log" 2>&1 &
	fronts+=($!)
}
short=$(tok 300)
tokfile= own envtok SLURM_JWT="$short"
waitlog envtok "poll 1:"
check_match "SLURM_JWT that expires in 5 min: the front warns" "$(grep warn "$work/envtok.log")" \
	"the front's own token \(SLURM_JWT\) expires at [0-9-]+T[0-9:]+Z: give it a new one \(restart it with a new SLURM_JWT"
tokfile=$work/own.tok
(umask 077 && echo "$short" >"$tokfile")
own filetok
waitlog filetok "poll 1:"
check_match "a token file that expires in 5 min: the front warns" "$(grep warn "$work/filetok.log")" \
	"the front's own token \(the token file\) expires at [0-9-]+T[0-9:]+Z: give it a new one \(write it to the file"
(umask 077 && tok 3600 >"$tokfile.new" && mv "$tokfile.new" "$tokfile")
waitlog filetok "read the token file '$tokfile' again \(it changed\)"
check_eq "... written anew: read again at its next poll" "$?" 0
for ((i = 0; i < 80; i++)); do
	after=$(sed -n '/read the token file/,$p' "$work/filetok.log" | grep -c 'poll [0-9]*: ok')
	[ "$after" -gt 0 ] && break
	sleep 0.5
done
check_eq "... and polls with it" "$([ "$after" -gt 0 ] && echo yes)" yes
hits=$(cat "$work"/*.log | grep -cF -e "$ALICE_JWT" -e "$BOB_JWT" -e "${ALICE_JWT}x" -e "$short")
check_eq "no token in any front's log" "$hits" 0
echo "# ts09: $n checks, $failed failed"
[ "$failed" = 0 ]
