"""The golden generators (tests/goldens/*.py) run only when a fixture is regenerated, with NumPy, seaborn and JAX the
suite does not install: this keeps them at least valid Python that calls only names it defines or imports, so the next
regeneration does not start by repairing a file (gen_modern_goldens.py and gen_variant_goldens.py had each lost the
newline before a `def`, which became part of a comment, and nothing noticed)."""

import ast
import builtins
import pathlib

import pytest

GOLDENS = pathlib.Path(__file__).resolve().parents[1] / "goldens"


def bound_names(tree):
    """Every name the module binds anywhere: functions, classes, imports, assignments, parameters, loop targets."""
    names = set(dir(builtins))
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names |= {a.asname or a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
    return names


@pytest.mark.parametrize("path", sorted(GOLDENS.glob("*.py")), ids=lambda p: p.name)
def test_generator_parses_and_calls_only_what_it_binds(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    called = {c.func.id for c in ast.walk(tree) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
    missing = called - bound_names(tree)
    assert not missing, f"{path.name} calls {sorted(missing)}, which it never defines or imports"
