#!/usr/bin/env python3
"""Writes large seeds for the worker's mode of the fuzz target (first byte 3) into the folder given:
intents near and over the default max_intent_bytes (256 KiB), up to 2 MB, whose fields are as long
as they can be. Generated at `make fuzz` time rather than kept in the repository."""
import json, os, sys

folder = sys.argv[1]
app = "com.example.pushline"
token = "ab" * 32
limit = 262_144

def intent(recipients=None, content=None, **fields):
    """An intent of the example app, with tokens and a raw payload unless told otherwise."""
    document = {"schema_version": 1, "id": "seed", "app": app, "environment": "sandbox"}
    document.update(recipients or {"tokens": [token]})
    document.update(content or {"payload": {"aps": {"alert": "hello"}}})
    document.update(fields)
    return json.dumps(document, ensure_ascii=False).encode()

seeds = {
    "long-id": intent(id="i" * (limit - 1000)),
    "escaped-id": intent(id="\u0001" * ((limit - 1000) // 6)),
    "raw-control-id": intent(id="x").replace(b'"x"', b'"' + b"\x01" * (limit - 1000) + b'"'),
    "many-tokens": intent(recipients={"tokens": ["%064x" % i for i in range((limit - 1000) // 69)]}),
    "long-user": intent(recipients={"user": "u" * (limit // 2)},
                        content={"template": "order_update", "args": {"order": {"id": "o" * (limit // 4), "items": 1}}}),
    "long-key": b'{"' + b"k" * (limit - 100) + b'":1}',
    "over-limit": intent(id="x" * 1_500_000),
    "two-megabytes": b'{"schema_version":1,"id":"' + b"y" * (2_097_152 - 40),
}
for name, body in seeds.items():
    with open(os.path.join(folder, f"worker-large-{name}.bin"), "wb") as seed:
        seed.write(b"\x03" + body[:2_097_151])
