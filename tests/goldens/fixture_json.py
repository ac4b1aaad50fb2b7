"""The fixtures' JSON, shared by the golden generators: values encoded as the tests read them (NaN → "NaN",
±∞ → "±Infinity"; NumPy scalars and arrays as plain numbers and lists) and written one row a line."""

import json
import math

import numpy as np

def encode(x):
    """Nested lists of JSON numbers; NaN → "NaN", −∞ → "-Infinity"."""
    if isinstance(x, np.ndarray):
        return encode(x.tolist())
    if isinstance(x, (list, tuple)):
        return [encode(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if math.isnan(x):
            return "NaN"
        if x == -math.inf:
            return "-Infinity"
        if x == math.inf:
            return "Infinity"
        return x
    if isinstance(x, dict):
        return {k: encode(v) for k, v in x.items()}
    return x


def dumps(value, indent=""):
    """JSON with one line per matrix row: objects and lists of lists spread out, lists of scalars on one line."""
    inner = indent + " "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {dumps(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}" if items else "{}"
    if isinstance(value, list) and any(isinstance(v, (list, dict)) for v in value):
        return "[\n" + ",\n".join(inner + dumps(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value, allow_nan=False, ensure_ascii=False)
