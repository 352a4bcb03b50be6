#!/usr/bin/env bash
# Smoke test of the package as users get it, outside the checkout (issue #14):
#   wheel   build the wheel, install it in a fresh venv, run the smoke through the `kernelstrain` console script;
#   lower   a fresh venv with exactly the lower bounds of pyproject's dependencies (pip --constraint made from
#           the `>=` bounds) plus the wheel, same smoke, plus the repo script upload.py (run from the checkout).
# The smoke: generate kernelinfer (50 sessions, 5 held out) and kernelswarm (30 episodes, 5 held out), validate
# both, load every config with datasets.load_dataset (regular and streaming, row counts checked), and an offline
# `upload --dry-run` (HF_HUB_OFFLINE=1, a dummy token). Needs Python >= 3.11, git and PyPI; exits non-zero on
# any failure.   Usage: ci/smoke.sh [wheel|lower|all]   (default all; PYTHON=python3.11 to choose the interpreter)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
WHAT=${1:-all}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kernelstrain-smoke.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
step() { printf '[smoke %(%H:%M:%S)T] %s\n' -1 "$*"; }

build_wheel() {
    # From a copy of the tracked and untracked-but-not-ignored files, so the build leaves nothing in the checkout.
    mkdir "$WORK/src"
    git -C "$REPO" ls-files -z --cached --others --exclude-standard \
        | (cd "$REPO" && xargs -0 tar -cf - --) | tar -xf - -C "$WORK/src"
    "$PYTHON" -m pip wheel -q --no-deps -w "$WORK/dist" "$WORK/src"
    WHEEL=$(ls "$WORK"/dist/kernelstrain-*.whl)
    step "built $(basename "$WHEEL")"
}

new_venv() {  # new_venv NAME -> a fresh venv under $WORK
    "$PYTHON" -m venv "$WORK/$1"
}

lower_bounds() {  # pyproject's `name>=X` dependencies as `name==X` constraints
    "$PYTHON" - "$REPO/pyproject.toml" <<'PY'
import re, sys, tomllib
deps = tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]
for dep in deps:
    name, low = re.match(r"\s*([A-Za-z0-9._-]+)\s*(?:\[[^]]*\])?\s*.*?>=\s*([^,;\s]+)", dep).groups()
    print(f"{name}=={low}")
PY
}

smoke() {  # smoke VENV: the whole smoke with that venv's `kernelstrain`, run from an empty folder outside the repo
    local bin="$WORK/$1/bin" run="$WORK/run-$1"
    mkdir "$run" && cd "$run"
    export HF_HOME="$run/hf-home" HF_DATASETS_DISABLE_PROGRESS_BARS=1 HF_HUB_OFFLINE=1 HF_TOKEN=hf_smokeDummyToken0000000000000000 PYTHONPATH=
    "$bin/kernelstrain" kernelinfer --out kernelinfer --sessions 50 --holdout 5 --num-proc 2 >/dev/null
    "$bin/kernelstrain" kernelswarm --out kernelswarm --episodes 30 --holdout 5 --num-proc 2 >/dev/null
    step "$1: generated"
    "$bin/kernelstrain" validate kernelinfer
    "$bin/kernelstrain" validate kernelswarm
    "$bin/python" - <<'PY'
import datasets
from datasets import get_dataset_config_names, load_dataset

expected = {("kernelinfer", "sessions"): 50, ("kernelswarm", "episodes"): 30}
views = {"kernelinfer": ["steps"], "kernelswarm": ["agent_turns", "transitions"]}
for folder in ("kernelinfer", "kernelswarm"):
    configs = get_dataset_config_names(folder)
    main = next(c for f, c in expected if f == folder)
    assert configs == [main, *views[folder], "holdout"], configs
    for config in configs:
        splits = ["test"] if config == "holdout" else ["train", "validation"]     # views too
        total = 0
        for split in splits:
            ds = load_dataset(folder, config, split=split)
            streamed = list(load_dataset(folder, config, split=split, streaming=True))
            assert len(ds) == len(streamed), (folder, config, split, len(ds), len(streamed))
            if len(ds) and "shape" in ds.features:
                assert isinstance(ds[0]["shape"], dict) and streamed[0]["shape"] == ds[0]["shape"], ds[0]["shape"]
            total += len(ds)
        want = 5 if config == "holdout" else expected.get((folder, config))
        assert total == want if want else total > 0, (folder, config, total)
        print(f"load_dataset {folder} {config}: {total} rows in {', '.join(splits)}, regular and streaming "
              f"(datasets {datasets.__version__})")
PY
    for folder in kernelinfer kernelswarm; do
        "$bin/kernelstrain" upload "$folder" --repo-id "smoke/$folder" --dry-run >upload.log 2>&1 \
            || { cat upload.log; return 1; }
        grep -q '^plan: ' upload.log || { cat upload.log; return 1; }
    done
    step "$1: validate, load_dataset, upload --dry-run ok"
    cd "$WORK"
}

check_wheel_contents() {  # only the generator package (with schemas and templates) and the console script
    local top
    top=$("$WORK/$1/bin/python" -c "import importlib.metadata as m; print(*sorted({f.parts[0] for f in m.files('kernelstrain') if f.parts[0] != '..' and not f.parts[0].endswith('.dist-info')}))")
    [ "$top" = "generator" ] || { echo "wheel installs more than the generator package: $top"; return 1; }
    "$WORK/$1/bin/python" -c "import importlib.resources as r; assert r.files('generator.schema').joinpath('session.schema.json').is_file()"
}

case "$WHAT" in wheel|lower|all) ;; *) echo "usage: ci/smoke.sh [wheel|lower|all]" >&2; exit 2 ;; esac
cd "$WORK"   # never import the checkout's `generator` by accident: everything runs outside it
step "python: $("$PYTHON" --version)"
build_wheel
if [ "$WHAT" != lower ]; then
    new_venv wheel
    "$WORK/wheel/bin/pip" install -q "$WHEEL"
    step "wheel: installed"
    check_wheel_contents wheel
    smoke wheel
fi
if [ "$WHAT" != wheel ]; then
    lower_bounds >"$WORK/lower.txt"
    step "lower bounds: $(tr '\n' ' ' <"$WORK/lower.txt")"
    new_venv lower
    "$WORK/lower/bin/pip" install -q --constraint "$WORK/lower.txt" "$WHEEL"
    "$WORK/lower/bin/pip" check
    step "lower: installed"
    smoke lower
    (cd "$WORK/run-lower" && HF_HUB_OFFLINE=1 HF_TOKEN=hf_smokeDummyToken0000000000000000 \
        "$WORK/lower/bin/python" "$REPO/upload.py" kernelinfer --repo-id smoke/kernelinfer --dry-run | tail -1)
fi
step "all smoke checks passed"
