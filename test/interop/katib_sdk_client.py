"""Katib's own Python SDK (kubeflow-katib from PyPI) against a DBManager.

Usage: katib_sdk_client.py HOST:PORT TRIAL
Reports two metrics with kubeflow.katib.report_metrics (the trial name from KATIB_TRIAL_NAME, as
Katib sets it in a trial's container), then reads the trial's logs with
KatibClient.get_trial_metrics, and prints them as one JSON object on stdout.
"""

import json
import os
import sys

from kubernetes.client import Configuration

from kubeflow.katib import KatibClient, report_metrics
from kubeflow.katib.utils import utils

address, trial = sys.argv[1:3]
# What Katib gives a trial's container: its name in KATIB_TRIAL_NAME, and the pod's namespace in the
# service account's file, which report_metrics reads (only to name the trial in its errors).
os.environ["KATIB_TRIAL_NAME"] = trial
utils.get_current_k8s_namespace = lambda: "default"

report_metrics({"loss": 0.25, "accuracy": 0.875}, db_manager_address=address, timeout=60)
report_metrics({"loss": 0.125}, db_manager_address=address, timeout=60)

# A configuration given: the client does not look for a kube config (only the DBManager is asked).
client = KatibClient(client_configuration=Configuration(), namespace="default")
logs = client.get_trial_metrics(trial, db_manager_address=address, timeout=60)
print(json.dumps({"logs": [[log.metric.name, log.metric.value] for log in logs]}))
