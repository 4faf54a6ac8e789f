"""bench/run_json.py: what the benchmark scripts (ab.sh, repro.sh) share
in reading statbench's output; they put bench/ on PYTHONPATH."""
import json


def load(path):
    """The JSON document at path, or None when it is missing or is not
    JSON (a run that failed or was cut short)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
