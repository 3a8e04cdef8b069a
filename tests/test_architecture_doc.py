"""docs/ARCHITECTURE.md cannot drift silently: every file, module symbol and test it names in
backticks exists, and the kernel signatures its how-to gives are the ones the dispatch calls.

Read statically (``ast``): no module is imported, so a symbol is found where its module defines
or imports it at the top level (a class's methods and attributes one level down).
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PACKAGES = ("bgsim", "bots", "experiments")
SYMBOL = re.compile(r"^((?:bgsim|bots|experiments)(?:\.\w+)+)")
# the how-to's kernel signatures, and the dispatch argument lists they must equal
SIGNATURES = {"choose": "_CHECKER_ARGUMENTS", "double": "_DOUBLE_ARGUMENTS", "offers": "_CUBE_ARGUMENTS",
              "answer": "_CUBE_ARGUMENTS"}


def spans(text: str) -> list[str]:
    """What the page puts in backticks (a span may go on over a line break), placeholders
    (``<module>``) left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.S).replace("\n", " ")
    return [re.sub(r"\s+", " ", span).strip() for span in re.findall(r"`([^`]+)`", text) if "<" not in span]


def named(text: str) -> tuple[set[str], set[str], set[str]]:
    """(files, tests as ``path::name``, dotted ``module.symbol`` names) the page names."""
    files, tests, symbols = set(), set(), set()
    for span in spans(text):
        if "::" in span and " " not in span:
            tests.add(span)
        elif "/" in span and " " not in span and not span.startswith(("--", "results/runs")):
            files.add(span)
        elif SYMBOL.match(span):
            symbols.add(SYMBOL.match(span).group(1))
    return files, tests, symbols


def missing_files(text: str, root: Path = ROOT) -> list[str]:
    return sorted(path for path in named(text)[0] if not any(root.glob(path.rstrip("/"))))


@lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _top_level(tree: ast.Module) -> dict[str, ast.AST]:
    found: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        found[name.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]] = node
    return found


def symbol_exists(dotted: str, root: Path = ROOT) -> bool:
    """Whether ``dotted`` (``package.module.name[.member]``) is a module of the tree or a name
    its module defines or imports at the top level (a class member one level down)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = root.joinpath(*parts[:cut])
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if not path.exists():
                continue
            rest = parts[cut:]
            if not rest:
                return True
            top = _top_level(_tree(path))
            if rest[0] not in top:
                return False
            node = top[rest[0]]
            if len(rest) == 1 or not isinstance(node, ast.ClassDef):
                return True
            return rest[1] in _top_level(ast.Module(body=node.body, type_ignores=[]))
    return False


def missing_symbols(text: str, root: Path = ROOT) -> list[str]:
    return sorted(symbol for symbol in named(text)[2] if not symbol_exists(symbol, root))


def missing_tests(text: str, root: Path = ROOT) -> list[str]:
    missing = []
    for test in sorted(named(text)[1]):
        path, name = test.split("::")
        file = root / path
        if not file.exists() or name not in {node.name for node in ast.walk(_tree(file))
                                             if isinstance(node, ast.FunctionDef)}:
            missing.append(test)
    return missing


def _dispatch_arguments(root: Path = ROOT) -> dict[str, str]:
    tree = _tree(root / "bgsim" / "fast" / "dispatch.py")
    return {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant)}


def wrong_signatures(text: str, root: Path = ROOT) -> list[str]:
    """Each kernel signature of the page (``<prefix>_choose(...)``...) that is not the dispatch's
    argument list, and each the page leaves out."""
    given = dict(re.findall(r"<prefix>_(\w+)\(([^)]*)\)", text))
    arguments = _dispatch_arguments(root)
    wrong = [f"<prefix>_{question} is not in the page" for question in SIGNATURES if question not in given]
    for question, constant in SIGNATURES.items():
        if question in given and given[question].replace(" ", "") != arguments[constant].replace(" ", ""):
            wrong.append(f"<prefix>_{question}({given[question]}): the dispatch passes ({arguments[constant]})")
    checker = _top_level(_tree(root / "bgsim" / "fast" / "checker.py"))
    score = ", ".join(argument.arg for argument in checker["racer_score"].args.args)
    if "score" in given and given["score"].replace(" ", "") != score.replace(" ", ""):
        wrong.append(f"<prefix>_score({given['score']}): an evaluation takes ({score})")
    return wrong


TEXT = DOC.read_text(encoding="utf-8")


def test_every_file_the_architecture_names_exists():
    assert not missing_files(TEXT), missing_files(TEXT)


def test_every_module_symbol_the_architecture_names_exists():
    assert not missing_symbols(TEXT), missing_symbols(TEXT)


def test_every_test_the_architecture_names_exists():
    assert not missing_tests(TEXT), missing_tests(TEXT)


def test_the_kernel_signatures_the_architecture_gives_are_the_dispatchs():
    assert not wrong_signatures(TEXT), wrong_signatures(TEXT)


def test_the_checks_find_what_drifted():
    drifted = ("`bgsim/gone.py`, `bgsim/layouts.py`, `bgsim.layouts.NOT_THERE`, `bgsim.layouts.FastBot.param`, "
               "`bgsim.layouts.FastBot.nothing`, `tests/test_imports.py::test_gone`, "
               "`tests/test_imports.py::test_imports_flow_one_way`, `experiments/*.toml`\n"
               "    <prefix>_choose(code, params, board) -> int\n")
    assert missing_files(drifted) == ["bgsim/gone.py"]
    assert missing_symbols(drifted) == ["bgsim.layouts.FastBot.nothing", "bgsim.layouts.NOT_THERE"]
    assert missing_tests(drifted) == ["tests/test_imports.py::test_gone"]
    wrong = wrong_signatures(drifted)
    assert any(line.startswith("<prefix>_choose(code, params, board): the dispatch passes (code, params,")
               for line in wrong)
    assert "<prefix>_offers is not in the page" in wrong
