"""Optuna's pruners on the curves bench/pruners.ts simulated, for its table.

Usage: optuna_pruners.py INPUT_JSON
INPUT_JSON: {"seeds": [{"study": name, "curves": [[value per step], ...]}, ...],
             "cases": [{"label": L, "class": PrunerClassName, "kwargs": {...}}, ...]}
Trials run one after another (study.optimize with n_jobs 1, by ask and tell): trial number i
reports curve i as steps 1..n, and stops when should_prune() says so; a trial that ends returns
its last value. Prints {"version": optuna version, "results": {label: [{"steps": [...],
"completed": [...], "seconds": s} per seed]}} on stdout. Studies run in parallel, one process per
core (at most 4).
"""

import json
import os
import sys
import time
import warnings
from multiprocessing import Pool

import optuna
from optuna.trial import TrialState

warnings.filterwarnings("ignore")
optuna.logging.set_verbosity(optuna.logging.ERROR)


def pruner(case):
    kwargs = dict(case["kwargs"])
    if case["class"] == "PatientPruner":
        kwargs.setdefault("wrapped_pruner", None)
    return getattr(optuna.pruners, case["class"])(**kwargs)


def run(case, seed):
    study = optuna.create_study(
        study_name=seed["study"],
        direction="minimize",
        sampler=optuna.samplers.RandomSampler(seed=0),
        pruner=pruner(case),
    )
    steps, completed = [], []
    started = time.perf_counter()
    for curve in seed["curves"]:
        trial = study.ask()
        pruned = False
        used = 0
        for step, value in enumerate(curve, start=1):
            trial.report(value, step)
            used = step
            if trial.should_prune():
                pruned = True
                break
        if pruned:
            study.tell(trial, state=TrialState.PRUNED)
        else:
            study.tell(trial, curve[-1])
        steps.append(used)
        completed.append(not pruned)
    return {"steps": steps, "completed": completed, "seconds": time.perf_counter() - started}


def task(job):
    case, seed = job
    warnings.filterwarnings("ignore")
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    return run(case, seed)


def main():
    with open(sys.argv[1]) as f:
        data = json.load(f)
    jobs = [(case, seed) for case in data["cases"] for seed in data["seeds"]]
    # Studies are independent: one process per core (at most 4) shortens the wait.
    with Pool(min(4, os.cpu_count() or 1)) as pool:
        done = pool.map(task, jobs, chunksize=1)
    n = len(data["seeds"])
    results = {case["label"]: done[i * n : (i + 1) * n] for i, case in enumerate(data["cases"])}
    json.dump({"version": optuna.__version__, "results": results}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
