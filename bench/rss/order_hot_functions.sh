#!/usr/bin/env bash
# Regenerates apps/ringside/hot_functions.txt: the functions `ringside serve` runs while starting,
# idling and answering the common routes, in first-call order, as callgrind records them. The
# release link (lld) places them together at the start of .text, so the few pages an idle server
# touches are neighbours: the kernel maps file pages 64 KiB around each page touched
# (fault-around), and with hot code spread over 4.7 MB of libc, libstdc++, OpenSSL and SQLite
# every touched page cost 64 KiB of RSS (2.8 MB idle; 1.5 MB ordered, docs/benchmarks.md).
#
#   bench/rss/order_hot_functions.sh      # after scripts/build release; then rebuild
#
# A stale list is harmless (unknown names are ignored); it only costs some idle RSS.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=build/release/apps/ringside
[ -x "$bin" ] || { echo "order_hot_functions: build first (scripts/build release)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "order_hot_functions: needs valgrind (scripts/setup)" >&2; exit 2; }

work=$(mktemp -d)
server="" temp=""
trap 'kill $server $temp 2>/dev/null || true; rm -rf "$work"' EXIT

# record NAME DB: callgrind over a server's start-up, idling, and 500 requests of each route.
record() {
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$1.out" \
    "$bin" serve --port 0 --threads 1 --db "$2" >"$work/$1.serve.out" 2>"$work/$1.serve.err" &
  server=$!
  for _ in $(seq 1 300); do
    grep -q listening "$work/$1.serve.out" && break
    sleep 0.1
  done
  local port
  port=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/$1.serve.out" | head -1 | cut -d: -f3)
  [ -n "$port" ] || { echo "order_hot_functions: the server did not start: $(cat "$work/$1.serve.err")" >&2; exit 1; }
  # Part 1: start-up and two idle seconds (the loop's one-second tick). Part 2: the requests.
  sleep 2
  callgrind_control --dump=startup "$server" >/dev/null
  for path in / /json /plaintext /users/1 /db "/queries?queries=5" /fortunes "/updates?queries=2"; do
    "$bin" load -t 1 -c 4 -n 500 "http://127.0.0.1:$port$path" >/dev/null 2>&1
  done
  kill -TERM "$server"
  wait "$server" || true
}

# The embedded default first, then PostgreSQL (a throwaway cluster): a server runs one of them,
# and each one's functions end up together.
record sqlite "sqlite:$work/hot.db"
"$bin" db temp >"$work/db.url" 2>"$work/db.err" &
temp=$!
for _ in $(seq 1 600); do
  [ -s "$work/db.url" ] && break
  sleep 0.1
done
[ -s "$work/db.url" ] || { echo "order_hot_functions: ringside db temp failed: $(cat "$work/db.err")" >&2; exit 1; }
record postgres "$(head -1 "$work/db.url")"
kill -TERM "$temp"
wait "$temp" || true

python3 - "$work" apps/ringside/hot_functions.txt <<'PY'
import glob, re, sys


def functions(path):
    names = []
    for line in open(path):
        match = re.match(r"^c?fn=\(\d+\) (.+)$", line)
        if match:
            name = re.sub(r"'\d+$", "", match.group(1).strip())  # callgrind marks recursion depth
            if not name.startswith("0x") and name != "(below main)" and name not in names:
                names.append(name)
    return names


def parts(backend):
    files = glob.glob(f"{sys.argv[1]}/{backend}.out*")
    # The dump asked for after start-up says so in its header; the rest came at exit.
    startup = [f for f in files if "startup" in open(f).read(4096)]
    if len(startup) != 1:
        sys.exit(f"order_hot_functions: no start-up profile among {files}")
    rest = [f for f in files if f != startup[0]]
    return functions(startup[0]), [n for f in rest for n in functions(f)]


sqlite_start, sqlite_serve = parts("sqlite")
pg_start, pg_serve = parts("postgres")
pg_start_set, pg_serve_set = set(pg_start), set(pg_serve)
# What every idle server touches first, then what one backend's idle server adds, then the
# request paths in the same way: each mode's working set is as contiguous as it can be.
order = ([n for n in sqlite_start if n in pg_start_set] + sqlite_start + pg_start +
         [n for n in sqlite_serve if n in pg_serve_set] + sqlite_serve + pg_serve)
names, seen = [], set()
for name in order:
    if name not in seen:
        seen.add(name)
        names.append(name)
with open(sys.argv[-1], "w") as out:
    out.write("\n".join(names) + "\n")
print(f"order_hot_functions: {len(names)} functions in {sys.argv[-1]}")
PY
