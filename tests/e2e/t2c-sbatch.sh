#!/bin/bash
# t2c-sbatch: gq serve reads a script's #SBATCH lines with the Slurm
# backend's parser (core/sbatch.c): GPUs, name, time, CPUs, memory, -o/-e
# patterns, array, dependency, begin, mail-type as --notify, -p as a queue
# when there is one; the command line wins over #GQ lines, which win over
# #SBATCH; what has no meaning on gq serve is named in one warning line.
. "$(dirname "$0")/lib.sh"
policy_no_headroom
printf '#!/bin/sh\nprintf "[queue \\"gpu\\"]\\n\\tdefaultTime = 1h\\n" >>"$1"\n' >"$T_DIR/ed2.sh"
chmod +x "$T_DIR/ed2.sh"
EDITOR="$T_DIR/ed2.sh" "$GQ" policy edit -m "A queue gpu" >/dev/null 2>&1
server_start --gpus 4 --gpu-model a100 --cpus 16 --mem 64G --policy-repo "$R"
"$GQ" policy apply >/dev/null 2>&1
ME=$(id -un)
cd "$T_DIR"
jid() { sed -n 's/^submitted \(array \)\{0,1\}job \([0-9]*\).*/\2/p'; }
mkdir -p "$XDG_CONFIG_HOME/gq"
printf '[notify]\n\tcommand = true\n' >"$XDG_CONFIG_HOME/gq/config"

cat >"$T_DIR/site.sh" <<'S'
#!/bin/bash
#SBATCH -J sitejob
#SBATCH --gres=gpu:a100:2
#SBATCH -t 1:30:00
#SBATCH -c 4 --mem=8G
#SBATCH --begin=now+1hour
#SBATCH --mail-type=END,FAIL
#SBATCH -p gpu
#SBATCH -H
#SBATCH -A proj --qos=high --exclusive
#SBATCH --reservation=maint
#SBATCH --mem-per-cpu=2G
echo hi
S
out=$("$GQ" submit site.sh 2>"$T_DIR/err")
id=$(echo "$out" | jid)
check_eq "an sbatch script is queued" "$out" "submitted job $id"
check_eq "with its #SBATCH options" \
	"$("$GQ" show --json "$id" | jq -c '[.name, .req.gpus, .req.gpu_type, .req.cpus, .req.mem_mb, .time_limit, .notify, .queue, .held, .begin_time > 0]')" \
	'["sitejob",2,"a100",4,8192,5400,"end,fail","gpu",true,true]'
check_eq "and one warning naming what gq serve ignores" "$(cat "$T_DIR/err")" \
	"gq: warning: script 'site.sh': gq serve ignores #SBATCH --qos=high --account=proj --reservation=maint --exclusive --mem-per-cpu=2G"
out=$("$GQ" submit --reservation maint -- true 2>&1)
check_eq "gq submit --reservation on gq serve: refused (exit 2), in one line" "$out (exit $?)" \
	"gq: reservation 'maint': gq serve has none (a reservation is Slurm's: sbatch --reservation) (exit 2)"

# The command line first, then #GQ, then #SBATCH.
cat >"$T_DIR/order.sh" <<'S'
#!/bin/sh
#SBATCH -J fromsbatch --gpus=3 -t 10 -c 2
#SBATCH -p nosuch
#GQ --gpus 2 --name fromgq --hold
echo hi
S
out=$("$GQ" submit --gpus 1 order.sh 2>"$T_DIR/err")
id=$(echo "$out" | jid)
check_eq "command line, then #GQ, then #SBATCH" \
	"$("$GQ" show --json "$id" | jq -c '[.req.gpus, .name, .time_limit, .req.cpus, .queue]')" \
	'[1,"fromgq",600,2,"default"]'
check_eq "-p of a queue that does not exist is ignored, and said" "$(cat "$T_DIR/err")" \
	"gq: warning: script 'order.sh': gq serve ignores #SBATCH --partition=nosuch (no such queue)"
"$GQ" cancel "$id" >/dev/null

# -o / -e patterns, --array and --dependency.
cat >"$T_DIR/arr.sh" <<'S'
#!/bin/bash
#SBATCH --array=0-1
#SBATCH --gpus=1
#SBATCH -o out-%x-%A_%a.txt
#SBATCH -e err-%u-%j.txt
echo "task $SLURM_ARRAY_TASK_ID"
echo oops >&2
S
out=$("$GQ" submit arr.sh 2>&1)
a=$(echo "$out" | jid)
check_eq "#SBATCH --array makes an array" "$out" "submitted array job $a (2 tasks)"
t0=$("$GQ" show --json "${a}_0" | jq .id)
t1=$("$GQ" show --json "${a}_1" | jq .id)
check "task 0 ends" wait_state "$t0" completed
check "task 1 ends" wait_state "$t1" completed
check_eq "-o with %x %A %a" "$(cat "$T_DIR/out-arr.sh-${a}_0.txt" "$T_DIR/out-arr.sh-${a}_1.txt")" "task 0
task 1"
check_eq "-e with %u %j" "$(cat "$T_DIR/err-$ME-$t0.txt")" "oops"
printf '#!/bin/sh\n#SBATCH --dependency=afterok:%s --gpus=0\ntrue\n' "$t0" >"$T_DIR/dep.sh"
id=$("$GQ" submit dep.sh 2>/dev/null | jid)
check_eq "#SBATCH --dependency" "$("$GQ" show --json "$id" | jq -c '[.deps, .req.gpus]')" "[[$t0],0]"
printf '#!/bin/sh\n#SBATCH --gpus=lots\ntrue\n' >"$T_DIR/bad.sh"
check_eq "a value the parser cannot read is ignored, and said" "$("$GQ" submit --hold bad.sh 2>&1 >/dev/null)" \
	"gq: warning: script 'bad.sh': gq serve ignores #SBATCH --gpus=lots (unreadable)"
printf '#!/bin/sh\n#SBATCH -o out-%%N.txt\ntrue\n' >"$T_DIR/bad2.sh"
check_fail 2 "a pattern gq cannot expand is refused, as on a #GQ line" "$GQ" submit bad2.sh
finish
