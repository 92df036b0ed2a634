import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { problemsText } from '../../../../services/experiment/trials/definition/definition.ts';
import { readExperiment } from '../../../../services/experiment/trials/definition/read-experiment.ts';

/** Katib's random example, its training replaced by a local script. */
const VALID = `
apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata:
  name: random
  namespace: kubeflow
spec:
  objective:
    type: minimize
    goal: 0.001
    objectiveMetricName: loss
  algorithm:
    algorithmName: random
  parallelTrialCount: 3
  maxTrialCount: 12
  maxFailedTrialCount: 3
  parameters:
    - name: lr
      parameterType: double
      feasibleSpace: { min: "0.01", max: "0.05" }
    - name: momentum
      parameterType: double
      feasibleSpace: { min: "0.5", max: "0.9" }
  trialTemplate:
    primaryContainerName: training-container
    trialParameters:
      - name: learningRate
        description: Learning rate for the training model
        reference: lr
      - name: momentum
        reference: momentum
    trialSpec:
      apiVersion: batch/v1
      kind: Job
      spec:
        template:
          spec:
            containers:
              - name: training-container
                image: ghcr.io/kubeflow/katib/pytorch-mnist-cpu:latest
                command: ["python3", "train.py", "--lr=\${trialParameters.learningRate}"]
                args: ["--momentum=\${trialParameters.momentum}"]
            restartPolicy: Never
`;

// biome-ignore lint/suspicious/noExplicitAny: the tests edit the parsed document freely
type Doc = Record<string, any>;
const base = (): Doc => yaml.load(VALID) as Doc;
const problemsOf = (doc: Doc | string) => {
  const result = readExperiment(typeof doc === 'string' ? doc : yaml.dump(doc));
  return result.ok ? [] : result.problems;
};
const container = (d: Doc) => d.spec.trialTemplate.trialSpec.spec.template.spec.containers[0];

describe('readExperiment', () => {
  it('reads a valid experiment with Katib defaults', () => {
    const result = readExperiment(VALID);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const d = result.definition;
    expect(d.name).toBe('random');
    expect(d.objective).toMatchObject({
      type: 'minimize',
      goal: 0.001,
      metricName: 'loss',
      strategies: { loss: 'min' },
    });
    expect(d.collector).toEqual({ kind: 'StdOut', path: '', format: 'TEXT', filters: [] });
    expect(d.resumePolicy).toBe('Never');
    expect(d.parameters[0]).toMatchObject({
      name: 'lr',
      type: 'double',
      min: '0.01',
      max: '0.05',
      distribution: 'uniform',
    });
    expect(d.trialTemplate.container.command).toEqual([
      'python3',
      'train.py',
      `--lr=$\{trialParameters.learningRate}`,
    ]);
  });

  it('defaults parallelTrialCount to 3 and takes unquoted numbers as text', () => {
    const d = base();
    delete d.spec.parallelTrialCount;
    d.spec.parameters[0].feasibleSpace = { min: 0.01, max: 0.05 };
    const result = readExperiment(yaml.dump(d));
    expect(result.ok && result.definition.parallelTrialCount).toBe(3);
    expect(result.ok && result.definition.parameters[0]!.min).toBe('0.01');
  });

  it('says what is wrong with text that is not YAML, with the line', () => {
    expect(problemsText(problemsOf('spec: [1, 2\nkind: x'))).toMatch(
      /^not valid YAML \(line \d+, column \d+\)/,
    );
    expect(problemsOf('- a list')).toEqual([
      { path: '', message: 'must be a map (an Experiment), not a list' },
    ]);
  });

  // One row per field error: the change to the valid file, the path named, and what is said.
  const cases: [string, (d: Doc) => void, string, RegExp][] = [
    ['apiVersion', (d) => (d.apiVersion = 'kubeflow.org/v1'), 'apiVersion', /must be kubeflow.org\/v1beta1/],
    ['kind', (d) => (d.kind = 'Trial'), 'kind', /must be Experiment/],
    ['missing name', (d) => delete d.metadata.name, 'metadata.name', /must be specified/],
    ['bad name', (d) => (d.metadata.name = 'My_Experiment'), 'metadata.name', /lower case/],
    ['long name', (d) => (d.metadata.name = 'a'.repeat(41)), 'metadata.name', /at most 40/],
    ['missing spec', (d) => delete d.spec, 'spec', /must be specified/],
    [
      'unknown spec field',
      (d) => (d.spec.parallelTrialcount = 2),
      'spec.parallelTrialcount',
      /did you mean parallelTrialCount/,
    ],
    ['parallel 0', (d) => (d.spec.parallelTrialCount = 0), 'spec.parallelTrialCount', /greater than 0/],
    [
      'parallel text',
      (d) => (d.spec.parallelTrialCount = 'three'),
      'spec.parallelTrialCount',
      /whole number/,
    ],
    ['max 0', (d) => (d.spec.maxTrialCount = 0), 'spec.maxTrialCount', /greater than 0/],
    ['max failed < 0', (d) => (d.spec.maxFailedTrialCount = -1), 'spec.maxFailedTrialCount', /less than 0/],
    [
      'max failed > max',
      (d) => (d.spec.maxFailedTrialCount = 13),
      'spec.maxFailedTrialCount',
      /less than or equal to spec.maxTrialCount/,
    ],
    [
      'parallel > max',
      (d) => (d.spec.parallelTrialCount = 13),
      'spec.parallelTrialCount',
      /less than or equal to spec.maxTrialCount/,
    ],
    ['objective missing', (d) => delete d.spec.objective, 'spec.objective', /must be specified/],
    [
      'objective type',
      (d) => (d.spec.objective.type = 'minimise'),
      'spec.objective.type',
      /minimize or maximize/,
    ],
    ['objective goal', (d) => (d.spec.objective.goal = 'low'), 'spec.objective.goal', /must be a number/],
    [
      'objective metric',
      (d) => delete d.spec.objective.objectiveMetricName,
      'spec.objective.objectiveMetricName',
      /must be specified/,
    ],
    [
      'additional has objective',
      (d) => (d.spec.objective.additionalMetricNames = ['loss']),
      'spec.objective.additionalMetricNames',
      /must not contain/,
    ],
    [
      'strategy value',
      (d) => (d.spec.objective.metricStrategies = [{ name: 'loss', value: 'mean' }]),
      'spec.objective.metricStrategies[0].value',
      /min, max or latest/,
    ],
    [
      'strategy name',
      (d) => (d.spec.objective.metricStrategies = [{ name: 'acc', value: 'max' }]),
      'spec.objective.metricStrategies[0].name',
      /neither the objective/,
    ],
    ['algorithm missing', (d) => delete d.spec.algorithm, 'spec.algorithm', /must be specified/],
    ['algorithm name', (d) => (d.spec.algorithm = {}), 'spec.algorithm.algorithmName', /must be specified/],
    [
      'algorithm setting',
      (d) => (d.spec.algorithm.algorithmSettings = ['x']),
      'spec.algorithm.algorithmSettings[0]',
      /name and value/,
    ],
    [
      'early stopping name',
      (d) => (d.spec.earlyStopping = { algorithmSettings: [] }),
      'spec.earlyStopping.algorithmName',
      /must be specified/,
    ],
    [
      'resume policy',
      (d) => (d.spec.resumePolicy = 'Always'),
      'spec.resumePolicy',
      /Never, LongRunning, FromVolume/,
    ],
    [
      'nas config',
      (d) => (d.spec.nasConfig = { graphConfig: {} }),
      'spec.nasConfig',
      /not run as local trials/,
    ],
    ['no parameters', (d) => delete d.spec.parameters, 'spec.parameters', /must be specified/],
    ['empty parameters', (d) => (d.spec.parameters = []), 'spec.parameters', /at least one/],
    [
      'parameter type',
      (d) => (d.spec.parameters[0].parameterType = 'float'),
      'spec.parameters[0].parameterType',
      /double, int, discrete, categorical/,
    ],
    [
      'duplicate parameter',
      (d) => (d.spec.parameters[1].name = 'lr'),
      'spec.parameters[1].name',
      /already the name/,
    ],
    [
      'feasible space missing',
      (d) => delete d.spec.parameters[0].feasibleSpace,
      'spec.parameters[0].feasibleSpace',
      /must be specified/,
    ],
    [
      'max missing',
      (d) => delete d.spec.parameters[0].feasibleSpace.max,
      'spec.parameters[0].feasibleSpace.max',
      /must be specified for a parameter of type double/,
    ],
    [
      'min not a number',
      (d) => (d.spec.parameters[0].feasibleSpace.min = 'small'),
      'spec.parameters[0].feasibleSpace.min',
      /not a number/,
    ],
    [
      'min above max',
      (d) => (d.spec.parameters[0].feasibleSpace.min = '0.5'),
      'spec.parameters[0].feasibleSpace.min',
      /greater than max/,
    ],
    [
      'int not whole',
      (d) =>
        (d.spec.parameters[0] = {
          name: 'lr',
          parameterType: 'int',
          feasibleSpace: { min: '1.5', max: '3' },
        }),
      'spec.parameters[0].feasibleSpace.min',
      /whole number/,
    ],
    [
      'step 0',
      (d) => (d.spec.parameters[0].feasibleSpace.step = '0'),
      'spec.parameters[0].feasibleSpace.step',
      /greater than 0/,
    ],
    [
      'list on double',
      (d) => (d.spec.parameters[0].feasibleSpace.list = ['1']),
      'spec.parameters[0].feasibleSpace.list',
      /not used by a parameter of type double/,
    ],
    [
      'distribution',
      (d) => (d.spec.parameters[0].feasibleSpace.distribution = 'gaussian'),
      'spec.parameters[0].feasibleSpace.distribution',
      /uniform, logUniform/,
    ],
    [
      'categorical with min',
      (d) =>
        (d.spec.parameters[1] = {
          name: 'momentum',
          parameterType: 'categorical',
          feasibleSpace: { min: '1', list: ['a'] },
        }),
      'spec.parameters[1].feasibleSpace',
      /give a list/,
    ],
    [
      'categorical without list',
      (d) =>
        (d.spec.parameters[1] = {
          name: 'momentum',
          parameterType: 'categorical',
          feasibleSpace: { distribution: 'uniform' },
        }),
      'spec.parameters[1].feasibleSpace.list',
      /must list the values/,
    ],
    [
      'discrete not numbers',
      (d) =>
        (d.spec.parameters[1] = {
          name: 'momentum',
          parameterType: 'discrete',
          feasibleSpace: { list: ['0.5', 'high'] },
        }),
      'spec.parameters[1].feasibleSpace.list[1]',
      /not a number/,
    ],
    ['template missing', (d) => delete d.spec.trialTemplate, 'spec.trialTemplate', /must be specified/],
    [
      'primary container name',
      (d) => delete d.spec.trialTemplate.primaryContainerName,
      'spec.trialTemplate.primaryContainerName',
      /must be specified/,
    ],
    [
      'primary container absent',
      (d) => (d.spec.trialTemplate.primaryContainerName = 'trainer'),
      'spec.trialTemplate.primaryContainerName',
      /no container named "trainer".*found: "training-container"/,
    ],
    [
      'config map',
      (d) => (d.spec.trialTemplate.configMap = { configMapName: 'x' }),
      'spec.trialTemplate.configMap',
      /needs Kubernetes/,
    ],
    [
      'trial spec missing',
      (d) => delete d.spec.trialTemplate.trialSpec,
      'spec.trialTemplate.trialSpec',
      /must be specified/,
    ],
    [
      'trial parameters missing',
      (d) => delete d.spec.trialTemplate.trialParameters,
      'spec.trialTemplate.trialParameters',
      /must be specified/,
    ],
    [
      'trial parameter reference missing',
      (d) => delete d.spec.trialTemplate.trialParameters[1].reference,
      'spec.trialTemplate.trialParameters[1].reference',
      /must be specified/,
    ],
    [
      'trial parameter reference unknown',
      (d) => (d.spec.trialTemplate.trialParameters[1].reference = 'momentumm'),
      'spec.trialTemplate.trialParameters[1].reference',
      /"momentumm" is not in spec.parameters \(lr, momentum\)/,
    ],
    [
      'trial parameter braces',
      (d) => (d.spec.trialTemplate.trialParameters[1].name = 'mo{m}'),
      'spec.trialTemplate.trialParameters[1].name',
      /must not contain/,
    ],
    [
      'trial parameter duplicate name',
      (d) => (d.spec.trialTemplate.trialParameters[1].name = 'learningRate'),
      'spec.trialTemplate.trialParameters[1].name',
      /already the name/,
    ],
    [
      'trial parameter duplicate reference',
      (d) => (d.spec.trialTemplate.trialParameters[1].reference = 'lr'),
      'spec.trialTemplate.trialParameters[1].reference',
      /already referenced/,
    ],
    [
      'trial parameter unused',
      (d) => (container(d).args = ['--momentum=0.5']),
      'spec.trialTemplate.trialParameters[1].name',
      /\$\{trialParameters.momentum\} is not used/,
    ],
    [
      'template uses undefined',
      (d) => container(d).args.push(`--epochs=$\{trialParameters.epochs}`),
      'spec.trialTemplate.trialSpec',
      /\$\{trialParameters.epochs\}/,
    ],
    [
      'kind PyTorchJob',
      (d) => (d.spec.trialTemplate.trialSpec.kind = 'PyTorchJob'),
      'spec.trialTemplate.trialSpec.kind',
      /PyTorchJob is not run here/,
    ],
    [
      'job apiVersion',
      (d) => (d.spec.trialTemplate.trialSpec.apiVersion = 'batch/v2'),
      'spec.trialTemplate.trialSpec.apiVersion',
      /batch\/v1/,
    ],
    [
      'job name',
      (d) => (d.spec.trialTemplate.trialSpec.metadata = { name: 'job' }),
      'spec.trialTemplate.trialSpec.metadata.name',
      /must be omitted/,
    ],
    [
      'no containers',
      (d) => (d.spec.trialTemplate.trialSpec.spec.template.spec.containers = []),
      'spec.trialTemplate.trialSpec.spec.template.spec.containers',
      /primary container/,
    ],
    [
      'no command',
      (d) => delete container(d).command,
      'spec.trialTemplate.trialSpec.spec.template.spec.containers[0].command',
      /no image entrypoint/,
    ],
    [
      'env from secret',
      (d) => (container(d).env = [{ name: 'TOKEN', valueFrom: { secretKeyRef: {} } }]),
      'spec.trialTemplate.trialSpec.spec.template.spec.containers[0].env[0].valueFrom',
      /needs Kubernetes/,
    ],
    [
      'collector kind',
      (d) => (d.spec.metricsCollectorSpec = { collector: { kind: 'TensorFlowEvent' } }),
      'spec.metricsCollectorSpec.collector.kind',
      /TensorFlowEvent reads event files/,
    ],
    [
      'collector kind unknown',
      (d) => (d.spec.metricsCollectorSpec = { collector: { kind: 'Stdout' } }),
      'spec.metricsCollectorSpec.collector.kind',
      /StdOut or File/,
    ],
    [
      'file path',
      (d) => (d.spec.metricsCollectorSpec = { collector: { kind: 'File' } }),
      'spec.metricsCollectorSpec.source.fileSystemPath.path',
      /must be specified/,
    ],
    [
      'file format',
      (d) =>
        (d.spec.metricsCollectorSpec = {
          collector: { kind: 'File' },
          source: { fileSystemPath: { path: 'm.log', format: 'CSV' } },
        }),
      'spec.metricsCollectorSpec.source.fileSystemPath.format',
      /TEXT or JSON/,
    ],
    [
      'file kind',
      (d) =>
        (d.spec.metricsCollectorSpec = {
          collector: { kind: 'File' },
          source: { fileSystemPath: { path: 'm', kind: 'Directory' } },
        }),
      'spec.metricsCollectorSpec.source.fileSystemPath.kind',
      /must be File/,
    ],
    [
      'json with filter',
      (d) =>
        (d.spec.metricsCollectorSpec = {
          collector: { kind: 'File' },
          source: {
            fileSystemPath: { path: 'm.json', format: 'JSON' },
            filter: { metricsFormat: ['(a)=(b)'] },
          },
        }),
      'spec.metricsCollectorSpec.source.filter',
      /must not be given/,
    ],
    [
      'filter one group',
      (d) => (d.spec.metricsCollectorSpec = { source: { filter: { metricsFormat: ['loss=(\\d+)'] } } }),
      'spec.metricsCollectorSpec.source.filter.metricsFormat[0]',
      /two top subexpressions/,
    ],
    [
      'filter not a regexp',
      (d) => (d.spec.metricsCollectorSpec = { source: { filter: { metricsFormat: ['(\\w+)=((\\d+)'] } } }),
      'spec.metricsCollectorSpec.source.filter.metricsFormat[0]',
      /not a valid regular expression/,
    ],
  ];

  for (const [name, change, path, message] of cases)
    it(`names ${path} (${name})`, () => {
      const doc = base();
      change(doc);
      const found = problemsOf(doc);
      expect(found.map((p) => p.path)).toContain(path);
      expect(found.find((p) => p.path === path)!.message).toMatch(message);
    });

  it('reports every problem of a file at once', () => {
    const doc = base();
    doc.spec.parallelTrialCount = 0;
    doc.spec.objective.type = 'best';
    doc.spec.trialTemplate.trialParameters[1].reference = 'nope';
    doc.spec.parameters[0].feasibleSpace.min = 'x';
    expect(problemsOf(doc).map((p) => p.path)).toEqual([
      'spec.parallelTrialCount',
      'spec.objective.type',
      'spec.parameters[0].feasibleSpace.min',
      'spec.trialTemplate.trialParameters[1].reference',
    ]);
  });
});
