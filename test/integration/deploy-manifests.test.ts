// deploy/ checked offline: `kustomize build` of each overlay (Katib v0.19.0's own components read
// from a local git repository of test/fixtures/katib-v0.19.0 through git's insteadOf, so the remote
// references are built exactly as written), then every object decoded strictly into its Kubernetes
// API type by test/manifests (k8s.io/api, sigs.k8s.io/yaml strict), katib-config's entries too.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALGORITHM_NAMES as EARLY_STOPPING_NAMES } from '../../services/experiment/earlystopping/algorithms.ts';
import { ALGORITHMS } from '../../services/experiment/suggestion/registry.ts';
import {
  KUSTOMIZE,
  MANIFEST_CHECKER,
  PREPARATION_HOOK_TIMEOUT_MS,
  prepared,
} from '../helpers/preparations.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CHECKER = MANIFEST_CHECKER;
const KATIB = 'https://github.com/kubeflow/katib';

type K8sObject = { kind: string; metadata: { name: string; namespace?: string }; [key: string]: unknown };
let katibRepo: string;
let gitEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  await prepared('manifest-tools');
  katibRepo = await mkdtemp(join(tmpdir(), 'katib-v0.19.0-'));
  await cp(join(ROOT, 'test', 'fixtures', 'katib-v0.19.0', 'manifests'), join(katibRepo, 'manifests'), {
    recursive: true,
  });
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], { cwd: katibRepo });
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-qm', 'Katib v0.19.0 components');
  await git('tag', 'v0.19.0');
  gitEnv = {
    ...process.env,
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `url.file://${katibRepo}.insteadOf`,
    GIT_CONFIG_VALUE_0: KATIB,
  };
}, PREPARATION_HOOK_TIMEOUT_MS);

afterAll(async () => {
  if (katibRepo) await rm(katibRepo, { recursive: true, force: true });
});

const build = async (overlay: string): Promise<string> =>
  (await run(KUSTOMIZE, ['build', join(ROOT, 'deploy', overlay)], { env: gitEnv, maxBuffer: 64 << 20 }))
    .stdout;

/** The checker's verdict on a YAML stream: exit code and its lines. */
function check(stream: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(CHECKER, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(stream);
  });
}

const objects = (stream: string) => yaml.loadAll(stream) as K8sObject[];
const find = (all: K8sObject[], kind: string, name: string) =>
  all.find((o) => o.kind === kind && o.metadata.name.startsWith(name))!;
// biome-ignore lint/suspicious/noExplicitAny: reading nested manifest fields
type Any = any;

describe('deploy/ratelimit', () => {
  it('builds, decodes strictly, and runs three replicas with envoyproxy/ratelimit settings, probes and a PDB', async () => {
    const stream = await build('ratelimit');
    const verdict = await check(stream);
    expect(verdict.stderr).toBe('');
    expect(verdict.code).toBe(0);
    const all = objects(stream);
    expect(all.map((o) => o.kind).sort()).toEqual([
      'ConfigMap',
      'ConfigMap',
      'Deployment',
      'PodDisruptionBudget',
      'Service',
    ]);
    const deployment = find(all, 'Deployment', 'ratelimit') as Any;
    expect(deployment.spec.replicas).toBe(3);
    const container = deployment.spec.template.spec.containers[0];
    expect(container.image).toBe('localhost/backbone:0.1.0');
    expect(container.args).toEqual(['ratelimit']);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/healthcheck', port: 'http' });
    expect(container.livenessProbe.grpc).toEqual({ port: 8081, service: 'ratelimit' });
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    const env = (find(all, 'ConfigMap', 'ratelimit-env') as Any).data;
    expect(env).toMatchObject({
      REDIS_SOCKET_TYPE: 'tcp',
      RUNTIME_ROOT: '/data',
      RUNTIME_SUBDIRECTORY: 'ratelimit',
    });
    expect((find(all, 'PodDisruptionBudget', 'ratelimit') as Any).spec.minAvailable).toBe(2);
    const service = find(all, 'Service', 'ratelimit') as Any;
    expect(service.spec.ports.map((p: Any) => p.port)).toEqual([8080, 8081, 6070]);
  });
});

describe('deploy/katib', () => {
  let all: K8sObject[];
  let stream: string;
  beforeAll(async () => {
    stream = await build('katib');
    all = objects(stream);
  });

  it("builds on Katib v0.19.0's own components and decodes strictly, katib-config included", async () => {
    const verdict = await check(stream);
    expect(verdict.stderr).toBe('');
    expect(verdict.code).toBe(0);
    expect(verdict.stdout).toContain('ok Deployment kubeflow/katib-controller');
    expect(verdict.stdout).toContain('ok CustomResourceDefinition /experiments.kubeflow.org');
    expect(verdict.stdout).toContain('ok ConfigMap kubeflow/katib-config');
  });

  it("swaps katib-db-manager's container for the DBManager role behind Katib's Service on 6789", () => {
    const deployment = find(all, 'Deployment', 'katib-db-manager') as Any;
    expect(deployment.spec.replicas).toBe(2);
    const [container] = deployment.spec.template.spec.containers;
    expect(container.image).toBe('localhost/backbone:0.1.0');
    expect(container.args).toEqual(['experiment']);
    expect(container.env).toContainEqual({ name: 'EXPERIMENT_SERVICES', value: 'dbmanager' });
    expect(container.env).toContainEqual({ name: 'OBSERVATION_STORE', value: 'postgres' });
    expect(container.envFrom.map((e: Any) => (e.configMapRef ?? e.secretRef).name)).toEqual([
      expect.stringMatching(/^backbone-kafka-/),
      expect.stringMatching(/^backbone-postgres-/),
    ]);
    expect(JSON.stringify(container)).not.toMatch(/DB_NAME|mysql/);
    expect(container.readinessProbe.grpc).toEqual({ port: 6789, service: 'api.v1.beta1.DBManager' });
    const service = find(all, 'Service', 'katib-db-manager') as Any;
    expect(service.spec.ports).toEqual([{ port: 6789, protocol: 'TCP', name: 'api' }]);
    expect(service.spec.selector).toEqual({ 'katib.kubeflow.org/component': 'db-manager' });
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    expect((find(all, 'PodDisruptionBudget', 'katib-db-manager') as Any).spec.minAvailable).toBe(1);
    expect(all.some((o) => JSON.stringify(o).includes('katib-mysql'))).toBe(false);
  });

  it('points every suggestion and early-stopping algorithm the service serves at the image, with its role', () => {
    const config = yaml.load(
      (find(all, 'ConfigMap', 'katib-config') as Any).data['katib-config.yaml'],
    ) as Any;
    const suggestions = config.runtime.suggestions as Any[];
    expect(suggestions.map((s) => s.algorithmName).sort()).toEqual([...ALGORITHMS.keys()].sort());
    for (const s of suggestions) {
      expect(s.image).toBe('localhost/backbone:0.1.0');
      expect(s.args).toEqual(['experiment']);
      expect(s.env).toContainEqual({ name: 'EXPERIMENT_SERVICES', value: 'suggestion' });
      // Katib adds port 6789 itself and refuses a config that names it.
      expect(s.ports).toBeUndefined();
    }
    const stoppings = config.runtime.earlyStoppings as Any[];
    expect(stoppings.map((s) => s.algorithmName).sort()).toEqual([...EARLY_STOPPING_NAMES].sort());
    for (const s of stoppings) expect(s.image).toBe('localhost/backbone:0.1.0-earlystopping');
  });
});

describe('the strict decoder', () => {
  it('refuses a misspelt field of an object, naming the object and the field', async () => {
    const stream = await build('ratelimit');
    const verdict = await check(stream.replace('readinessProbe:', 'readinesProbe:'));
    expect(verdict.code).toBe(1);
    expect(verdict.stderr).toMatch(/Deployment ratelimit\/ratelimit\): .*unknown field "readinesProbe"/);
  });

  it('refuses a misspelt field of a container in katib-config, and an unknown kind', async () => {
    const stream = await build('katib');
    // The first occurrence is katib-config's text (the ConfigMap comes before the Deployments).
    const misspelt = await check(stream.replace('args: ["experiment"]', 'argz: ["experiment"]'));
    expect(misspelt.code).toBe(1);
    expect(misspelt.stderr).toMatch(
      /ConfigMap kubeflow\/katib-config\): katib-config.yaml: .*unknown field "argz"/,
    );
    const unknown = await check('apiVersion: apps/v1\nkind: Deploymnet\nmetadata:\n  name: x\n');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no Kubernetes API type for apps/v1 Deploymnet');
  });
});
