#!/usr/bin/env bash
# End-to-end hello-world benchmark: ringside against nginx (the peer every ratio is taken
# against), node:http and, when given, Rust hyper. A benchmark, not a test: it passes whatever the
# numbers are, and prints them next to a peer measured in the same run. Run it with --help.
set -euo pipefail

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib/run.sh
source "$E2E_DIR/lib/run.sh"
# shellcheck source=SCRIPTDIR/lib/contestants.sh
source "$E2E_DIR/lib/contestants.sh"

PIPELINE_CONNECTIONS=100
PIPELINE_DEPTH=16
BIG_CONNECTIONS=10000
FD_LIMIT=20000   # the 10k run needs 10,000 sockets in wrk and in each server, plus slack

usage() {
  cat <<EOF
usage: bench/e2e/hello.sh [--markdown FILE] [--with-10k | --no-10k] [--help]

Hello-world HTTP benchmark of ringside against nginx, node:http, the floor (a bare epoll loop,
contestants/floor.c) and (if HYPER_BIN is set) hyper.
Each server runs on core SERVER_CPU, wrk -t1 on core CLIENT_CPU. For every connection count,
ROUNDS rounds interleave the contestants; each run starts a fresh server, records its idle RSS,
warms it up for WARMUP, then measures for DURATION: req/s, p50/p99 latency, errors, server CPU
seconds per 100k requests, peak RSS. Then a pipelined run (c=$PIPELINE_CONNECTIONS, depth $PIPELINE_DEPTH, /plaintext) and,
unless skipped, a c=$BIG_CONNECTIONS run for peak RSS. Prints median tables with ratios to nginx
and writes them as Markdown.

options:
  --markdown FILE   where to write the Markdown report (default: results/hello-<date>.md in the
                    repo; the raw per-run data goes next to it as .tsv)
  --with-10k        run the $BIG_CONNECTIONS-connection peak-RSS round; on by default, and this flag
                    keeps it on under QUICK=1
  --no-10k          skip it
  -h, --help        this text

environment (defaults in brackets):
  CONNECTIONS   connection counts to measure ["10 100 300 1000"]
  ROUNDS        rounds per connection count; tables show the median [3]
  DURATION      length of each measured run, wrk syntax [8s]
  WARMUP        warm-up before each measured run [2s]
  QUICK         1 skips the $BIG_CONNECTIONS-connection run unless --with-10k is given [0]
  BIG_DURATION  length of the $BIG_CONNECTIONS-connection run; one wrk thread needs over a second
                just to open the connections [10s]
  RINGSIDE_BIN  ringside binary [build/release/apps/ringside]
  HYPER_BIN     hyper hello server; run as '\$HYPER_BIN --port PORT' (PORT also in the
                environment), must serve / and /plaintext like the others. Unset: hyper is left out.
  SERVER_CPU    core for the servers [0]
  CLIENT_CPU    core for wrk and the measuring helpers [1]

example (about a minute):
  ROUNDS=1 DURATION=2 CONNECTIONS="10 100" QUICK=1 bench/e2e/hello.sh
EOF
}

# ---------------------------------------------------------------------------------------------
# configuration

# The environment variables that shape a run, for the command line in the report's header.
COMMAND_LINE_VARS=(CONNECTIONS ROUNDS DURATION WARMUP BIG_DURATION QUICK RINGSIDE_BIN HYPER_BIN
  SERVER_CPU CLIENT_CPU)

# The flags beyond parse_flags' own.
script_flag() {
  case $1 in
    --with-10k) WITH_10K=1 ;;
    --no-10k) WITH_10K=0 ;;
    *) return 1 ;;
  esac
}

parse_args() {
  WITH_10K=""
  parse_flags "$@"
  CONNECTIONS=${CONNECTIONS:-10 100 300 1000}
  ROUNDS=${ROUNDS:-3}
  DURATION=$(with_seconds "${DURATION:-8s}")
  WARMUP=$(with_seconds "${WARMUP:-2s}")
  BIG_DURATION=$(with_seconds "${BIG_DURATION:-10s}")
  QUICK=${QUICK:-0}
  RINGSIDE_BIN=${RINGSIDE_BIN:-$REPO_ROOT/build/release/apps/ringside}
  HYPER_BIN=${HYPER_BIN:-}
  SERVER_CPU=${SERVER_CPU:-0}
  CLIENT_CPU=${CLIENT_CPU:-1}
  # An explicit flag wins over QUICK; otherwise QUICK=1 is what turns the 10k run off.
  if [[ -z $WITH_10K ]]; then
    if [[ $QUICK == 1 ]]; then WITH_10K=0; else WITH_10K=1; fi
  fi
  report_paths hello
}

# wrk takes "8" as seconds too, but the report reads better with the unit spelled out.
with_seconds() {
  if [[ $1 =~ ^[0-9]+$ ]]; then echo "${1}s"; else echo "$1"; fi
}

validate_config() {
  [[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$ROUNDS'"
  [[ -n $(seconds_of "$DURATION") ]] || die "DURATION must look like 8, 8s, 2m or 1h, not '$DURATION'"
  [[ -n $(seconds_of "$WARMUP") ]] || die "WARMUP must look like 2, 2s, 1m, not '$WARMUP'"
  [[ -n $(seconds_of "$BIG_DURATION") ]] ||
    die "BIG_DURATION must look like 10, 10s, 1m, not '$BIG_DURATION'"
  local c
  for c in $CONNECTIONS; do
    [[ $c =~ ^[1-9][0-9]*$ ]] || die "CONNECTIONS must be positive integers, not '$c'"
  done
  [[ -n ${CONNECTIONS// /} ]] || die "CONNECTIONS is empty"
  validate_cores
}

check_tools() {
  require_tool wrk "install it (apt-get install wrk) or run scripts/setup"
  require_tool nginx "run scripts/setup (or apt-get install nginx-light)"
  require_tool cc "run scripts/setup (or apt-get install gcc)"
  require_tool node "install Node.js 20 (run scripts/setup)"
  require_run_tools
  [[ -x $RINGSIDE_BIN ]] || die "ringside binary not found at $RINGSIDE_BIN: build it with" \
    "'cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build/release'" \
    "or point RINGSIDE_BIN at one"
  if [[ -n $HYPER_BIN && ! -x $HYPER_BIN ]]; then
    die "HYPER_BIN=$HYPER_BIN is not an executable file"
  fi
}

# Only the 10k run truly needs FD_LIMIT, so only then is failing to reach it fatal.
raise_fd_limit_for_runs() {
  if ((WITH_10K)); then
    raise_fd_limit "$FD_LIMIT" "raise the hard limit or skip the 10k run with --no-10k"
  else
    raise_fd_limit "$FD_LIMIT"
  fi
}

contestant_list() {
  CONTESTANTS=(ringside nginx node floor)
  if [[ -n $HYPER_BIN ]]; then CONTESTANTS+=(hyper); fi
}

# ---------------------------------------------------------------------------------------------
# one run

RUN_NUMBER=0

# wrk_run SCENARIO CONNS PORT DURATION OUTPUT: the load itself, pinned to the client core.
wrk_run() {
  local scenario=$1 conns=$2 port=$3 duration=$4 output=$5
  local args=(-t1 "-c$conns" "-d$duration" --latency) url=http://127.0.0.1:$port/ script_args=()
  if [[ $scenario == pipeline ]]; then
    args+=(-s "$E2E_DIR/pipeline.lua")
    url=http://127.0.0.1:$port/plaintext
    script_args=(-- /plaintext "$PIPELINE_DEPTH")
  fi
  taskset -c "$CLIENT_CPU" wrk "${args[@]}" "$url" "${script_args[@]}" >"$output" 2>&1 &
  if ! wait_tracked $!; then
    cat "$output" >&2
    die "wrk failed (c=$conns, $scenario); its output is above"
  fi
}

# run_one SCENARIO CONNS ROUND NAME: fresh server, idle RSS, warm-up, measured run; appends one
# line to RAW_TSV.
run_one() {
  local scenario=$1 conns=$2 round=$3 name=$4
  local dir=$BENCH_TMP/run-$((++RUN_NUMBER))-$name port
  port=$(free_port)
  start_contestant "$name" "$port" "$dir"
  local server=$SERVER_PID

  local idle_kib cpu_before cpu_after sampler duration=$DURATION
  if [[ $scenario == 10k ]]; then duration=$BIG_DURATION; fi
  idle_kib=$(proctree rss "$server")
  wrk_run "$scenario" "$conns" "$port" "$WARMUP" "$dir/warmup.txt"

  cpu_before=$(proctree cpu "$server")
  # Not through the proctree function: a backgrounded function is a subshell, and SIGTERM to
  # it would not reach the sampler, which writes its result only when told to stop.
  "${PROCTREE[@]}" sample "$server" "$dir/peak_kib" &
  sampler=$!
  track_pid "$sampler"
  wrk_run "$scenario" "$conns" "$port" "$duration" "$dir/wrk.txt"
  cpu_after=$(proctree cpu "$server")
  stop_pid "$sampler"
  if ! is_running "$server"; then
    show_server_logs "$dir"
    die "$name died during the run (c=$conns, $scenario)"
  fi
  stop_pid "$server"

  local figures cpu_s
  figures=$("$PYTHON" "$E2E_DIR/lib/hello_report.py" parse-wrk "$dir/wrk.txt")
  cpu_s=$(cpu_seconds_between "$cpu_before" "$cpu_after")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scenario" "$conns" "$round" "$name" "$figures" \
    "$cpu_s" "$idle_kib" "$(<"$dir/peak_kib")" >>"$RAW_TSV"
  log "$(progress_line "$scenario" "$conns" "$round" "$name" "$figures" "$cpu_s")"
  if [[ $(cut -f4 <<<"$figures") == 0 ]]; then
    log "warning: no request completed in $duration; wrk may still have been connecting"
  fi
}

# One line per run; the columns after `figures` are those of `hello_report.py parse-wrk`.
RAW_COLUMNS=(scenario conns round contestant rps p50_ms p99_ms requests runtime_s err_connect
  err_read err_write err_timeout non2xx cpu_s idle_rss_kib peak_rss_kib)

progress_line() {
  local scenario=$1 conns=$2 round=$3 name=$4 figures=$5 cpu_s=$6
  local rps p99 ec er ew et non2xx
  IFS=$'\t' read -r rps _ p99 _ _ ec er ew et non2xx <<<"$figures"
  printf 'round %s/%s  %-8s c=%-5s %-9s %10.0f req/s  p99 %8.3f ms  cpu %5.2fs  errors %d' \
    "$round" "$ROUNDS" "$name" "$conns" "$scenario" "$rps" "$p99" "$cpu_s" \
    $((ec + er + ew + et + non2xx))
}

# ---------------------------------------------------------------------------------------------
# the matrix

run_matrix() {
  local round conns name
  for ((round = 1; round <= ROUNDS; round++)); do
    rotated "$round" "${CONTESTANTS[@]}"
    for conns in $CONNECTIONS; do
      for name in "${ROTATED[@]}"; do run_one plain "$conns" "$round" "$name"; done
    done
    for name in "${ROTATED[@]}"; do
      run_one pipeline "$PIPELINE_CONNECTIONS" "$round" "$name"
    done
  done
  if ((WITH_10K)); then
    for name in "${CONTESTANTS[@]}"; do run_one 10k "$BIG_CONNECTIONS" 1 "$name"; done
  fi
}

estimate_minutes() {
  local per_run=$(( $(seconds_of "$DURATION") + $(seconds_of "$WARMUP") + 2 )) runs
  runs=$(( ROUNDS * ($(wc -w <<<"$CONNECTIONS") + 1) * ${#CONTESTANTS[@]} ))
  local seconds=$((runs * per_run)) big_run
  if ((WITH_10K)); then
    big_run=$(( $(seconds_of "$BIG_DURATION") + $(seconds_of "$WARMUP") + 4 ))
    seconds=$((seconds + ${#CONTESTANTS[@]} * big_run))
  fi
  echo $(( (seconds + 59) / 60 ))
}

# ---------------------------------------------------------------------------------------------
# report

environment_meta() {
  run_meta
  META+=(
    --meta "net.core.somaxconn=$(cat /proc/sys/net/core/somaxconn)"
    --meta "versions=$(first_line nginx -v), node $(node --version), $(first_line wrk -v | cut -d' ' -f1-2)"
    --meta "settings=CONNECTIONS=\"$CONNECTIONS\" ROUNDS=$ROUNDS DURATION=$DURATION WARMUP=$WARMUP BIG_DURATION=$BIG_DURATION, server on core $SERVER_CPU, wrk -t1 on core $CLIENT_CPU"
  )
  if [[ -n $HYPER_BIN ]]; then META+=(--meta "hyper=$HYPER_BIN"); fi
}

write_report() {
  environment_meta
  "$PYTHON" "$E2E_DIR/lib/hello_report.py" report "$RAW_TSV" --markdown "$MARKDOWN" \
    --command "$COMMAND_LINE" --raw-name "${RAW_TSV##*/}" "${META[@]}"
  log "Markdown report: $MARKDOWN (raw data: $RAW_TSV)"
}

main() {
  record_command_line "${COMMAND_LINE_VARS[*]}" "$@"
  parse_args "$@"
  check_tools
  validate_config
  raise_fd_limit_for_runs
  contestant_list
  pin_proctree

  start_run hello "${RAW_COLUMNS[@]}"
  log "contestants: ${CONTESTANTS[*]}; c = $CONNECTIONS; $ROUNDS round(s) of $DURATION" \
    "(+$WARMUP warm-up); pipelined c=$PIPELINE_CONNECTIONS; 10k run: $( ((WITH_10K)) && echo yes || echo no)" \
    "- about $(estimate_minutes) min"
  run_matrix
  write_report
}

main "$@"
