// A Katib Experiment from its YAML text: every problem of the file at once, each naming its path,
// with the checks of Katib's validating webhook (pkg/webhook/v1beta1/experiment/validator) and the
// defaults of its mutating one (experiment_defaults.go), plus what running it as local processes
// needs (read-trial-template.ts, read-collector.ts).
import yaml from 'js-yaml';
import {
  DEFAULT_PARALLEL_TRIAL_COUNT,
  type Distribution,
  type ExperimentDefinition,
  type MetricStrategy,
  type ObjectiveType,
  type ParameterDefinition,
  type ParameterType,
  type ReadResult,
  type ResumePolicy,
  type Setting,
} from './definition.ts';
import {
  childPath,
  describe,
  indexPath,
  intField,
  isMap,
  listField,
  mapField,
  numberField,
  Problems,
  textField,
  textListField,
  unknownFields,
  type YamlMap,
} from './node-reader.ts';
import { readCollector } from './read-collector.ts';
import { readTrialTemplate } from './read-trial-template.ts';

const NAME = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const MAX_NAME_LENGTH = 40;
const SPEC_FIELDS = [
  'parameters',
  'objective',
  'algorithm',
  'earlyStopping',
  'trialTemplate',
  'parallelTrialCount',
  'maxTrialCount',
  'maxFailedTrialCount',
  'metricsCollectorSpec',
  'nasConfig',
  'resumePolicy',
];
const PARAMETER_TYPES: readonly ParameterType[] = ['double', 'int', 'discrete', 'categorical'];
const DISTRIBUTIONS: readonly Distribution[] = ['uniform', 'logUniform', 'normal', 'logNormal'];
const RESUME_POLICIES: readonly ResumePolicy[] = ['Never', 'LongRunning', 'FromVolume'];

/** Reads the YAML text of one Experiment. */
export function readExperiment(text: string): ReadResult {
  let document: unknown;
  try {
    document = yaml.load(text);
  } catch (error) {
    const mark = (error as { mark?: { line: number; column: number } }).mark;
    const where = mark ? ` (line ${mark.line + 1}, column ${mark.column + 1})` : '';
    const reason = (error as { reason?: string }).reason ?? (error as Error).message;
    return { ok: false, problems: [{ path: '', message: `not valid YAML${where}: ${reason}` }] };
  }
  if (!isMap(document))
    return {
      ok: false,
      problems: [{ path: '', message: `must be a map (an Experiment), not ${describe(document)}` }],
    };
  const problems = new Problems();
  const definition = readDocument(document, problems);
  return problems.count === 0 ? { ok: true, definition } : { ok: false, problems: problems.list };
}

function readDocument(doc: YamlMap, problems: Problems): ExperimentDefinition {
  const apiVersion = textField(doc, 'apiVersion', '', problems, { required: true });
  if (apiVersion !== '' && apiVersion !== 'kubeflow.org/v1beta1')
    problems.add('apiVersion', `must be kubeflow.org/v1beta1, not ${JSON.stringify(apiVersion)}`);
  const kind = textField(doc, 'kind', '', problems, { required: true });
  if (kind !== '' && kind !== 'Experiment')
    problems.add('kind', `must be Experiment, not ${JSON.stringify(kind)}`);
  const metadata = mapField(doc, 'metadata', '', problems, { required: true });
  const name = textField(metadata, 'name', 'metadata', problems, { required: metadata !== undefined });
  if (name !== '' && (!NAME.test(name) || name.length > MAX_NAME_LENGTH))
    problems.add(
      'metadata.name',
      `${JSON.stringify(name)}: must be lower case letters, digits or '-', start with a letter, end with a letter or digit, and be at most ${MAX_NAME_LENGTH} characters (e.g. 'my-name')`,
    );
  const namespace = textField(metadata, 'namespace', 'metadata', problems) || 'default';
  const spec = mapField(doc, 'spec', '', problems, { required: true });
  unknownFields(spec, SPEC_FIELDS, 'spec', problems);

  const counts = readCounts(spec, problems);
  const objective = readObjective(spec, problems);
  const algorithm = readAlgorithm(spec, 'algorithm', problems, true);
  const earlyStopping =
    spec?.earlyStopping == null ? undefined : readAlgorithm(spec, 'earlyStopping', problems, false);
  const resumePolicy = textField(spec, 'resumePolicy', 'spec', problems) || 'Never';
  if (!(RESUME_POLICIES as readonly string[]).includes(resumePolicy))
    problems.add(
      'spec.resumePolicy',
      `must be one of ${RESUME_POLICIES.join(', ')}, not ${JSON.stringify(resumePolicy)}`,
    );
  if (spec?.nasConfig != null)
    problems.add(
      'spec.nasConfig',
      'neural architecture search (enas, darts) is not run as local trials; use spec.parameters',
    );
  const parameters = readParameters(spec, problems, spec?.nasConfig == null);
  const trialTemplate = readTrialTemplate(spec, parameters, problems);
  const collector = readCollector(spec, problems);
  return {
    name,
    namespace,
    objective,
    algorithm,
    earlyStopping,
    parameters,
    ...counts,
    resumePolicy: resumePolicy as ResumePolicy,
    collector,
    trialTemplate,
  };
}

function readCounts(spec: YamlMap | undefined, problems: Problems) {
  const parallel = intField(spec, 'parallelTrialCount', 'spec', problems);
  const max = intField(spec, 'maxTrialCount', 'spec', problems);
  const maxFailed = intField(spec, 'maxFailedTrialCount', 'spec', problems);
  if (maxFailed !== undefined && maxFailed < 0)
    problems.add('spec.maxFailedTrialCount', `${maxFailed}: must not be less than 0`);
  if (max !== undefined && max <= 0) problems.add('spec.maxTrialCount', `${max}: must be greater than 0`);
  if (parallel !== undefined && parallel <= 0)
    problems.add('spec.parallelTrialCount', `${parallel}: must be greater than 0`);
  if (maxFailed !== undefined && max !== undefined && max > 0 && maxFailed > max)
    problems.add(
      'spec.maxFailedTrialCount',
      `${maxFailed}: must be less than or equal to spec.maxTrialCount (${max})`,
    );
  if (parallel !== undefined && max !== undefined && max > 0 && parallel > max)
    problems.add(
      'spec.parallelTrialCount',
      `${parallel}: must be less than or equal to spec.maxTrialCount (${max})`,
    );
  return {
    parallelTrialCount: parallel ?? DEFAULT_PARALLEL_TRIAL_COUNT,
    maxTrialCount: max,
    maxFailedTrialCount: maxFailed,
  };
}

function readObjective(spec: YamlMap | undefined, problems: Problems): ExperimentDefinition['objective'] {
  const path = 'spec.objective';
  const node = mapField(spec, 'objective', 'spec', problems, { required: spec !== undefined });
  unknownFields(
    node,
    ['type', 'goal', 'objectiveMetricName', 'additionalMetricNames', 'metricStrategies'],
    path,
    problems,
  );
  const type = textField(node, 'type', path, problems, { required: node !== undefined });
  if (type !== '' && type !== 'minimize' && type !== 'maximize')
    problems.add(`${path}.type`, `must be minimize or maximize, not ${JSON.stringify(type)}`);
  const goal = numberField(node, 'goal', path, problems);
  const metricName = textField(node, 'objectiveMetricName', path, problems, { required: node !== undefined });
  const additional = textListField(node, 'additionalMetricNames', path, problems);
  if (metricName !== '' && additional.includes(metricName))
    problems.add(
      `${path}.additionalMetricNames`,
      `must not contain the objective metric ${JSON.stringify(metricName)}`,
    );
  const strategies: Record<string, MetricStrategy> = {};
  const strategiesPath = `${path}.metricStrategies`;
  for (const [i, item] of listField(node, 'metricStrategies', path, problems).entries()) {
    const at = indexPath(strategiesPath, i);
    if (!isMap(item)) {
      problems.add(at, `must be a map with name and value, not ${describe(item)}`);
      continue;
    }
    const name = textField(item, 'name', at, problems, { required: true });
    const value = textField(item, 'value', at, problems, { required: true });
    if (value !== '' && value !== 'min' && value !== 'max' && value !== 'latest')
      problems.add(`${at}.value`, `must be min, max or latest, not ${JSON.stringify(value)}`);
    else if (name !== '' && name !== metricName && !additional.includes(name))
      problems.add(`${at}.name`, `${JSON.stringify(name)} is neither the objective nor an additional metric`);
    else if (name !== '' && value !== '') strategies[name] = value as MetricStrategy;
  }
  // Katib's default: the objective's direction for every metric without a strategy.
  const fallback: MetricStrategy = type === 'minimize' ? 'min' : type === 'maximize' ? 'max' : 'latest';
  for (const metric of [metricName, ...additional]) if (metric !== '') strategies[metric] ??= fallback;
  return {
    type: (type || 'minimize') as ObjectiveType,
    goal,
    metricName,
    additionalMetricNames: additional,
    strategies,
  };
}

function readAlgorithm(
  spec: YamlMap | undefined,
  key: 'algorithm' | 'earlyStopping',
  problems: Problems,
  required: boolean,
): { name: string; settings: Setting[] } {
  const path = childPath('spec', key);
  const node = mapField(spec, key, 'spec', problems, { required: required && spec !== undefined });
  unknownFields(node, ['algorithmName', 'algorithmSettings'], path, problems);
  const name = textField(node, 'algorithmName', path, problems, { required: node !== undefined });
  const settings = listField(node, 'algorithmSettings', path, problems).flatMap((item, i) => {
    const at = indexPath(`${path}.algorithmSettings`, i);
    if (!isMap(item)) {
      problems.add(at, `must be a map with name and value, not ${describe(item)}`);
      return [];
    }
    unknownFields(item, ['name', 'value'], at, problems);
    return [
      {
        name: textField(item, 'name', at, problems, { required: true }),
        value: textField(item, 'value', at, problems),
      },
    ];
  });
  return { name, settings };
}

function readParameters(
  spec: YamlMap | undefined,
  problems: Problems,
  required: boolean,
): ParameterDefinition[] {
  const path = 'spec.parameters';
  const items = listField(spec, 'parameters', 'spec', problems, { required: required && spec !== undefined });
  if (required && Array.isArray(spec?.parameters) && items.length === 0)
    problems.add(path, 'must list at least one parameter');
  const seen = new Set<string>();
  return items.flatMap((item, i) => {
    const at = indexPath(path, i);
    if (!isMap(item)) {
      problems.add(at, `must be a map (name, parameterType, feasibleSpace), not ${describe(item)}`);
      return [];
    }
    unknownFields(item, ['name', 'parameterType', 'feasibleSpace'], at, problems);
    const name = textField(item, 'name', at, problems, { required: true });
    if (name !== '' && seen.has(name))
      problems.add(`${at}.name`, `${JSON.stringify(name)} is already the name of another parameter`);
    seen.add(name);
    const type = textField(item, 'parameterType', at, problems, { required: true });
    if (type !== '' && !(PARAMETER_TYPES as readonly string[]).includes(type))
      problems.add(
        `${at}.parameterType`,
        `must be one of ${PARAMETER_TYPES.join(', ')}, not ${JSON.stringify(type)}`,
      );
    return [readFeasibleSpace(item, at, name, type as ParameterType, problems)];
  });
}

function readFeasibleSpace(
  item: YamlMap,
  at: string,
  name: string,
  type: ParameterType,
  problems: Problems,
): ParameterDefinition {
  const path = `${at}.feasibleSpace`;
  const space = mapField(item, 'feasibleSpace', at, problems, { required: true });
  unknownFields(space, ['min', 'max', 'step', 'list', 'distribution'], path, problems);
  const min = textField(space, 'min', path, problems);
  const max = textField(space, 'max', path, problems);
  const step = textField(space, 'step', path, problems);
  const list = textListField(space, 'list', path, problems);
  const distribution = textField(space, 'distribution', path, problems) || 'uniform';
  if (!(DISTRIBUTIONS as readonly string[]).includes(distribution))
    problems.add(
      `${path}.distribution`,
      `must be one of ${DISTRIBUTIONS.join(', ')}, not ${JSON.stringify(distribution)}`,
    );
  if (space && (type === 'double' || type === 'int')) {
    if (list.length > 0)
      problems.add(`${path}.list`, `is not used by a parameter of type ${type}: give min and max`);
    if (min === '' || max === '')
      problems.add(
        `${path}.${min === '' ? 'min' : 'max'}`,
        `must be specified for a parameter of type ${type}`,
      );
    const number = (text: string, field: string): number | undefined => {
      if (text === '') return undefined;
      const value = Number(text);
      const whole = type === 'int' && field !== 'step';
      if (!Number.isFinite(value) || text.trim() === '' || (whole && !Number.isInteger(value))) {
        problems.add(
          `${path}.${field}`,
          `${JSON.stringify(text)} is not ${whole ? 'a whole number' : 'a number'}`,
        );
        return undefined;
      }
      return value;
    };
    const low = number(min, 'min');
    const high = number(max, 'max');
    const stepValue = number(step, 'step');
    if (low !== undefined && high !== undefined && low > high)
      problems.add(`${path}.min`, `${min} is greater than max ${max}`);
    if (stepValue !== undefined && stepValue <= 0)
      problems.add(`${path}.step`, `${step} must be greater than 0`);
  } else if (space && (type === 'discrete' || type === 'categorical')) {
    if (min !== '' || max !== '' || step !== '')
      problems.add(path, `min, max and step are not used by a parameter of type ${type}: give a list`);
    if (list.length === 0)
      problems.add(`${path}.list`, `must list the values of parameter ${JSON.stringify(name)}`);
    if (type === 'discrete')
      list.forEach((value, i) => {
        if (!Number.isFinite(Number(value)) || value.trim() === '')
          problems.add(
            indexPath(`${path}.list`, i),
            `${JSON.stringify(value)} is not a number (discrete values are numbers)`,
          );
      });
  }
  return { name, type, min, max, step, list, distribution: distribution as Distribution };
}
