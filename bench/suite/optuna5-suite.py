# The Optuna 5.0 side of bench:suite: runs the jobs listed in a JSON file (sampler, problem name,
# Katib parameter specs, budget, seed, output path) and writes, per job, the best regret after
# each trial. The objective is evaluated by bench/suite/evaluate.ts so both sides share it.
# Samplers: tpe = TPESampler(multivariate=False), multivariate-tpe = TPESampler(multivariate=True),
# cmaes = CmaEsSampler, gp = GPSampler (needs torch and scipy), random = RandomSampler.
import json
import os
import subprocess
import sys
import warnings

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

warnings.filterwarnings("ignore")
optuna.logging.set_verbosity(optuna.logging.ERROR)


def distribution(spec):
    space = spec["feasibleSpace"]
    if spec["parameterType"] == "INT":
        return IntDistribution(int(space["min"]), int(space["max"]))
    if spec["parameterType"] in ("CATEGORICAL", "DISCRETE"):
        return CategoricalDistribution(list(space["list"]))
    return FloatDistribution(float(space["min"]), float(space["max"]))


def sampler(name, seed):
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, multivariate=False)
    if name == "multivariate-tpe":
        return optuna.samplers.TPESampler(seed=seed, multivariate=True)
    if name == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed)
    if name == "gp":
        import torch

        # One thread per process: the bench runs several of these on a shared machine.
        torch.set_num_threads(1)
        return optuna.samplers.GPSampler(seed=seed)
    return optuna.samplers.RandomSampler(seed=seed)


def main():
    jobs = json.load(open(sys.argv[1]))
    here = os.path.dirname(os.path.abspath(__file__))
    node = os.path.join(here, "..", "..", "node_modules", ".bin", "node")
    evaluator = subprocess.Popen([node, os.path.join(here, "evaluate.ts")], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
    for done, job in enumerate(jobs, 1):
        space = {s["name"]: distribution(s) for s in job["parameters"]}
        study = optuna.create_study(sampler=sampler(job["sampler"], job["seed"]))
        best, trajectory = float("inf"), []
        for _ in range(job["budget"]):
            trial = study.ask(space)
            evaluator.stdin.write(json.dumps({"problem": job["problem"], "params": trial.params}) + "\n")
            evaluator.stdin.flush()
            reply = json.loads(evaluator.stdout.readline())
            study.tell(trial, reply["value"])
            best = min(best, reply["value"])
            trajectory.append(best - reply["optimum"])
        os.makedirs(os.path.dirname(job["out"]), exist_ok=True)
        with open(job["out"], "w") as handle:
            json.dump({"regrets": trajectory}, handle)
        if done % 100 == 0 or done == len(jobs):
            print(f"bench:suite: Optuna side {done}/{len(jobs)} runs", file=sys.stderr, flush=True)
    evaluator.stdin.close()
    evaluator.wait()


if __name__ == "__main__":
    main()
