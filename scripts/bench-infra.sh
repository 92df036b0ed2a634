#!/usr/bin/env bash
# Runs a benchmark on servers of its own: `bench-infra.sh kafka redis -- node bench/x.ts [flags]`.
# The servers are infra.sh's bench profile (ports +20000, data under .infra/bench), so what a bench
# writes never shows in the product's Kafka, stores or read model; their addresses reach the bench
# through its environment (KAFKA_BROKERS, REDIS_URL, POSTGRES_URL, ...). The servers this run
# started are stopped when it ends, unless BENCH_KEEP_INFRA=1 (then `INFRA_PROFILE=bench bash
# scripts/infra.sh down` stops them).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
servers=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  servers+=("$1")
  shift
done
[ "${1:-}" = -- ] && [ $# -gt 1 ] || { echo 'usage: bench-infra.sh server... -- command...' >&2; exit 2; }
shift

infra() { INFRA_PROFILE=bench bash "$ROOT/scripts/infra.sh" "$@"; }

# Only what was not answering before this run is stopped after it.
already=$(infra status 2>/dev/null | awk '$2 == "up" { print $1 }')
started=()
for server in "${servers[@]}"; do
  grep -qx "$server" <<<"$already" || started+=("$server")
done
infra up "${servers[@]}"
stop() {
  if [ "${BENCH_KEEP_INFRA:-}" != 1 ] && [ ${#started[@]} -gt 0 ]; then infra down "${started[@]}" || true; fi
}
trap stop EXIT

set -a
# shellcheck disable=SC1090
source <(infra env)
set +a
# The product's topics, as `npm start` makes them: some benches read a topic before any server writes it.
if printf '%s\n' "${servers[@]}" | grep -qx kafka; then
  "$ROOT/node_modules/.bin/node" "$ROOT/scripts/declare-topics.ts" >/dev/null
fi
"$@"
