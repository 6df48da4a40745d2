# fish completion for gq - commands, flags, tiers, states, queues and live
# job ids, from `gq __complete` (flags from the man pages built into gq).
function __gq_args
	set -l toks (commandline -opc)
	set -l gq $toks[1]
	set -l cmd $toks[2]
	set -l prev $toks[-1]
	set -l cur (commandline -ct)
	switch $prev
		case --tier
			$gq __complete tiers 2>/dev/null; return
		case --queue
			$gq __complete queues 2>/dev/null; return
		case --state
			$gq __complete states 2>/dev/null; return
		case --by
			echo user; echo dept; return
		case --notify
			printf '%s\n' start end fail requeue start,end,fail all none; return
		case --after --dependency --job
			$gq __complete jobs 2>/dev/null; return
		case --trace --policy --against --output --error
			__fish_complete_path $cur; return
		case --gpus --gpu-type --gpu-mem --cpus --mem --name --time-limit --estimate --array --begin --reservation --signal --reason --priority --format --user --set --repo -m --message --expected --observe --rollback-if --window --applied --namespace --since --until -n --nodes --gpus-per-node
			return
	end
	if string match -q -- '-*' $cur
		$gq __complete flags $cmd 2>/dev/null
		return
	end
	switch $cmd
		case policy
			if test (count $toks) -eq 2
				$gq __complete subcommands policy 2>/dev/null
			else if test "$prev" = blame
				$gq __complete policy-keys 2>/dev/null
			else if test "$prev" = export
				echo slurm
				echo kueue
			else if test "$toks[3]" = check
				__fish_complete_path $cur
			end
		case help
			$gq __complete commands 2>/dev/null
		case submit run
			__fish_complete_path $cur
		case ls stats history sim reclaim nodes clock shell version events
		case prio
			if string match -qr '^#?[0-9]+$' -- $prev; and test "$toks[-2]" != --priority
				$gq __complete tiers 2>/dev/null
			else
				$gq __complete jobs 2>/dev/null
			end
		case '*'
			$gq __complete jobs 2>/dev/null
	end
end
complete -c gq -f
complete -c gq -n __fish_use_subcommand -a '(gq __complete commands 2>/dev/null)'
complete -c gq -n 'not __fish_use_subcommand' -a '(__gq_args)'
