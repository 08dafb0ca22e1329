#!/usr/bin/env bash
# End-to-end load-generator benchmark: ringside load against wrk (the peer every ratio is taken
# against), hey, ab, h2load and autocannon, each driving the same nginx. A benchmark, not a test:
# it passes whatever the numbers are, and prints them next to wrk's from the same run. Run it with
# --help.
set -euo pipefail

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib/run.sh
source "$E2E_DIR/lib/run.sh"
# shellcheck source=SCRIPTDIR/lib/contestants.sh
source "$E2E_DIR/lib/contestants.sh"
# shellcheck source=SCRIPTDIR/lib/generators.sh
source "$E2E_DIR/lib/generators.sh"

ALL_GENERATORS=(ringside wrk hey ab h2load autocannon)

usage() {
  cat <<EOF
usage: bench/e2e/loaders.sh [--markdown FILE] [--help]

Load-generator benchmark. nginx (one worker) runs on core SERVER_CPU; each generator in turn, with
one thread, runs on core CLIENT_CPU with CONNECTIONS keep-alive connections for DURATION against
a fresh nginx: ringside load -t1, wrk -t1, hey, ab -k, h2load --h1 -t1 and autocannon. ROUNDS rounds
interleave the generators. Prints, per generator, the median requests/s it achieved and requests
per CPU-second it spent (user+sys of its process tree), its CPU and nginx's as a share of a core,
with ratios to wrk, and whether ringside load meets its goals: >= 1.2x wrk's requests per
CPU-second and >= 1.0x wrk's requests/s. A generator whose tool is missing is skipped, with a note
in the table. Writes the tables as Markdown too.

options:
  --markdown FILE   where to write the Markdown report (default: results/loaders-<date>.md in the
                    repo; the raw per-run data goes next to it as .tsv)
  -h, --help        this text

environment (defaults in brackets):
  ROUNDS        rounds; tables show the median [3]
  DURATION      length of each run: 10, 10s, 2m [10s]
  CONNECTIONS   connections of every generator [100]
  GENERATORS    which generators, in this order in round 1 ["${ALL_GENERATORS[*]}"]
  RINGSIDE_BIN  ringside binary [build/release/apps/ringside]
  SERVER_CPU    core for nginx [0]
  CLIENT_CPU    core for the generators and the measuring helpers [1]

autocannon comes from bench/e2e/package-lock.json: the script runs 'npm ci' in bench/e2e when
bench/e2e/node_modules lacks the pinned version.

example (about 20 seconds):
  ROUNDS=1 DURATION=2s bench/e2e/loaders.sh
EOF
}

# ---------------------------------------------------------------------------------------------
# configuration

# The environment variables that shape a run, for the command line in the report's header.
COMMAND_LINE_VARS=(ROUNDS DURATION CONNECTIONS GENERATORS RINGSIDE_BIN SERVER_CPU CLIENT_CPU)

# No flags beyond parse_flags' own.
script_flag() { return 1; }

parse_args() {
  parse_flags "$@"
  ROUNDS=${ROUNDS:-3}
  DURATION=${DURATION:-10s}
  CONNECTIONS=${CONNECTIONS:-100}
  GENERATORS=${GENERATORS:-${ALL_GENERATORS[*]}}
  RINGSIDE_BIN=${RINGSIDE_BIN:-$REPO_ROOT/build/release/apps/ringside}
  SERVER_CPU=${SERVER_CPU:-0}
  CLIENT_CPU=${CLIENT_CPU:-1}
  report_paths loaders
}

validate_config() {
  [[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$ROUNDS'"
  # Every generator gets plain seconds, since each spells units its own way (or not at all: ab).
  DURATION_S=$(seconds_of "$DURATION")
  [[ -n $DURATION_S && $DURATION_S != 0 ]] ||
    die "DURATION must look like 10, 10s, 2m or 1h, not '$DURATION'"
  [[ $CONNECTIONS =~ ^[1-9][0-9]*$ ]] ||
    die "CONNECTIONS must be one positive integer, not '$CONNECTIONS'"
  local name
  for name in $GENERATORS; do
    [[ " ${ALL_GENERATORS[*]} " == *" $name "* ]] ||
      die "unknown generator '$name' in GENERATORS (known: ${ALL_GENERATORS[*]})"
  done
  [[ -n ${GENERATORS// /} ]] || die "GENERATORS is empty"
  validate_cores
}

# What the benchmark itself stands on; a missing generator only drops that generator.
check_tools() {
  require_tool nginx "run scripts/setup (or apt-get install nginx-light)"
  require_run_tools
  # A binary named explicitly is a promise; the default one may just not be built yet.
  if [[ -v RINGSIDE_BIN_GIVEN && ! -x $RINGSIDE_BIN ]]; then
    die "RINGSIDE_BIN=$RINGSIDE_BIN is not an executable file"
  fi
}

# choose_generators: GENERATORS split into those that can run here (RUNNABLE) and the rest, each
# with the reason (SKIPPED, "name<TAB>reason").
choose_generators() {
  RUNNABLE=()
  SKIPPED=()
  local name reason
  if [[ " $GENERATORS " == *" autocannon "* ]]; then ensure_autocannon; fi
  for name in $GENERATORS; do
    reason=$(generator_unavailable "$name")
    if [[ -z $reason ]]; then
      RUNNABLE+=("$name")
    else
      SKIPPED+=("$name"$'\t'"$reason")
      log "skipping $name: $reason"
    fi
  done
  ((${#RUNNABLE[@]})) || die "none of the generators ($GENERATORS) can run here; see above"
}

# ---------------------------------------------------------------------------------------------
# one run

RUN_NUMBER=0

# generator_run NAME PORT DIR: the load itself, pinned to the client core, under rusage.py, which
# writes the generator's wall, user and sys seconds to DIR/rusage. Returns the generator's status.
generator_run() {
  local name=$1 port=$2 dir=$3
  generator_command "$name" "http://127.0.0.1:$port/" "$CONNECTIONS" "$DURATION_S"
  # rusage.py passes the cleanup's SIGTERM on to the generator.
  taskset -c "$CLIENT_CPU" "$PYTHON" "$E2E_DIR/lib/rusage.py" "$dir/rusage" -- "${GEN_CMD[@]}" \
    >"$dir/stdout.txt" 2>"$dir/stderr.txt" &
  wait_tracked $!
}

# run_one ROUND NAME: a fresh nginx, one generator run against it; appends one line to RAW_TSV. A
# generator that fails or prints nothing readable costs its row, not the benchmark.
run_one() {
  local round=$1 name=$2
  local dir=$BENCH_TMP/run-$((++RUN_NUMBER))-$name port
  port=$(free_port)
  start_contestant nginx "$port" "$dir"
  local nginx=$SERVER_PID nginx_before nginx_after status=0
  nginx_before=$(proctree cpu "$nginx")
  generator_run "$name" "$port" "$dir" || status=$?
  nginx_after=$(proctree cpu "$nginx")
  if ! is_running "$nginx"; then
    show_server_logs "$dir"
    die "nginx died while $name ran (round $round)"
  fi
  stop_pid "$nginx"

  local figures
  if ((status != 0)); then
    record_failure "$round" "$name" "$dir" "exited with status $status"; return
  fi
  if ! figures=$("$PYTHON" "$E2E_DIR/lib/loaders_report.py" parse "$name" "$dir/stdout.txt" \
    2>"$dir/parse.txt"); then
    record_failure "$round" "$name" "$dir" "its output was unreadable"; return
  fi
  local nginx_cpu rusage
  nginx_cpu=$(cpu_seconds_between "$nginx_before" "$nginx_after")
  rusage=$(<"$dir/rusage")
  raw_line "$round" "$name" ok "$figures" "$rusage" "$nginx_cpu" ""
  log "$(progress_line "$round" "$name" "$figures" "$rusage" "$nginx_cpu")"
}

# The scratch directory goes when the script exits, so show what the generator said first.
record_failure() {
  local round=$1 name=$2 dir=$3 reason=$4 file
  log "warning: $name $reason in round $round; its output:"
  for file in "$dir/stdout.txt" "$dir/stderr.txt" "$dir/parse.txt"; do
    if [[ -s $file ]]; then tail -n 20 "$file" >&2; fi
  done
  raw_line "$round" "$name" failed $'\t\t' $'\t\t' "" "$reason"
}

# One line per run (or per skipped generator): figures are `loaders_report.py parse`'s columns,
# rusage is rusage.py's.
RAW_COLUMNS=(round generator status completed elapsed_s errors wall_s user_s sys_s nginx_cpu_s
  note)

raw_line() {
  local round=$1 name=$2 status=$3 figures=$4 rusage=$5 nginx_cpu=$6 note=$7
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$name" "$status" "$figures" "$rusage" \
    "$nginx_cpu" "$note" >>"$RAW_TSV"
}

progress_line() {
  local round=$1 name=$2 figures=$3 rusage=$4 nginx_cpu=$5
  local completed elapsed errors wall user sys
  IFS=$'\t' read -r completed elapsed errors <<<"$figures"
  IFS=$'\t' read -r wall user sys <<<"$rusage"
  awk -v r="$round/$ROUNDS" -v n="$name" -v c="$completed" -v e="$elapsed" -v err="$errors" \
    -v w="$wall" -v u="$user" -v s="$sys" -v x="$nginx_cpu" 'BEGIN {
      cpu = u + s
      printf "round %s  %-10s %9.0f req/s  %9.0f req/CPU-s  generator CPU %3.0f%%  nginx CPU %3.0f%%  errors %d",
        r, n, (e > 0 ? c / e : 0), (cpu > 0 ? c / cpu : 0), 100 * cpu / w, 100 * x / w, err
    }'
}

# ---------------------------------------------------------------------------------------------
# the rounds

run_rounds() {
  local round name
  for ((round = 1; round <= ROUNDS; round++)); do
    rotated "$round" "${RUNNABLE[@]}"
    for name in "${ROTATED[@]}"; do run_one "$round" "$name"; done
  done
}

# Each run: the duration, plus nginx's start and the generators' own start-up (node's is slowest).
estimate_minutes() {
  local seconds=$(( ROUNDS * ${#RUNNABLE[@]} * (DURATION_S + 2) ))
  echo $(( (seconds + 59) / 60 ))
}

# ---------------------------------------------------------------------------------------------
# report

generator_version() {
  case $1 in
    ringside) echo "ringside load $(repo_commit)" ;;
    wrk) first_line wrk -v | cut -d' ' -f1-2 ;;
    hey) echo "hey $(dpkg-query -W -f='${Version}' hey 2>/dev/null || echo '(version unknown)')" ;;
    ab) first_line ab -V | sed 's/^This is //; s/ <.*//' ;;
    h2load) first_line h2load --version ;;
    autocannon) echo "autocannon $(autocannon_installed_version) on node $(node --version)" ;;
  esac
}

environment_meta() {
  local name versions=""
  for name in "${RUNNABLE[@]}"; do versions+="; $(generator_version "$name")"; done
  run_meta
  META+=(
    --meta "versions=$(first_line nginx -v | sed 's/^nginx version: //')$versions"
    --meta "settings=ROUNDS=$ROUNDS DURATION=${DURATION_S}s CONNECTIONS=$CONNECTIONS, nginx on core $SERVER_CPU, generators on core $CLIENT_CPU"
  )
  for name in "${RUNNABLE[@]}"; do
    generator_command "$name" "http://127.0.0.1:PORT/" "$CONNECTIONS" "$DURATION_S"
    META+=(--invocation "$name=${GEN_CMD[*]/#$REPO_ROOT\//}")
  done
}

write_report() {
  environment_meta
  "$PYTHON" "$E2E_DIR/lib/loaders_report.py" report "$RAW_TSV" --markdown "$MARKDOWN" \
    --command "$COMMAND_LINE" --connections "$CONNECTIONS" --raw-name "${RAW_TSV##*/}" "${META[@]}"
  log "Markdown report: $MARKDOWN (raw data: $RAW_TSV)"
}

record_skipped() {
  local entry
  for entry in "${SKIPPED[@]}"; do
    raw_line - "${entry%%$'\t'*}" skipped $'\t\t' $'\t\t' "" "${entry#*$'\t'}"
  done
}

main() {
  record_command_line "${COMMAND_LINE_VARS[*]}" "$@"
  if [[ -v RINGSIDE_BIN ]]; then RINGSIDE_BIN_GIVEN=1; fi
  parse_args "$@"
  check_tools
  validate_config
  # Every generator and nginx inherit this; the default 1024 runs out near 1000 connections.
  raise_fd_limit $((CONNECTIONS * 2 + 1024))
  choose_generators
  pin_proctree

  start_run loaders "${RAW_COLUMNS[@]}"
  record_skipped
  log "generators: ${RUNNABLE[*]}; c=$CONNECTIONS; $ROUNDS round(s) of ${DURATION_S}s" \
    "- about $(estimate_minutes) min"
  run_rounds
  write_report
}

main "$@"
