// spec.trialTemplate: the trial parameters and the Job whose primary container runs as a local
// process (its command, args, env and workingDir). Katib's checks of trialParameters (names,
// references, every `${trialParameters.…}` used and defined) with the same paths; trial kinds that
// are not a single pod template (TFJob, PyTorchJob, ...) and what only Kubernetes can give (a
// ConfigMap template, env from secrets) are refused, naming the field.
import type {
  ContainerDefinition,
  ParameterDefinition,
  TrialParameter,
  TrialTemplateDefinition,
} from './definition.ts';
import {
  describe,
  indexPath,
  isMap,
  listField,
  mapField,
  type Problems,
  textField,
  textListField,
  textMapField,
  unknownFields,
  type YamlMap,
} from './node-reader.ts';

const PATH = 'spec.trialTemplate';
const SPEC_PATH = `${PATH}.trialSpec`;
const CONTAINERS_PATH = `${SPEC_PATH}.spec.template.spec.containers`;
const TEMPLATE_FIELDS = [
  'retain',
  'trialSpec',
  'configMap',
  'trialParameters',
  'primaryPodLabels',
  'primaryContainerName',
  'successCondition',
  'failureCondition',
];
/** Katib's TrialTemplateMetaKeys: what `${trialSpec.<key>}` may name. */
const META_KEYS = ['Name', 'Namespace', 'Kind', 'APIVersion', 'Annotations', 'Labels'];
const PARAMETER_USE = /\$\{trialParameters\..+?\}/g;

/** Whether a reference names the trial's metadata (`${trialSpec.Name}`, `${trialSpec.Labels[team]}`). */
export function isMetaReference(reference: string): boolean {
  const match = /^\$\{trialSpec\.(.+?)\}$/.exec(reference);
  if (!match) return false;
  const key = match[1]!;
  if (META_KEYS.includes(key)) return true;
  const indexed = /^(.+)\[(.+)\]$/.exec(key);
  return indexed !== null && (indexed[1] === 'Annotations' || indexed[1] === 'Labels');
}

export function readTrialTemplate(
  spec: YamlMap | undefined,
  parameters: readonly ParameterDefinition[],
  problems: Problems,
): TrialTemplateDefinition {
  const node = mapField(spec, 'trialTemplate', 'spec', problems, { required: spec !== undefined });
  unknownFields(node, TEMPLATE_FIELDS, PATH, problems);
  const primaryContainerName = textField(node, 'primaryContainerName', PATH, problems, {
    required: node !== undefined,
  });
  if (node?.configMap != null)
    problems.add(
      `${PATH}.configMap`,
      'a template in a ConfigMap needs Kubernetes: put the Job in spec.trialTemplate.trialSpec',
    );
  const trialSpec = mapField(node, 'trialSpec', PATH, problems, {
    required: node !== undefined && node.configMap == null,
  });
  if (node && node.trialParameters == null) problems.add(`${PATH}.trialParameters`, 'must be specified');
  const trialParameters = readTrialParameters(node, parameters, trialSpec, problems);

  const apiVersion = textField(trialSpec, 'apiVersion', SPEC_PATH, problems, {
    required: trialSpec !== undefined,
  });
  const kind = textField(trialSpec, 'kind', SPEC_PATH, problems, { required: trialSpec !== undefined });
  if (kind !== '' && kind !== 'Job')
    problems.add(
      `${SPEC_PATH}.kind`,
      `${kind} is not run here: a trial runs as a local process from a batch/v1 Job (one pod template); ${kind}'s replicas need its Kubernetes operator`,
    );
  else if (kind === 'Job' && apiVersion !== '' && apiVersion !== 'batch/v1')
    problems.add(`${SPEC_PATH}.apiVersion`, `must be batch/v1 for a Job, not ${JSON.stringify(apiVersion)}`);
  const metadata = mapField(trialSpec, 'metadata', SPEC_PATH, problems);
  for (const key of ['name', 'namespace'])
    if (metadata?.[key] != null)
      problems.add(`${SPEC_PATH}.metadata.${key}`, 'must be omitted (each trial names its own Job)');
  const labels = textMapField(metadata, 'labels', `${SPEC_PATH}.metadata`, problems);
  const annotations = textMapField(metadata, 'annotations', `${SPEC_PATH}.metadata`, problems);
  const container =
    kind === 'Job' ? readPrimaryContainer(trialSpec, primaryContainerName, problems) : undefined;
  return {
    primaryContainerName,
    trialParameters,
    apiVersion,
    kind,
    labels,
    annotations,
    container: container ?? { name: primaryContainerName, command: [], args: [], env: [], workingDir: '' },
  };
}

function readTrialParameters(
  node: YamlMap | undefined,
  parameters: readonly ParameterDefinition[],
  trialSpec: YamlMap | undefined,
  problems: Problems,
): TrialParameter[] {
  const path = `${PATH}.trialParameters`;
  const known = new Set(parameters.map((p) => p.name));
  let template = trialSpec ? JSON.stringify(trialSpec) : undefined;
  const names = new Set<string>();
  const references = new Set<string>();
  const read = listField(node, 'trialParameters', PATH, problems).flatMap((item, i) => {
    const at = indexPath(path, i);
    if (!isMap(item)) {
      problems.add(at, `must be a map (name, reference, description), not ${describe(item)}`);
      return [];
    }
    unknownFields(item, ['name', 'description', 'reference'], at, problems);
    const name = textField(item, 'name', at, problems, { required: true });
    const reference = textField(item, 'reference', at, problems, { required: true });
    const description = textField(item, 'description', at, problems);
    if (name.includes('{') || name.includes('}'))
      problems.add(`${at}.name`, `${JSON.stringify(name)} must not contain '{' or '}'`);
    else if (name !== '' && names.has(name))
      problems.add(`${at}.name`, `${JSON.stringify(name)} is already the name of another trial parameter`);
    if (reference !== '' && references.has(reference))
      problems.add(
        `${at}.reference`,
        `${JSON.stringify(reference)} is already referenced by another trial parameter`,
      );
    else if (reference !== '' && !known.has(reference) && !isMetaReference(reference))
      problems.add(
        `${at}.reference`,
        `${JSON.stringify(reference)} is not in spec.parameters (${[...known].join(', ') || 'none'}) nor a ` +
          `trial meta key (\${trialSpec.Name}, \${trialSpec.Namespace}, \${trialSpec.Kind}, \${trialSpec.APIVersion}, \${trialSpec.Labels[key]}, \${trialSpec.Annotations[key]})`,
      );
    if (name !== '' && template !== undefined) {
      const use = `\${trialParameters.${name}}`;
      if (!template.includes(use))
        problems.add(`${at}.name`, `${use} is not used anywhere in spec.trialTemplate.trialSpec`);
      template = template.replaceAll(use, '');
    }
    names.add(name);
    references.add(reference);
    return [{ name, description, reference }];
  });
  const undefinedUses = new Set(template?.match(PARAMETER_USE) ?? []);
  if (undefinedUses.size > 0 && node?.trialParameters != null)
    problems.add(
      SPEC_PATH,
      `uses ${[...undefinedUses].join(', ')}, which spec.trialTemplate.trialParameters does not define`,
    );
  return read;
}

function readPrimaryContainer(
  trialSpec: YamlMap | undefined,
  primaryName: string,
  problems: Problems,
): ContainerDefinition | undefined {
  const jobSpec = mapField(trialSpec, 'spec', SPEC_PATH, problems, { required: true });
  const template = mapField(jobSpec, 'template', `${SPEC_PATH}.spec`, problems, {
    required: jobSpec !== undefined,
  });
  const podSpec = mapField(template, 'spec', `${SPEC_PATH}.spec.template`, problems, {
    required: template !== undefined,
  });
  const containers = listField(podSpec, 'containers', `${SPEC_PATH}.spec.template.spec`, problems, {
    required: podSpec !== undefined,
  });
  if (podSpec === undefined || containers.length === 0) {
    if (Array.isArray(podSpec?.containers)) problems.add(CONTAINERS_PATH, 'must list the primary container');
    return undefined;
  }
  const index = containers.findIndex((c) => isMap(c) && c.name === primaryName);
  if (index < 0) {
    if (primaryName !== '')
      problems.add(
        `${PATH}.primaryContainerName`,
        `no container named ${JSON.stringify(primaryName)} in ${CONTAINERS_PATH} (found: ${containers
          .map((c) => (isMap(c) ? JSON.stringify(c.name ?? '') : describe(c)))
          .join(', ')})`,
      );
    return undefined;
  }
  const c = containers[index] as YamlMap;
  const at = indexPath(CONTAINERS_PATH, index);
  const command = textListField(c, 'command', at, problems);
  if (command.length === 0)
    problems.add(
      `${at}.command`,
      'must be specified: a local process has no image entrypoint to fall back on',
    );
  const args = textListField(c, 'args', at, problems);
  const env = listField(c, 'env', at, problems).flatMap((item, i) => {
    const envAt = indexPath(`${at}.env`, i);
    if (!isMap(item)) {
      problems.add(envAt, `must be a map with name and value, not ${describe(item)}`);
      return [];
    }
    if (item.valueFrom != null)
      problems.add(
        `${envAt}.valueFrom`,
        'needs Kubernetes (secrets, config maps, the downward API): give a value',
      );
    return [
      {
        name: textField(item, 'name', envAt, problems, { required: true }),
        value: textField(item, 'value', envAt, problems),
      },
    ];
  });
  const workingDir = textField(c, 'workingDir', at, problems);
  return { name: primaryName, command, args, env, workingDir };
}
