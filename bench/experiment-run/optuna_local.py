# The Optuna 5.0 side of bench/experiment-run.ts: a local study (in-memory storage, RandomSampler, as
# the experiments' `random`) whose objective runs a trial script as a subprocess, reads its stdout line
# by line with the `name=value` rule and reports each objective value as it appears. Prints one JSON
# object: per trial, when its process was spawned, its script's own t0, when the first objective value
# was reported and when the process's exit was seen (ms since the epoch, this machine's wall clock).
# Run: python optuna_local.py --node NODE --trials N --jobs J -- SCRIPT [ARG=PARAM...]
#   where each ARG=PARAM passes `--ARG=<value>` with PARAM one of x, lr, momentum, optimizer.
import argparse
import json
import re
import subprocess
import threading
import time

import optuna

optuna.logging.set_verbosity(optuna.logging.ERROR)
METRIC = re.compile(r"([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?)")


def now_ms():
    return time.time() * 1000


def suggest(trial, param):
    if param == "x":
        return trial.suggest_float("x", 0, 1)
    if param == "lr":
        return trial.suggest_float("lr", 0.001, 0.1)
    if param == "momentum":
        return trial.suggest_float("momentum", 0.5, 0.95)
    if param == "optimizer":
        return trial.suggest_categorical("optimizer", ["sgd", "adam"])
    raise ValueError(f"unknown parameter {param}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--node", required=True)
    parser.add_argument("--trials", type=int, required=True)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--metric", default="accuracy")
    parser.add_argument("script", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    script, *mapping = [a for a in args.script if a != "--"]
    records = []
    lock = threading.Lock()

    def objective(trial):
        argv = [args.node, script]
        for pair in mapping:
            name, param = pair.split("=", 1)
            argv.append(f"--{name}={suggest(trial, param)}")
        record = {"t0": None, "first_metric_at": None, "spawned_at": now_ms()}
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        value, step = None, 0
        for line in proc.stdout:
            found = {m.group(1): m.group(2) for m in METRIC.finditer(line)}
            if "t0" in found and record["t0"] is None:
                record["t0"] = float(found["t0"])
            if args.metric in found:
                value = float(found[args.metric])
                trial.report(value, step)
                step += 1
                if record["first_metric_at"] is None:
                    record["first_metric_at"] = now_ms()
        proc.wait()
        record["exited_at"] = now_ms()
        with lock:
            records.append(record)
        if proc.returncode != 0 or value is None:
            raise RuntimeError(f"trial exited with {proc.returncode}, value {value}")
        return value

    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler())
    started = now_ms()
    study.optimize(objective, n_trials=args.trials, n_jobs=args.jobs)
    ended = now_ms()
    print(json.dumps({"version": optuna.__version__, "started": started, "ended": ended, "trials": records}))


if __name__ == "__main__":
    main()
