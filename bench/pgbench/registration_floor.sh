#!/usr/bin/env bash
# Runs the floor of registration (registration_floor.sql) against a
# database that `disburse bench --registration` built: pgbench with C
# clients, each calling floor_register(K) back to back for SECONDS_EACH
# (10) seconds, for each "K C" pair given (default: the groups that 8
# and 64 clients can form). Prints registrations a second for each: the
# members it made over the time, so a run that used up the payees shows.
#
#   bench/pgbench/registration_floor.sh benchreg ["K C" ...]
set -euo pipefail
db=${1:?usage: registration_floor.sh DATABASE ["K C" ...]}
shift
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=("1 8" "2 4" "4 2" "8 1" "32 2")
seconds=${SECONDS_EACH:-10}
conn=(-h 127.0.0.1 -U postgres)
psql=(psql "${conn[@]}" -v ON_ERROR_STOP=1 -q)
here=$(dirname "$0")

"${psql[@]}" -d "$db" -c ANALYZE
"${psql[@]}" -d "$db" -f "$here/registration_floor.sql"
script=$(mktemp)
trap 'rm -f "$script"' EXIT
members() { "${psql[@]}" -d "$db" -Atc 'SELECT count(*) FROM members'; }
for pair in "${pairs[@]}"; do
  read -r k c <<<"$pair"
  echo "SELECT floor_register($k);" >"$script"
  before=$(members)
  pgbench "${conn[@]}" -n -M prepared -c "$c" -j "$(( c < 2 ? c : 2 ))" -T "$seconds" -f "$script" "$db" >/dev/null
  echo "groups of $k, $c at once: $(( ($(members) - before) / seconds )) registrations a second"
done
