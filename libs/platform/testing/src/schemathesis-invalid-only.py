"""Schemathesis hooks for a pass that sends invalid requests only (runSchemathesis's invalidOnly).

`--mode negative` alone is not that: the fuzzing phase also replays valid cases, and a case whose
only invalid part is a path parameter the configuration fixes (`[parameters]`, such as the test's
own sub-account) is sent with the fixed, valid value. A test that asserts that refused requests
write nothing needs every request of the pass to be one the API must refuse.

Loaded by schemathesis from its configuration (`hooks`); the fixed path parameters come in
SEED_FIXED_PATH_PARAMETERS, comma separated.
"""

import os

import schemathesis
from schemathesis import GenerationMode
from schemathesis.core import NotSet

FIXED_PATH_PARAMETERS = frozenset(filter(None, os.environ.get("SEED_FIXED_PATH_PARAMETERS", "").split(",")))


def _location(value):
    return str(getattr(value, "value", value))


@schemathesis.hook
def filter_case(context, case):
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.NEGATIVE:
        return False
    invalid = {_location(location) for location, info in meta.components.items() if info.mode == GenerationMode.NEGATIVE}
    parameter = getattr(meta.phase.data, "parameter", None)
    # A Content-Type that describes no body: the request has nothing to refuse (RFC 9110 8.3).
    if invalid <= {"header", "path"} and parameter is not None and parameter.lower() == "content-type" and isinstance(case.body, NotSet):
        return False
    if invalid - {"path"}:
        return True
    # Only the path is invalid: kept when the invalid parameter is one the configuration leaves
    # alone (an unknown id); the fixed ones were sent valid.
    return "path" in invalid and parameter is not None and parameter not in FIXED_PATH_PARAMETERS
