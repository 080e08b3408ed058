#!/usr/bin/env bash
# Issue 35 on the user's clock: `telco sms find --all` reading a long
# history with pages in flight, and `telco sms batch` sending, against
# `telco mock` with LATENCY_MS added to every Find and every batch send
# (a network's round trip), as bench-riversend.sh adds it.
#
# 1. The batch: ROUNDS runs of `sms batch --parallel 4` of a LINES-line
#    CSV, each against a fresh mock, with a fresh journal and state
#    directory (so a fresh account's ledger: every chunk is synced to disk
#    as a user's is). Prints each run's msg/s and the median.
# 2. The history: the last batch's mock keeps its LINES messages; PAIRS
#    pairs of `sms find --all -o json` at --parallel 1 and --parallel
#    PAGES, the order alternating from pair to pair. Every run's output
#    must be the same bytes (the script stops otherwise). Prints each
#    pair's wall times and ratio, and the median of the per-pair ratios
#    (a change in the machine's load hits both runs of a pair).
#
#   scripts/bench-history.sh                          # 20,000 messages, 40 ms, 5 pairs
#   PAIRS=9 LATENCY_MS=20 PAGES=16 scripts/bench-history.sh
set -euo pipefail
cd "$(dirname "$0")/.."

LINES=${LINES:-20000}
LATENCY_MS=${LATENCY_MS:-40}
ROUNDS=${ROUNDS:-3}
PAIRS=${PAIRS:-5}
PAGES=${PAGES:-8}
. scripts/bench-lib.sh
bench_setup bench-history

# timed CMD...: runs CMD, standard output to $WORK/out; prints its seconds.
timed() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$WORK/out" 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

median() {
  sort -g | awk '{ v[NR] = $1 } END { printf "%s", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "# $LINES messages, $LATENCY_MS ms per Find and per batch send; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
  start_mock Messages.SendBatch Messages.Find
  rm -rf "$WORK/journal" "$WORK/state"
  s=$(XDG_STATE_HOME="$WORK/state" timed "$WORK/telco" sms batch "$WORK/batch.csv" --journal "$WORK/journal" \
    --parallel 4 -o json)
  rate=$(echo "$LINES / $s" | bc -l)
  printf 'batch run %d: --parallel 4, %.3f s, %.0f msg/s\n' "$r" "$s" "$rate"
  echo "$rate" >>"$WORK/rates"
  if [ "$r" -lt "$ROUNDS" ]; then stop_mock; fi
done
printf 'median sms batch --parallel 4: %.0f msg/s (%d runs)\n' "$(median <"$WORK/rates")" "$ROUNDS"
sleep 1 # the mock moves a message to Delivered 0.5 s after it is sent: then every find sees the same

want=""
# history N: one `sms find --all --parallel N` of the whole history; sets
# secs to its seconds, and stops the script if its output differs from
# the first run's.
history() {
  secs=$(timed "$WORK/telco" sms find --all --since -1h --parallel "$1" -o json)
  local sum
  sum=$(sha256sum <"$WORK/out" | cut -d' ' -f1)
  if [ -z "$want" ]; then
    want=$sum
    local n
    n=$(jq length "$WORK/out")
    [ "$n" -eq "$LINES" ] || { echo "sms find listed $n messages, not $LINES" >&2; exit 1; }
  elif [ "$sum" != "$want" ]; then
    echo "sms find --parallel $1 listed other messages, or in another order" >&2
    exit 1
  fi
}

for p in $(seq 1 "$PAIRS"); do
  if [ $((p % 2)) -eq 1 ]; then
    history 1; one=$secs
    history "$PAGES"; many=$secs
  else
    history "$PAGES"; many=$secs
    history 1; one=$secs
  fi
  ratio=$(echo "$many / $one" | bc -l)
  printf 'find pair %d: --parallel 1 %.3f s, --parallel %d %.3f s, ratio %.3f\n' "$p" "$one" "$PAGES" "$many" "$ratio"
  echo "$ratio" >>"$WORK/ratios"
done
stop_mock
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'median per-pair ratio sms find --all --parallel %d / --parallel 1: %.3f (%d pairs, range %s to %s); every output identical\n' \
  "$PAGES" "$(median <"$WORK/ratios")" "$PAIRS" "$(sort -g "$WORK/ratios" | head -1 | xargs printf '%.3f')" \
  "$(sort -g "$WORK/ratios" | tail -1 | xargs printf '%.3f')"
