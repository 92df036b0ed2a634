# Writes bench/suite/fixtures/bbob-cocoex.json: values cocoex (coco-experiment) computes for the
# BBOB functions whose instance is fixed by x_opt and f_opt alone (no rotation): f1-f5, f8, f20.
# The rotated functions draw R and Q from COCO's own generator, which this project does not
# reproduce, so they cannot be compared point by point. x_opt is read from cocoex
# (_best_parameter writes it to a file) and f_opt is cocoex's value there.
# Run: python3 -m venv .bench-tools/suite-venv && .bench-tools/suite-venv/bin/pip install coco-experiment
#   && .bench-tools/suite-venv/bin/python bench/suite/make-fixture.py
import json
import os
import random
import tempfile

import cocoex

FUNCTIONS = [1, 2, 3, 4, 5, 8, 20]
DIMENSIONS = [2, 5, 10]
INSTANCES = [1, 2, 3]
POINTS = 10


def best_parameter(problem):
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            problem._best_parameter("print")
            with open("._bbob_problem_best_parameter.txt") as handle:
                return [float(v) for v in handle.read().split()]
        finally:
            os.chdir(here)


def main():
    rng = random.Random(45)
    cases = []
    suite = cocoex.Suite("bbob", "", "")
    for function in FUNCTIONS:
        for dims in DIMENSIONS:
            for instance in INSTANCES:
                problem = suite.get_problem_by_function_dimension_instance(function, dims, instance)
                x_opt = best_parameter(problem)
                points = [[rng.uniform(-5, 5) for _ in range(dims)] for _ in range(POINTS)]
                # A few points just outside the box exercise the boundary penalties.
                points.append([rng.uniform(5, 6) for _ in range(dims)])
                cases.append({
                    "function": function,
                    "dims": dims,
                    "instance": instance,
                    "xOpt": x_opt,
                    "fOpt": problem(x_opt),
                    "points": points,
                    "values": [problem(p) for p in points],
                })
                problem.free()
    path = os.path.join(os.path.dirname(__file__), "fixtures", "bbob-cocoex.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        json.dump({"cocoex": cocoex.__version__, "cases": cases}, handle)


if __name__ == "__main__":
    main()
