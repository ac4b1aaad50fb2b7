"""The golden generators (tests/goldens/*.py) run only when a fixture is regenerated, with NumPy, seaborn and JAX the
suite does not install: this keeps them at least valid Python whose `__main__` block calls functions they define, so
the next regeneration does not start by repairing a file (gen_modern_goldens.py once lost the newline before
`def main()`, which became part of a comment, and nothing noticed)."""

import ast
import builtins
import pathlib

import pytest

GOLDENS = pathlib.Path(__file__).resolve().parents[1] / "goldens"


def is_main_block(node):
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    )


@pytest.mark.parametrize("path", sorted(GOLDENS.glob("*.py")), ids=lambda p: p.name)
def test_generator_parses_and_its_main_block_calls_what_it_defines(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    top = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    top |= {a.asname or a.name.split(".")[0] for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    top |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    called = {
        c.func.id
        for block in filter(is_main_block, tree.body)
        for c in ast.walk(block)
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
    }
    missing = called - top - set(dir(builtins))
    assert not missing, f"{path.name}'s __main__ block calls {sorted(missing)}, which it does not define"
