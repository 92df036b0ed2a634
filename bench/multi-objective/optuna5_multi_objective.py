# Optuna 5.0's side of bench:multi-objective. Two kinds of job, read from the JSON file given:
# - "run": one study of the sampler (nsga2 = NSGAIISampler(seed), tpe = TPESampler(seed), both
#   with Optuna's defaults for several objectives), one trial at a time; every trial's values come
#   from bench/multi-objective/evaluate.ts through a pipe; writes the loss vectors in trial order.
# - "importance": the given trials added to a single-objective study, then
#   get_param_importances with FanovaImportanceEvaluator(seed=0); writes the importances and the
#   seconds that call took.
import json
import os
import subprocess
import sys
import time
import warnings

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

warnings.filterwarnings("ignore")
optuna.logging.set_verbosity(optuna.logging.ERROR)


def distribution(spec):
    space = spec["feasibleSpace"]
    log = space.get("distribution") == "LOG_UNIFORM"
    if spec["parameterType"] == "INT":
        return IntDistribution(int(space["min"]), int(space["max"]), log=log)
    if spec["parameterType"] in ("CATEGORICAL", "DISCRETE"):
        return CategoricalDistribution(list(space["list"]))
    return FloatDistribution(float(space["min"]), float(space["max"]), log=log)


def sampler(name, seed):
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed)
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    raise ValueError(name)


def run(job, evaluator):
    space = {s["name"]: distribution(s) for s in job["parameters"]}
    study = optuna.create_study(directions=["minimize"] * job["objectives"], sampler=sampler(job["sampler"], job["seed"]))
    losses = []
    for _ in range(job["budget"]):
        trial = study.ask(space)
        evaluator.stdin.write(json.dumps({"problem": job["problem"], "params": trial.params}) + "\n")
        evaluator.stdin.flush()
        values = json.loads(evaluator.stdout.readline())["values"]
        study.tell(trial, values)
        losses.append(values)
    return {"losses": losses}


def importance(job):
    space = {s["name"]: distribution(s) for s in job["parameters"]}
    study = optuna.create_study()
    study.add_trials(
        [optuna.trial.create_trial(params=t["params"], distributions=space, value=t["value"]) for t in job["trials"]]
    )
    started = time.perf_counter()
    result = optuna.importance.get_param_importances(
        study, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=0)
    )
    return {"importances": dict(result), "seconds": time.perf_counter() - started}


def main():
    jobs = json.load(open(sys.argv[1]))
    here = os.path.dirname(os.path.abspath(__file__))
    node = os.path.join(here, "..", "..", "node_modules", ".bin", "node")
    evaluator = subprocess.Popen([node, os.path.join(here, "evaluate.ts")], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
    for job in jobs:
        result = run(job, evaluator) if job["kind"] == "run" else importance(job)
        os.makedirs(os.path.dirname(job["out"]), exist_ok=True)
        with open(job["out"], "w") as handle:
            json.dump(result, handle)
        print(job["out"], file=sys.stderr, flush=True)
    evaluator.stdin.close()
    evaluator.wait()


if __name__ == "__main__":
    main()
