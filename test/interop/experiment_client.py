"""A small Katib experiment driven by Debian's python3-grpcio, as Katib's controller and metrics
collector would: tpe over two parameters, medianstop early stopping.

Usage: experiment_client.py STUBS_DIR HOST:PORT EXPERIMENT TRIALS BAD_TRIAL [GATE_FILE]
STUBS_DIR holds api/v1beta1/api_pb2*.py from test/interop/compile_proto.sh. For each of TRIALS trials
it asks GetSuggestions (with every earlier trial, its assignments, condition and objective), names
the trial EXPERIMENT-trial-K, and once two trials succeeded asks GetEarlyStoppingRules listing the new
trial as RUNNING; then it reports the trial's accuracy, one value per step. Trial BAD_TRIAL learns
badly, so the early-stopping worker stops it; the others succeed. A last GetSuggestions carries every
trial. Prints {"trials": [...], "rules": [...], "bad": name} as JSON on stdout.
With GATE_FILE, it waits after the first trial until that file exists, so a watcher can be sure to
have looked before the other trials arrive (however slow the machine).
"""

import json
import os
import sys
import time
from datetime import datetime, timedelta, timezone

import grpc

stubs_dir, address, experiment, trial_total, bad_index = sys.argv[1:6]
trial_total = int(trial_total)
bad_index = int(bad_index)
gate_file = sys.argv[6] if len(sys.argv) > 6 else None
sys.path.insert(0, stubs_dir)

from api.v1beta1 import api_pb2, api_pb2_grpc  # noqa: E402

TIMEOUT = 60
GATE_TIMEOUT = 90
STEPS = 6
COND = api_pb2.TrialStatus.TrialConditionType


def spec():
    return api_pb2.ExperimentSpec(
        parameter_specs=api_pb2.ExperimentSpec.ParameterSpecs(
            parameters=[
                api_pb2.ParameterSpec(
                    name="lr",
                    parameter_type=api_pb2.DOUBLE,
                    feasible_space=api_pb2.FeasibleSpace(min="0.001", max="0.1"),
                ),
                api_pb2.ParameterSpec(
                    name="momentum",
                    parameter_type=api_pb2.DOUBLE,
                    feasible_space=api_pb2.FeasibleSpace(min="0.5", max="0.99"),
                ),
            ]
        ),
        objective=api_pb2.ObjectiveSpec(type=api_pb2.MAXIMIZE, objective_metric_name="accuracy"),
        algorithm=api_pb2.AlgorithmSpec(algorithm_name="tpe"),
        early_stopping=api_pb2.EarlyStoppingSpec(
            algorithm_name="medianstop",
            algorithm_settings=[
                api_pb2.EarlyStoppingSetting(name="min_trials_required", value="2"),
                api_pb2.EarlyStoppingSetting(name="start_step", value="3"),
            ],
        ),
        parallel_trial_count=1,
        max_trial_count=trial_total,
    )


def as_trial(t):
    return api_pb2.Trial(
        name=t["name"],
        spec=api_pb2.TrialSpec(
            objective=api_pb2.ObjectiveSpec(type=api_pb2.MAXIMIZE, objective_metric_name="accuracy"),
            parameter_assignments=api_pb2.TrialSpec.ParameterAssignments(
                assignments=[api_pb2.ParameterAssignment(name=n, value=v) for n, v in t["assignments"]]
            ),
        ),
        status=api_pb2.TrialStatus(
            condition=COND.Value(t["condition"]),
            observation=api_pb2.Observation(
                metrics=[api_pb2.Metric(name="accuracy", value=str(t["objective"]))] if t["objective"] is not None else []
            ),
        ),
    )


def curve(index, lr):
    """Accuracy per step: later trials learn better (so they beat the median), BAD_TRIAL learns little."""
    top = 0.12 if index == bad_index else 0.55 + 0.05 * index + 0.5 * lr
    return [round(top * (1 - 0.5 ** (step + 1)), 4) for step in range(STEPS)]


def wait_for_gate(path):
    deadline = time.monotonic() + GATE_TIMEOUT
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            sys.exit(f"experiment_client: {path} did not appear within {GATE_TIMEOUT} s")
        time.sleep(0.05)


def main():
    exp = api_pb2.Experiment(name=experiment, spec=spec())
    trials = []
    rules = []
    start = datetime.now(timezone.utc) - timedelta(seconds=10 * trial_total + 30)
    with grpc.insecure_channel(address) as channel:
        suggestion = api_pb2_grpc.SuggestionStub(channel)
        db = api_pb2_grpc.DBManagerStub(channel)
        es = api_pb2_grpc.EarlyStoppingStub(channel)
        for k in range(trial_total):
            reply = suggestion.GetSuggestions(
                api_pb2.GetSuggestionsRequest(
                    experiment=exp,
                    trials=[as_trial(t) for t in trials],
                    current_request_number=1,
                    total_request_number=k + 1,
                ),
                timeout=TIMEOUT,
            )
            assignments = [(a.name, a.value) for a in reply.parameter_assignments[0].assignments]
            trial = {
                "name": f"{experiment}-trial-{k}",
                "assignments": assignments,
                "condition": "RUNNING",
                "objective": None,
            }
            trials.append(trial)
            succeeded = [t for t in trials if t["condition"] == "SUCCEEDED"]
            if len(succeeded) >= 2:
                answer = es.GetEarlyStoppingRules(
                    api_pb2.GetEarlyStoppingRulesRequest(experiment=exp, trials=[as_trial(t) for t in trials]),
                    timeout=TIMEOUT,
                )
                rules = [
                    {"name": r.name, "value": r.value, "comparison": api_pb2.ComparisonType.Name(r.comparison), "start_step": r.start_step}
                    for r in answer.early_stopping_rules
                ]
            values = curve(k, float(dict(assignments)["lr"]))
            for step, value in enumerate(values):
                stamp = (start + timedelta(seconds=10 * k + step)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
                db.ReportObservationLog(
                    api_pb2.ReportObservationLogRequest(
                        trial_name=trial["name"],
                        observation_log=api_pb2.ObservationLog(
                            metric_logs=[
                                api_pb2.MetricLog(time_stamp=stamp, metric=api_pb2.Metric(name="accuracy", value=str(value))),
                                api_pb2.MetricLog(time_stamp=stamp, metric=api_pb2.Metric(name="loss", value=str(round(1 - value, 4)))),
                            ]
                        ),
                    ),
                    timeout=TIMEOUT,
                )
                time.sleep(0.05)
            trial["objective"] = max(values)
            # Only the early-stopping worker stops a trial: the client never claims it, so a page that
            # shows BAD_TRIAL stopped shows the worker's decision.
            trial["condition"] = "RUNNING" if k == bad_index else "SUCCEEDED"
            if k == 0 and gate_file:
                wait_for_gate(gate_file)
        # The controller asks again once a trial finishes: this request names every trial with its parameters.
        suggestion.GetSuggestions(
            api_pb2.GetSuggestionsRequest(
                experiment=exp,
                trials=[as_trial(t) for t in trials],
                current_request_number=1,
                total_request_number=trial_total + 1,
            ),
            timeout=TIMEOUT,
        )
    print(json.dumps({"trials": [t["name"] for t in trials], "rules": rules, "bad": trials[bad_index]["name"]}))


main()
