#!/usr/bin/env bash
# A throwaway PostgreSQL server for the history store's tests (ctest fixture):
#   postgres_server.sh start DIR   a cluster in DIR, listening only on a socket in DIR; writes
#                                  DIR/url (a libpq URL) when it runs, else DIR/why (the reason,
#                                  which the tests print when they skip)
#   postgres_server.sh stop DIR    stops it and removes DIR
# PostgreSQL refuses to run as root: as root, the server runs as the user `nobody`.
set -uo pipefail
action=${1:?start or stop}
dir=${2:?a folder}

as_server() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u nobody -- "$@"
  else
    "$@"
  fi
}

if [[ $action == stop ]]; then
  bin=$(cat "$dir/bin" 2>/dev/null)
  [[ -n $bin && -d $dir/data ]] && as_server "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
  rm -rf "$(cat "$dir/socket" 2>/dev/null)" "$dir"
  exit 0
fi

rm -rf "$dir"
mkdir -p "$dir"
give_up() {
  echo "$1" >"$dir/why"
  echo "kerntime: no PostgreSQL server for the tests: $1" >&2
  exit 0 # the tests skip, saying why
}
initdb=$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)
[[ -x "$initdb" ]] || initdb="" # the glob matched nothing
[[ -z $initdb ]] && initdb=$(command -v initdb)
[[ -z $initdb ]] && give_up "initdb was not found (install Debian's postgresql package)"
bin=$(dirname "$initdb")
echo "$bin" >"$dir/bin"
# The socket in a short folder of its own: a socket's path must stay under 108 bytes.
socket=$(mktemp -d /tmp/kerntime-pg.XXXXXX) || give_up "mktemp failed"
echo "$socket" >"$dir/socket"
[[ $(id -u) -eq 0 ]] && chown nobody "$dir" "$socket"
as_server "$bin/initdb" -D "$dir/data" -U kerntime --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 ||
  give_up "initdb failed: $(tail -n 3 "$dir/initdb.log" | tr '\n' ' ')"
as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses='' -c unix_socket_directories='$socket' -c fsync=off" start >/dev/null 2>&1 ||
  give_up "the server did not start: $(tail -n 3 "$dir/server.log" 2>/dev/null | tr '\n' ' ')"
echo "postgresql://kerntime@/postgres?host=$socket" >"$dir/url"
