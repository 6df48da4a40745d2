#!/bin/bash
# t13: nothing acknowledged is lost. 8 clients submit 2,000 jobs (each with
# its own Idempotency-Key) while the server is killed with SIGKILL; after a
# restart every acknowledged job is there exactly once, and retrying the
# rest with the same keys makes every job exist exactly once.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/api.sh"
server_start --gpus 8

client() { # K: submits c$K-1 .. c$K-250; one line per answer
	k=$1
	for i in $(seq 1 250); do
		out=$(curl -s -m 10 -w ' %{http_code}' --unix-socket "$SERVER_SOCK" -X POST \
			-H "Idempotency-Key: c$k-$i" \
			--data-binary "{\"argv\":[\"true\"],\"held\":true,\"name\":\"c$k-$i\"}" http://gq/v1/jobs)
		code=${out##* }
		if [ "$code" = 201 ] || [ "$code" = 200 ]; then
			id=${out#\{\"id\":}
			echo "c$k-$i ${id%%,*}" >>"$T_DIR/acked"
		else
			echo "c$k-$i" >>"$T_DIR/failed"
		fi
	done
}
: >"$T_DIR/acked"
: >"$T_DIR/failed"
pids=""
for k in 1 2 3 4 5 6 7 8; do
	client $k &
	pids="$pids $!"
done
# Kill the server in the middle of the stream.
for _ in $(seq 1 400); do
	[ "$(wc -l <"$T_DIR/acked")" -ge 400 ] && break
	sleep 0.02
done
kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
for p in $pids; do wait "$p"; done
acked=$(wc -l <"$T_DIR/acked")
failed=$(wc -l <"$T_DIR/failed")
check_eq "2000 answers or failures" "$((acked + failed))" 2000
echo "# $acked acknowledged before the kill, $failed failed"
check_match "the kill landed mid-stream ($acked acknowledged)" "$acked" '^([4-9][0-9][0-9]|1[0-9][0-9][0-9])$'

server_start --gpus 8
api GET '/v1/jobs?all=1' | jq -r '.jobs[] | "\(.name) \(.id)"' | sort >"$T_DIR/have"
sort "$T_DIR/acked" >"$T_DIR/acked.sorted"
check_eq "every acknowledged job is there with its id" \
	"$(comm -23 "$T_DIR/acked.sorted" "$T_DIR/have" | head -5)" ""
check_eq "no job exists twice" "$(cut -d' ' -f1 "$T_DIR/have" | sort | uniq -d | head -5)" ""

# Retry what failed, with the same keys: nothing is made twice.
retry() { # one of 8 shares of the failed list
	awk -v k="$1" 'NR % 8 == k' "$T_DIR/failed" | while read -r name; do
		curl -s --unix-socket "$SERVER_SOCK" -X POST -H "Idempotency-Key: $name" \
			--data-binary "{\"argv\":[\"true\"],\"held\":true,\"name\":\"$name\"}" \
			http://gq/v1/jobs >/dev/null
	done
}
pids=""
for k in 0 1 2 3 4 5 6 7; do
	retry $k &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done
all=$(api GET '/v1/jobs?all=1' | jq -r '.jobs[].name')
check_eq "after the retries: 2000 jobs" "$(echo "$all" | wc -l)" 2000
check_eq "each exactly once" "$(echo "$all" | sort | uniq -d | head -5)" ""
check_eq "a retried acknowledged key answers 200 with the first id" \
	"$(head -1 "$T_DIR/acked" | { read -r n id; curl -s -w ' %{http_code}' --unix-socket "$SERVER_SOCK" -X POST -H "Idempotency-Key: $n" --data-binary "{\"argv\":[\"true\"],\"held\":true,\"name\":\"$n\"}" http://gq/v1/jobs | sed 's/^{"id":\([0-9]*\),.* \([0-9]*\)$/\1 \2/'; echo " $id"; })" \
	"$(head -1 "$T_DIR/acked" | { read -r n id; echo "$id 200 $id"; })"
finish
