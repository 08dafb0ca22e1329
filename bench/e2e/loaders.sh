#!/usr/bin/env bash
# End-to-end load-generator benchmark: ringside load against wrk (the peer every ratio is taken
# against), hey, ab, h2load and autocannon, each driving the same nginx. A benchmark, not a test:
# it passes whatever the numbers are, and prints them next to wrk's from the same run. Run it with
# --help.
set -euo pipefail

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$E2E_DIR/../.." && pwd)
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$E2E_DIR/lib/common.sh"
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

# The exact invocation, with the environment overrides that shaped it, for the report's header.
record_command_line() {
  local var words=()
  for var in ROUNDS DURATION CONNECTIONS GENERATORS RINGSIDE_BIN SERVER_CPU CLIENT_CPU; do
    if [[ -v $var ]]; then words+=("$var=$(printf '%q' "${!var}")"); fi
  done
  words+=("$(printf '%q' "$0")")
  for var in "$@"; do words+=("$(printf '%q' "$var")"); done
  COMMAND_LINE="${words[*]}"
}

parse_args() {
  MARKDOWN=""
  while (($#)); do
    case $1 in
      -h | --help) usage; exit 0 ;;
      --markdown)
        (($# >= 2)) || die "--markdown needs a file name"
        MARKDOWN=$2; shift ;;
      --markdown=*) MARKDOWN=${1#*=} ;;
      *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
  done
  ROUNDS=${ROUNDS:-3}
  DURATION=${DURATION:-10s}
  CONNECTIONS=${CONNECTIONS:-100}
  GENERATORS=${GENERATORS:-${ALL_GENERATORS[*]}}
  RINGSIDE_BIN=${RINGSIDE_BIN:-$REPO_ROOT/build/release/apps/ringside}
  SERVER_CPU=${SERVER_CPU:-0}
  CLIENT_CPU=${CLIENT_CPU:-1}
  if [[ -z $MARKDOWN ]]; then
    MARKDOWN=$REPO_ROOT/results/loaders-$(date +%Y-%m-%d-%H%M%S).md
  fi
  RAW_TSV=${MARKDOWN%.md}.tsv
}

# seconds_of DURATION: whole seconds of 10, 10s, 2m or 1h; empty if it is none of these. Every
# generator gets plain seconds, since each spells units its own way (or not at all: ab).
seconds_of() {
  [[ $1 =~ ^([0-9]+)([smh]?)$ ]] || return 0
  case ${BASH_REMATCH[2]} in
    s | "") echo "${BASH_REMATCH[1]}" ;;
    m) echo $((BASH_REMATCH[1] * 60)) ;;
    h) echo $((BASH_REMATCH[1] * 3600)) ;;
  esac
}

# The generators get one core each in turn; a build running beside them steals part of it.
warn_if_busy() {
  local load
  read -r load _ </proc/loadavg
  if awk -v l="$load" 'BEGIN { exit !(l > 0.5) }'; then
    log "warning: load average is $load; other work on this machine will make the numbers noisy"
  fi
}

validate_config() {
  [[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$ROUNDS'"
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
  [[ $SERVER_CPU != "$CLIENT_CPU" ]] || die "SERVER_CPU and CLIENT_CPU must differ"
  taskset -c "$SERVER_CPU" true 2>/dev/null || die "cannot pin to core $SERVER_CPU (set SERVER_CPU)"
  taskset -c "$CLIENT_CPU" true 2>/dev/null ||
    die "cannot pin to core $CLIENT_CPU: this needs two cores (set CLIENT_CPU)"
}

# What the benchmark itself stands on; a missing generator only drops that generator.
check_tools() {
  require_tool nginx "run scripts/setup (or apt-get install nginx-light)"
  require_tool taskset "install util-linux"
  require_tool curl "install curl (apt-get install curl)"
  require_tool python3 "install python3"
  # The interpreter itself, not a version-manager shim (pyenv): a shim is a chain of shell scripts
  # that would run on the client core at every helper call.
  PYTHON=$(python3 -c 'import sys; print(sys.executable)')
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

# Every generator and nginx inherit this; the default 1024 runs out near 1000 connections.
raise_fd_limit() {
  local wanted=$((CONNECTIONS * 2 + 1024))
  if (($(ulimit -n) >= wanted)) || ulimit -n "$wanted" 2>/dev/null; then return; fi
  log "warning: could not raise 'ulimit -n' to $wanted; staying at $(ulimit -n)"
}

# ---------------------------------------------------------------------------------------------
# one run

RUN_NUMBER=0

# Measuring helpers share the client core, so they do not steal cycles from nginx.
PROCTREE=()  # set in main once CLIENT_CPU is known
proctree() { "${PROCTREE[@]}" "$@"; }

# generator_run NAME PORT DIR: the load itself, pinned to the client core, under rusage.py, which
# writes the generator's wall, user and sys seconds to DIR/rusage. Returns the generator's status.
generator_run() {
  local name=$1 port=$2 dir=$3
  generator_command "$name" "http://127.0.0.1:$port/" "$CONNECTIONS" "$DURATION_S"
  # In the background and then `wait`: bash runs the Ctrl-C trap at once only while it sits in the
  # wait builtin; rusage.py passes the cleanup's SIGTERM on to the generator.
  taskset -c "$CLIENT_CPU" "$PYTHON" "$E2E_DIR/lib/rusage.py" "$dir/rusage" -- "${GEN_CMD[@]}" \
    >"$dir/stdout.txt" 2>"$dir/stderr.txt" &
  local pid=$! status=0
  track_pid "$pid"
  wait "$pid" || status=$?
  untrack_pid "$pid"
  return "$status"
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
  nginx_cpu=$(awk -v a="$nginx_after" -v b="$nginx_before" 'BEGIN { printf "%.2f", a - b }')
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
write_raw_header() {
  local columns=(round generator status completed elapsed_s errors wall_s user_s sys_s
    nginx_cpu_s note)
  (IFS=$'\t'; echo "${columns[*]}") >"$RAW_TSV"
}

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

# rotated ROUND: the generators, starting one later each round, so none is always first after the
# machine has been idle or always last after it has warmed up.
rotated() {
  local shift=$(( ($1 - 1) % ${#RUNNABLE[@]} )) i
  ROTATED=()
  for ((i = 0; i < ${#RUNNABLE[@]}; i++)); do
    ROTATED+=("${RUNNABLE[(i + shift) % ${#RUNNABLE[@]}]}")
  done
}

run_rounds() {
  local round name
  for ((round = 1; round <= ROUNDS; round++)); do
    rotated "$round"
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

# first_line COMMAND...: its first line of output; `wrk -v` prints its version but exits 1.
first_line() { { "$@" 2>&1 || true; } | head -n 1; }

repo_commit() { git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown; }

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
  local cpu_model name versions="" dirty=""
  cpu_model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
  # Read-only: GIT_OPTIONAL_LOCKS=0 stops status from rewriting the index while someone works.
  if [[ -n $(GIT_OPTIONAL_LOCKS=0 git -C "$REPO_ROOT" status --porcelain --untracked-files=no \
    2>/dev/null) ]]; then dirty=" (with uncommitted changes)"; fi
  for name in "${RUNNABLE[@]}"; do versions+="; $(generator_version "$name")"; done
  META=(
    --meta "date=$(date '+%Y-%m-%d %H:%M:%S %Z')"
    --meta "ringside=$(repo_commit)$dirty, $RINGSIDE_BIN"
    --meta "host=$(uname -srm), $(nproc) cores, ${cpu_model:-unknown CPU}"
    --meta "load average (1/5/15 min)=start $LOAD_AT_START, end $(cut -d' ' -f1-3 /proc/loadavg)"
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
  record_command_line "$@"
  if [[ -v RINGSIDE_BIN ]]; then RINGSIDE_BIN_GIVEN=1; fi
  parse_args "$@"
  check_tools
  validate_config
  raise_fd_limit
  choose_generators
  PROCTREE=(taskset -c "$CLIENT_CPU" "$PYTHON" "$E2E_DIR/lib/proctree.py")

  install_cleanup_trap
  BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ringside-loaders.XXXXXX")
  mkdir -p "$(dirname "$MARKDOWN")"
  write_raw_header
  record_skipped

  echo "$COMMAND_LINE"
  # Other work on a shared machine skews every generator; the report shows how busy it was.
  LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
  warn_if_busy
  log "generators: ${RUNNABLE[*]}; c=$CONNECTIONS; $ROUNDS round(s) of ${DURATION_S}s" \
    "- about $(estimate_minutes) min"
  run_rounds
  write_report
}

main "$@"
