"""docs/plugins.md documents every hook spec, and every hook's example is tested.

Each hook's section must say when the hook is called, its arguments, what
``register`` accepts and give an example.  The examples are executed, registered
as plugins, and put through the conformance suites of :mod:`metafx.testing`
(the test classes at the bottom of this module).
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.hooks import spec as hookspecs
from metafx.testing import (
    DatasetConformance,
    DescriberConformance,
    EngineConformance,
    EvaluatorConformance,
    FamilyConformance,
)

DOC = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
REQUIRED = ("**When it is called:**", "**Arguments:**", "**What `register` accepts:**", "**Example:**")


def hook_specs() -> list[str]:
    """Names of the functions of metafx/hookspecs.py marked as hook specifications."""
    return sorted(n for n, f in vars(hookspecs).items()
                  if callable(f) and getattr(f, f"{hookspecs.PROJECT_NAME}_spec", None) is not None)


def sections() -> dict[str, str]:
    """``## `hook_name` `` sections of the document, by hook name."""
    text = DOC.read_text(encoding="utf-8")
    parts = re.split(r"^## ", text, flags=re.M)
    out = {}
    for part in parts[1:]:
        title, _, body = part.partition("\n")
        m = re.fullmatch(r"`(\w+)`", title.strip())
        if m:
            out[m.group(1)] = body
    return out


def example(hook: str, index: int = 0) -> str:
    blocks = re.findall(r"```python\n(.*?)```", sections()[hook], flags=re.S)
    assert len(blocks) > index, f"the section of {hook} has no python example number {index + 1}"
    return blocks[index]


def test_hook_specs_are_found():
    assert set(hook_specs()) == set(hookspecs.HOOK_KINDS)


@pytest.mark.parametrize("hook", hook_specs())
def test_every_hook_spec_is_documented(hook):
    secs = sections()
    assert hook in secs, f"docs/plugins.md has no section '## `{hook}`'"
    for heading in REQUIRED:
        assert heading in secs[hook], f"section {hook} lacks {heading}"
    assert f"def {hook}(register)" in example(hook), "the example must implement the hook it documents"


def test_no_section_for_an_unknown_hook():
    assert set(sections()) <= set(hook_specs())


# --------------------------------------------------------------------------- examples as plugins
def _module(hook: str, index: int = 0) -> types.ModuleType:
    mod = types.ModuleType(f"docs_example_{hook}" + (f"_{index}" if index else ""))
    sys.modules[mod.__name__] = mod  # importable, so its classes pickle
    exec(compile(example(hook, index), f"docs/plugins.md[{hook}][{index}]", "exec"), mod.__dict__)
    return mod


EXAMPLE_NAMES = {
    "metafx_register_families": "example-cuts",
    "metafx_register_describers": "example-cut-column",
    "metafx_register_evaluators": "example-centroid",
    "metafx_register_search_engines": "example-climb",
    "metafx_register_datasets": "example-blobs",
}


@pytest.fixture(scope="module", autouse=True)
def doc_plugins():
    mods = [_module(h) for h in hook_specs()] + [_module("metafx_register_families", 1)]  # + the image family
    for m in mods:
        metafx.plugin.register_plugin(m, name=m.__name__)
    yield mods
    for m in mods:
        metafx.plugin.unregister_plugin(m)
        sys.modules.pop(m.__name__, None)


@pytest.mark.parametrize("hook", hook_specs())
def test_example_registers_through_its_hook(hook):
    kind, registry = hookspecs.HOOK_KINDS[hook], metafx.plugin.get_registry()
    name = EXAMPLE_NAMES[hook]
    # the evaluators' hook files each class under its role ("set-evaluator", "scorer", "selector")
    reg = registry.evaluator(name) if kind == "evaluator" else registry.registration(kind, name)
    assert reg.plugin == f"docs_example_{hook}"


def test_every_hook_kind_has_a_conformance_test():
    """Each hook's example runs through the conformance suite of its kind (classes below)."""
    suites = {"family": FamilyConformance, "describer": DescriberConformance, "evaluator": EvaluatorConformance,
              "engine": EngineConformance, "dataset": DatasetConformance}
    tested = {cls.__mro__[1]: cls for cls in (TestDocFamily, TestDocDescriber, TestDocEvaluator, TestDocEngine,
                                               TestDocDataset)}
    for hook, kind in hookspecs.HOOK_KINDS.items():
        suite = suites[kind]
        assert suite in tested, f"no conformance test for the {hook} example"
        attr = {"family": "family", "describer": "describer", "evaluator": "evaluator", "engine": "engine",
                "dataset": "dataset"}[kind]
        assert getattr(tested[suite], attr) == EXAMPLE_NAMES[hook]
        assert suite.__name__ in sections()[hook], f"section {hook} does not name {suite.__name__}"


def test_example_family_in_a_search():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    y = (X[:, 1] > 0.3).astype(int)
    res = metafx.search(X, y, family="example-cuts", engine="example-climb", evaluator="example-centroid",
                        budget=4, steps=4, seed=0, progress=False)
    assert res.n_features == 4 and res.transform(X[:3]).shape == (3, 4)


class TestDocFamily(FamilyConformance):
    family = "example-cuts"


class TestDocImageFamily(FamilyConformance):
    family = "example-pixel-pairs"


def test_image_family_example_searches_and_draws(tmp_path):
    """The binary-image example works on flat and (n, H, W) digits, in the transformer, and in metafx plot."""
    X, y = metafx.load_dataset("digits")
    res = metafx.search(X[:300], y[:300], family="example-pixel-pairs", budget=30, steps=3, seed=0, progress=False)
    assert res.n_features == 30 and res.family_params == {"image_shape": [8, 8]}
    assert res.transform(X[300:305].reshape(5, -1)).shape == (5, 30)
    fx = metafx.MetaFeatureExtractor(family="example-pixel-pairs", budget=10, steps=2).fit(X[:200].reshape(200, -1),
                                                                                          y[:200])
    assert fx.transform(X[:3].reshape(3, -1)).shape == (3, 10)
    paths = metafx.plotting.plot_result(res, tmp_path, X=X[:300], y=y[:300])
    assert [p.name for p in paths][-1] == "result_features.png" and paths[-1].stat().st_size > 5000


def test_conformance_failure_says_what_went_wrong():
    """A family that overspends its budget fails the suite with a sentence, not a bare AssertionError."""
    base = metafx.plugin.get_registry().get("family", "example-cuts")

    class Overspends(base):
        name = "example-overspends"

        def draw(self, point, budget, rng, max_features=None):
            return super().draw(point, budget + 1, rng, max_features)

    class Suite(FamilyConformance):
        family = Overspends

    suite = Suite()
    X, y = suite.make_data()
    fam = Overspends().fit(X, y)
    with pytest.raises(AssertionError, match=r"gave features costing 13 in all: stop drawing before the next "
                                             r"feature would exceed the budget"):
        suite.test_draw_respects_budget_and_costs(fam)


class TestDocDescriber(DescriberConformance):
    describer = "example-cut-column"
    family = "example-cuts"


class TestDocEvaluator(EvaluatorConformance):
    evaluator = "example-centroid"


class TestDocEngine(EngineConformance):
    engine = "example-climb"


class TestDocDataset(DatasetConformance):
    dataset = "example-blobs"


# --------------------------------------------------------------------------- the engine example, for real
SCRIPT_TAIL = """
import os, sys, time
import metafx

metafx.plugin.register_plugin(sys.modules[__name__], name="docs-climb")
X, y = metafx.load_dataset("digits")


def announce(state, record):
    print("STEP", record.step, flush=True)
    time.sleep(float(os.environ.get("METAFX_TEST_SLOW", "0")))


res = metafx.search(X[:300], y[:300], budget=30, steps=6, engine="example-climb", seed=4, progress=False,
                    storage=sys.argv[1], n_jobs=2, callbacks=[announce])
res.to_json(sys.argv[2])
print("DONE", flush=True)
"""


def test_engine_example_resumes_after_sigkill_with_two_processes(tmp_path):
    """The example engine in a plain script (no main guard) with n_jobs=2: killed after its third step and
    run again, it ends with the result of an uninterrupted run."""
    import os
    import signal
    import subprocess

    script = tmp_path / "climb.py"
    script.write_text(example("metafx_register_search_engines") + SCRIPT_TAIL)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}

    def run(storage, out, kill_after=None):
        e = {**env, "METAFX_TEST_SLOW": "5" if kill_after else "0"}
        proc = subprocess.Popen([sys.executable, str(script), str(storage), str(out)], stdout=subprocess.PIPE,
                                text=True, env=e, cwd=str(tmp_path))
        lines = []
        for line in proc.stdout:
            lines.append(line.strip())
            if kill_after and line.strip() == f"STEP {kill_after}":
                os.kill(proc.pid, signal.SIGKILL)
                break
        proc.stdout.close()
        rc = proc.wait(timeout=120)
        return rc, lines

    rc, lines = run(tmp_path / "ref.jsonl", tmp_path / "ref.json")
    assert rc == 0 and lines[-1] == "DONE", lines
    rc, lines = run(tmp_path / "j.jsonl", tmp_path / "out.json", kill_after=3)
    assert rc == -signal.SIGKILL and not (tmp_path / "out.json").exists()
    rc, lines = run(tmp_path / "j.jsonl", tmp_path / "out.json")
    assert rc == 0 and lines[-1] == "DONE", lines
    ref = metafx.SearchResult.from_json(tmp_path / "ref.json")
    res = metafx.SearchResult.from_json(tmp_path / "out.json")
    assert res.metadata["resumed_steps"] == 3
    assert [(t.point, t.quality) for t in res.trajectory] == [(t.point, t.quality) for t in ref.trajectory]
    assert res.features == ref.features
