import { describe, expect, it } from 'vitest';
import { readExperimentSettings } from '../../../services/experiment/settings.ts';

const roles = (env: Record<string, string>) => {
  const s = readExperimentSettings(env);
  return { persistence: s.persistenceConsumer, judge: s.earlyStoppingJudge, http: s.http };
};

describe('readExperimentSettings: what each role runs by default', () => {
  it.each([
    [undefined, { persistence: true, judge: true, http: true }],
    ['dbmanager,suggestion,earlystopping', { persistence: true, judge: true, http: true }],
    ['suggestion', { persistence: false, judge: false, http: false }],
    ['dbmanager', { persistence: true, judge: false, http: true }],
    ['earlystopping', { persistence: false, judge: true, http: false }],
    ['suggestion,earlystopping', { persistence: false, judge: true, http: false }],
  ])('EXPERIMENT_SERVICES=%s', (services, expected) => {
    expect(roles(services === undefined ? {} : { EXPERIMENT_SERVICES: services })).toEqual(expected);
  });

  it('PERSISTENCE_WORKER, EARLY_STOPPING_WORKER and EXPERIMENT_HTTP still override the role', () => {
    expect(
      roles({
        EXPERIMENT_SERVICES: 'suggestion',
        PERSISTENCE_WORKER: 'true',
        EARLY_STOPPING_WORKER: 'yes',
        EXPERIMENT_HTTP: '1',
      }),
    ).toEqual({ persistence: true, judge: true, http: true });
    expect(
      roles({ PERSISTENCE_WORKER: 'false', EARLY_STOPPING_WORKER: 'off', EXPERIMENT_HTTP: 'no' }),
    ).toEqual({ persistence: false, judge: false, http: false });
  });

  it('reports every bad variable at once, the overridable booleans included', () => {
    expect(() =>
      readExperimentSettings({
        PERSISTENCE_WORKER: 'maybe',
        EXPERIMENT_HTTP: 'sure',
        EXPERIMENT_SERVICES: 'web',
      }),
    ).toThrow(
      [
        'invalid settings:',
        '  - EXPERIMENT_SERVICES="web" is not allowed: comma-separated, from dbmanager, suggestion, earlystopping',
        '  - EXPERIMENT_HTTP="sure" is not allowed: true or false (also 1/0, t/f, yes/no, on/off)',
        '  - PERSISTENCE_WORKER="maybe" is not allowed: true or false (also 1/0, t/f, yes/no, on/off)',
      ].join('\n'),
    );
  });
});
