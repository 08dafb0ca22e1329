#!/bin/sh
# Usage: start.sh PORT THREADS WORKDIR [HOST] — renders h2o.conf.template into WORKDIR and runs
# THREADS h2o processes of one thread each in the foreground, each on its own SO_REUSEPORT
# listener on HOST (default 127.0.0.1) (reuseport.pl says why), never touching /etc/h2o or /var.
set -eu
port=$1 threads=$2 workdir=$3 host=${4:-127.0.0.1}
dir=$(cd "$(dirname "$0")" && pwd)
sed -e "s|{port}|$port|g" -e "s|{workdir}|$workdir|g" \
  -e "s|{host}|$host|g" -e "s|{dir}|$dir|g" "$dir/h2o.conf.template" > "$workdir/h2o.conf"
exec perl "$dir/reuseport.pl" "$host" "$port" "$threads" h2o --mode worker -c "$workdir/h2o.conf"
