#!/bin/bash
# t28-badinput: every command with a missing, unknown or malformed argument
# exits 2 with one line on stderr that names the problem. GQ_SERVER points
# nowhere: a bad command line must fail before any connection (exit 5 would
# mean it got that far).
. "$(dirname "$0")/lib.sh"
export GQ_SERVER="unix:$T_DIR/nothing-here"

bad() { # desc, regex for the message, command...
	desc=$1 want=$2; shift 2
	err=$("$GQ" "$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && printf '%s\n' "$err" | grep -Eq -- "$want"; then
		t_report 0 "$desc"
	else
		t_report 1 "$desc"; echo "# gq $*: exit $rc, stderr:"; printf '%s\n' "$err" | sed 's/^/#   /'
	fi
}

# Unknown options, for every command.
for c in $("$GQ" __complete commands); do
	bad "gq $c --no-such-flag" "^gq $c: unknown (option|argument) '--no-such-flag'; see 'gq $c -h'\$" "$c" --no-such-flag
done
bad "gq with an unknown command" "^gq: 'frobnicate' is not a gq command; see 'gq --help'\$" frobnicate
bad "a typo of a command suggests the nearest" "^gq: 'lss' is not a gq command; did you mean 'gq ls'\?\$" lss
bad "a swap of two letters too" "^gq: 'sbumit' is not a gq command; did you mean 'gq submit'\?\$" sbumit

# Missing arguments.
for c in cancel hold release requeue confirm; do
	bad "gq $c without a job" "no job given" "$c"
	bad "gq $c with a malformed job id" "'4x2' is not a job id" "$c" 4x2
	bad "gq $c with job id 0" "'0' is not a job id" "$c" 0
	bad "gq $c with a negative job id" "unknown option '-5'|'-5' is not a job id" "$c" -5
done
for c in show why logs; do
	bad "gq $c without a job" "no job given" "$c"
	bad "gq $c with a malformed job id" "'abc' is not a job id" "$c" abc
	bad "gq $c with two jobs" "one job at a time; '2' is extra" "$c" 1 2
done
bad "gq eta with a malformed job id" "'x1' is not a job id" eta x1
bad "gq checkpoint with no job and no GQ_JOB_ID" "GQ_JOB_ID is not set" checkpoint
GQ_JOB_ID=zz bad "gq checkpoint with a malformed GQ_JOB_ID" "'zz' is not a job id" checkpoint
bad "gq prio without a tier" "no tier given" prio 4
bad "gq prio with a bad tier" "bad tier 'P9'" prio --reason x 4 P9
bad "gq prio without a reason" "needs a reason; add --reason" prio 4 P0
bad "gq prio --clear with a tier" "--clear takes no tier" prio --clear 4 P0
bad "gq prio --clear without a reason" "clearing an override needs a reason" prio --clear 4
bad "gq prio --reason without a value" "option '--reason' needs a value" prio 4 P0 --reason

# submit: malformed values of every flag.
bad "submit with nothing to run" "nothing to run" submit
bad "submit with '--' and nothing after" "no command after '--'" submit --gpus 1 --
bad "submit --gpus x" "--gpus: not a whole number: 'x'" submit --gpus x -- true
bad "submit --gpus -1" "--gpus: .*out of range" submit --gpus -1 -- true
bad "submit --gpus 300000" "--gpus: '300000' is out of range" submit --gpus 300000 -- true
bad "submit --gpu-type with a space" "--gpu-type: bad GPU model 'a 100'" submit --gpu-type 'a 100' -- true
bad "submit --gpu-mem 80Q" "--gpu-mem: bad size '80Q'" submit --gpu-mem 80Q -- true
# (timeout: a gq serve that took it would serve on)
check_fail 2 "serve --gpu-mem 0: exit 2" timeout 10 "$GQ" serve --gpu-mem 0 --state-dir "$T_DIR/nostate" \
	--listen "unix:$T_DIR/nosock"
check_match "says why in one line" "$(timeout 10 "$GQ" serve --gpu-mem 0 --state-dir "$T_DIR/nostate" \
	--listen "unix:$T_DIR/nosock" 2>&1)" "^gq serve: --gpu-mem: '0' is no memory; give one GPU's, such as 80G; see 'gq serve -h'\$"
bad "submit --cpus many" "--cpus: not a whole number" submit --cpus many -- true
bad "submit --mem 1X" "--mem: bad size '1X'" submit --mem 1X -- true
bad "submit --tier P5" "--tier: bad tier 'P5'; use P0, P1 or P2" submit --tier P5 -- true
bad "submit --queue with a slash" "--queue: bad queue name 'a/b'" submit --queue a/b -- true
bad "submit --name with a newline" "--name: job name 'a\\\\nb' has a control character" \
	submit --name "$(printf 'a\nb')" -- true
bad "submit --time-limit 5x" "--time-limit: bad duration '5x'" submit --time-limit 5x -- true
bad "submit --time-limit 0" "--time-limit: must be more than 0 seconds" submit --time-limit 0 -- true
bad "submit --estimate longer than --time-limit" "--estimate is longer than --time-limit" submit --estimate 2h --time-limit 1h -- true
bad "submit --after abc" "--after: 'abc' is not a job id" submit --after abc -- true
bad "submit --after with 9 jobs" "--after: at most 8 jobs" submit --after 1,2,3,4,5,6,7,8,9 -- true
bad "submit --gpus without a value" "option '--gpus' needs a value" submit --gpus
bad "submit --hold=yes" "option '--hold=yes' takes no value" submit --hold=yes -- true
bad "submit of a missing script" "cannot read script '$T_DIR/nope.sh'" submit "$T_DIR/nope.sh"
printf '#!/bin/sh\n#GQ --gpus lots\ntrue\n' >"$T_DIR/bad.sh"
bad "submit of a script with a bad #GQ line" "script '$T_DIR/bad.sh' line 2: --gpus: not a whole number: 'lots'" submit "$T_DIR/bad.sh"
printf '#!/bin/sh\n#GQ --gpus 2 extra\ntrue\n' >"$T_DIR/bad2.sh"
bad "submit of a script with an operand on a #GQ line" "line 2: unexpected 'extra'" submit "$T_DIR/bad2.sh"
printf '#!/bin/sh\n#GQ --name "unterminated\ntrue\n' >"$T_DIR/bad3.sh"
bad "submit of a script with an unterminated quote" "line 2: unterminated \" quote; close it" submit "$T_DIR/bad3.sh"
bad "submit of an argument that is not UTF-8" "argument '.*' is not UTF-8" submit -- echo $'\xff\xfe'
printf '\0\1\2' >"$T_DIR/bin"
bad "submit of a binary as a script" "is not a text script" submit "$T_DIR/bin"

# ls, events, clock, help, version, shell, stats, nodes.
bad "ls --state bogus" "--state: unknown state 'bogus'" ls --state bogus
bad "ls --user with a slash" "--user: bad user name 'a/b'" ls --user a/b
bad "ls --format with an unknown field" "--format: unknown field '\\{nope\\}'" ls --format '{nope}'
bad "ls --format with an open brace" "--format: '\\{' without '\\}'" ls --format '{id'
bad "ls --format ''" "^gq ls: --format: empty template" ls --format ''
bad "ls --json with --format" "--json and --format do not go together" ls --json --format '{id}'
bad "ls with an operand" "unexpected '42'" ls 42
bad "events --after x" "--after: 'x' is not an event sequence number" events --after x
bad "events --job x" "'x' is not a job id" events --job x
bad "events with an operand" "unexpected '3'" events 3
bad "clock with a bad duration" "bad duration '5y'" clock +5y
bad "clock +0" "a duration of 0 moves nothing" clock +0
bad "clock -5m: the clock never goes back" "'-5m' would move the clock back" clock -5m
bad "clock --set garbage" "--set: bad time 'soon'" clock --set soon
bad "clock with a duration and --set" "either a duration or --set" clock +1h --set 2030-01-01
bad "help of an unknown command" "'nope' is not a gq command" help nope
bad "version with an operand" "unknown argument 'x'" version x
bad "shell with an operand" "takes no arguments" shell x
bad "stats with an operand" "unexpected 'x'" stats x
bad "nodes with an operand" "unexpected 'x'" nodes x

# Configuration errors are exit 2 with the source named.
GQ_SERVER=ftp://x bad "GQ_SERVER with a bad scheme" "environment variable GQ_SERVER: bad server address 'ftp://x'" cancel 1
GQ_SERVER= GQ_TIER=P7 bad "GQ_TIER bad" "environment variable GQ_TIER: bad tier 'P7'" submit -- true
mkdir -p "$XDG_CONFIG_HOME/gq"
printf '[gq]\n\tserver = unix:/x\n\tcolour = yes\n' >"$XDG_CONFIG_HOME/gq/config"
GQ_SERVER= bad "an unknown key in the config file" "config file '.*': unknown key 'gq.colour'" cancel 1
printf '[gq\n\tserver = unix:/x\n' >"$XDG_CONFIG_HOME/gq/config"
GQ_SERVER= bad "a config file that does not parse" "config file '.*/gq/config': .*missing '\\]'.*config:1" cancel 1
# A binary file is refused, not read as an empty one: NUL bytes, control
# characters (git's parser stops at a NUL and says nothing).
head -c 100 /dev/zero >"$XDG_CONFIG_HOME/gq/config"
GQ_SERVER= bad "a config file of NUL bytes" "^gq: config file '$XDG_CONFIG_HOME/gq/config': not a text file \(byte 1 is 0x00\); fix or remove it\$" cancel 1
printf '[gq]\n\tserver = unix:/x\0garbage\n' >"$XDG_CONFIG_HOME/gq/config"
GQ_SERVER= bad "a NUL byte in a value" "config file '.*/gq/config': not a text file \(byte 23 is 0x00\)" cancel 1
printf '[gq]\n\ttier = P1\n\033[2J\n' >"$XDG_CONFIG_HOME/gq/config"
GQ_SERVER= bad "a control character" "config file '.*/gq/config': not a text file \(byte 17 is 0x1b\)" cancel 1
rm -f "$XDG_CONFIG_HOME/gq/config"
finish
