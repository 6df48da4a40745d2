#!/bin/bash
# t15: bad requests get the right 4xx and a one-line message that says what
# is wrong: malformed JSON, unknown fields, wrong types, huge bodies, bad job
# ids, wrong methods, unknown endpoints, bad query parameters.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/api.sh"
server_start --gpus 2

err() { # METHOD PATH [BODY] -> "STATUS CODE MESSAGE"
	api_code "$@" | { read -r st body; echo "$st $(echo "$body" | jq -r '.error.code + " " + .error.message')"; }
}
check_eq "malformed JSON" "$(err POST /v1/jobs '{"argv": ["x"')" \
	"400 invalid malformed JSON at line 1, column 13: ']' expected near end of file"
check_eq "an empty body" "$(err POST /v1/jobs '')" "400 invalid malformed JSON: the body is empty"
check_eq "not an object" "$(err POST /v1/jobs '[1,2]')" "400 invalid the body must be a JSON object"
check_eq "an unknown field" "$(err POST /v1/jobs '{"argv":["x"],"colour":"red"}')" \
	"400 invalid submission: unknown field 'colour'"
check_eq "a server-owned field" "$(err POST /v1/jobs '{"argv":["x"],"state":"running"}')" \
	"400 invalid submission: unknown field 'state'"
check_eq "a wrong type" "$(err POST /v1/jobs '{"argv":["x"],"req":{"gpus":"two"}}')" \
	"400 invalid submission.req.gpus: expected an integer, got a string"
check_eq "a duplicate key" "$(err POST /v1/jobs '{"argv":["x"],"argv":["y"]}' | cut -c1-40)" \
	"400 invalid malformed JSON at line 1, co"
check_eq "nothing to run" "$(err POST /v1/jobs '{"name":"x"}')" \
	"400 invalid submission: nothing to run; give 'argv' or 'script'"
check_eq "negative GPUs" "$(err POST /v1/jobs '{"argv":["x"],"req":{"gpus":-1}}')" \
	"400 invalid req.gpus: -1 is out of range (0..262144)"
check_eq "an unknown queue" "$(err POST /v1/jobs '{"argv":["x"],"queue":"nope"}')" \
	"400 invalid unknown queue 'nope'; the queues are: default"
check_eq "an unknown tier" "$(err POST /v1/jobs '{"argv":["x"],"tier":"P9"}')" \
	"400 invalid submission.tier: unknown tier 'P9'; use P0, P1 or P2"
check_eq "a missing dependency" "$(err POST /v1/jobs '{"argv":["x"],"deps":[42]}')" \
	"400 invalid dependency '42' does not exist; see 'gq ls --all'"
check_eq "a relative working directory" "$(err POST /v1/jobs '{"argv":["x"],"cwd":"tmp"}')" \
	"400 invalid working directory 'tmp' is not an absolute path"
check_eq "a bad job name" "$(err POST /v1/jobs '{"argv":["x"],"name":"a\nb"}')" \
	"400 invalid job name 'a\\nb' has a control character; give a name without one"
check_eq "a bad Idempotency-Key" \
	"$(curl -s -w ' %{http_code}' --unix-socket "$SERVER_SOCK" -H 'Idempotency-Key: a b' -d '{"argv":["x"]}' http://gq/v1/jobs | sed 's/^\(.*\) \([0-9]*\)$/\2 \1/' | { read -r st b; echo "$st $(echo "$b" | jq -r .error.message)"; })" \
	"400 Idempotency-Key must be 1-128 printable characters without spaces"

head -c 5000000 /dev/zero | tr '\0' 'a' >"$T_DIR/huge"
st=$(curl -s -o "$T_DIR/huge.out" -w '%{http_code}' --unix-socket "$SERVER_SOCK" -X POST --data-binary @"$T_DIR/huge" http://gq/v1/jobs)
check_eq "a huge body: 413" "$st $(jq -r '.error.code + " " + .error.message' "$T_DIR/huge.out")" \
	"413 too_big the request body is over the limit of 4194304 bytes"
st=$(head -c 5000000 /dev/zero | curl -s -o "$T_DIR/huge.out" -w '%{http_code}' --unix-socket "$SERVER_SOCK" -X POST -H 'Transfer-Encoding: chunked' --data-binary @- http://gq/v1/jobs)
check_eq "a huge chunked body (no length announced): 413" "$st $(jq -r .error.code "$T_DIR/huge.out")" "413 too_big"

check_eq "a job id that is not a number" "$(err GET /v1/jobs/abc)" \
	"400 invalid bad job id 'abc': expected a positive integer"
check_eq "job id 0" "$(err GET /v1/jobs/0)" "400 invalid bad job id '0': expected a positive integer"
check_eq "a negative job id" "$(err POST /v1/jobs/-3/cancel)" \
	"400 invalid bad job id '-3': expected a positive integer"
check_eq "an id too big" "$(err GET /v1/jobs/99999999999999999999)" \
	"400 invalid bad job id '99999999999999999999': expected a positive integer"
check_eq "no such job" "$(err GET /v1/jobs/42)" "404 not_found no job '42'; see 'gq ls --all'"
check_eq "cancel no such job" "$(err POST /v1/jobs/42/cancel)" "404 not_found no job '42'; see 'gq ls --all'"
check_eq "a body on an action" "$(api POST /v1/jobs '{"argv":["true"],"held":true}' >/dev/null; err POST /v1/jobs/1/hold '{"why":1}')" \
	"400 invalid hold: unknown field 'why'"

check_eq "a wrong method" "$(err DELETE /v1/jobs/1)" "405 invalid method DELETE is not allowed on '/v1/jobs/1'; use GET"
check_eq "an action with GET" "$(err GET /v1/jobs/1/cancel)" \
	"405 invalid method GET is not allowed on '/v1/jobs/1/cancel'; use POST"
hdr=$(curl -s -D - -o /dev/null --unix-socket "$SERVER_SOCK" -X PUT http://gq/v1/jobs | tr -d '\r' | grep '^Allow:')
check_eq "405 says what is allowed" "$hdr" "Allow: GET, POST"
check_eq "an unknown endpoint" "$(err GET /v1/nope)" "404 not_found no endpoint 'GET /v1/nope'; see gq-api(7)"
check_eq "an unknown action" "$(err POST /v1/jobs/1/explode)" \
	"404 not_found no endpoint 'POST /v1/jobs/1/explode'; see gq-api(7)"
check_eq "outside /v1" "$(err GET /)" "404 not_found no endpoint '/'; the API lives under /v1/ (see gq-api(7))"
check_match "a bad query parameter" "$(err GET '/v1/events?after=x')" \
	"^400 invalid query parameter 'after': .*'x'"
check_match "a time past any gq keeps" "$(err GET '/v1/stats?to=9223372036854775807')" \
	"^400 invalid query parameter 'to': .*out of range"
check_match "the start of the window too" "$(err GET '/v1/stats?from=9223372036854775807')" \
	"^400 invalid query parameter 'from': .*out of range"
# A NUL is in no path: %00 must not end one early and route what is before.
check_eq "a %00 in the path is not routed" "$(err GET '/v1/ping%00')" \
	"404 not_found no endpoint 'GET /v1/ping%00'; see gq-api(7)"
check_eq "nor is it cut off a job id" "$(err GET '/v1/jobs/1%00')" \
	"400 invalid bad job id '1%00': expected a positive integer"
check_match "a %00 in a query value is no number" "$(err GET '/v1/events?after=1%00')" \
	"^400 invalid query parameter 'after': .*'1%00'"
check_match "a bad state filter" "$(err GET '/v1/jobs?state=sleeping')" \
	"^400 invalid unknown job state 'sleeping' in 'state'; use pending, "
check_eq "a bad log stream" "$(err GET '/v1/jobs/1/logs?stream=stdin')" \
	"400 invalid unknown log stream 'stdin'; use stdout or stderr"
check_eq "a bad override" "$(err POST /v1/jobs/1/override '{"tier":"P5","reason":"x"}')" \
	"400 invalid override.tier: expected P0, P1 or P2"
check_eq "a bad clock body" "$(err POST /v1/clock '{"advance":"5h"}')" \
	"400 invalid clock: 'advance' must be an integer number of seconds"
check_eq "the server is still fine" "$(api GET /v1/ping | jq .ok)" true
finish
