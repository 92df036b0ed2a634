// Random search: each dimension drawn from its distribution, every point new when the space has room.

import type { Point, Sampler } from '../space.ts';
import { pointKey } from '../space.ts';
import { fromUnit } from '../values.ts';

/** Draws before a point that keeps colliding with known ones is accepted anyway (a nearly full finite space). */
const MAX_DRAWS_PER_POINT = 64;

export type RandomOptions = Record<string, never>;

export const randomSampler: Sampler<RandomOptions> = ({ dimensions, history, pending, count, rng }) => {
  const taken = new Set<string>([...history.map((o) => pointKey(o.point)), ...pending.map(pointKey)]);
  const points: Point[] = [];
  while (points.length < count) {
    let point: Point = [];
    for (let draw = 0; draw < MAX_DRAWS_PER_POINT; draw++) {
      point = dimensions.map((dimension) => fromUnit(dimension, rng.next()));
      if (!taken.has(pointKey(point))) break;
    }
    taken.add(pointKey(point));
    points.push(point);
  }
  return points;
};
