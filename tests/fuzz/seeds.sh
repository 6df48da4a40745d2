#!/bin/bash
# tests/fuzz/seeds.sh GQ - (re)writes the seed corpus tests/fuzz/corpus/
# from real files: the answers, journal lines and policy file of a real
# gq serve that ran a few jobs, the API bodies, #GQ scripts and policy
# files of the e2e tests, and the forms the unit tests parse. Run it by
# hand when a format changes; `make fuzz` only reads the corpus.
set -eu
# A clean environment: the journal's commands carry the submitter's.
if [ -z "${GQ_SEEDS_CLEAN:-}" ]; then
	exec env -i GQ_SEEDS_CLEAN=1 PATH=/usr/local/bin:/usr/bin:/bin bash "$0" "$@"
fi
GQ=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")" && pwd)
c=$src/corpus
e2e=$src/../e2e
d=$(mktemp -d /tmp/gq-seeds.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT
export HOME=$d XDG_CONFIG_HOME=$d/config XDG_STATE_HOME=$d/state XDG_RUNTIME_DIR=$d/run TZ=UTC LC_ALL=C
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
for t in api submit snapshot jobtext events stats policy directives sbatch units config trace slurm; do
	rm -rf "${c:?}/$t"
	mkdir -p "$c/$t"
done
seed() { cat >"$c/$1/$2"; } # TARGET NAME < content

# A real server and a few jobs of every kind.
sock=$d/sock
"$GQ" serve --listen "unix:$sock" --state-dir "$d/srv" --manual-clock --gpus 4 --gpu-model a100 \
	--gpu-mem 80G >"$d/log" 2>&1 &
pid=$!
export GQ_SERVER=unix:$sock
for _ in $(seq 100); do curl -sf --unix-socket "$sock" http://gq/v1/ping >/dev/null 2>&1 && break; sleep 0.05; done
api() { curl -s --unix-socket "$sock" -X "$1" ${3+--data-binary "$3"} "http://gq$2"; }
cd "$d"
"$GQ" clock --set '2030-01-01 09:00' >/dev/null
"$GQ" submit --name one -- true >/dev/null
"$GQ" submit --name held --hold --tier P0 --time-limit 2h --estimate 30m -- sleep 100 >/dev/null
"$GQ" submit --gpus 2 --gpu-type a100 --gpu-mem 40G --cpus 4 --mem 16G --checkpointable -- sleep 1000 >/dev/null
"$GQ" submit --gpus 4 --tier P2 --after 3 -- true >/dev/null
printf '#!/bin/sh\n#GQ --gpus 1 --name scripted\necho hi\n' >s.sh
"$GQ" submit s.sh >/dev/null
api POST /v1/jobs/2/override '{"tier":"P1","reason":"urgent"}' >/dev/null
"$GQ" cancel 4 >/dev/null
sleep 1
"$GQ" clock +90m >/dev/null
sleep 0.5
api GET /v1/snapshot | seed snapshot objects.json
api GET '/v1/snapshot?form=rows' | seed snapshot rows.json
api GET /v1/events | seed events events.json
api GET '/v1/events?after=1000' | seed events empty.json
api GET /v1/jobs/999 | seed events error.json
# error classes past "internal", and "ok" (no error class: an unexpected answer)
printf '{"error":{"code":"limit","message":"a per-user limit"}}' | seed events error-limit.json
printf '{"error":{"code":"no_space","message":"disk full"}}' | seed events error-nospace.json
printf '{"error":{"code":"ok","message":"x"}}' | seed events error-ok.json
printf '{"cwd":"/home/a","output":"/home/a/slurm-7.out","error":null,"command":null}' | seed events files.json
api GET /v1/stats | seed stats stats.json
api GET "/v1/stats?from=1&to=$(("$(date +%s)" + 86400 * 3650))" | seed stats window.json
for id in 1 2 3 4 5; do api GET "/v1/jobs/$id" | seed jobtext "job$id.json"; done
# The journal itself: jobs and commands as gq serve wrote them.
for id in $(sqlite3 "$d/srv/gq.db" 'SELECT id FROM jobs'); do
	sqlite3 "$d/srv/gq.db" "SELECT job FROM jobs WHERE id = $id" | tr -d '\n' >"$c/jobtext/journal-$id.json"
	sqlite3 "$d/srv/gq.db" "SELECT command FROM jobs WHERE id = $id" | tr -d '\n' >"$c/submit/journal-$id.json"
done
cp "$d/srv/policy/policy.conf" "$c/policy/default.conf"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=

# API bodies and requests of the e2e tests, each endpoint once at least.
grep -ho "api\(_code\)\? POST /v1/jobs '[^']*'" "$e2e"/*.sh | sed "s/.*'\(.*\)'/\1/" | sort -u |
	awk '{ f = sprintf("%s/submit/e2e-%02d.json", dir, NR); printf "%s", $0 > f; close(f) }' dir="$c"
i=0
req() { i=$((i + 1)); printf '%s' "$1" >"$c/api/$(printf %02d $i)-$2"; }
for f in "$c"/submit/e2e-*.json; do req "POST /v1/jobs
Idempotency-Key: k-$i

$(cat "$f")" submit; done
for a in cancel hold release requeue confirm checkpoint; do req "POST /v1/jobs/1/$a

" "$a"; req "POST /v1/jobs/1/$a

{}" "$a-empty"; done
req 'POST /v1/jobs/1/override

{"tier":"P0","reason":"x"}' override
req 'POST /v1/jobs/1/override

{"clear":true,"reason":"back"}' override-clear
req 'POST /v1/clock

{"advance":59}' clock-advance
req 'POST /v1/clock

{"set":1893488400}' clock-set
req 'POST /v1/policy/apply

{"revision":""}' policy-apply
for g in ping snapshot 'snapshot?form=rows' 'jobs?all=1&state=pending,running&user=alice&limit=10' \
	jobs/1 jobs/1/command 'jobs/1/logs?stream=stderr&offset=0' 'events?after=0&wait=0&limit=5' \
	'stats?from=1&to=2' 'preemptions?job=1&limit=3' reclaim policy; do
	req "GET /v1/$g

" "get-$(echo "$g" | tr -c 'a-z\n' -)"
done

# #GQ scripts: t21's and the form every flag takes.
sed -n "/^cat >\"\$T_DIR\/train.sh\" <<'SCRIPT'$/,/^SCRIPT$/p" "$e2e/t21-submit.sh" | sed '1d;$d' |
	seed directives t21-train.sh
seed directives flags.sh <<'S'
#!/bin/bash
# every flag
#GQ --gpus 2 --gpu-type a100 --gpu-mem 80G --same-node
#GQ --cpus 8 --mem 64G --tier P0 --queue exp
#GQ --name 'train "big"' --time-limit 1d2h --estimate 02:30:00
#GQ	--checkpointable --after 1,#2 --hold --json

python train.py
S

# #SBATCH scripts: every option gq honours in sbatch's spellings, and some
# it does not.
seed sbatch train.sh <<'S'
#!/bin/bash
#SBATCH -J train -p gpu -q p0 -A proj_a
#SBATCH --output=out/%j.log --error err/%x-%j.log
#SBATCH -N 2-4 --ntasks=8 --ntasks-per-node=4 -c 6
#SBATCH -C a100 --array=0-9%2 --exclusive=user
#SBATCH --mail-type=END,FAIL --mail-user "alice@example.com"
#SBATCH -t 1-02:03:04 --mem=16G --gres=gpu:a100:4
#SBATCH -D /scratch --export=NONE,X=1 --mem-per-cpu=2G --requeue -w gpu1
srun python train.py
S

# Policy files of the t3x scenarios.
python3 - "$e2e" "$c/policy" <<'PY'
import glob, os, re, sys
n = 0
for f in sorted(glob.glob(os.path.join(sys.argv[1], "t*.sh"))):
    for m in re.finditer(r"policy_server '([^']*)'", open(f).read()):
        n += 1
        open(os.path.join(sys.argv[2], "%s-%d.conf" % (os.path.basename(f)[:-3], n)), "w").write(m.group(1) + "\n")
PY

# Durations, sizes, integers and numbers: the first byte picks the parser.
u() { printf "$1%s" "$2" >"$c/units/$3"; }
for s in 90 90s 15m 2h 2h30m 1d 1d2h 01:30 1:00:05; do u '\000' "$s" "dur-$s"; done
for s in 80 80G 80GB 512M 1T 1TiB; do u '\001' "$s" "size-$s"; done
for s in 42 -5 9223372036854775807; do u '\002' "$s" "int-$s"; done
for s in 0.5 1e9 -1.25e-3; do u '\003' "$s" "num-$s"; done

# Client config files: config.h's example and its variants.
seed config example <<'C'
[gq]
    server = unix:/run/gq/sock      # or http://HOST:PORT
    backend = native
    tokenFile = ~/.config/gq/token  # bearer token for TCP servers
    tier = P2                       # default tier of gq submit
    queue = exp                     # default queue of gq submit
C
seed config tcp <<'C'
[core]
	editor = vi
[gq]
	server = http://gpu01:7070
	tier = p0
C
# trace: the first byte picks the reader (even: CSV, odd: SWF).
traces=$src/../../../shared/traces
[ -d "$traces" ] || traces=/work/shared/traces
{ printf 0; head -20 "$traces/kth_sp2.csv"; } | seed trace kth-head
{ printf 0; head -5 "$traces/hpc2n_2002.csv"; } | seed trace hpc2n-head
seed trace swf <<'S'
1; Version: 2.2
;  MaxNodes: 50
; MaxProcs: 100
1 0 20 100 8 -1 -1 8 3600 -1 1 3 2 5 1 -1 -1 -1
  2 30 -1 -1 -1 12.5 -1 4 -1 -1 0 4 2 -1 -1 -1 -1 -1
S
# slurm: real slurmrestd answers (the unit tests' fixtures, from the kit),
# the small ones; slurmdbd's records without their steps; one text with
# nodes, partitions, reservations and jobs together (the decoders read the
# same text).
fx=$src/../unit/fixtures-slurm/v0.0.38
for f in job_running job_after_signal job_array job_pending_qosmaxgres nodes partitions reservations ping \
	error_bad_token job_submit_response db_jobs_nothing_found; do
	seed slurm "$f.json" <"$fx/$f.json"
done
python3 - "$fx" "$c/slurm" <<'P'
import json, sys
fx, out = sys.argv[1], sys.argv[2]
d = json.load(open(fx + "/db_jobs.json"))
for x in d["jobs"]:
    x.pop("steps", None)
d["jobs"] = [d["jobs"][i] for i in (0, 1, 5, 7)]
json.dump(d, open(out + "/db_jobs_final4.json", "w"), separators=(",", ":"))
n, j, p, r = (json.load(open(fx + f)) for f in ("/nodes.json", "/job_running.json", "/partitions.json", "/reservations.json"))
c = {"meta": n.get("meta"), "errors": [], "nodes": n["nodes"], "partitions": p["partitions"],
     "reservations": r["reservations"], "jobs": j["jobs"]}
json.dump(c, open(out + "/combined.json", "w"), separators=(",", ":"))
P
echo "seeds: $(find "$c" -type f | wc -l) files in $c"
