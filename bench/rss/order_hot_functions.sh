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
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.out" \
  "$bin" serve --port 0 --threads 1 --db "sqlite:$work/hot.db" >"$work/serve.out" 2>"$work/serve.err" &
server=$!
for _ in $(seq 1 300); do
  grep -q listening "$work/serve.out" && break
  sleep 0.1
done
port=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.out" | head -1 | cut -d: -f3)
[ -n "$port" ] || { echo "order_hot_functions: the server did not start: $(cat "$work/serve.err")" >&2; exit 1; }
for path in / /json /plaintext /users/1 /db "/queries?queries=5" /fortunes "/updates?queries=2"; do
  "$bin" load -t 1 -c 4 -n 500 "http://127.0.0.1:$port$path" >/dev/null 2>&1
done
kill -TERM "$server"
wait "$server" || true

python3 - "$work/callgrind.out" apps/ringside/hot_functions.txt <<'PY'
import re, sys
names, seen = [], set()
for line in open(sys.argv[1]):
    match = re.match(r"^c?fn=\(\d+\) (.+)$", line)
    if not match:
        continue
    name = re.sub(r"'\d+$", "", match.group(1).strip())  # callgrind marks recursion depth
    if name not in seen and not name.startswith("0x") and name != "(below main)":
        seen.add(name)
        names.append(name)
with open(sys.argv[2], "w") as out:
    out.write("\n".join(names) + "\n")
print(f"order_hot_functions: {len(names)} functions in {sys.argv[2]}")
PY
