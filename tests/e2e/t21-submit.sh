#!/bin/bash
# t21-submit: gq submit (command, script with #GQ lines, every flag,
# config defaults, refusals), gq show and gq logs against a real gq serve.
. "$(dirname "$0")/lib.sh"
server_start --gpus 8 --gpu-model a100 --gpu-mem 80G --cpus 16 --mem 64G
"$GQ" clock --set '2030-01-01 09:00' >/dev/null
ME=$(id -un)
cd "$T_DIR"

check_eq "submit prints the new job" "$("$GQ" submit --gpus 2 --name hello -- sh -c 'echo hello $GQ_JOB_ID on $CUDA_VISIBLE_DEVICES; echo err >&2')" "submitted job 1"
check "job 1 completes" wait_state 1 completed
check_eq "logs prints its output" "$("$GQ" logs 1)" "hello 1 on 0,1"
check_eq "logs --stderr" "$("$GQ" logs --stderr 1)" "err"
check_eq "logs -f of a finished job prints it and ends" "$(timeout 10 "$GQ" logs -f 1)" "hello 1 on 0,1"
"$GQ" show 1 | sed "s/$ME/USER/g; s|$T_DIR|DIR|g" >"$T_DIR/show1"
check_golden "show of a finished job" "$T_DIR/show1" t21-show-finished.txt

check_eq "submit --json" "$("$GQ" submit --json --hold -- true)" '{"id":2}'
check_eq "held: it stays pending" "$(state 2)" pending
"$GQ" submit --hold --gpus 4 --gpu-type a100 --gpu-mem 40G --same-node --cpus 3 --mem 2G --tier P2 \
	--queue default --name every-flag --time-limit 2h --estimate 90m --checkpointable --after 1 --after 2 \
	-- printf '%s\n' 'a b' >/dev/null
check_eq "every flag reaches the server" "$("$GQ" show --json 3 | jq -c '[.name, .tier, .queue, .req, .time_limit, .estimate, .checkpointable, .deps, .held, .argv, .cwd]')" \
	"[\"every-flag\",\"P2\",\"default\",{\"gpus\":4,\"gpu_type\":\"a100\",\"gpu_mem_mb\":40960,\"same_node\":true,\"cpus\":3,\"mem_mb\":2048},7200,5400,true,[1,2],true,[\"printf\",\"%s\\\\n\",\"a b\"],\"$T_DIR\"]"
"$GQ" show 3 | sed "s/$ME/USER/g; s|$T_DIR|DIR|g" >"$T_DIR/show3"
check_golden "show of a held job with every field" "$T_DIR/show3" t21-show-held.txt

# A script: #GQ lines before the first command, the command line wins.
cat >"$T_DIR/train.sh" <<'SCRIPT'
#!/bin/sh
# a comment
#GQ --gpus 2 --tier P2
#GQ --name "scripted" --hold
echo from the script
#GQ --gpus 7
SCRIPT
check_eq "submit a script" "$("$GQ" submit --gpus 3 train.sh)" "submitted job 4"
check_eq "its #GQ lines and the command line" "$("$GQ" show --json 4 | jq -c '[.name, .tier, .req.gpus, .held, .argv, .script]')" \
	'["scripted","P2",3,true,null,"#!/bin/sh\n# a comment\n#GQ --gpus 2 --tier P2\n#GQ --name \"scripted\" --hold\necho from the script\n#GQ --gpus 7\n"]'
"$GQ" release 4 >/dev/null
check "the script runs" wait_state 4 completed
check_eq "and prints" "$("$GQ" logs 4)" "from the script"
printf 'echo plain\n' >"$T_DIR/plain.sh"
"$GQ" submit plain.sh >/dev/null
check_eq "a script without #GQ lines is named after its file" "$("$GQ" show --json 5 | jq -r .name)" plain.sh
# #GQ lines are split as gq shell splits a line: backslashes escape.
printf '#!/bin/sh\n#GQ --hold --name a\\'"'"'b"c\\"d"\ntrue\n' >"$T_DIR/escaped.sh"
"$GQ" submit escaped.sh >/dev/null
check_eq "#GQ lines honour backslashes as gq shell does" "$("$GQ" show --json 6 | jq -r .name)" "a'bc\"d"
# gq serve reads #SBATCH lines (t2c): these it takes without a word.
printf '#!/bin/sh\n#SBATCH -J x -t 5\n#SBATCH --gres=gpu:1\n#GQ --hold\ntrue\n' >"$T_DIR/sb.sh"
out=$("$GQ" submit sb.sh 2>&1 >/dev/null)
check_eq "#SBATCH lines gq serve honours: no warning" "$out" ""

# Refusals: the server's reason, exit 2.
out=$("$GQ" submit --gpus 9 --tier P0 -- true 2>&1); rc=$?
check_eq "more GPUs than the machine has: exit 2" "$rc" 2
check_match "and the reason" "$out" '^gq: .*9 GPUs.*8'
out=$("$GQ" submit --gpu-type h100 -- true 2>&1); rc=$?
check_eq "a GPU model no node has: exit 2" "$rc" 2
check_match "names the model" "$out" "h100"
out=$("$GQ" submit --queue nosuch -- true 2>&1); rc=$?
check_eq "an unknown queue: exit 2" "$rc" 2
check_match "names the queue" "$out" "nosuch"
out=$("$GQ" submit --after 999 -- true 2>&1); rc=$?
check_eq "a dependency that does not exist: exit 2" "$rc" 2
check_match "names the job" "$out" "999"

# Defaults from the config file and the environment.
mkdir -p "$XDG_CONFIG_HOME/gq"
printf '[gq]\n\ttier = p2\n' >"$XDG_CONFIG_HOME/gq/config"
id=$("$GQ" submit --json --hold -- true | jq .id)
check_eq "gq.tier in the config is the default tier" "$("$GQ" show --json "$id" | jq -r .tier)" P2
id=$(GQ_TIER=P0 "$GQ" submit --json --hold -- true | jq .id)
check_eq "GQ_TIER wins over the file" "$("$GQ" show --json "$id" | jq -r .tier)" P0
id=$(GQ_TIER=P0 "$GQ" submit --json --hold --tier P1 -- true | jq .id)
check_eq "--tier wins over both" "$("$GQ" show --json "$id" | jq -r .tier)" P1
rm "$XDG_CONFIG_HOME/gq/config"

check_fail 3 "show of no such job: exit 3" "$GQ" show 999
check_match "says so" "$("$GQ" show 999 2>&1)" "^gq: no job '999'"
check_fail 3 "logs of no such job: exit 3" "$GQ" logs 999
# A job that writes, pauses and writes again: -f prints both and ends with it.
id=$("$GQ" submit --json -- sh -c 'echo first; sleep 1; echo second' | jq .id)
check_eq "logs -f follows a running job to its end" "$(timeout 20 "$GQ" logs -f "$id")" "first
second"
check_eq "the job had ended when logs -f did" "$(state "$id")" completed
# Control characters a job's command, directory or output path may hold
# (C0, DEL, and C1 in UTF-8: U+0085, U+009B, a CSI for some terminals)
# are shown escaped, never sent to the terminal as they are.
weird=$(printf 'a\001b\302\205c\302\233d\033[2Je\177f\tg')
id=$("$GQ" submit --hold --json -- echo "$weird" | jq .id)
check_eq "gq show escapes C0 and C1 controls" "$("$GQ" show "$id" | grep '^command')" \
	"command      echo 'a\\x01b\\u0085c\\u009bd\\x1b[2Je\\x7ff\\tg'"
check_eq "the JSON keeps the bytes" "$("$GQ" show --json "$id" | jq -r '.argv[1]')" "$weird"
"$GQ" cancel "$id" >/dev/null
finish
