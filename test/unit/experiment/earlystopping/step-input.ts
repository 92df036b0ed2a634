// Builds what a pruner sees at one step, from hand-made curves.
import { RungBook } from '../../../../services/experiment/earlystopping/pruners/rung-book.ts';
import {
  type Direction,
  EMPTY_REFERENCE,
  type Reference,
  type RungRecord,
  type StepInput,
} from '../../../../services/experiment/earlystopping/pruners/types.ts';

export const curveOf = (values: readonly number[]) => ({
  length: values.length,
  value: (i: number) => values[i]!,
});

export function stepInput(
  values: readonly number[],
  options: {
    step?: number;
    direction?: Direction;
    reference?: Partial<Reference>;
    rungs?: RungBook;
    trialName?: string;
  } = {},
): StepInput {
  return {
    trialName: options.trialName ?? 'exp-t',
    curve: curveOf(values),
    step: options.step ?? values.length,
    direction: options.direction ?? 'MINIMIZE',
    reference: { ...EMPTY_REFERENCE, ...options.reference },
    rungs: options.rungs ?? new RungBook(),
  };
}

/** A book holding one value per trial at a rung (promoted), as other judges recorded them. */
export function bookWith(values: readonly number[], rung = 0, bracket = 0): RungBook {
  const book = new RungBook();
  values.forEach((value, i) => {
    book.add({ trialName: `exp-other-${i}`, bracket, rung, step: 1, value, promoted: true });
  });
  return book;
}

export const record = (overrides: Partial<RungRecord>): RungRecord => ({
  trialName: 'exp-t',
  bracket: 0,
  rung: 0,
  step: 1,
  value: 0,
  promoted: true,
  ...overrides,
});
