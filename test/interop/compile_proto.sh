#!/usr/bin/env bash
# Compiles proto/api/v1beta1/api.proto with protoc as shipped in Debian's python3-grpc-tools (a
# proto compiler independent of protobufjs) into Python modules (api/v1beta1/api_pb2.py and
# api_pb2_grpc.py) under the directory given as $1, which is created if missing.
# Uses Debian's /usr/bin/python3, not whichever python3 is first on PATH.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
mkdir -p "$1"
out=$(cd "$1" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

if ! /usr/bin/python3 -c 'import grpc_tools.protoc' 2>/dev/null; then
  echo "$0: /usr/bin/python3 cannot import grpc_tools; scripts/infra.sh up installs python3-grpc-tools" >&2
  exit 3
fi

cd "$root"
/usr/bin/python3 -m grpc_tools.protoc -Iproto --python_out="$out" --grpc_python_out="$out" proto/api/v1beta1/api.proto
