#!/usr/bin/env bash
# Messages per second of contrib/riversend on 1, 2 and 4 nodes against
# `telco sms batch --parallel 4`, both sending to `telco mock` with LATENCY
# added to every send (a network's round trip). ROUNDS rounds; each round
# runs every side once, in an order that rotates from round to round, each
# run against a fresh mock. Prints each run, the median per side, and the
# median of each round's ratio of riversend to the CLI (the rounds are the
# pairs: a change in the machine's load hits both sides of a round).
#
# riversend runs as a user would run it (examples/river-campaign): one
# Enqueue of the whole campaign in one transaction, then N River clients
# with River's defaults, each with NewWorker's worker, the queue at
# MaxWorkers 10; each run starts a throwaway Postgres, which is not timed.
# Its time is from starting the clients to the last message settled
# ("send"), and with the Enqueue before it ("enqueue+send"). The CLI's is
# the whole process, as bench-batch.sh times it.
#
#   scripts/bench-riversend.sh                     # 5 rounds, 5,000 messages, 40 ms
#   ROUNDS=9 LATENCY_MS=20 scripts/bench-riversend.sh
#   CAMPAIGN=/tmp/old-campaign NODES=4 scripts/bench-riversend.sh   # another build of the example (before/after)
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
LINES=${LINES:-5000}
LATENCY_MS=${LATENCY_MS:-40}
NODES=${NODES:-"1 2 4"}
. scripts/bench-lib.sh
bench_setup bench-riversend
if [ -n "${CAMPAIGN:-}" ]; then
  cp "$CAMPAIGN" "$WORK/river-campaign"
else
  (cd examples/river-campaign && go build -o "$WORK/river-campaign" .)
fi

# cli: one `sms batch --parallel 4` of the file; prints its seconds twice
# (it has no separate enqueue).
cli() {
  start_mock Messages.SendBatch Messages.Send
  rm -rf "$WORK/journal" "$WORK/state"
  local start end
  start=$(date +%s.%N)
  XDG_STATE_HOME="$WORK/state" "$WORK/telco" sms batch "$WORK/batch.csv" --journal "$WORK/journal" \
    --parallel 4 -o json >/dev/null 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; exit 1; }
  end=$(date +%s.%N)
  stop_mock
  local s
  s=$(echo "$end - $start" | bc -l)
  echo "$s $s"
}

# rs N: one campaign of LINES messages on N nodes; prints its send
# seconds and its enqueue+send seconds.
rs() {
  start_mock Messages.SendBatch Messages.Send
  "$WORK/river-campaign" -generate "$LINES" -nodes "$1" -json >"$WORK/rs.json" 2>"$WORK/stderr" ||
    { cat "$WORK/stderr" >&2; exit 1; }
  stop_mock
  jq -r 'if .sent != .messages then error("not every message sent: \(.)") else "\(.send_s) \(.send_s + .enqueue_s)" end' "$WORK/rs.json"
}

sides=(cli)
for n in $NODES; do sides+=("rs$n"); done
echo "# $LINES messages, ${LATENCY_MS} ms per send, $ROUNDS rounds; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 0 $((ROUNDS - 1))); do
  for k in $(seq 0 $((${#sides[@]} - 1))); do
    side=${sides[$(((k + r) % ${#sides[@]}))]}
    if [ "$side" = cli ]; then read -r s t < <(cli); else read -r s t < <(rs "${side#rs}"); fi
    printf 'round %d %-4s send %.3f s %5.0f msg/s, enqueue+send %.3f s %5.0f msg/s\n' \
      "$r" "$side" "$s" "$(echo "$LINES / $s" | bc -l)" "$t" "$(echo "$LINES / $t" | bc -l)"
    echo "$side $s $t $r" >>"$WORK/times"
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"

median() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, v[1], v[NR] }'; }
for side in "${sides[@]}"; do
  for col in 2 3; do
    read -r m lo hi < <(awk -v s="$side" -v c="$col" '$1 == s { print $c }' "$WORK/times" | median)
    printf 'median %-4s %-12s %.3f s, %.0f msg/s (fastest %.0f, slowest %.0f)\n' "$side" \
      "$([ "$col" = 2 ] && echo send || echo enqueue+send)" "$m" "$(echo "$LINES / $m" | bc -l)" \
      "$(echo "$LINES / $lo" | bc -l)" "$(echo "$LINES / $hi" | bc -l)"
  done
done
for side in "${sides[@]:1}"; do
  for col in 2 3; do
    read -r m lo hi < <(awk -v s="$side" -v c="$col" '$1 == "cli" { b[$4] = $2 } $1 == s { t[$4] = $c }
      END { for (r in t) if (r in b) print b[r] / t[r] }' "$WORK/times" | median)
    printf 'median per-round rate ratio %s / cli (%s): %.2f (range %.2f to %.2f)\n' "$side" \
      "$([ "$col" = 2 ] && echo send || echo enqueue+send)" "$m" "$lo" "$hi"
  done
done
