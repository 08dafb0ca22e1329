#!/usr/bin/env bash
# End-to-end hello-world benchmark: ringside against nginx (the peer every ratio is taken
# against), node:http and, when given, Rust hyper. A benchmark, not a test: it passes whatever the
# numbers are, and prints them next to a peer measured in the same run. Run it with --help.
set -euo pipefail

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$E2E_DIR/../.." && pwd)
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$E2E_DIR/lib/common.sh"
# shellcheck source=SCRIPTDIR/lib/contestants.sh
source "$E2E_DIR/lib/contestants.sh"

PIPELINE_CONNECTIONS=100
PIPELINE_DEPTH=16
BIG_CONNECTIONS=10000
FD_LIMIT=20000   # the 10k run needs 10,000 sockets in wrk and in each server, plus slack

usage() {
  cat <<EOF
usage: bench/e2e/hello.sh [--markdown FILE] [--with-10k | --no-10k] [--help]

Hello-world HTTP benchmark of ringside against nginx, node:http and (if HYPER_BIN is set) hyper.
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

# The exact invocation, with the environment overrides that shaped it, for the report's header.
record_command_line() {
  local var words=()
  for var in CONNECTIONS ROUNDS DURATION WARMUP BIG_DURATION QUICK RINGSIDE_BIN HYPER_BIN SERVER_CPU CLIENT_CPU; do
    if [[ -v $var ]]; then words+=("$var=$(printf '%q' "${!var}")"); fi
  done
  words+=("$(printf '%q' "$0")")
  for var in "$@"; do words+=("$(printf '%q' "$var")"); done
  COMMAND_LINE="${words[*]}"
}

parse_args() {
  MARKDOWN=""
  WITH_10K=""
  while (($#)); do
    case $1 in
      -h | --help) usage; exit 0 ;;
      --markdown)
        (($# >= 2)) || die "--markdown needs a file name"
        MARKDOWN=$2; shift ;;
      --markdown=*) MARKDOWN=${1#*=} ;;
      --with-10k) WITH_10K=1 ;;
      --no-10k) WITH_10K=0 ;;
      *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
  done
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
  if [[ -z $MARKDOWN ]]; then
    MARKDOWN=$REPO_ROOT/results/hello-$(date +%Y-%m-%d-%H%M%S).md
  fi
  RAW_TSV=${MARKDOWN%.md}.tsv
}

# wrk takes "8" as seconds too, but the report reads better with the unit spelled out.
with_seconds() {
  if [[ $1 =~ ^[0-9]+$ ]]; then echo "${1}s"; else echo "$1"; fi
}

# seconds_of DURATION: whole seconds of a wrk duration (8s, 2m, 1h); empty if it is not one.
seconds_of() {
  [[ $1 =~ ^([0-9]+)([smh])$ ]] || return 0
  case ${BASH_REMATCH[2]} in
    s) echo "${BASH_REMATCH[1]}" ;;
    m) echo $((BASH_REMATCH[1] * 60)) ;;
    h) echo $((BASH_REMATCH[1] * 3600)) ;;
  esac
}

# The servers get one core each; a build running beside them steals part of it, unevenly.
warn_if_busy() {
  local load
  read -r load _ </proc/loadavg
  if awk -v l="$load" 'BEGIN { exit !(l > 0.5) }'; then
    log "warning: load average is $load; other work on this machine will make the numbers noisy"
  fi
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
  [[ $SERVER_CPU != "$CLIENT_CPU" ]] || die "SERVER_CPU and CLIENT_CPU must differ"
  taskset -c "$SERVER_CPU" true 2>/dev/null || die "cannot pin to core $SERVER_CPU (set SERVER_CPU)"
  taskset -c "$CLIENT_CPU" true 2>/dev/null ||
    die "cannot pin to core $CLIENT_CPU: this needs two cores (set CLIENT_CPU)"
}

check_tools() {
  require_tool wrk "install it (apt-get install wrk) or run scripts/setup"
  require_tool nginx "run scripts/setup (or apt-get install nginx-light)"
  require_tool node "install Node.js 20 (run scripts/setup)"
  require_tool taskset "install util-linux"
  require_tool curl "install curl (apt-get install curl)"
  require_tool python3 "install python3"
  # The interpreter itself, not a version-manager shim (pyenv): a shim is a chain of shell scripts
  # that would run on the client core at every helper call.
  PYTHON=$(python3 -c 'import sys; print(sys.executable)')
  [[ -x $RINGSIDE_BIN ]] || die "ringside binary not found at $RINGSIDE_BIN: build it with" \
    "'cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build/release'" \
    "or point RINGSIDE_BIN at one"
  if [[ -n $HYPER_BIN && ! -x $HYPER_BIN ]]; then
    die "HYPER_BIN=$HYPER_BIN is not an executable file"
  fi
}

# The servers and wrk inherit this limit. Only the 10k run truly needs it, so only then is
# failing to raise it fatal.
raise_fd_limit() {
  if ulimit -n "$FD_LIMIT" 2>/dev/null; then return; fi
  if ((WITH_10K)); then
    die "cannot raise 'ulimit -n' to $FD_LIMIT (hard limit $(ulimit -Hn)); raise the hard limit" \
      "or skip the 10k run with --no-10k"
  fi
  log "warning: could not raise 'ulimit -n' to $FD_LIMIT; staying at $(ulimit -n)"
}

contestant_list() {
  CONTESTANTS=(ringside nginx node)
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
  # In the background and then `wait`: bash runs the Ctrl-C trap at once only while it sits in
  # the wait builtin. A foreground wrk catches SIGINT itself and exits 0, and bash would then carry
  # on as if nothing had happened.
  taskset -c "$CLIENT_CPU" wrk "${args[@]}" "$url" "${script_args[@]}" >"$output" 2>&1 &
  local wrk_pid=$! status=0
  track_pid "$wrk_pid"
  wait "$wrk_pid" || status=$?
  untrack_pid "$wrk_pid"
  if ((status != 0)); then
    cat "$output" >&2
    die "wrk failed (c=$conns, $scenario); its output is above"
  fi
}

# Measuring helpers share the client core, so they do not steal cycles from the server.
PROCTREE=()  # set in main once CLIENT_CPU is known
proctree() { "${PROCTREE[@]}" "$@"; }

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
  cpu_s=$(awk -v a="$cpu_after" -v b="$cpu_before" 'BEGIN { printf "%.2f", a - b }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scenario" "$conns" "$round" "$name" "$figures" \
    "$cpu_s" "$idle_kib" "$(<"$dir/peak_kib")" >>"$RAW_TSV"
  log "$(progress_line "$scenario" "$conns" "$round" "$name" "$figures" "$cpu_s")"
  if [[ $(cut -f4 <<<"$figures") == 0 ]]; then
    log "warning: no request completed in $duration; wrk may still have been connecting"
  fi
}

# One line per run; the columns after `figures` are those of `hello_report.py parse-wrk`.
write_raw_header() {
  local columns=(scenario conns round contestant rps p50_ms p99_ms requests runtime_s err_connect
    err_read err_write err_timeout non2xx cpu_s idle_rss_kib peak_rss_kib)
  (IFS=$'\t'; echo "${columns[*]}") >"$RAW_TSV"
}

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

# rotated ROUND: the contestants, starting one later each round, so none is always first after
# the machine has been idle or always last after it has warmed up.
rotated() {
  local shift=$(( ($1 - 1) % ${#CONTESTANTS[@]} )) i
  ROTATED=()
  for ((i = 0; i < ${#CONTESTANTS[@]}; i++)); do
    ROTATED+=("${CONTESTANTS[(i + shift) % ${#CONTESTANTS[@]}]}")
  done
}

run_matrix() {
  local round conns name
  for ((round = 1; round <= ROUNDS; round++)); do
    rotated "$round"
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

# first_line COMMAND...: its first line of output; `wrk -v` prints its version but exits 1.
first_line() { { "$@" 2>&1 || true; } | head -n 1; }

environment_meta() {
  local commit dirty="" cpu_model
  cpu_model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
  commit=$(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
  # Read-only: GIT_OPTIONAL_LOCKS=0 stops status from rewriting the index while someone works.
  if [[ -n $(GIT_OPTIONAL_LOCKS=0 git -C "$REPO_ROOT" status --porcelain --untracked-files=no \
    2>/dev/null) ]]; then dirty=" (with uncommitted changes)"; fi
  META=(
    --meta "date=$(date '+%Y-%m-%d %H:%M:%S %Z')"
    --meta "ringside=$commit$dirty, $RINGSIDE_BIN"
    --meta "host=$(uname -srm), $(nproc) cores, ${cpu_model:-unknown CPU}"
    --meta "load average (1/5/15 min)=start $LOAD_AT_START, end $(cut -d' ' -f1-3 /proc/loadavg)"
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
  record_command_line "$@"
  parse_args "$@"
  check_tools
  validate_config
  raise_fd_limit
  contestant_list
  PROCTREE=(taskset -c "$CLIENT_CPU" "$PYTHON" "$E2E_DIR/lib/proctree.py")

  install_cleanup_trap
  BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ringside-hello.XXXXXX")
  mkdir -p "$(dirname "$MARKDOWN")"
  write_raw_header

  echo "$COMMAND_LINE"
  # Other work on a shared machine skews every contestant; the report shows how busy it was.
  LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
  warn_if_busy
  log "contestants: ${CONTESTANTS[*]}; c = $CONNECTIONS; $ROUNDS round(s) of $DURATION" \
    "(+$WARMUP warm-up); pipelined c=$PIPELINE_CONNECTIONS; 10k run: $( ((WITH_10K)) && echo yes || echo no)" \
    "- about $(estimate_minutes) min"
  run_matrix
  write_report
}

main "$@"
