import { afterAll, beforeAll } from 'vitest';
import { createEtcdCluster, type EtcdTestCluster, releasesToBuild } from './etcd-cluster.ts';
import { PREPARATION_HOOK_TIMEOUT_MS, prepared } from './preparations.ts';

/**
 * One started 3.4 cluster for a test file: created and started before its tests, handed to `use`
 * (which may rewrite it), and destroyed after them.
 */
export function withEtcdCluster(
  options: Parameters<typeof createEtcdCluster>[0],
  use: (cluster: EtcdTestCluster) => void | Promise<void>,
): void {
  let created: EtcdTestCluster | undefined;
  // Releases Debian does not package are built once (the integration setup starts that early); the
  // wait for them is not the cluster's start, so it has a hook of its own.
  if (releasesToBuild(options)) beforeAll(() => prepared('etcd-releases'), PREPARATION_HOOK_TIMEOUT_MS);
  beforeAll(async () => {
    created = await createEtcdCluster(options);
    await created.start();
    await use(created);
  });
  afterAll(async () => {
    await created?.destroy();
  });
}
