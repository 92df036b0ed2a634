import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MEDIANSTOP_SETTINGS,
  median,
  medianStopRule,
  type ObjectiveType,
  readMedianStopSettings,
  runningAverage,
} from '../../../../services/experiment/earlystopping/medianstop.ts';

const read = (settings: Record<string, string>, algorithmName = 'medianstop') =>
  readMedianStopSettings({
    algorithmName,
    settings: Object.entries(settings).map(([name, value]) => ({ name, value })),
  });

describe('medianstop settings (Katib test_medianstop_service.py and service.py messages)', () => {
  it('accepts min_trials_required 2 and start_step 5, and defaults to 3 and 4', () => {
    expect(read({ min_trials_required: '2', start_step: '5' })).toEqual({
      minTrialsRequired: 2,
      startStep: 5,
    });
    expect(read({})).toEqual(DEFAULT_MEDIANSTOP_SETTINGS);
    expect(DEFAULT_MEDIANSTOP_SETTINGS).toEqual({ minTrialsRequired: 3, startStep: 4 });
  });

  it.each([
    [{}, 'unknown', 'unknown algorithm name unknown'],
    [{}, '', 'unknown algorithm name '],
    [{ unknown_conf: '1' }, 'medianstop', 'unknown setting unknown_conf for algorithm medianstop'],
    [{ min_trials_required: '0' }, 'medianstop', 'min_trials_required must be greater than zero (>0)'],
    [{ min_trials_required: '-2' }, 'medianstop', 'min_trials_required must be greater than zero (>0)'],
    [{ start_step: '0' }, 'medianstop', 'start_step must be greater or equal than one (>=1)'],
    [
      { start_step: 'four' },
      'medianstop',
      "failed to validate start_step(four): invalid literal for int() with base 10: 'four'",
    ],
    [
      { min_trials_required: '2.5' },
      'medianstop',
      "failed to validate min_trials_required(2.5): invalid literal for int() with base 10: '2.5'",
    ],
  ])('rejects %j for %s with INVALID_ARGUMENT: %s', (settings, algorithm, message) => {
    expect(() => read(settings, algorithm)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message }),
    );
  });
});

describe('medianstop rule', () => {
  /** The rule over these curves; loss minimised with the default settings unless told. */
  const ruleFor = (
    succeededCurves: string[][],
    {
      objectiveMetric = 'loss',
      objectiveType = 'MINIMIZE' as ObjectiveType,
      settings = DEFAULT_MEDIANSTOP_SETTINGS,
    } = {},
  ) => medianStopRule({ objectiveMetric, objectiveType, settings, succeededCurves });

  it('averages the first start_step numeric values, skipping ones that are not numbers', () => {
    expect(runningAverage(['1', '2', '3', '4', '5'], 4)).toBe(2.5);
    expect(runningAverage(['3', '3'], 4)).toBe(3);
    expect(runningAverage(['unavailable', '2', '4'], 2)).toBe(3);
    expect(runningAverage(['unavailable'], 4)).toBeUndefined();
    expect(runningAverage([], 4)).toBeUndefined();
  });

  it("gives Katib's derived example: 2.5 GREATER at step 4 when minimising", () => {
    const curves = [
      ['1', '2', '3', '4', '5'],
      ['2', '2', '2', '2'],
      ['3', '3'],
    ];
    expect(ruleFor(curves)).toEqual({ name: 'loss', value: '2.5', comparison: 'GREATER', startStep: 4 });
    expect(ruleFor(curves, { objectiveMetric: 'acc', objectiveType: 'MAXIMIZE' })).toMatchObject({
      comparison: 'LESS',
    });
    expect(ruleFor(curves, { objectiveMetric: 'acc', objectiveType: 'UNKNOWN' })).toMatchObject({
      comparison: 'GREATER',
    });
  });

  it('takes the median of the averages, where Katib takes their mean', () => {
    const curves = [
      ['1', '1', '1', '1'],
      ['2', '2', '2', '2'],
      ['9', '9', '9', '9'],
    ];
    const rule = ruleFor(curves);
    expect(rule?.value).toBe('2.0'); // Katib: mean 4.0
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('issues no rule until min_trials_required trials have a numeric value', () => {
    const curves = [['1', '2'], ['2', '3'], ['unavailable'], []];
    expect(ruleFor(curves)).toBeUndefined();
    expect(ruleFor(curves, { settings: { minTrialsRequired: 2, startStep: 1 } })).toEqual({
      name: 'loss',
      value: '1.5',
      comparison: 'GREATER',
      startStep: 1,
    });
  });

  it('writes thresholds that every parser reads back exactly', () => {
    const curves = [['0.00001'], ['0.00001'], ['0.00001']];
    const rule = ruleFor(curves, { settings: { minTrialsRequired: 3, startStep: 1 } });
    expect(Number(rule?.value)).toBe(0.00001);
  });
});
