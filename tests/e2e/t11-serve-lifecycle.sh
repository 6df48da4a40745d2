#!/bin/bash
# t11: cancel (pending, running, past the grace period), hold and release,
# requeue, time limits, checkpoints, overrides and confirmations, each with
# the right state, exit status, event and 409 when the state is wrong. Time
# comes from the manual clock.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/api.sh"
server_start --gpus 2

# Cancel a pending (held) job.
check_eq "submit held" "$(api POST /v1/jobs '{"argv":["true"],"held":true}' | jq -c '[.id, .job.held, .job.held_by]')" '[1,true,"root"]'
check_eq "cancel a pending job" "$(api POST /v1/jobs/1/cancel | jq -c '[.state, .exit_status]')" '["cancelled",-1]'
check_eq "cancel it again: 409" "$(api_code POST /v1/jobs/1/cancel | cut -c1-3)" 409
check_eq "the message says why" "$(api POST /v1/jobs/1/cancel | jq -r .error.message)" "job '1' is already cancelled; nothing to cancel"

# Cancel a running job: SIGTERM to its process group.
api POST /v1/jobs '{"argv":["sleep","1000"]}' >/dev/null
check "job 2 runs" wait_state 2 running
check_eq "hold a running job: 409" "$(api_code POST /v1/jobs/2/hold | cut -c1-3)" 409
check_eq "cancel a running job: stopping" "$(api POST /v1/jobs/2/cancel | jq -r .state)" stopping
check "it ends cancelled" wait_state 2 cancelled
check_eq "killed by SIGTERM: 143" "$(api GET /v1/jobs/2 | jq .exit_status)" 143

# A job that ignores SIGTERM is killed once the grace period (300 s) is over.
api POST /v1/jobs '{"argv":["sh","-c","trap \"\" TERM; echo up; sleep 1000"]}' >/dev/null
check "job 3 runs" wait_state 3 running
api POST /v1/jobs/3/cancel >/dev/null
check_eq "still stopping within the grace period" "$(sleep 0.3; api GET /v1/jobs/3 | jq -r .state)" stopping
api POST /v1/clock '{"advance":299}' >/dev/null
check_eq "still stopping at 299 s" "$(sleep 0.3; api GET /v1/jobs/3 | jq -r .state)" stopping
api POST /v1/clock '{"advance":2}' >/dev/null
check "SIGKILL after 300 s: cancelled" wait_state 3 cancelled
check_eq "killed by SIGKILL: 137" "$(api GET /v1/jobs/3 | jq .exit_status)" 137

# Hold and release.
api POST /v1/jobs '{"argv":["true"],"held":true,"name":"h"}' >/dev/null
check_eq "release a held job" "$(api POST /v1/jobs/4/release | jq -c '[.held, .held_by]')" '[false,""]'
check "the released job runs and completes" wait_state 4 completed
check_eq "release a job that is not held: 409" "$(api_code POST /v1/jobs/4/release | cut -c1-3)" 409
api POST /v1/jobs '{"argv":["true"],"held":true}' >/dev/null
check_eq "hold a held job: 409" "$(api POST /v1/jobs/5/hold | jq -r .error.message)" "job '5' is already held by 'root'"
api POST /v1/jobs/5/release >/dev/null
check "job 5 completes" wait_state 5 completed
api POST /v1/jobs '{"argv":["sleep","1000"],"held":false,"req":{"gpus":2}}' >/dev/null
check "job 6 holds both GPUs" wait_state 6 running
api POST /v1/jobs '{"argv":["true"]}' >/dev/null
check_eq "hold a pending job" "$(api POST /v1/jobs/7/hold | jq -c '[.state, .held]')" '["pending",true]'

# Requeue a running job: stopped, pending again with restarts + 1, started
# again with GQ_RESTART_COUNT=1.
api POST /v1/jobs/6/cancel >/dev/null
check "job 6 cancelled" wait_state 6 cancelled
api POST /v1/jobs/7/cancel >/dev/null
api POST /v1/jobs '{"argv":["sh","-c","echo restart=$GQ_RESTART_COUNT; exec sleep 1000"]}' >/dev/null
check "job 8 runs" wait_state 8 running
check_eq "requeue a running job" "$(api POST /v1/jobs/8/requeue | jq -r .state)" stopping
for _ in $(seq 1 100); do [ "$(api GET /v1/jobs/8 | jq .restarts)" = 1 ] && break; sleep 0.05; done
check "it runs again" wait_state 8 running
check_eq "restarted once" "$(api GET /v1/jobs/8 | jq .restarts)" 1
for _ in $(seq 1 100); do [ "$(api GET /v1/jobs/8/logs | wc -l)" = 2 ] && break; sleep 0.05; done
check_eq "GQ_RESTART_COUNT in both runs" "$(api GET /v1/jobs/8/logs)" "restart=0
restart=1"

# Checkpoints.
now=$(api GET /v1/ping | jq .now)
check_eq "a running job reports a checkpoint" "$(api POST /v1/jobs/8/checkpoint | jq ".last_checkpoint == $now")" true
check_eq "a finished job cannot: 409" "$(api_code POST /v1/jobs/1/checkpoint | cut -c1-3)" 409
api POST /v1/jobs/8/cancel >/dev/null
check "job 8 cancelled" wait_state 8 cancelled

# Time limits: killed at start + limit by the server's clock.
api POST /v1/jobs '{"argv":["sleep","1000"],"time_limit":60}' >/dev/null
check "job 9 runs" wait_state 9 running
api POST /v1/clock '{"advance":59}' >/dev/null
check_eq "running at 59 s" "$(sleep 0.3; api GET /v1/jobs/9 | jq -r .state)" running
api POST /v1/clock '{"advance":1}' >/dev/null
check "timeout at 60 s" wait_state 9 timeout
check_eq "time-limit event" "$(api GET '/v1/events?after=0&limit=10000' | jq -r '.events[] | select(.job == 9 and .to == "stopping") | .reason')" "time limit reached"

# Overrides (admin) and confirmations.
api POST /v1/jobs '{"argv":["true"],"held":true,"tier":"P0"}' >/dev/null
check_eq "override to P2" "$(api POST /v1/jobs/10/override '{"tier":"P2","reason":"not urgent"}' | jq -c '[.override.tier, .override.actor, .override.reason, .tier]')" '["P2","admin:root","not urgent","P0"]'
check_eq "an override needs a reason" "$(api POST /v1/jobs/10/override '{"tier":"P1"}' | jq -r .error.message)" "an override needs a reason ('reason' field)"
check_eq "clear it" "$(api POST /v1/jobs/10/override '{"clear":true,"reason":"back"}' | jq -c .override)" null
check_eq "confirm a pending P0 job" "$(api POST /v1/jobs/10/confirm | jq ".confirmed_at == $(api GET /v1/ping | jq .now)")" true
check_eq "confirm a P1 job: 409" "$(api_code POST /v1/jobs/7/confirm | cut -c1-3)" 409
check_eq "override events" "$(api GET '/v1/events?after=0&limit=10000' | jq -r '.events[] | select(.job == 10 and .kind != "submit") | "\(.kind) \(.reason) \(.actor)"')" "override P2: not urgent root
override cleared: back root
confirm P0 confirmed root"

# The clock: forward only, admin only, manual only.
check_eq "the clock does not go back" "$(api_code POST /v1/clock '{"advance":-5}' | cut -c1-3)" 400
t=$(api GET /v1/ping | jq .now)
check_eq "set the clock" "$(api POST /v1/clock "{\"set\":$((t + 3600))}" | jq .now)" $((t + 3600))
finish
