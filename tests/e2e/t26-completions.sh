#!/bin/bash
# t26-completions: the bash, zsh and fish completions load without error
# and complete commands, flags, tiers and a live job id from a real server.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$T_SRC/../.." && pwd)
server_start --gpus 4
"$GQ" submit --hold --name waiting -- true >/dev/null # job 1, stays pending
mkdir -p "$T_DIR/bin"
ln -s "$GQ" "$T_DIR/bin/gq"
export PATH="$T_DIR/bin:$PATH"

# bash: source it and call the completion function as readline would.
bc() { # words... (the last one is being completed)
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gq; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$ROOT/completions/gq.bash" "$@"
}
check_eq "bash: loads without output or error" "$(bash -c "source '$ROOT/completions/gq.bash'; complete -p gq" 2>&1)" "complete -F _gq gq"
check_eq "bash: commands" "$(bc gq ca | tr '\n' ' ')" "cancel "
check_eq "bash: a live job id" "$(bc gq cancel '')" "1"
check_eq "bash: flags" "$(bc gq logs -- | tr '\n' ' ')" "--follow --stderr "
check_eq "bash: tiers after --tier" "$(bc gq submit --tier '' | tr '\n' ' ')" "P0 P1 P2 "
check_eq "bash: queues after --queue" "$(bc gq submit --queue '')" "default"
check_eq "bash: states after --state" "$(bc gq ls --state ru)" "running"
check_eq "bash: a tier after prio JOB" "$(bc gq prio 1 P | tr '\n' ' ')" "P0 P1 P2 "
check_eq "bash: a job after prio --priority N" "$(bc gq prio --priority 5 '')" "1"
check_eq "bash: export formats" "$(bc gq policy export '' | tr '\n' ' ')" "slurm kueue "

# zsh: autoload it from fpath under compinit, then drive _gq with compadd
# replaced by a recorder.
zc() {
	zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit && compinit -u -d "$2/zcompdump" || exit 1
		compadd() { local a; for a; do :; done; print -l -- ${(P)a}; }
		_files() { :; }
		shift 2; words=("$@"); CURRENT=$#; autoload -Uz _gq; _gq' _ "$ROOT/completions" "$T_DIR" "$@"
}
check_eq "zsh: compinit finds _gq without error" "$(zsh -f -c "fpath=('$ROOT/completions' \$fpath); autoload -Uz compinit && compinit -u -d '$T_DIR/zd'; print \$_comps[gq]" 2>&1)" "_gq"
check_eq "zsh: commands" "$(zc gq '' | grep -c .)" "$("$GQ" __complete commands | grep -c .)"
check_eq "zsh: a live job id" "$(zc gq hold '')" "1"
check_eq "zsh: flags" "$(zc gq logs - | tr '\n' ' ')" "-f --follow --stderr "
check_eq "zsh: a job after prio --priority N" "$(zc gq prio --priority 5 '')" "1"
check_eq "zsh: tiers after --tier" "$(zc gq submit --tier '' | tr '\n' ' ')" "P0 P1 P2 "
check_eq "zsh: export formats" "$(zc gq policy export '' | tr '\n' ' ')" "slurm kueue "

# fish: its own completer.
check_eq "fish: loads without error" "$(fish -N -c "source '$ROOT/completions/gq.fish'" 2>&1)" ""
fc() { fish -N -c "source '$ROOT/completions/gq.fish'; complete -C '$1'" | cut -f1; }
check_eq "fish: commands" "$(fc 'gq canc')" "cancel"
check_eq "fish: a live job id" "$(fc 'gq release ')" "1"
check_eq "fish: flags" "$(fc 'gq logs --' | tr '\n' ' ')" "--follow --stderr "
check_eq "fish: a job after prio --priority N" "$(fc 'gq prio --priority 5 ')" "1"
check_eq "fish: tiers after --tier" "$(fc 'gq submit --tier ' | tr '\n' ' ')" "P0 P1 P2 "
check_eq "fish: export formats" "$(fc 'gq policy export ' | sort | tr '\n' ' ')" "kueue slurm "
finish
