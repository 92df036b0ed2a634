import type { ObservedCluster } from '../domain/incarnation.ts';
import type { OrchestratorDeps } from './deps.ts';

/**
 * What the cluster says of itself now: its IDs, revision, data folders and versions. Changes
 * nothing; a member that does not answer leaves its part unknown.
 */
export async function observeCluster(
  deps: Pick<OrchestratorDeps, 'spec' | 'etcd' | 'driver'>,
): Promise<ObservedCluster> {
  const { spec, etcd, driver } = deps;
  const members = await Promise.all(
    spec.members.map(async (m) => {
      const [status, version, dataDirId] = await Promise.all([
        etcd.status(m.clientUrl).catch(() => undefined),
        etcd.version(m.clientUrl).catch(() => undefined),
        driver.dataDirId(m).catch(() => undefined),
      ]);
      return { member: m, status, version, dataDirId };
    }),
  );
  const revisions = members.flatMap((m) => (m.status ? [m.status.revision] : []));
  return {
    incarnation: {
      clusterId: members.find((m) => m.status?.clusterId)?.status?.clusterId,
      revision: revisions.length > 0 ? Math.max(...revisions) : undefined,
      members: members.map((m) => ({
        name: m.member.name,
        memberId: m.status?.memberId || undefined,
        dataDir: m.member.dataDir,
        dataDirId: m.dataDirId,
      })),
    },
    versions: members.flatMap((m) => (m.version ? [{ name: m.member.name, ...m.version }] : [])),
  };
}
