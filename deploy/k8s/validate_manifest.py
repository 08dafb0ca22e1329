#!/usr/bin/python3
"""Checks Kubernetes manifests offline against the API's own models: those of Debian's
python3-kubernetes (22.6: the Kubernetes 1.22 API, which has Indexed Jobs), generated from the
API's OpenAPI spec. No cluster, no kubectl.

    deploy/k8s/validate_manifest.py FILE...      (YAML, one or more documents each)

For every document: its kind and apiVersion name a model (batch/v1 Job: V1Job); every field must
be one the model has (a misspelt `completionMod` is refused, where YAML and kubectl's client side
would carry it silently), of the model's type (a string where the API wants a string: `"500"` in
args, and resource quantities quoted), and every field the model requires must be there.
Prints one line per fault and exits 1, or prints "ok" lines and exits 0.
"""
import re
import sys

try:
    import yaml
    from kubernetes import client
except ImportError as e:
    sys.exit(f"validate_manifest: {e.name} is missing: install python3-kubernetes and python3-yaml "
             "(scripts/setup), and run this with /usr/bin/python3")

LIST = re.compile(r"list\[(.+)\]$")
DICT = re.compile(r"dict\(([^,]+), (.+)\)$")
# The models' primitive types. "object" is IntOrString, Quantity or a raw extension: anything.
PRIMITIVES = {"str": (str,), "int": (int,), "float": (int, float), "bool": (bool,),
              "date": (str,), "datetime": (str,)}


def required_fields(model):
    """The attributes whose setter refuses None: the ones the API requires."""
    probe = model.__new__(model)
    probe.local_vars_configuration = client.Configuration()
    required = []
    for attribute in model.openapi_types:
        try:
            setattr(probe, attribute, None)
        except ValueError:
            required.append(attribute)
    return required


def check(value, type_name, path, faults):
    """Checks value against the model type; returns it converted (models built), or None."""
    if type_name == "object":
        return value
    if type_name in PRIMITIVES:
        allowed = PRIMITIVES[type_name]
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            faults.append(f"{path}: must be {type_name}, not {type(value).__name__} {value!r}")
            return None
        return value
    if match := LIST.match(type_name):
        if not isinstance(value, list):
            faults.append(f"{path}: must be a list, not {type(value).__name__}")
            return None
        return [check(item, match[1], f"{path}[{i}]", faults) for i, item in enumerate(value)]
    if match := DICT.match(type_name):
        if not isinstance(value, dict):
            faults.append(f"{path}: must be a map, not {type(value).__name__}")
            return None
        return {check(k, match[1], f"{path} key", faults): check(v, match[2], f"{path}.{k}", faults)
                for k, v in value.items()}
    model = getattr(client, type_name, None)
    if model is None:
        faults.append(f"{path}: the models have no type {type_name}")
        return None
    return check_model(value, model, path, faults)


def check_model(value, model, path, faults):
    if not isinstance(value, dict):
        faults.append(f"{path}: must be an object ({model.__name__}), not {type(value).__name__}")
        return None
    by_json_name = {json_name: attribute for attribute, json_name in model.attribute_map.items()}
    arguments = {}
    for key, item in value.items():
        attribute = by_json_name.get(key)
        if attribute is None:
            known = ", ".join(sorted(by_json_name))
            faults.append(f"{path}.{key}: no such field in {model.__name__} (it has: {known})")
            continue
        if item is not None:
            arguments[attribute] = check(item, model.openapi_types[attribute], f"{path}.{key}", faults)
    for attribute in required_fields(model):
        if value.get(model.attribute_map[attribute]) is None:
            faults.append(f"{path}.{model.attribute_map[attribute]}: required by {model.__name__}, missing")
    try:
        # The setters check what the spec says of single values (enums, for some).
        return model(**{k: v for k, v in arguments.items() if v is not None})
    except (ValueError, TypeError) as e:
        if not any(f.startswith(path) for f in faults):
            faults.append(f"{path}: {e}")
        return None


def model_for(document):
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None, "apiVersion and kind are required"
    version = api_version.split("/")[-1]
    model = getattr(client, version[:1].upper() + version[1:] + kind, None)
    if model is None:
        return None, f"no model for kind {kind} in {api_version}"
    return model, ""


def validate_file(path):
    """Returns the faults of every document in the file, one line each."""
    try:
        with open(path) as f:
            documents = list(yaml.safe_load_all(f))
    except (OSError, yaml.YAMLError) as e:
        return [f"{path}: {e}".replace("\n", " ")]
    faults = []
    for number, document in enumerate(documents, 1):
        if document is None:
            continue
        where = f"{path}: document {number}"
        if not isinstance(document, dict):
            faults.append(f"{where}: not a mapping")
            continue
        model, error = model_for(document)
        if model is None:
            faults.append(f"{where}: {error}")
            continue
        name = (document.get("metadata") or {}).get("name", "?")
        found = []
        check_model(document, model, f"{document['kind']}/{name}", found)
        faults += [f"{where}: {fault}" for fault in found]
    if not any(d is not None for d in documents):
        faults.append(f"{path}: no document")
    return faults


def main(paths):
    if not paths:
        print("usage: validate_manifest.py FILE...", file=sys.stderr)
        return 2
    status = 0
    for path in paths:
        faults = validate_file(path)
        for fault in faults:
            print(fault, file=sys.stderr)
        if faults:
            status = 1
        else:
            print(f"{path}: ok")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
