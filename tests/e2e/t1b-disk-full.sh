#!/bin/bash
# t1b: a full disk. The state directory is a small tmpfs; held submissions
# (each with an 8 KB environment) fill it until the server refuses them.
# While full: every write is refused with 507 and one clear line (the CLI
# exits 1), reads work, running jobs go on, a job that ends is not lost
# (its supervisor waits for room for its exit file) and an exit file on
# disk waits for the journal. Then space returns (the tmpfs grows): the
# server takes writes again by itself, records what happened meanwhile,
# logs once on entering and once on leaving, and after a restart every
# acknowledged submission is there. Needs root (mount).
. "$(dirname "$0")/lib.sh"
. "$T_SRC/api.sh"
if [ "$(id -u)" != 0 ]; then echo "ok 1 - $T_NAME: disk full # skip not root"; exit 0; fi
SIZE_K=1024
mkdir -p "$T_DIR/state"
if ! mount -t tmpfs -o size=${SIZE_K}k tmpfs "$T_DIR/state" 2>/dev/null; then
	echo "ok 1 - $T_NAME: disk full # skip cannot mount a tmpfs here"
	exit 0
fi
# Detach the tmpfs first (lazily: supervisors may still hold files), then
# lib.sh's cleanup stops what we started and removes the scratch dir.
trap 'umount -l "$T_DIR/state" 2>/dev/null; t_cleanup' EXIT
ST="$T_DIR/state"

server_start --gpus 2
GO="$T_DIR/go"
mkdir -p "$GO"
# a: runs through it all, writing to its stdout; b: ends while the disk is
# full; c: waits for b's GPU.
id_a=$("$GQ" submit --json -- sh -c "while [ ! -e $GO/a ]; do echo tick; sleep 0.1; done" | jq -r .id)
id_b=$("$GQ" submit --json -- sh -c "while [ ! -e $GO/b ]; do sleep 0.1; done" | jq -r .id)
id_c=$("$GQ" submit --json -- true | jq -r .id)
wait_state "$id_a" running
wait_state "$id_b" running
check_eq "c waits for a GPU" "$(state "$id_c")" pending
# Room that comes back in two steps: spare (a little) and the tmpfs itself.
dd if=/dev/zero of="$ST/spare" bs=4k count=4 2>/dev/null

big=$(head -c 8000 /dev/zero | tr '\0' x)
: >"$T_DIR/acked"
refused=""
for i in $(seq 1 1000); do
	out=$(curl -s -m 10 -w ' %{http_code}' --unix-socket "$SERVER_SOCK" -X POST \
		--data-binary "{\"argv\":[\"true\"],\"held\":true,\"name\":\"f$i\",\"env\":[\"PAD=$big\"]}" \
		http://gq/v1/jobs)
	code=${out##* }
	if [ "$code" = 201 ]; then
		id=${out#\{\"id\":}
		echo "${id%%,*}" >>"$T_DIR/acked"
	else
		refused="$out"
		break
	fi
done
acked=$(wc -l <"$T_DIR/acked")
echo "# tmpfs ${SIZE_K} KiB: $acked submissions acknowledged before the disk was full"
check_match "submissions fill the disk until one is refused ($acked acknowledged)" "$acked" '^[1-9][0-9]*$'
check_eq "the refusal: 507, no_space, one clear line" \
	"$(echo "$refused" | sed 's/^\(.*\) \([0-9]*\)$/\2 \1/' | { read -r st b; echo "$st $(echo "$b" | jq -r '.error.code + " " + .error.message')"; })" \
	"507 no_space the server cannot write its journal: disk full in '$ST'; submissions resume when space returns"
check "the server is still up" kill -0 "$SERVER_PID"

# More writes: each refused, nothing changes, no line in the log each.
n_refused=1
for i in 1 2 3 4 5 6 7 8 9 10; do
	c=$(api_code POST /v1/jobs '{"argv":["true"]}' | cut -d' ' -f1)
	[ "$c" = 507 ] && n_refused=$((n_refused + 1))
done
check_eq "ten more submissions: all refused" "$n_refused" 11
out=$("$GQ" submit -- true 2>&1); rc=$?
check_eq "gq submit: exit 1 and the server's line" "$rc $out" \
	"1 gq: the server cannot write its journal: disk full in '$ST'; submissions resume when space returns"
out=$("$GQ" cancel "$id_a" 2>&1); rc=$?
check_eq "gq cancel of a running job: exit 1, changes refused" "$rc $out" \
	"1 gq: the server cannot write its journal: disk full in '$ST'; changes resume when space returns"
check_fail 1 "gq hold: refused" "$GQ" hold "$id_c"
check_eq "the clock: refused" "$(api_code POST /v1/clock '{"advance":60}' | cut -d' ' -f1)" 507
check "the server is still up after the refused cancel" kill -0 "$SERVER_PID"

# Reads.
check "gq ls works" "$GQ" ls
check "gq why works" "$GQ" why "$id_c"
check_eq "gq show works" "$("$GQ" show --json "$id_a" | jq -r .state)" running
check_eq "the snapshot works" "$(api_code GET /v1/snapshot | cut -d' ' -f1)" 200
check_eq "the events work" "$(api_code GET '/v1/events?after=0' | cut -d' ' -f1)" 200

# Running jobs go on; b ends while its exit file cannot be written.
touch "$GO/b"
sleep 1.5
check_eq "a refused cancel sent no signal: a still runs" "$(state "$id_a")" running
check "a's process is alive" pgrep -f "while \[ ! -e $GO/a \]"
check_eq "b ended, but is not recorded as lost or failed" "$(state "$id_b")" running
check "b's supervisor waits for room for its exit file" pgrep -f "__supervise $ST/run/$id_b\$"
check_eq "no exit file for b yet" "$(ls "$ST/run/$id_b.exit" 2>/dev/null)" ""

# A little room: b's exit file fits, the journal's probe still wants more.
rm "$ST/spare"
for _ in $(seq 1 60); do [ -e "$ST/run/$id_b.exit" ] && break; sleep 0.1; done
check "b's exit file is written once there is a little room" test -e "$ST/run/$id_b.exit"
check_eq "the exit file waits for the journal: b is still running in memory" "$(state "$id_b")" running
check_eq "still full: submissions refused" "$(api_code POST /v1/jobs '{"argv":["true"]}' | cut -d' ' -f1)" 507
size_a=$(stat -c %s "$ST/jobs/$id_a/stdout")

# Space returns.
mount -o remount,size=$((SIZE_K * 4))k "$ST"
t0=$(date +%s%N)
post=""
for _ in $(seq 1 100); do
	out=$(api_code POST /v1/jobs '{"argv":["true"],"held":true,"name":"after"}')
	if [ "${out%% *}" = 201 ]; then post=$(echo "${out#* }" | jq -r .id); break; fi
	sleep 0.05
done
ms=$((($(date +%s%N) - t0) / 1000000))
echo "# writes accepted again ${ms} ms after space returned, without a restart"
check_match "a submission is acknowledged again without a restart" "$post" '^[0-9]+$'
check_eq "b is recorded as it ended: completed, exit 0" \
	"$(api GET "/v1/jobs/$id_b" | jq -r '"\(.state) \(.exit_status)"')" "completed 0"
wait_state "$id_c" completed
check_eq "c started on b's GPU and completed" "$(state "$id_c")" completed
check_eq "a still runs" "$(state "$id_a")" running
for _ in $(seq 1 40); do [ "$(stat -c %s "$ST/jobs/$id_a/stdout")" -gt "$size_a" ] && break; sleep 0.05; done
check "a's output grows again" test "$(stat -c %s "$ST/jobs/$id_a/stdout")" -gt "$size_a"
touch "$GO/a"
wait_state "$id_a" completed
check_eq "a completed, exit 0" "$(api GET "/v1/jobs/$id_a" | jq -r .exit_status)" 0
check_eq "one log line on entering the full state" \
	"$(grep -c 'refusing writes until the journal can commit again' "$T_DIR/server.log")" 1
check_eq "one on leaving it" "$(grep -c 'the journal commits again' "$T_DIR/server.log")" 1
check_eq "and no line per refused request" "$(grep -c 'error' "$T_DIR/server.log")" 1

have() { api GET '/v1/jobs?all=1' | jq -r '.jobs[].id' | sort >"$T_DIR/have"; }
have
sort "$T_DIR/acked" >"$T_DIR/acked.sorted"
lost=$(comm -23 "$T_DIR/acked.sorted" "$T_DIR/have" | wc -l)
check_eq "nothing acknowledged is lost" "$lost" 0

server_stop
server_start --gpus 2
have
lost=$(comm -23 "$T_DIR/acked.sorted" "$T_DIR/have" | wc -l)
echo "# after a restart: $lost of $acked acknowledged submissions lost"
check_eq "after a restart: nothing acknowledged is lost" "$lost" 0
check "the submission made after the recovery is there" grep -qx "$post" "$T_DIR/have"
check_eq "the acknowledged ones are held, as submitted" \
	"$(api GET '/v1/jobs?all=1' | jq -r '[.jobs[] | select(.name | startswith("f")) | .state] | unique | join(",")')" pending
check_eq "b stays completed, exit 0" \
	"$(api GET "/v1/jobs/$id_b" | jq -r '"\(.state) \(.exit_status)"')" "completed 0"
finish
