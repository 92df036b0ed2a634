// spec.metricsCollectorSpec: Katib's StdOut (the default) and File collectors run in the runner
// itself, with no sidecar; the kinds that need something in the pod (TensorFlowEvent, Prometheus,
// Custom containers) or Katib's SDK (Push) are refused, naming the field. Checks as Katib's
// validator makes them (file path and format, no filter with JSON, filters with two groups).
import { compileMetricFilter } from '../../common/metric-filters.ts';
import type { MetricsCollectorConfig, MetricsFormat } from '../../common/trial-run.ts';
import {
  indexPath,
  mapField,
  type Problems,
  textField,
  textListField,
  unknownFields,
  type YamlMap,
} from './node-reader.ts';

const PATH = 'spec.metricsCollectorSpec';
const NOT_HERE: Readonly<Record<string, string>> = {
  TensorFlowEvent:
    'reads event files in a sidecar with TensorFlow: write the metrics to stdout or a file (File collector) instead',
  PrometheusMetric: 'scrapes the pod from a sidecar: print the metrics to stdout or a file instead',
  Custom: 'runs a container of yours beside the trial, which needs Kubernetes',
  Push: "needs Katib's SDK to report from the trial: print the metrics to stdout instead",
};

export function readCollector(spec: YamlMap | undefined, problems: Problems): MetricsCollectorConfig {
  const node = mapField(spec, 'metricsCollectorSpec', 'spec', problems);
  unknownFields(node, ['source', 'collector'], PATH, problems);
  const collector = mapField(node, 'collector', PATH, problems);
  unknownFields(collector, ['kind', 'customCollector'], `${PATH}.collector`, problems);
  const kind = textField(collector, 'kind', `${PATH}.collector`, problems) || 'StdOut';
  const source = mapField(node, 'source', PATH, problems);
  unknownFields(source, ['httpGet', 'fileSystemPath', 'filter'], `${PATH}.source`, problems);
  const filter = mapField(source, 'filter', `${PATH}.source`, problems);
  const filtersPath = `${PATH}.source.filter.metricsFormat`;
  const filters = textListField(filter, 'metricsFormat', `${PATH}.source.filter`, problems);
  filters.forEach((text, i) => {
    const compiled = compileMetricFilter(text);
    if (!compiled.ok) problems.add(indexPath(filtersPath, i), `${JSON.stringify(text)}: ${compiled.reason}`);
  });

  if (kind in NOT_HERE) problems.add(`${PATH}.collector.kind`, `${kind} ${NOT_HERE[kind]}`);
  else if (kind !== 'StdOut' && kind !== 'File')
    problems.add(`${PATH}.collector.kind`, `must be StdOut or File, not ${JSON.stringify(kind)}`);
  if (kind !== 'File') return { kind: 'StdOut', path: '', format: 'TEXT', filters };

  const fsPath = `${PATH}.source.fileSystemPath`;
  const fileSystemPath = mapField(source, 'fileSystemPath', `${PATH}.source`, problems);
  unknownFields(fileSystemPath, ['path', 'kind', 'format'], fsPath, problems);
  const path = textField(fileSystemPath, 'path', fsPath, problems);
  if (path === '')
    problems.add(`${fsPath}.path`, 'must be specified: the file the trial writes its metrics to');
  const fileKind = textField(fileSystemPath, 'kind', fsPath, problems) || 'File';
  if (fileKind !== 'File')
    problems.add(`${fsPath}.kind`, `must be File for the File collector, not ${JSON.stringify(fileKind)}`);
  const format = textField(fileSystemPath, 'format', fsPath, problems) || 'TEXT';
  if (format !== 'TEXT' && format !== 'JSON')
    problems.add(`${fsPath}.format`, `must be TEXT or JSON, not ${JSON.stringify(format)}`);
  if (format === 'JSON' && filter !== undefined)
    problems.add(
      `${PATH}.source.filter`,
      'must not be given when the metrics file is JSON (its keys are the metric names)',
    );
  return { kind: 'File', path, format: format as MetricsFormat, filters };
}
