# Sourced by the bench scripts: their work directory, the built binary, the
# CSV they send, and a fresh `telco mock` for each run.

# bench_setup NAME: makes WORK (removed on exit, with any mock still
# running), builds telco into it and writes $WORK/batch.csv of LINES lines.
bench_setup() {
  WORK=$(mktemp -d "/tmp/telco-$1.XXXXXX")
  mock_pid=""
  trap 'if [ -n "$mock_pid" ]; then kill "$mock_pid" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
  go build -o "$WORK/telco" ./cmd/telco
  {
    echo "To,Text"
    for i in $(seq 0 $((LINES - 1))); do printf '+6140%07d,Benchmark message %d\n' "$i" "$i"; done
  } >"$WORK/batch.csv"
}

# start_mock [OP...]: a fresh `telco mock` whose requests of each OP wait
# LATENCY_MS; exports TELCO_BASE_URL, TELCO_ACCOUNT_SID, TELCO_TOKEN and
# TELCO_PROPERTY_SID for it.
start_mock() {
  local faults=() op
  for op in "$@"; do
    faults+=(--fault "op=$op,kind=latency,delay_ms=$LATENCY_MS,count=1000000000")
  done
  rm -f "$WORK/mock.json"
  "$WORK/telco" mock --addr 127.0.0.1:0 --info-file "$WORK/mock.json" "${faults[@]}" >/dev/null 2>&1 &
  mock_pid=$!
  until [ -s "$WORK/mock.json" ]; do sleep 0.05; done # written once the mock listens
  TELCO_BASE_URL=$(jq -r .url "$WORK/mock.json") TELCO_ACCOUNT_SID=$(jq -r .account_sid "$WORK/mock.json")
  TELCO_TOKEN=$(jq -r .token "$WORK/mock.json") TELCO_PROPERTY_SID=$(jq -r .property_sid "$WORK/mock.json")
  export TELCO_BASE_URL TELCO_ACCOUNT_SID TELCO_TOKEN TELCO_PROPERTY_SID
}

stop_mock() {
  kill "$mock_pid"
  wait "$mock_pid" 2>/dev/null || true
  mock_pid=""
}
