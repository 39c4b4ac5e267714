# docs/openapi.yaml with the edges of Int64 as explicit examples of every integer path and
# query parameter, for schemathesis's examples phase: nexusd must refuse each with a 4xx
# (or take it where it is in range), never a 5xx or a crash. Usage: fuzz-api-examples.py IN OUT
import sys
import yaml

EDGES = [9223372036854775807, -9223372036854775808, -1, 0, 9007199254740993]

def with_edges(parameter):
    if parameter.get("in") not in ("path", "query"):
        return
    schema = parameter.get("schema", {})
    if schema.get("type") == "integer":
        parameter["examples"] = {f"edge{i}": {"value": v} for i, v in enumerate(EDGES)}
    elif schema.get("type") == "array" and schema.get("items", {}).get("type") == "integer":
        parameter["examples"] = {f"edge{i}": {"value": [v]} for i, v in enumerate(EDGES)}

spec = yaml.safe_load(open(sys.argv[1]))
for parameter in spec.get("components", {}).get("parameters", {}).values():
    with_edges(parameter)
for item in spec["paths"].values():
    for operation in item.values():
        for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
            if "$ref" not in parameter:
                with_edges(parameter)
yaml.safe_dump(spec, open(sys.argv[2], "w"), sort_keys=False)
