# Optuna 5.0 on every problem of problems.ts (the anchors and the untuned two) with the anchors'
# protocol (../shared/reference/hpo-anchors-optuna5.md): 100 trials, batch 1 and 5 (5 asked, then
# 5 told), median regret at 25/50/100 and ms per suggestion (in-process ask+tell). The samplers:
# gp = GPSampler (its defaults; needs torch and scipy), tpe = TPESampler(constant_liar=True)
# (multivariate by default in 5.0), cmaes = CmaEsSampler. Prints the rows anchors.ts holds.
# Run: python3 -m venv v && v/bin/pip install 'optuna==5.0.*' cmaes==0.13.1 scipy torch &&
#   v/bin/python this.py --sampler gp --seeds 10 [--problems branin,hartmann6] [--batches 1,5]
import argparse
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


def box(n, lo, hi):
    return {f"x{i}": FloatDistribution(lo, hi) for i in range(1, n + 1)}


def xs(p, n):
    return [p[f"x{i}"] for i in range(1, n + 1)]


def branin(p):
    x1, x2 = p["x1"], p["x2"]
    b, c, t = 5.1 / (4 * math.pi**2), 5 / math.pi, 1 / (8 * math.pi)
    return (x2 - b * x1**2 + c * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10


ALPHA = [1.0, 1.2, 3.0, 3.2]
A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
P = [
    [1312, 1696, 5569, 124, 8283, 5886],
    [2329, 4135, 8307, 3736, 1004, 9991],
    [2348, 1451, 3522, 2883, 3047, 6650],
    [4047, 8828, 8732, 5743, 1091, 381],
]


def hartmann6(p):
    x = xs(p, 6)
    return -sum(
        ALPHA[i] * math.exp(-sum(A[i][j] * (x[j] - P[i][j] * 1e-4) ** 2 for j in range(6))) for i in range(4)
    )


def rosenbrock4(p):
    x = xs(p, 4)
    return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(3))


def ackley5(p):
    x = xs(p, 5)
    sq = sum(v * v for v in x) / 5
    co = sum(math.cos(2 * math.pi * v) for v in x) / 5
    return -20 * math.exp(-0.2 * math.sqrt(sq)) - math.exp(co) + 20 + math.e


OPT_PENALTY = {"adam": 0.0, "rmsprop": 0.31, "sgd": 2.17}


def mixed4(p):
    return (
        ((p["layers"] - 5) / 3) ** 2
        + (p["dropout"] - 0.3) ** 2
        + OPT_PENALTY[p["optimizer"]]
        + 0.5 * math.log2(int(p["batch_size"]) / 64) ** 2
    )


def logquad2(p):
    u = math.log10(p["lr"]) + 3
    v = math.log10(p["weight_decay"]) + 4
    return 0.45 * (u + v) ** 2 + 0.3 * (u - v) ** 2


def styblinski4(p):
    return 0.5 * sum(v**4 - 16 * v**2 + 5 * v for v in xs(p, 4))


ACT_PENALTY = {"relu": 0.0, "tanh": 0.1, "sigmoid": 0.4}


def mixedlog4(p):
    return (
        (math.log10(p["lr"]) + 3 - 2 * (p["momentum"] - 0.5)) ** 2 / 4
        + ((p["layers"] - 3) / 4) ** 2
        + ACT_PENALTY[p["activation"]]
    )


PROBLEMS = {
    "branin": ({"x1": FloatDistribution(-5, 10), "x2": FloatDistribution(0, 15)}, branin, 0.397887357729738),
    "hartmann6": (box(6, 0, 1), hartmann6, -3.32236801141551),
    "rosenbrock4": (box(4, -5, 10), rosenbrock4, 0.0),
    "ackley5": (box(5, -15, 30), ackley5, 0.0),
    "mixed4": (
        {
            "layers": IntDistribution(1, 8),
            "dropout": FloatDistribution(0, 1),
            "optimizer": CategoricalDistribution(["sgd", "adam", "rmsprop"]),
            # DISCRETE is categorical for Optuna's samplers, as in Katib.
            "batch_size": CategoricalDistribution(["16", "32", "64", "128", "256"]),
        },
        mixed4,
        0.0,
    ),
    "logquad2": (
        {"lr": FloatDistribution(1e-5, 1, log=True), "weight_decay": FloatDistribution(1e-6, 0.1, log=True)},
        logquad2,
        0.0,
    ),
    "styblinski4": (box(4, -5, 5), styblinski4, -156.66466281508568),
    "mixedlog4": (
        {
            "lr": FloatDistribution(1e-5, 1, log=True),
            "momentum": FloatDistribution(0, 0.99),
            "layers": IntDistribution(1, 10),
            "activation": CategoricalDistribution(["relu", "tanh", "sigmoid"]),
        },
        mixedlog4,
        0.0,
    ),
}


def sampler(name, seed):
    if name == "gp":
        return optuna.samplers.GPSampler(seed=seed)
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, constant_liar=True)
    return optuna.samplers.CmaEsSampler(seed=seed)


def run(problem, name, seed, batch, trials):
    space, f, opt = PROBLEMS[problem]
    study = optuna.create_study(sampler=sampler(name, seed))
    best, regrets, spent, asked = math.inf, [], 0.0, 0
    while asked < trials:
        t0 = time.perf_counter()
        round_ = [study.ask(space) for _ in range(min(batch, trials - asked))]
        spent += time.perf_counter() - t0
        values = [f(t.params) for t in round_]
        for t, v in zip(round_, values):
            study.tell(t, v)
            asked += 1
            best = min(best, v)
            if asked in (25, 50, 100):
                regrets.append(best - opt)
    # The last ask (at trials − batch completed) stands for "ms at 100 trials", as the bench's.
    return regrets, spent * 1000 / trials


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sampler", default="gp", choices=["gp", "tpe", "cmaes"])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--batches", default="1,5")
    parser.add_argument("--trials", type=int, default=100)
    args = parser.parse_args()
    rows = {}
    for batch in [int(b) for b in args.batches.split(",")]:
        for problem in args.problems.split(","):
            runs = [run(problem, args.sampler, seed, batch, args.trials) for seed in range(args.seeds)]
            med = [statistics.median(r[0][k] for r in runs) for k in range(len(runs[0][0]))]
            q = [statistics.quantiles([r[0][-1] for r in runs], n=4)] if len(runs) > 1 else [[0, 0, 0]]
            ms = statistics.median(r[1] for r in runs)
            rows.setdefault(str(batch), {}).setdefault(problem, {})[args.sampler] = [
                float(f"{v:.3g}") for v in med
            ] + [round(ms, 2)]
            print(batch, problem, args.sampler, rows[str(batch)][problem][args.sampler],
                  "q25/q75", [float(f"{v:.3g}") for v in (q[0][0], q[0][2])], file=sys.stderr, flush=True)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
