#!/usr/bin/env bash
# Messages per second of `telco sms batch --parallel N` against `telco mock`
# on loopback: one binary, a LINES-line CSV, ROUNDS rounds; each round runs
# every N once, in an order that rotates from round to round, each run
# against a fresh mock and with a fresh journal (on the journal's
# filesystem: every chunk is two synced commits). Prints each run and the
# median per N, and the median of each round's ratio to the first N (the
# rounds are the pairs: a change in the machine's load hits both runs).
#
#   scripts/bench-batch.sh                       # 5 rounds of 1, 4 and 8
#   ROUNDS=9 PARALLEL="1 2 4 8 16" scripts/bench-batch.sh
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
LINES=${LINES:-5000}
CHUNK=${CHUNK:-100}
PARALLEL=${PARALLEL:-"1 4 8"}
. scripts/bench-lib.sh
bench_setup bench-batch

# run N: one batch of the file at --parallel N against a new mock; prints
# the seconds it took.
run() {
  rm -f "$WORK/journal"
  start_mock
  local start end
  start=$(date +%s.%N)
  XDG_STATE_HOME="$WORK/state-$1-$RANDOM" "$WORK/telco" sms batch "$WORK/batch.csv" --journal "$WORK/journal" --chunk-size "$CHUNK" \
    --parallel "$1" -o json >/dev/null 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; exit 1; }
  end=$(date +%s.%N)
  stop_mock
  echo "$end - $start" | bc -l
}

read -ra ns <<<"$PARALLEL"
echo "# $LINES lines, --chunk-size $CHUNK, $ROUNDS rounds; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 0 $((ROUNDS - 1))); do
  for k in $(seq 0 $((${#ns[@]} - 1))); do
    n=${ns[$(((k + r) % ${#ns[@]}))]}
    s=$(run "$n")
    printf 'round %d parallel %d %.3f s %.0f msg/s\n' "$r" "$n" "$s" "$(echo "$LINES / $s" | bc -l)"
    echo "$n $s $r" >>"$WORK/times"
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${ns[@]}"; do
  awk -v n="$n" -v lines="$LINES" '$1 == n { print $2 }' "$WORK/times" | sort -g |
    awk -v n="$n" -v lines="$LINES" '{ t[NR] = $1 } END {
      m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
      printf "median --parallel %d: %.3f s, %.0f msg/s (runs: %d, fastest %.0f, slowest %.0f msg/s)\n", n, m, lines / m, NR, lines / t[1], lines / t[NR] }'
done
base=${ns[0]}
for n in "${ns[@]:1}"; do
  awk -v n="$n" -v base="$base" '$1 == base { b[$3] = $2 } $1 == n { t[$3] = $2 }
    END { for (r in t) if (r in b) print b[r] / t[r] }' "$WORK/times" | sort -g |
    awk -v n="$n" -v base="$base" '{ v[NR] = $1 } END {
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "median per-round ratio --parallel %d / --parallel %d: %.2fx (range %.2f to %.2f)\n", n, base, m, v[1], v[NR] }'
done
