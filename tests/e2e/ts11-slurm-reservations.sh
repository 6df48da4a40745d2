#!/bin/bash
# ts11-slurm-reservations.sh - Slurm's reservations in what gq says (issue
# 30, item 3), on the real kit, straight to slurmrestd and through gq serve
# --slurm: with a maintenance reservation of every node starting in 30
# minutes, a job whose 2 h time limit would run into it waits for the
# reservation's end (Slurm: ReqNodeNotAvail, Reserved for maintenance),
# where gq said "starts now"; a 10-minute job still starts; a job that
# names a reservation of alice's beginning in 20 minutes (gq submit
# --reservation) starts when it begins (Slurm: Reservation). gq why names
# the reservation and its window, gq eta --json carries it. Runs as root;
# deletes its reservations and cancels alice's jobs first and last. Never
# in parallel with another Slurm script.
TS=ts11
. "$(dirname "$0")/slurm.sh"
slurm_env
work=$(mktemp -d)
chmod 1777 "$work"
front_pid=
# Alice's jobs and the test's reservations, gone (first and last).
forget() {
	scancel -u alice >/dev/null 2>&1
	scontrol delete reservation=ts11maint >/dev/null 2>&1
	scontrol delete reservation=ts11alice >/dev/null 2>&1
}
cleanup() {
	[ -n "$front_pid" ] && kill "$front_pid" 2>/dev/null
	forget
	rm -rf "$work"
}
trap cleanup EXIT
forget
slurm_front

scontrol create reservation reservationname=ts11maint starttime=now+30minutes duration=60 \
	nodes=ALL flags=maint users=root >/dev/null
scontrol create reservation reservationname=ts11alice starttime=now+20minutes duration=30 \
	nodes=gpu1 users=alice >/dev/null
maint_end=$(scontrol show reservation ts11maint | sed -n 's/.*EndTime=\([^ ]*\).*/\1/p')
maint_end=$(date -u -d "$maint_end" +%s)
alice_start=$(scontrol show reservation ts11alice | sed -n 's/.*StartTime=\([^ ]*\).*/\1/p')
alice_start=$(date -u -d "$alice_start" +%s)
check_match "the kit has both reservations" "$maint_end $alice_start" '^[0-9]+ [0-9]+$'

long=$(direct submit --gpus 1 --time-limit 2h -- sleep 600 | sed -n 's/^submitted job //p')
short=$(direct submit --gpus 1 --time-limit 10m -- sleep 600 | sed -n 's/^submitted job //p')
own=$(direct submit --gpus 1 --time-limit 10m --reservation ts11alice -- sleep 60 2>"$work/err" |
	sed -n 's/^submitted job //p')
check_eq "gq submit --reservation: Slurm has the job in it" "$(squeue -h -j "$own" -o %v)" ts11alice
check_match "... and gq says what Slurm said of it, as a warning" "$(cat "$work/err")" \
	"^gq submit: warning: job $own was submitted, but Slurm: Requested reservation not usable now \(error 2056\)$"
for _ in $(seq 1 40); do
	[ "$(squeue -h -j "$long" -o %r)" = ReqNodeNotAvail ] &&
		[ "$(squeue -h -j "$short" -o %T)" = RUNNING ] &&
		[ "$(squeue -h -j "$own" -o %r)" = Reservation ] && break
	sleep 0.5
done
check_eq "Slurm: the 2 h job waits for the maintenance, the 10 min one runs, alice's waits for hers" \
	"$(squeue -h -j "$long,$short,$own" -o '%i %T %60r' | sort -n | sed 's/ *$//' | tr '\n' ';')" \
	"$long PENDING ReqNodeNotAvail, Reserved for maintenance;$short RUNNING None;$own PENDING Reservation;"

for how in direct via; do
	[ "$how" = via ] && for _ in $(seq 1 50); do [ -S "$work/front.sock" ] && via ls >/dev/null 2>&1 && break; sleep 0.2; done
	# The front polls: wait until its snapshot has the three jobs.
	for _ in $(seq 1 50); do
		[ "$($how ls --json 2>/dev/null | jq "[.[] | select(.id == $own)] | length")" = 1 ] && break
		sleep 0.2
	done
	if [ "$how" = via ]; then
		v=$(via submit --gpus 1 --time-limit 10m --reservation ts11alice -- sleep 60 \
			2>/dev/null | sed -n 's/^submitted job //p')
		check_eq "via: gq submit --reservation through the front: Slurm has it in the reservation" \
			"$(squeue -h -j "$v" -o %v 2>/dev/null)" ts11alice
	fi
	js=$($how eta --json "$long" "$own")
	check_eq "$how: the 2 h job starts when the maintenance ends, not now" \
		"$(printf '%s' "$js" | jq -c --argjson id "$long" '.[] | select(.id == $id) | [.predicted_start, .explanation.gate, .explanation.reservation.name, .explanation.reservation.all_nodes, .explanation.reservation.maint]')" \
		"[$maint_end,\"reservation\",\"ts11maint\",true,true]"
	check_eq "$how: alice's starts when her reservation begins" \
		"$(printf '%s' "$js" | jq -c --argjson id "$own" '.[] | select(.id == $id) | [.predicted_start, .explanation.gate, .explanation.reservation.name]')" \
		"[$alice_start,\"reservation\",\"ts11alice\"]"
	check_match "$how: gq why names the maintenance, its window and the time limit" "$($how why "$long")" \
		"^Pending: reservation\. Reservation ts11maint \(maintenance\) holds every node from .* to .*; started before it, its time limit \(2h00m\) would run into it\..* when reservation ts11maint ends\."
	check_match "$how: ... and agrees with Slurm" "$($how why "$long")" \
		"Slurm: ReqNodeNotAvail \(gq's word: reservation\)"
	check_match "$how: gq why of alice's: her reservation begins" "$($how why "$own")" \
		"It runs in reservation ts11alice, which begins at .*when its reservation ts11alice begins\."
	check_match "$how: gq eta's line says which reservation" "$($how eta "$long")" \
		"when reservation ts11maint ends; Slurm: "
	check_match "$how: gq ls: reason reservation" \
		"$($how ls --format '{id} {reason}' | grep "^$long ")" "^$long reservation \[Slurm: ReqNodeNotAvail\]$"
done
echo "1..$n"
[ "$failed" = 0 ]
