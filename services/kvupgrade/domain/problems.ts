/** Validation helpers for the cluster file: every problem is collected, each naming its field. */
export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

/** A file the cluster file names that is read when it is loaded (a password, certificates). */
export interface NamedFile {
  /** The field that names it, e.g. `tls.ca`. */
  readonly field: string;
  /** Absolute: relative names are taken from the cluster file's folder. */
  readonly path: string;
}

/** Collects every problem of a cluster file, each naming its field, so one run shows them all. */
export class Problems {
  readonly list: string[] = [];
  add(field: string, problem: string): void {
    this.list.push(`${field}: ${problem}`);
  }
  unknownKeys(field: string, value: Obj, known: readonly string[]): void {
    for (const key of Object.keys(value)) {
      if (!known.includes(key))
        this.add(field ? `${field}.${key}` : key, `unknown field (allowed: ${known.join(', ')})`);
    }
  }
  str(obj: Obj, key: string, field: string, required = true): string | undefined {
    const value = obj[key];
    if (value === undefined || value === null) {
      if (required) this.add(field, 'is required');
      return undefined;
    }
    if (typeof value !== 'string' || value.trim() === '') {
      this.add(field, `must be a non-empty string, got ${JSON.stringify(value)}`);
      return undefined;
    }
    return value;
  }
  url(obj: Obj, key: string, field: string): string | undefined {
    const value = this.str(obj, key, field);
    if (value === undefined) return undefined;
    try {
      const url = new URL(value);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
      if (url.pathname !== '/' || url.search !== '') throw new Error('path');
      return url.origin;
    } catch {
      this.add(
        field,
        `must be an http(s) URL with a host and port and no path, got ${JSON.stringify(value)}`,
      );
      return undefined;
    }
  }
  num(obj: Obj, key: string, field: string, fallback: number, min: number, max: number): number {
    const value = obj[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
      this.add(field, `must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`);
      return fallback;
    }
    return value;
  }
  bool(obj: Obj, key: string, field: string, fallback: boolean): boolean {
    const value = obj[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') {
      this.add(field, `must be true or false, got ${JSON.stringify(value)}`);
      return fallback;
    }
    return value;
  }
}
