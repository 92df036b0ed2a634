import { afterAll, beforeAll } from 'vitest';
import { createEtcdCluster, type EtcdTestCluster } from './etcd-cluster.ts';

/**
 * One started 3.4 cluster for a test file: created and started before its tests, handed to `use`
 * (which may rewrite it), and destroyed after them.
 */
export function withEtcdCluster(
  options: Parameters<typeof createEtcdCluster>[0],
  use: (cluster: EtcdTestCluster) => void | Promise<void>,
): void {
  let created: EtcdTestCluster | undefined;
  beforeAll(async () => {
    created = await createEtcdCluster(options);
    await created.start();
    await use(created);
  });
  afterAll(async () => {
    await created?.destroy();
  });
}
