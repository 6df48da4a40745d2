# bash completion for gq - commands, flags, tiers, states, queues and live
# job ids. The words come from `gq __complete` (flags from the man pages
# built into gq), so this file never needs to change when gq does.
_gq()
{
	local gq=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=""
	local cmd=${COMP_WORDS[1]:-}
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W "$("$gq" __complete commands 2>/dev/null)" -- "$cur"))
		return
	fi
	case $prev in
	--tier) COMPREPLY=($(compgen -W "$("$gq" __complete tiers 2>/dev/null)" -- "$cur")); return ;;
	--queue) COMPREPLY=($(compgen -W "$("$gq" __complete queues 2>/dev/null)" -- "$cur")); return ;;
	--state) COMPREPLY=($(compgen -W "$("$gq" __complete states 2>/dev/null)" -- "$cur")); return ;;
	--after | --dependency | --job) COMPREPLY=($(compgen -W "$("$gq" __complete jobs 2>/dev/null)" -- "$cur")); return ;;
	--trace | --policy | --against | --output | --error) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--gpus | --gpu-type | --gpu-mem | --cpus | --mem | --name | --time-limit | --estimate | --array | --begin | --reservation | --signal | \
		--reason | --priority | --format | --user | --set | --repo | -m | --message | --expected | --observe | \
		--rollback-if | --window | --applied | --namespace | --since | --until | -n | --nodes | --gpus-per-node) return ;;
	--by) COMPREPLY=($(compgen -W "user dept" -- "$cur")); return ;;
	--notify) COMPREPLY=($(compgen -W "start end fail requeue start,end,fail all none" -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$("$gq" __complete flags "$cmd" 2>/dev/null)" -- "$cur"))
		return
	fi
	case $cmd in
	policy)
		if ((COMP_CWORD == 2)); then
			COMPREPLY=($(compgen -W "$("$gq" __complete subcommands policy 2>/dev/null)" -- "$cur"))
		elif [[ $prev == blame ]]; then
			COMPREPLY=($(compgen -W "$("$gq" __complete policy-keys 2>/dev/null)" -- "$cur"))
		elif [[ $prev == export ]]; then
			COMPREPLY=($(compgen -W "slurm kueue" -- "$cur"))
		elif [[ ${COMP_WORDS[2]} == check ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		;;
	help) COMPREPLY=($(compgen -W "$("$gq" __complete commands 2>/dev/null)" -- "$cur")) ;;
	submit | run) COMPREPLY=($(compgen -f -- "$cur")) ;;
	ls | stats | history | sim | reclaim | nodes | clock | shell | version | events) ;;
	prio)
		if [[ $prev =~ ^#?[0-9]+$ && ${COMP_WORDS[COMP_CWORD - 2]} != --priority ]]; then
			COMPREPLY=($(compgen -W "$("$gq" __complete tiers 2>/dev/null)" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$gq" __complete jobs 2>/dev/null)" -- "$cur"))
		fi
		;;
	*) COMPREPLY=($(compgen -W "$("$gq" __complete jobs 2>/dev/null)" -- "$cur")) ;;
	esac
}
complete -F _gq gq
