// The kvupgrade block on a real cluster: three etcd 3.4 members made from the example cluster
// file (etcd-lab.ts), then plan, run, status, resume, rollback (without and with --yes) and the
// replay of the run's events, each run from the folder of the cluster file as the README shows.
import { createEtcdLab, type EtcdLab } from './etcd-lab.ts';
import { type Expect, judge, type Step, sh, type Verdict, verdict, type Walk } from './walk.ts';

const LAB = 'etcd lab';
const RUN_ID = 'kvupgrade run id';

/** The cluster, made at the first kvupgrade step; removed when the walk ends. */
async function labOf(walk: Walk): Promise<EtcdLab> {
  const made = walk.state.get(LAB) as EtcdLab | undefined;
  if (made) return made;
  const lab = await createEtcdLab(walk.root, walk.infra);
  walk.state.set(LAB, lab);
  walk.cleanups.push(() => lab.destroy());
  return lab;
}

/** `command` run in the cluster file's folder; `more` judges what the run left behind. */
function kvupgrade(
  command: string,
  expect: (lab: EtcdLab) => Expect,
  more?: (walk: Walk, lab: EtcdLab, output: string) => Promise<Verdict[]>,
): Step {
  return {
    command,
    async run(walk) {
      let lab: EtcdLab;
      try {
        lab = await labOf(walk);
      } catch (error) {
        return [
          verdict(false, 'a 3-member etcd 3.4 cluster from the example file', (error as Error).message),
        ];
      }
      const result = await sh(walk, command, { timeoutMs: 120_000, cwd: lab.dir });
      return [
        judge(result, expect(lab)),
        ...((await more?.(walk, lab, result.stdout + result.stderr)) ?? []),
      ];
    },
  };
}

async function everyMemberRuns(lab: EtcdLab, version: string, ran: string): Promise<Verdict> {
  const versions = await lab.versions();
  return verdict(
    versions.every((v) => v === version),
    `every member answers /version ${version}`,
    versions.map((v, i) => `${lab.clientUrls[i]} ${v || 'no answer'}`).join(', '),
    ran,
  );
}

/** `rollback --cluster cluster.yaml [--yes]`: both forms, the first asks for the confirmation. */
const rollback: Step = {
  command: 'npm run -s kvupgrade -- rollback --cluster cluster.yaml [--yes]',
  async run(walk) {
    const lab = walk.state.get(LAB) as EtcdLab | undefined;
    if (lab === undefined) return [verdict(false, 'the cluster of the steps above', 'no cluster was made')];
    const bare = 'npm run -s kvupgrade -- rollback --cluster cluster.yaml';
    const asked = await sh(walk, bare, { timeoutMs: 60_000, cwd: lab.dir });
    const confirmed = await sh(walk, `${bare} --yes`, { timeoutMs: 120_000, cwd: lab.dir });
    return [
      judge(
        asked,
        {
          code: 4,
          prints: [
            `rollback of cluster ${lab.cluster} restores the snapshot`,
            'run again with --yes to do it',
          ],
        },
        bare,
      ),
      judge(
        confirmed,
        { code: 0, prints: ['restore-finished', `cluster ${lab.cluster}: restored`] },
        `${bare} --yes`,
      ),
      await everyMemberRuns(lab, '3.4.23', '(after the restore: the members back on 3.4)'),
    ];
  },
};

const replayOfTheRun: Step = {
  command: 'npm run -s replay -- kv.upgrade-progress --from-beginning --key <cluster>',
  async run(walk, command) {
    const lab = walk.state.get(LAB) as EtcdLab | undefined;
    if (lab === undefined) return [verdict(false, 'the cluster of the steps above', 'no cluster was made')];
    const ran = command.replace('<cluster>', lab.cluster);
    const runId = walk.state.get(RUN_ID) as string | undefined;
    const result = await sh(walk, ran, { timeoutMs: 60_000 });
    return [
      judge(
        result,
        {
          prints: [
            `"key":"${lab.cluster}","eventType":"UpgradeProgress"`,
            `"run_id":"${runId ?? '(the run above printed no run id)'}"`,
            '"step":"checks-passed"',
            '"step":"cluster-version-updated"',
            '"step":"restore-finished"',
          ],
        },
        ran,
      ),
    ];
  },
};

export const KVUPGRADE_STEPS: readonly Step[] = [
  kvupgrade('npm run -s kvupgrade -- plan     --cluster cluster.yaml', (lab) => ({
    prints: [
      `plan for cluster ${lab.cluster} (3 members): etcd 3.4.23 -> 3.5.16`,
      'verdict: ready to upgrade',
    ],
    notPrints: ['[REFUSE]'],
  })),
  kvupgrade(
    'npm run -s kvupgrade -- run      --cluster cluster.yaml',
    (lab) => ({
      prints: [
        'checks-passed',
        'snapshot-saved',
        'cluster-version-updated',
        `cluster ${lab.cluster}: completed`,
      ],
    }),
    async (walk, lab, output) => {
      const runId = new RegExp(`${lab.cluster}-([0-9a-f]+)\\.db`).exec(output)?.[1];
      if (runId) walk.state.set(RUN_ID, runId);
      return [await everyMemberRuns(lab, '3.5.16', '(after the run: the members on 3.5)')];
    },
  ),
  kvupgrade('npm run -s kvupgrade -- status   --cluster cluster.yaml', (lab) => ({
    prints: [`cluster ${lab.cluster}: completed`, /order: (m\d) -> (m\d) -> (m\d); upgraded: \1, \2, \3/],
  })),
  kvupgrade('npm run -s kvupgrade -- resume   --cluster cluster.yaml', (lab) => ({
    prints: [`nothing to resume: cluster ${lab.cluster} is completed`],
  })),
  rollback,
  replayOfTheRun,
];
