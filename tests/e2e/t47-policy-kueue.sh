#!/bin/bash
# t47-policy-kueue: gq policy export kueue against a real policy repository
# and a real gq serve, whose nodes give the GPU models: the default policy
# and one with several queues (a borrowing limit, an unlimited one, a
# window, a name Kubernetes does not take) against golden files, every
# object checked against Kueue's own CRD schemas (tests/kueue_validate.py;
# one skip line when ../shared/kueue is not there), and the export without
# a server, --namespace and its refusal.
. "$(dirname "$0")/lib.sh"

R="$T_DIR/repo"
export GQ_POLICY_REPO="$R"
printf '[user]\n\tname = Ada Admin\n\temail = ada@example.org\n' >"$HOME/.gitconfig"
VALIDATE="$T_SRC/../kueue_validate.py"
# export OUT [ARGS]: the stream, the commit id in its first line made stable.
export_kueue() {
	out=$1
	shift
	"$GQ" policy export kueue "$@" 2>"$T_DIR/err" | sed '1s/from policy [0-9a-f]\{40\}\./from policy REV./' >"$out"
}
# validate DESC FILE: every object against the CRDs; the skip said once.
SKIPPED=0
validate() {
	v=$(python3 "$VALIDATE" "$2" 2>&1)
	rc=$?
	if [ "$rc" = 77 ]; then
		[ "$SKIPPED" = 0 ] && { T_N=$((T_N + 1)); echo "ok $T_N - $T_NAME: $1 # SKIP $v"; }
		SKIPPED=1
		return
	fi
	check_eq "$1" "$rc $v" "0 "
}

"$GQ" policy init >/dev/null

# The default policy on a server of 4 GPUs of no known model.
server_start --gpus 4
export_kueue "$T_DIR/default.yaml"
check_golden "default policy: the objects" "$T_DIR/default.yaml" t47-kueue-default.yaml
validate "default policy: every object validates against Kueue's CRDs" "$T_DIR/default.yaml"
check_eq "a server answered: nothing on stderr" "$(cat "$T_DIR/err")" ""
server_stop

# Several queues, on 8 GPUs of a model whose name Kubernetes does not take.
printf '#!/bin/sh\ncat >>"$1" <<EOF\n%s\nEOF\n' '[department "research"]
	gpuHours = 5000
	preemptQuota = 3
[queue "train"]
	quota = 4
	borrow = 2
[queue "exp"]
	department = research
	quota = 2
	window = 20:00-08:00
	maxPreemptPerHour = 1
[queue "Big_Q"]
	borrow = 0' >"$T_DIR/ed.sh"
chmod +x "$T_DIR/ed.sh"
EDITOR="$T_DIR/ed.sh" "$GQ" policy edit -m "Queues train, exp and Big_Q" >/dev/null 2>&1
check_match "the queues are in force" "$("$GQ" policy show)" '^queue\.exp\.window +20:00-08:00$'
server_start --gpus 8 --gpu-model A100_80GB
export_kueue "$T_DIR/queues.yaml"
check_golden "several queues: the objects" "$T_DIR/queues.yaml" t47-kueue-queues.yaml
validate "several queues: every object validates against Kueue's CRDs" "$T_DIR/queues.yaml"
y=$(cat "$T_DIR/queues.yaml")
check_match "Big_Q is renamed, and says so" "$y" '^# gq: queue Big_Q is ClusterQueue big-q \(a Kubernetes name\)\.$'
check_match "the model is renamed, and says so" "$y" '^# gq: GPU model A100_80GB is ResourceFlavor a100-80gb'
check_match "the window is a comment" "$y" '^# gq: queue exp pauses daily 20:00-08:00'
check_eq "a document per object: 1 flavor, 3 tiers, 1 cohort, 4+4 queues" \
	"$(grep -c '^---$' "$T_DIR/queues.yaml")" 13
# Each ClusterQueue's nominal quota and borrowing limit, in order.
got=$(awk '/^kind: "ClusterQueue"/{cq=1} /^kind: "LocalQueue"/{cq=0}
	cq && /^  name:/{n=$2} cq && /nominalQuota/{q=$2}
	cq && /borrowingLimit/{b=$2} cq && /^  preemption:/{print n, q, (b == "" ? "-" : b); b=""}' "$T_DIR/queues.yaml")
check_eq "quotas and borrowing limits (none: unlimited)" "$got" '"default" 0 -
"train" 4 2
"exp" 2 -
"big-q" 0 -'
check_match "the cohort holds the 2 GPUs no quota guarantees" \
	"$(sed -n '/^kind: "Cohort"/,/^---/p' "$T_DIR/queues.yaml")" '^        nominalQuota: 2$'

# Another namespace; a name Kubernetes does not take is refused.
export_kueue "$T_DIR/ns.yaml" --namespace team-a
check_eq "--namespace names the LocalQueues' namespace" \
	"$(grep -c '^  namespace: "team-a"$' "$T_DIR/ns.yaml")" 4
validate "--namespace: every object validates" "$T_DIR/ns.yaml"
check_fail 2 "a namespace that is not a Kubernetes name is refused" \
	"$GQ" policy export kueue --namespace Team_A
check_fail 2 "--namespace is for kueue only" "$GQ" policy export slurm --namespace x
check_fail 2 "an unknown format is refused" "$GQ" policy export yaml
server_stop

# No server: one default flavor of unknown size, said on stderr and in the
# stream; still valid objects.
export_kueue "$T_DIR/none.yaml" HEAD~1
check_match "no server: a note on stderr" "$(cat "$T_DIR/err")" '^gq: note: no gq server answered'
check_match "no server: said in the stream" "$(cat "$T_DIR/none.yaml")" '^# gq: no gq server answered'
validate "no server: every object validates" "$T_DIR/none.yaml"

finish
