"""An RLS and grpc.health.v1 client built only from Debian's python3-grpcio, messages written by hand.

Usage: ratelimit_client.py HOST:PORT DOMAIN KEY VALUE CALLS [CA_PEM [CERT_PEM KEY_PEM]]
Sends CALLS ShouldRateLimit requests for the descriptor KEY=VALUE of DOMAIN (over TLS trusting
CA_PEM, server name localhost, with a client certificate when given), then a health Check, the first
message of a health Watch, and a call to a method the server does not have; prints everything
as one JSON object on stdout.
"""

import json
import sys

import grpc

address, domain, key, value, calls = sys.argv[1:6]
TIMEOUT = 30


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, data):
    return varint(number << 3 | 2) + varint(len(data)) + data


def fields(message):
    """(number, value) pairs of a protobuf message: ints for varints, bytes for the rest."""
    at = 0
    while at < len(message):
        tag, at = read_varint(message, at)
        kind = tag & 7
        if kind == 0:
            number, at = read_varint(message, at)
            yield tag >> 3, number
        elif kind == 2:
            length, at = read_varint(message, at)
            yield tag >> 3, message[at : at + length]
            at += length
        else:
            raise ValueError(f"wire type {kind}")


def read_varint(data, at):
    shift = result = 0
    while True:
        byte = data[at]
        at += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, at
        shift += 7


# RateLimitRequest { domain = 1, descriptors = 2 { entries = 1 { key = 1, value = 2 } } }
entry = field(1, key.encode()) + field(2, value.encode())
request = field(1, domain.encode()) + field(2, field(1, entry))

if len(sys.argv) > 6:
    ca, cert, private_key = (open(path, "rb").read() for path in sys.argv[6:9]) if len(sys.argv) == 9 else (
        open(sys.argv[6], "rb").read(),
        None,
        None,
    )
    credentials = grpc.ssl_channel_credentials(ca, private_key, cert)
    channel = grpc.secure_channel(address, credentials, options=[("grpc.ssl_target_name_override", "localhost")])
else:
    channel = grpc.insecure_channel(address)

raw = dict(request_serializer=None, response_deserializer=None)
should_rate_limit = channel.unary_unary("/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit", **raw)
result = {"decisions": []}
for _ in range(int(calls)):
    reply = dict(fields(should_rate_limit(request, timeout=TIMEOUT)))
    status = dict(fields(reply[2]))  # the first DescriptorStatus
    result["decisions"].append([reply.get(1, 0), status.get(3, 0)])  # overall_code, limit_remaining

check = channel.unary_unary("/grpc.health.v1.Health/Check", **raw)
result["check"] = dict(fields(check(field(1, b""), timeout=TIMEOUT))).get(1, 0)
watch = channel.unary_stream("/grpc.health.v1.Health/Watch", **raw)(field(1, b""), timeout=TIMEOUT)
result["watch"] = dict(fields(next(watch))).get(1, 0)
watch.cancel()

try:
    channel.unary_unary("/envoy.service.ratelimit.v3.RateLimitService/Nope", **raw)(b"", timeout=TIMEOUT)
except grpc.RpcError as error:
    result["unknown"] = [error.code().name, error.details()]

channel.close()
print(json.dumps(result))
