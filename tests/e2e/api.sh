# tests/e2e/api.sh - sourced by the t1x scripts after lib.sh: talk to the
# server's API with curl over its unix socket.
#   api METHOD PATH [BODY]          prints the answer's body
#   api_code METHOD PATH [BODY]     prints "STATUS BODY"
#   state ID                        the job's state through the API (lib.sh's
#                                   wait_state polls it)
api() {
	if [ $# -ge 3 ]; then
		curl -s --unix-socket "$SERVER_SOCK" -X "$1" --data-binary "$3" "http://gq$2"
	else
		curl -s --unix-socket "$SERVER_SOCK" -X "$1" "http://gq$2"
	fi
}
api_code() {
	if [ $# -ge 3 ]; then
		curl -s -w ' %{http_code}' --unix-socket "$SERVER_SOCK" -X "$1" --data-binary "$3" \
			"http://gq$2" | sed 's/^\(.*\) \([0-9]*\)$/\2 \1/'
	else
		curl -s -w ' %{http_code}' --unix-socket "$SERVER_SOCK" -X "$1" "http://gq$2" |
			sed 's/^\(.*\) \([0-9]*\)$/\2 \1/'
	fi
}
state() { api GET "/v1/jobs/$1" | jq -r .state; }
