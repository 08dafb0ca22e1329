# shellcheck shell=bash
# How to start each contestant of bench/e2e/hello.sh, pinned to SERVER_CPU.
#
# start_NAME PORT DIR starts one server in the background, listening on 127.0.0.1:PORT and keeping
# its config and logs in DIR, and sets SERVER_PID. It runs in the calling shell (never inside
# $(...)) so that the server stays our child: stop_pid can then reap it, and /proc sees its tree
# under that PID. `taskset` execs the server, so $! is the server itself.
# Needs E2E_DIR, SERVER_CPU and RINGSIDE_BIN (and HYPER_BIN for hyper).

SERVER_PID=""

start_ringside() {
  local port=$1 dir=$2
  # --db none: a hello-world run opens no database (and creates no ./ringside.db).
  taskset -c "$SERVER_CPU" "$RINGSIDE_BIN" serve --host 127.0.0.1 --port "$port" --threads 1 --db none \
    >"$dir/stdout.log" 2>"$dir/stderr.log" &
  SERVER_PID=$!
}

start_nginx() {
  local port=$1 dir=$2
  sed -e "s|@PREFIX@|$dir|g" -e "s|@PORT@|$port|g" \
    "$E2E_DIR/contestants/nginx.conf.template" >"$dir/nginx.conf"
  # -e: keep start-up errors out of the system log directory, which we may not be able to write.
  taskset -c "$SERVER_CPU" nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" \
    >"$dir/stdout.log" 2>"$dir/stderr.log" &
  SERVER_PID=$!
}

start_node() {
  local port=$1 dir=$2
  taskset -c "$SERVER_CPU" node "$E2E_DIR/contestants/node_http.js" "$port" \
    >"$dir/stdout.log" 2>"$dir/stderr.log" &
  SERVER_PID=$!
}

# The floor (contestants/floor.c): a bare epoll loop that counts request ends and sends canned
# responses, the yardstick for CPU per request. Compiled per run; it takes a second at most.
start_floor() {
  local port=$1 dir=$2
  cc -O2 -o "$dir/floor" "$E2E_DIR/contestants/floor.c" 2>"$dir/stderr.log" || return 0
  taskset -c "$SERVER_CPU" "$dir/floor" "$port" >"$dir/stdout.log" 2>>"$dir/stderr.log" &
  SERVER_PID=$!
}

# The hyper binary comes from elsewhere; its contract: `$HYPER_BIN --port PORT` (PORT is also in
# the environment) serves the same hello bodies on 127.0.0.1 on a single-threaded runtime.
start_hyper() {
  local port=$1 dir=$2
  PORT=$port taskset -c "$SERVER_CPU" "$HYPER_BIN" --port "$port" \
    >"$dir/stdout.log" 2>"$dir/stderr.log" &
  SERVER_PID=$!
}

# The scratch directory goes when the script exits, so print what the server said first.
show_server_logs() {
  local log_file
  for log_file in "$1"/stderr.log "$1"/error.log; do
    [[ -s $log_file ]] || continue
    log "last lines of ${log_file##*/}:"
    tail -n 20 "$log_file" >&2
  done
}

# start_contestant NAME PORT DIR: start it and wait until it answers; on failure say why.
start_contestant() {
  local name=$1 port=$2 dir=$3
  mkdir -p "$dir"
  "start_$name" "$port" "$dir"
  track_pid "$SERVER_PID"
  if ! wait_ready "$SERVER_PID" "http://127.0.0.1:$port/" 10; then
    show_server_logs "$dir"
    is_running "$SERVER_PID" || die "$name exited before it answered on port $port"
    die "$name did not answer on port $port within 10 s"
  fi
}
