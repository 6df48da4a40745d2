#!/bin/bash
# ts04-slurm-policy.sh - `gq policy export slurm` applied to the real Slurm
# kit: a gq policy (tiers P0/P1/P2 with bases 100/40/10) is exported with
# a QOS map of the test's own (gq.qosMap: ts04p0/1/2), its sacctmgr lines
# run (the QOS first: the partition names one), its
# slurm.conf lines put into the live slurm.conf (keys replaced, the
# partition added as the only default) and `scontrol reconfigure`d; then a
# constructed queue of alice's jobs, submitted through gq, waits behind a
# blocker, and Slurm orders it as the policy says: tier first, then first
# come (a bigger job of a tier is not put first: the export leaves no job
# size, partition or TRES factor), with the QOS factor of sprio equal to
# the tier's base / 100 x PriorityWeightQOS. A trap restores slurm.conf
# (and reconfigures), removes the account the export added and takes its
# QOS off alice's associations (they stay, see restore; the kit's own QOS
# are never modified). Runs
# as root; cancels alice's jobs first and last. Skips with one line when
# the kit is not running. Run under the kit's lock, never in parallel
# with another Slurm script.
TS=ts04
. "$(dirname "$0")/slurm.sh"
CONF=${SLURM_CONF:-/etc/slurm/slurm.conf}
slurm_env
[ -w "$CONF" ] || slurm_skip "cannot write the kit's $CONF"
start=$SECONDS
work=$(mktemp -d)
chmod 1777 "$work"

# The tiers become QOS of this test's own (gq.qosMap), so that the kit's
# p0/p1/p2 stay as they are: Slurm 22.05's slurmdbd cannot set a QOS's
# preemption back to none without breaking later changes (an empty
# Preempt= caches QOS id 0, and any QOS preempting that one is then
# refused as a "preemption loop").
export GQ_SLURM_QOS=ts04p0=P0,ts04p1=P1,ts04p2=P2
# What the export changes, to put back.
cp -p "$CONF" "$work/slurm.conf.orig"
sacctmgr -nP show account format=account >"$work/accounts.orig"
sacctmgr -nP show assoc user=alice format=account,qos >"$work/assoc.orig"
restore() {
	scancel -u alice >/dev/null 2>&1
	# No job may stay in the partition that goes away.
	for _ in $(seq 1 40); do
		[ -z "$(squeue -h -p gq_default 2>/dev/null)" ] && break
		sleep 0.5
	done
	cp -p "$work/slurm.conf.orig" "$CONF"
	scontrol reconfigure || echo "# restore: scontrol reconfigure failed"
	local name
	# The QOS the test added stay: its jobs' records name them, and
	# slurmrestd 22.05 answers slurmdbd's job list with HTTP 500 ("failed
	# on field qos: Nothing found with query") while a record names a
	# deleted QOS, which failed ts07's gq stats after this test. They are
	# taken off alice's associations instead (a second run finds them).
	for name in ts04p0 ts04p1 ts04p2; do
		sacctmgr -i modify user alice set qos-="$name" >/dev/null 2>&1
	done
	for name in $(sacctmgr -nP show account format=account); do
		grep -qx "$name" "$work/accounts.orig" || sacctmgr -i delete account "$name" >/dev/null
	done
	sacctmgr -nP show assoc user=alice format=account,qos | cmp -s - "$work/assoc.orig" ||
		echo "# restore: alice's associations differ from before the test"
	cmp -s "$CONF" "$work/slurm.conf.orig" || echo "# restore: slurm.conf differs from before the test"
	rm -rf "$work"
}
trap restore EXIT
scancel -u alice >/dev/null 2>&1

# 1. The policy, exported.
export HOME=$work GQ_POLICY_REPO=$work/policy
git config --global user.name ts04
git config --global user.email ts04@example.org
"$GQ" policy init >/dev/null
sed -i -e '/^\[tier "P1"\]/,/^\[/s/^\tbase = .*/\tbase = 40/' \
	-e '/^\[tier "P2"\]/,/^\[/s/^\tbase = .*/\tbase = 10/' "$GQ_POLICY_REPO/policy.conf"
git -C "$GQ_POLICY_REPO" commit -qam "P1 base 40, P2 base 10"
"$GQ" policy export slurm >"$work/export" 2>&1
check_eq "export: exit 0" "$?" 0
sed -n '/^## sacctmgr/,/^## slurm.conf/p' "$work/export" | grep '^sacctmgr ' >"$work/sacctmgr.sh"
sed -n '/^## slurm.conf/,$p' "$work/export" | grep -E '^[A-Za-z]+=' >"$work/conf"
check_eq "export: the QOS are the backend's (gq.qosMap), all added before one preempts another, P2 preempts nobody" \
	"$(grep -E ' (add|modify) qos ts04' "$work/sacctmgr.sh" | sed 's/ UsageFactor.*Preempt=/ /; s/ UsageFactor[^P]*PreemptMode=.*/ -/; s/ PreemptMode=.*//' | tr '\n' ';')" \
	"sacctmgr -i add qos ts04p0;sacctmgr -i add qos ts04p1;sacctmgr -i add qos ts04p2;sacctmgr -i modify qos ts04p0 set Priority=1000 ts04p1,ts04p2;sacctmgr -i modify qos ts04p1 set Priority=400 ts04p2;sacctmgr -i modify qos ts04p2 set Priority=100 -;"

# 2. Applied: the QOS first (an existing one is only modified), then
# slurm.conf (each key replaced; the exported partition is the default).
bad=0
while read -r line; do
	out=$(eval "$line" 2>&1) && continue
	case "$line" in *" add "*) printf '%s\n' "$out" | grep -q 'Nothing new added' && continue ;; esac
	# The per-user limits (user.maxJobs is 10000 by default) go to the
	# users of each department's account; the kit has none in them.
	case "$line" in *" modify user where account="*) printf '%s\n' "$out" | grep -q 'Nothing modified' && continue ;; esac
	echo "# $line: $out"
	bad=1
done <"$work/sacctmgr.sh"
check_eq "sacctmgr: every line of the export applies" "$bad" 0
# As the export says of a tier: its QOS granted to the users' associations.
sacctmgr -i modify user alice set qos+=ts04p0,ts04p1,ts04p2 >/dev/null
while IFS= read -r line; do
	key=${line%%=*}
	if [ "$key" = PartitionName ]; then
		sed -i 's/^\(PartitionName=.*\) Default=YES/\1 Default=NO/' "$CONF"
	else
		sed -i "/^$key=/d" "$CONF"
	fi
done <"$work/conf"
cat "$work/conf" >>"$CONF"
out=$(scontrol reconfigure 2>&1)
check_eq "scontrol reconfigure takes the exported slurm.conf" "$?:$out" "0:"
check_eq "the weights are in force" \
	"$(scontrol show config | sed -n 's/^\(PriorityWeight\(QOS\|Age\|TRES\|JobSize\)\) *= *\(.*\)/\1=\3/p' | sort | tr '\n' ' ')" \
	"PriorityWeightAge=5000 PriorityWeightJobSize=0 PriorityWeightQOS=100000 PriorityWeightTRES=CPU=0 "
check_eq "the default queue is the default partition gq_default, QOS q_default" \
	"$(scontrol show partition gq_default | grep -o 'Default=[A-Z]*\|QoS=[a-z_]*' | tr '\n' ' ')" \
	"Default=YES QoS=q_default "
for _ in $(seq 1 20); do # slurmdbd tells slurmctld of the QOS change
	scontrol show assoc_mgr flags=qos qos=ts04p1 2>/dev/null | grep -q 'Priority=400(' && break
	sleep 0.5
done

# 3. A constructed queue behind a blocker that holds every node of
# gq_default (P0: nobody preempts it), submitted in this order.
as() { # CMD... as alice with the backend set
	(cd "$work" && runuser -u alice -- env -i SLURM_JWT="$ALICE_JWT" GQ_BACKEND=slurm \
		GQ_SLURM_QOS="$GQ_SLURM_QOS" GQ_SERVER="$SLURM_URL" HOME="$work" XDG_CONFIG_HOME="$work/cfg" \
		XDG_CACHE_HOME="$work/cache" PATH=/usr/bin:/bin TZ=UTC LC_ALL=C "$@")
}
sub() { as "$GQ" submit --time-limit 10m "$@" -- sleep 300 | sed -n 's/^submitted job //p'; }
blocker=$(cd "$work" && runuser -u alice -- sbatch -p gq_default --qos ts04p0 -N 3 --exclusive -t 10 \
	-o /dev/null --wrap 'sleep 300' | sed -n 's/^Submitted batch job //p')
for _ in $(seq 1 40); do
	[ "$(squeue -h -j "$blocker" -o %T 2>/dev/null)" = RUNNING ] && break
	sleep 0.5
done
check_eq "the blocker runs on every node" "$(squeue -h -j "$blocker" -o '%T %D')" "RUNNING 3"
A=$(sub --gpus 1 --tier P2 --queue gq_default --name a)
B=$(sub --gpus 1 --tier P1 --queue gq_default --name b)
C=$(sub --gpus 2 --tier P2 --queue gq_default --name c)
D=$(sub --gpus 1 --tier P0 --queue gq_default --name d)
E=$(sub --gpus 4 --tier P1 --queue gq_default --name e)
F=$(sub --gpus 1 --tier P1 --name f)
check_eq "a job naming no queue lands in the exported default partition" \
	"$(squeue -h -j "$F" -o %P)" gq_default

# The policy's order: P0, then P1 and P2 each first come first.
want="$D $B $E $F $A $C "
got=$(squeue -h -u alice -t PD -o '%Q %A' | sort -k1,1nr -k2,2n | awk '{ printf "%s ", $2 }')
check_eq "Slurm orders the queue as the policy says (squeue's priority)" "$got" "$want"
qos=$(sprio -h -j "$A,$B,$D" -o '%i %Q' | sort -n | awk '{ printf "%s ", $2 }')
check_eq "sprio: the QOS factor is base / 100 x PriorityWeightQOS (P2 10000, P1 40000, P0 100000)" \
	"$qos" "10000 40000 100000 "
tres=$(sprio -h -j "$A,$C,$E" -o '%J|%P|%T' | tr -d ' ' | sort -u | tr '\n' ' ')
check_eq "sprio: no job size, partition or TRES factor" "$tres" "0|0| "
if command -v jq >/dev/null; then
	got=$(as "$GQ" eta --json | jq -r 'sort_by(.position) | .[].id' | tr '\n' ' ')
	check_eq "gq eta's positions are the same order" "$got" "$want"
fi

echo "# ts04 took $((SECONDS - start)) s (the restore in the trap after it)"
exit $((failed > 0))
