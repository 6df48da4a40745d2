# tests/e2e/enforce.sh - helpers of the t3x policy enforcement scenarios,
# sourced after lib.sh. Each scenario writes the policy it needs (every
# rule it does not test set so that it cannot decide), starts gq serve on
# it with a manual clock, and drives jobs that sleep.

# policy_server CONF [serve flags...]: a policy repository whose
# policy.conf is CONF (git-config text, keys as in gq-policy(5)), and a
# gq serve following it, with 8 GPU slots unless the flags say otherwise.
policy_server() {
	P_REPO="$T_DIR/policy"
	mkdir -p "$P_REPO"
	git -C "$P_REPO" init -q
	printf '%s\n' "$1" >"$P_REPO/policy.conf"
	git -C "$P_REPO" add policy.conf
	git -C "$P_REPO" -c user.name=t -c user.email=t@example.org commit -qm "t3x policy"
	shift
	server_start --policy-repo "$P_REPO" --gpus 8 "$@"
}

# sub [gq submit flags...] -- CMD...: submits, prints the job id.
sub() {
	"$GQ" submit --json "$@" | jq -r .id
}

# A job that runs until it is stopped. Its command line is this script's
# own, so that the end of the script can kill what its jobs left running
# (the server's shutdown leaves jobs alone, by design).
LONG="sleep 7$$"
enforce_cleanup() {
	# The server first, or it would start pending jobs in the freed GPUs.
	t_cleanup
	pkill -KILL -f "^sleep [67]$$\$" 2>/dev/null
	pkill -KILL -f "train.sh gqt$$" 2>/dev/null
}
trap enforce_cleanup EXIT

api() { # METHOD PATH [BODY]
	if [ $# -ge 3 ]; then
		curl -s --unix-socket "$SERVER_SOCK" -X "$1" -H 'Content-Type: application/json' \
			--data-binary "$3" "http://gq$2"
	else
		curl -s --unix-socket "$SERVER_SOCK" -X "$1" "http://gq$2"
	fi
}

# field ID JQ: a field of job ID as the server has it.
field() {
	api GET "/v1/jobs/$1" | jq -r "$2"
}
# The job's state through the API (lib.sh's wait_state polls it).
state() { field "$1" .state; }

# states ID...: "ID:state ..." in one line.
states() {
	out=""
	for id in "$@"; do out="$out $id:$(state "$id")"; done
	echo "${out# }"
}

# clock +DURATION: move the server's clock, then let it settle: the
# scheduler plans at once, so wait until every starting job runs.
clock() {
	"$GQ" clock "$1" >/dev/null || return 1
	settle
}

# settle: until no job is starting and the server answers (at most ~5 s).
settle() {
	for _ in $(seq 1 100); do
		api GET '/v1/jobs?state=starting' | jq -e '.jobs | length == 0' >/dev/null && return 0
		sleep 0.05
	done
}

# events ID: "kind from->to reason" of job ID's events, one a line.
events_of() {
	api GET '/v1/events?after=0&limit=1000' |
		jq -r ".events[] | select(.job == $1) | \"\(.kind) \(.from)->\(.to) \(.reason)\""
}

# records: the preemption records as "victim trigger reason" lines.
records() {
	api GET /v1/preemptions | jq -r '.preemptions[] | "\(.victim) \(.trigger) \(.reason)"'
}

# ckpt_wait ID: a short poll until job ID (tests/workload/train.sh, at
# $W) has reported a checkpoint.
W="$(cd "$(dirname "$0")/.." && pwd)/workload/train.sh"
ckpt_wait() {
	for _ in $(seq 1 200); do
		[ "$(field "$1" .last_checkpoint)" != 0 ] && return 0
		sleep 0.05
	done
	return 1
}
