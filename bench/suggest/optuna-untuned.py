# Optuna's figures on the two untuned problems of problems.ts (UNTUNED_PROBLEMS), with the
# protocol of ../shared/reference/hpo-anchors-optuna5.md: 100 trials, 20 seeds, batch 1 and 5
# (5 asked, then 5 told), TPE with constant_liar=True (multivariate by default in Optuna 5.0;
# here both our TPE algorithms are held to it), CMA-ES with categorical parameters drawn by its
# independent RandomSampler. Prints the rows bench/suggest/anchors.ts holds as UNTUNED.
# Run: python3 -m venv v && v/bin/pip install optuna==5.0.0 cmaes==0.13.1 && v/bin/python this.
import json
import math
import statistics
import sys
import time
import warnings

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

warnings.filterwarnings("ignore")
optuna.logging.set_verbosity(optuna.logging.ERROR)

ST_OPT = -156.66466281508568


def styblinski(p):
    return 0.5 * sum(p[f"x{i}"] ** 4 - 16 * p[f"x{i}"] ** 2 + 5 * p[f"x{i}"] for i in range(1, 5))


PENALTY = {"relu": 0.0, "tanh": 0.1, "sigmoid": 0.4}


def mixedlog(p):
    return (
        (math.log10(p["lr"]) + 3 - 2 * (p["momentum"] - 0.5)) ** 2 / 4
        + ((p["layers"] - 3) / 4) ** 2
        + PENALTY[p["activation"]]
    )


PROBLEMS = {
    "styblinski4": ({f"x{i}": FloatDistribution(-5, 5) for i in range(1, 5)}, styblinski, ST_OPT),
    "mixedlog4": (
        {
            "lr": FloatDistribution(1e-5, 1, log=True),
            "momentum": FloatDistribution(0, 0.99),
            "layers": IntDistribution(1, 10),
            "activation": CategoricalDistribution(["relu", "tanh", "sigmoid"]),
        },
        mixedlog,
        0.0,
    ),
}


def sampler(name, seed):
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, constant_liar=True)
    return optuna.samplers.CmaEsSampler(seed=seed)


def run(problem, name, seed, batch):
    space, f, opt = PROBLEMS[problem]
    study = optuna.create_study(sampler=sampler(name, seed))
    best, regrets, spent, asked = math.inf, [], 0.0, 0
    while asked < 100:
        t0 = time.perf_counter()
        trials = [study.ask(space) for _ in range(min(batch, 100 - asked))]
        spent += time.perf_counter() - t0
        values = [f(t.params) for t in trials]
        for t, v in zip(trials, values):
            study.tell(t, v)
            asked += 1
            best = min(best, v)
            if asked in (25, 50, 100):
                regrets.append(best - opt)
    return regrets, spent * 1000 / 100


rows = {}
for batch in (1, 5):
    for problem in PROBLEMS:
        for name in ("tpe", "cmaes"):
            runs = [run(problem, name, seed, batch) for seed in range(int(sys.argv[1]) if len(sys.argv) > 1 else 20)]
            med = [statistics.median(r[0][k] for r in runs) for k in range(3)]
            ms = statistics.median(r[1] for r in runs)
            rows.setdefault(str(batch), {}).setdefault(problem, {})[name] = [float(f"{v:.3g}") for v in med] + [round(ms, 2)]
            print(batch, problem, name, rows[str(batch)][problem][name], file=sys.stderr)
print(json.dumps(rows))
