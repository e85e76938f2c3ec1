"""What optuna's own dead-worker handling does (heartbeat + grace period + RetryFailedTrialCallback).

Process A starts trial 0 of a fresh study and is killed with SIGKILL while evaluating it; process B is started at
once and runs ``study.optimize(n_trials=1)``, as a surviving worker would.  Prints what B evaluated (trial number,
point, the trial it retries) and, for every trial, its state and when it finished, counted from the kill.
docs/engines.md ("Running on several machines") quotes three runs.

    python experiments/optuna_heartbeat/bench_optuna_heartbeat.py [--storage sqlite:////tmp/optuna-heartbeat.db] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import uuid
import warnings

import optuna
from optuna.storages import RDBStorage, RetryFailedTrialCallback

HEARTBEAT, GRACE = 1, 2  # seconds: the smallest integers optuna accepts


def _storage(url: str) -> RDBStorage:
    return RDBStorage(url, heartbeat_interval=HEARTBEAT, grace_period=GRACE,
                      failed_trial_callback=RetryFailedTrialCallback(max_retry=3))


def _slow(trial):
    trial.suggest_float("x", 0, 1)
    print("A started trial", trial.number, trial.params, flush=True)
    time.sleep(120)
    return 0.0


def _fast(trial):
    x = trial.suggest_float("x", 0, 1)
    retried = trial.study._storage.get_trial(trial._trial_id).system_attrs.get("failed_trial")
    print(f"B evaluates trial {trial.number} at {trial.params} (retry of trial {retried})", flush=True)
    return x


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--storage", default="sqlite:////tmp/optuna-heartbeat.db")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--role", choices=["A", "B"], help=argparse.SUPPRESS)
    ap.add_argument("--study", help=argparse.SUPPRESS)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if args.role:
        study = optuna.load_study(study_name=args.study, storage=_storage(args.storage),
                                  sampler=optuna.samplers.RandomSampler(seed=1 if args.role == "A" else 2))
        study.optimize(_slow if args.role == "A" else _fast, n_trials=1)
        return
    print(f"optuna {optuna.__version__}, heartbeat {HEARTBEAT} s, grace period {GRACE} s, {args.storage}")
    for run in range(1, args.runs + 1):
        name = f"heartbeat-{uuid.uuid4().hex[:8]}"
        optuna.create_study(study_name=name, storage=args.storage)
        cmd = [sys.executable, os.path.abspath(__file__), "--storage", args.storage, "--study", name, "--role"]
        a = subprocess.Popen([*cmd, "A"], stdout=subprocess.PIPE, text=True)
        a.stdout.readline()
        time.sleep(0.5)
        a.kill()
        a.wait()
        killed = time.time()
        b = subprocess.run([*cmd, "B"], capture_output=True, text=True)
        print(f"run {run}: {b.stdout.strip() or b.stderr.strip().splitlines()[-1]}")
        for t in optuna.load_study(study_name=name, storage=args.storage).trials:
            end = "" if t.datetime_complete is None else \
                f", finished {t.datetime_complete.timestamp() - killed:.2f} s after the kill"
            print(f"  trial {t.number}: {t.state.name} at {t.params}{end}")


if __name__ == "__main__":
    main()
