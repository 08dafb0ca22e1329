#!/bin/sh
# Usage: start.sh PORT THREADS WORKDIR — renders nginx.conf.template into WORKDIR and runs nginx
# in the foreground there (its prefix, pid and temp paths), never touching /etc/nginx or /var.
set -eu
port=$1 threads=$2 workdir=$3
here=$(dirname "$0")
sed -e "s|{port}|$port|g" -e "s|{threads}|$threads|g" -e "s|{workdir}|$workdir|g" \
  "$here/nginx.conf.template" > "$workdir/nginx.conf"
# -e: the error log before the configuration is read (the compiled-in one is under /var/log).
exec nginx -p "$workdir/" -c "$workdir/nginx.conf" -e stderr
