// Population based training as Katib's PBT service runs it (truncation selection on a generation,
// ×0.8/×1.2 perturbation or resampling, trial_name and generation/parent labels), computed from the
// request alone. Differences from Katib, each a fix:
// - the parent of an exploiting member is the better trial it copies (Katib names the worse one,
//   whose checkpoint would then be continued), and exploiting members are perturbed as in PBT;
// - a failed member is not re-queued with identical parameters (a deterministic failure would loop):
//   its generation simply fills its place with a new member;
// - every reply has exactly current_request_number members (Katib can run its queue dry).

import type { Algorithm, Suggestion } from '../algorithm.ts';
import { type TrialRecord, toAssignments } from '../katib-space.ts';
import { createRng, type Rng } from '../rng.ts';
import { type PbtSettings, readPbtSettings } from '../settings/pbt.ts';
import type { Dimension, Point } from '../space.ts';
import { fromUnit, snap } from '../values.ts';
import { createPbtNames } from './pbt-names.ts';

export const GENERATION_LABEL = 'pbt.suggestion.katib.kubeflow.org/generation';
export const PARENT_LABEL = 'pbt.suggestion.katib.kubeflow.org/parent';

interface Member {
  readonly name: string;
  readonly point: Point;
  /** Higher is better (PBT maximises internally). */
  readonly score: number;
}

interface Job {
  readonly point: Point;
  readonly parent?: string;
}

/** numpy.quantile with linear interpolation. */
function quantile(sorted: readonly number[], q: number): number {
  const position = q * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

function perturb(dimensions: readonly Dimension[], point: Point, settings: PbtSettings, rng: Rng): Point {
  return dimensions.map((dimension, i) => {
    const value = point[i]!;
    if (settings.resampleProbability !== undefined)
      return rng.next() < settings.resampleProbability ? fromUnit(dimension, rng.next()) : value;
    if (dimension.kind === 'categorical') {
      const index = dimension.choices.indexOf(value as string) + (rng.next() < 0.5 ? -1 : 1);
      const size = dimension.choices.length;
      return dimension.choices[(index + size) % size]!;
    }
    const factor = rng.next() < 0.5 ? 0.8 : 1.2;
    const moved =
      dimension.kind === 'int' ? Math.trunc((value as number) * factor) : (value as number) * factor;
    return snap(dimension, moved);
  });
}

/** `count` children of a finished generation: truncation selection as in Katib's _segment_sample_pool. */
function nextGeneration(
  pool: readonly Member[],
  count: number,
  dimensions: readonly Dimension[],
  settings: PbtSettings,
  rng: Rng,
): Job[] {
  const sorted = pool.map((m) => m.score).sort((a, b) => a - b);
  const lower = quantile(sorted, settings.truncationThreshold);
  const upperBound = quantile(sorted, 1 - settings.truncationThreshold);
  const exploiting = shuffle(
    pool.filter((m) => m.score < lower),
    rng,
  );
  const exploring = shuffle(
    pool.filter((m) => m.score >= lower),
    rng,
  );
  const upper = pool.filter((m) => m.score >= upperBound);
  const jobs: Job[] = [];
  const exploitCount = Math.min(exploiting.length, Math.trunc(count * settings.truncationThreshold));
  for (let i = 0; i < exploitCount; i++) {
    const source = upper[rng.int(upper.length)]!;
    jobs.push({ point: perturb(dimensions, source.point, settings, rng), parent: source.name });
  }
  for (let i = 0; jobs.length < count; i++) {
    const member = exploring[i % exploring.length]!;
    jobs.push({ point: perturb(dimensions, member.point, settings, rng), parent: member.name });
  }
  return jobs;
}

export const pbt: Algorithm<PbtSettings> = {
  readSettings: readPbtSettings,
  suggest({ experiment, config, trials, count, issuedBefore, seeds }) {
    const { dimensions } = experiment;
    const names = createPbtNames(experiment.name, seeds.experiment);
    const rng = createRng(seeds.call);
    const decoded = trials.records
      .map((record) => ({ record, member: names.memberOf(record.name) }))
      .filter(
        (t): t is { record: TrialRecord; member: { generation: number; serial: number } } =>
          t.member !== undefined,
      );
    const generation = decoded.reduce((g, t) => Math.max(g, t.member.generation), -1);
    const nextSerial = decoded.reduce((s, t) => Math.max(s, t.member.serial + 1), issuedBefore);
    const finished = (g: number): Member[] =>
      decoded
        .filter(
          (t) => t.member.generation === g && t.record.loss !== undefined && t.record.point !== undefined,
        )
        .map((t) => ({ name: t.record.name, point: t.record.point!, score: -t.record.loss! }));

    let jobGeneration: number;
    let jobs: Job[];
    if (generation >= 0 && finished(generation).length >= config.nPopulation) {
      jobGeneration = generation + 1;
      jobs = nextGeneration(finished(generation), count, dimensions, config, rng);
    } else if (generation <= 0) {
      jobGeneration = 0;
      jobs = Array.from({ length: count }, () => ({ point: dimensions.map((d) => fromUnit(d, rng.next())) }));
    } else {
      // The generation is still filling: more of its members from the generation before.
      jobGeneration = generation;
      jobs = nextGeneration(finished(generation - 1), count, dimensions, config, rng);
    }
    const suggestions: Suggestion[] = jobs.map((job, i) => ({
      assignments: toAssignments(dimensions, job.point),
      trialName: names.nameOf({ generation: jobGeneration, serial: nextSerial + i }),
      labels: {
        [GENERATION_LABEL]: String(jobGeneration),
        ...(job.parent === undefined ? {} : { [PARENT_LABEL]: job.parent }),
      },
    }));
    return { suggestions };
  },
};
