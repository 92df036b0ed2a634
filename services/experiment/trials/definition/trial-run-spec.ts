// What one trial runs: the primary container's command and args with every
// `${trialParameters.<name>}` replaced by the trial's value (Katib substitutes the same way in the
// Job it creates), then Kubernetes' `$(VAR)` references to the container's env expanded, as the
// kubelet does.
import type { TrialRunSpec } from '../../common/trial-run.ts';
import type { ExperimentDefinition } from './definition.ts';

/** The trial's name where a metrics file path names it directly (Katib's `${trialSpec.Name}` meta key). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Katib's placeholder, replaced here
const TRIAL_NAME_USE = '${trialSpec.Name}';

export interface TrialIdentity {
  readonly name: string;
  readonly assignments: readonly { readonly name: string; readonly value: string }[];
}

/** The value a trial parameter takes for this trial: its parameter's assignment, or the trial's metadata. */
function referenceValue(definition: ExperimentDefinition, trial: TrialIdentity, reference: string): string {
  const assigned = trial.assignments.find((a) => a.name === reference);
  if (assigned) return assigned.value;
  const key = /^\$\{trialSpec\.(.+?)\}$/.exec(reference)?.[1];
  const template = definition.trialTemplate;
  switch (key) {
    case 'Name':
      return trial.name;
    case 'Namespace':
      return definition.namespace;
    case 'Kind':
      return template.kind;
    case 'APIVersion':
      return template.apiVersion;
  }
  const indexed = key === undefined ? null : /^(Labels|Annotations)\[(.+)\]$/.exec(key);
  if (indexed) return (indexed[1] === 'Labels' ? template.labels : template.annotations)[indexed[2]!] ?? '';
  return '';
}

/** `$(VAR)` from the container's env; `$$(VAR)` stays `$(VAR)`; an unknown name stays as written. */
export function expandEnvReferences(text: string, env: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name: string | undefined) =>
    whole === '$$' ? '$' : (env.get(name!) ?? whole),
  );
}

export function trialRunSpec(definition: ExperimentDefinition, trial: TrialIdentity): TrialRunSpec {
  const template = definition.trialTemplate;
  const values = new Map(
    template.trialParameters.map((p) => [
      `\${trialParameters.${p.name}}`,
      referenceValue(definition, trial, p.reference),
    ]),
  );
  const substitute = (text: string): string => {
    let out = text;
    for (const [use, value] of values) out = out.replaceAll(use, value);
    return out.replaceAll(TRIAL_NAME_USE, trial.name);
  };
  const container = template.container;
  const env = container.env.map((e) => ({ name: e.name, value: substitute(e.value) }));
  // Kubernetes expands a variable with the env declared before it; the last declaration wins.
  const envMap = new Map<string, string>();
  for (const e of env) envMap.set(e.name, expandEnvReferences(e.value, envMap));
  return {
    command: [...container.command, ...container.args].map((part) =>
      expandEnvReferences(substitute(part), envMap),
    ),
    env: [...envMap].map(([name, value]) => ({ name, value })),
    workingDir: substitute(container.workingDir),
    collector: { ...definition.collector, path: substitute(definition.collector.path) },
    metricNames: [definition.objective.metricName, ...definition.objective.additionalMetricNames],
    objectiveType: definition.objective.type,
  };
}
