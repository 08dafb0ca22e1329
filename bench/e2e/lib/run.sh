# shellcheck shell=bash
# shellcheck disable=SC2034  # the globals it sets (META, ROTATED, ...) are for its callers
# The frame every bench/e2e benchmark shares around its own measurements: the command line it was
# started with, durations, checks of the machine (cores, load, file descriptors), the order of the
# rounds, the measuring helpers on the client core, the raw per-run file and the environment lines
# at the top of the report.
# Source it with E2E_DIR set to bench/e2e; it brings in common.sh and sets REPO_ROOT, and
# otherwise defines functions only. They need SERVER_CPU, CLIENT_CPU, RINGSIDE_BIN, RAW_TSV and
# COMMAND_LINE as each says, and the script to define `usage` and `script_flag`.

# shellcheck source=SCRIPTDIR/common.sh
source "$E2E_DIR/lib/common.sh"
REPO_ROOT=$(cd "$E2E_DIR/../.." && pwd)

# record_command_line "VAR..." ARG...: the exact invocation, with those of the environment
# variables VAR that were set (the overrides that shaped it), for the report's header. Call it
# before the defaults fill the variables in.
record_command_line() {
  local var words=()
  for var in $1; do
    if [[ -v $var ]]; then words+=("$var=$(printf '%q' "${!var}")"); fi
  done
  shift
  words+=("$(printf '%q' "$0")")
  for var in "$@"; do words+=("$(printf '%q' "$var")"); done
  COMMAND_LINE="${words[*]}"
}

# parse_flags ARG...: the flags every benchmark takes, --help and --markdown FILE (MARKDOWN, empty
# when not given); every other word goes to the script's `script_flag WORD`, which fails for a word
# it does not know either.
parse_flags() {
  MARKDOWN=""
  while (($#)); do
    case $1 in
      -h | --help) usage; exit 0 ;;
      --markdown)
        (($# >= 2)) || die "--markdown needs a file name"
        MARKDOWN=$2; shift ;;
      --markdown=*) MARKDOWN=${1#*=} ;;
      *) script_flag "$1" || die "unknown argument '$1' (see --help)" ;;
    esac
    shift
  done
}

# report_paths NAME: MARKDOWN defaults to results/NAME-<date>.md in the repo; the raw per-run data
# (RAW_TSV) goes next to it.
report_paths() {
  if [[ -z $MARKDOWN ]]; then
    MARKDOWN=$REPO_ROOT/results/$1-$(date +%Y-%m-%d-%H%M%S).md
  fi
  RAW_TSV=${MARKDOWN%.md}.tsv
}

# seconds_of DURATION: whole seconds of 10, 10s, 2m or 1h (wrk's syntax, plus a bare number as
# seconds); empty if it is none of these.
seconds_of() {
  [[ $1 =~ ^([0-9]+)([smh]?)$ ]] || return 0
  case ${BASH_REMATCH[2]} in
    s | "") echo "${BASH_REMATCH[1]}" ;;
    m) echo $((BASH_REMATCH[1] * 60)) ;;
    h) echo $((BASH_REMATCH[1] * 3600)) ;;
  esac
}

# The tools every benchmark stands on, after those a script names itself. PYTHON is the
# interpreter itself, not a version-manager shim (pyenv): a shim is a chain of shell scripts that
# would run on the client core at every helper call.
require_run_tools() {
  require_tool taskset "install util-linux"
  require_tool curl "install curl (apt-get install curl)"
  require_tool python3 "install python3"
  PYTHON=$(python3 -c 'import sys; print(sys.executable)')
}

# validate_cores: the server side and the client side each need a core of their own.
validate_cores() {
  [[ $SERVER_CPU != "$CLIENT_CPU" ]] || die "SERVER_CPU and CLIENT_CPU must differ"
  taskset -c "$SERVER_CPU" true 2>/dev/null || die "cannot pin to core $SERVER_CPU (set SERVER_CPU)"
  taskset -c "$CLIENT_CPU" true 2>/dev/null ||
    die "cannot pin to core $CLIENT_CPU: this needs two cores (set CLIENT_CPU)"
}

# raise_fd_limit WANTED [FIX]: lift the soft 'ulimit -n' to at least WANTED; the servers and the
# clients inherit it. Given FIX (what the user can do instead), failing is fatal; otherwise a
# warning, and the run goes on at the old limit.
raise_fd_limit() {
  local wanted=$1 fix=${2:-}
  if (($(ulimit -n) >= wanted)) || ulimit -n "$wanted" 2>/dev/null; then return; fi
  [[ -z $fix ]] || die "cannot raise 'ulimit -n' to $wanted (hard limit $(ulimit -Hn)); $fix"
  log "warning: could not raise 'ulimit -n' to $wanted; staying at $(ulimit -n)"
}

# Measuring helpers share the client core, so they do not steal cycles from the server.
PROCTREE=()  # set by pin_proctree once CLIENT_CPU is known
pin_proctree() { PROCTREE=(taskset -c "$CLIENT_CPU" "$PYTHON" "$E2E_DIR/lib/proctree.py"); }
proctree() { "${PROCTREE[@]}" "$@"; }

# cpu_seconds_between BEFORE AFTER: CPU seconds spent between two `proctree cpu` readings.
cpu_seconds_between() { awk -v b="$1" -v a="$2" 'BEGIN { printf "%.2f", a - b }'; }

# start_run NAME COLUMN...: what every benchmark does before its first run. Stops whatever it
# starts on any exit, makes the scratch directory BENCH_TMP, starts RAW_TSV with a header of the
# columns, prints the command line, and records the load average in LOAD_AT_START: other work on a
# shared machine skews every measurement, so the report shows how busy it was.
start_run() {
  local name=$1
  shift
  install_cleanup_trap
  BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ringside-$name.XXXXXX")
  mkdir -p "$(dirname "$MARKDOWN")"
  (IFS=$'\t'; echo "$*") >"$RAW_TSV"
  echo "$COMMAND_LINE"
  LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
  warn_if_busy
}

# Each side gets one core; a build running beside them steals part of it, unevenly.
warn_if_busy() {
  local load
  read -r load _ </proc/loadavg
  if awk -v l="$load" 'BEGIN { exit !(l > 0.5) }'; then
    log "warning: load average is $load; other work on this machine will make the numbers noisy"
  fi
}

# rotated ROUND NAME...: the names, starting one later each round, in ROTATED, so none is always
# first after the machine has been idle or always last after it has warmed up.
rotated() {
  local names=("${@:2}") i
  local shift=$(( ($1 - 1) % ${#names[@]} ))
  ROTATED=()
  for ((i = 0; i < ${#names[@]}; i++)); do
    ROTATED+=("${names[(i + shift) % ${#names[@]}]}")
  done
}

# first_line COMMAND...: its first line of output; `wrk -v` prints its version but exits 1.
first_line() { { "$@" 2>&1 || true; } | head -n 1; }

repo_commit() { git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown; }

# run_meta: the report's first lines, in META as `--meta KEY=VALUE` arguments: date, which ringside
# (commit and binary), the host, and how busy it was from start_run to now. Scripts append their own.
run_meta() {
  local cpu_model dirty=""
  cpu_model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
  # Read-only: GIT_OPTIONAL_LOCKS=0 stops status from rewriting the index while someone works.
  if [[ -n $(GIT_OPTIONAL_LOCKS=0 git -C "$REPO_ROOT" status --porcelain --untracked-files=no \
    2>/dev/null) ]]; then dirty=" (with uncommitted changes)"; fi
  META=(
    --meta "date=$(date '+%Y-%m-%d %H:%M:%S %Z')"
    --meta "ringside=$(repo_commit)$dirty, $RINGSIDE_BIN"
    --meta "host=$(uname -srm), $(nproc) cores, ${cpu_model:-unknown CPU}"
    --meta "load average (1/5/15 min)=start $LOAD_AT_START, end $(cut -d' ' -f1-3 /proc/loadavg)"
  )
}
