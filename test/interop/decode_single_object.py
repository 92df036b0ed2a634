"""Decodes one Avro single-object encoded value (stdin) with Apache Avro's Python library, given
only the writer's .avsc file. Written independently of the TypeScript codec it checks: the
CRC-64-AVRO fingerprint is recomputed here over the library's own Parsing Canonical Form."""
import io
import json
import sys

import avro.io
import avro.schema

EMPTY = 0xC15D213AA4D7A795


def crc64_avro(data: bytes) -> int:
    table = []
    for i in range(256):
        fp = i
        for _ in range(8):
            fp = (fp >> 1) ^ (EMPTY & -(fp & 1))
        table.append(fp)
    fp = EMPTY
    for byte in data:
        fp = (fp >> 8) ^ table[(fp ^ byte) & 0xFF]
    return fp


PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


def spec_canonical(schema) -> str:
    """The library's canonical form, with the spec's [PRIMITIVES] rule applied: python3-avro 1.11
    leaves a primitive that carried a logicalType as {"type":"long"}; the spec (and Java) say "long"."""
    def walk(node):
        if isinstance(node, dict):
            if set(node) == {"type"} and node["type"] in PRIMITIVES:
                return node["type"]
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node
    return json.dumps(walk(json.loads(schema.canonical_form)), separators=(",", ":"))


def main() -> None:
    schema = avro.schema.parse(open(sys.argv[1], encoding="utf-8").read())
    value = sys.stdin.buffer.read()
    if value[:2] != b"\xc3\x01":
        sys.exit("not single-object encoded")
    fingerprint = int.from_bytes(value[2:10], "little")
    canonical = spec_canonical(schema)
    record = avro.io.DatumReader(schema).read(avro.io.BinaryDecoder(io.BytesIO(value[10:])))
    print(json.dumps({
        "fingerprint": format(fingerprint, "016x"),
        "computed": format(crc64_avro(canonical.encode("utf-8")), "016x"),
        "canonical": canonical,
        "record": record,
    }, default=str))


if __name__ == "__main__":
    main()
