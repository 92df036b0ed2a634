// The rung records of one experiment, from every judge: the first record of a trial's rung wins
// (the topic's order is the same for every reader), so all judges agree on what was decided.
import type { RungRecord, RungValues } from './types.ts';

const rungKey = (bracket: number, rung: number): string => `${bracket}:${rung}`;

export class RungBook implements RungValues {
  readonly #byRung = new Map<string, Map<string, number>>();
  readonly #byTrial = new Map<string, RungRecord[]>();

  /** Adds the record; false (and nothing changes) when the trial's rung is recorded already. */
  add(record: RungRecord): boolean {
    const key = rungKey(record.bracket, record.rung);
    let values = this.#byRung.get(key);
    if (values === undefined) {
      values = new Map();
      this.#byRung.set(key, values);
    }
    if (values.has(record.trialName)) return false;
    values.set(record.trialName, record.value);
    const records = this.#byTrial.get(record.trialName) ?? [];
    records.push(record);
    records.sort((a, b) => a.bracket - b.bracket || a.rung - b.rung);
    this.#byTrial.set(record.trialName, records);
    return true;
  }

  valuesAt(bracket: number, rung: number, exceptTrial: string): number[] {
    const out: number[] = [];
    for (const [trial, value] of this.#byRung.get(rungKey(bracket, rung)) ?? [])
      if (trial !== exceptTrial) out.push(value);
    return out;
  }

  recordsOf(trialName: string): readonly RungRecord[] {
    return this.#byTrial.get(trialName) ?? [];
  }
}
