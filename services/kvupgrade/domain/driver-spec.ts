import type { PathResolver } from './member-spec.ts';
import { isObj, type NamedFile, type Problems } from './problems.ts';
import { parsePlaceholders, TEMPLATE_PLACEHOLDERS, type TemplateName } from './templates.ts';

export type DriverSpec =
  | { readonly kind: 'local'; readonly runDir: string }
  | {
      readonly kind: 'command';
      readonly start: string;
      readonly stop: string;
      readonly status: string;
      readonly kill: string | undefined;
      readonly logs: string | undefined;
      readonly restore: string | undefined;
      /** Exits 0 when {file} exists on the member's host (the v3 database check); undefined: not checked. */
      readonly check: string | undefined;
    };

/** How every call reaches the members over TLS: etcd's --trusted-ca-file side, and a client certificate. */
export interface TlsSpec {
  /** PEM CA bundle the members' certificates are checked against. */
  readonly ca: string;
  /** PEM client certificate and key (for --client-cert-auth); both or neither. */
  readonly cert: string | undefined;
  readonly key: string | undefined;
  /** The name the server certificates are checked for, when not the clientUrl's host. */
  readonly serverName: string | undefined;
}

export function validateDriver(raw: unknown, p: Problems, path: PathResolver): DriverSpec | undefined {
  if (!isObj(raw)) {
    p.add('driver', 'is required: {kind: local, runDir} or {kind: command, start, stop, status}');
    return undefined;
  }
  if (raw.kind === 'local') {
    p.unknownKeys('driver', raw, ['kind', 'runDir']);
    return { kind: 'local', runDir: path(p.str(raw, 'runDir', 'driver.runDir')) };
  }
  if (raw.kind === 'command') {
    p.unknownKeys('driver', raw, ['kind', 'start', 'stop', 'status', 'kill', 'logs', 'restore', 'check']);
    const template = (key: TemplateName, required: boolean) => {
      const text = p.str(raw, key, `driver.${key}`, required);
      if (text === undefined) return undefined;
      const parsed = parsePlaceholders(text);
      if (!parsed.ok) p.add(`driver.${key}`, parsed.problem);
      else {
        const known: readonly string[] = TEMPLATE_PLACEHOLDERS[key];
        for (const unknown of parsed.names.filter((n) => !known.includes(n))) {
          p.add(
            `driver.${key}`,
            `unknown placeholder {${unknown}} (known here: ${known.map((n) => `{${n}}`).join(' ')})`,
          );
        }
      }
      return text;
    };
    return {
      kind: 'command',
      start: template('start', true) ?? '',
      stop: template('stop', true) ?? '',
      status: template('status', true) ?? '',
      kill: template('kill', false),
      logs: template('logs', false),
      restore: template('restore', false),
      check: template('check', false),
    };
  }
  p.add('driver.kind', `must be local or command, got ${JSON.stringify(raw.kind)}`);
  return undefined;
}

/** The tls block; each file it names (even in a block with other problems) is added to `files`. */
export function validateTls(
  raw: unknown,
  p: Problems,
  path: PathResolver,
  files: NamedFile[],
): TlsSpec | undefined {
  if (raw === undefined) return undefined;
  if (!isObj(raw)) {
    p.add('tls', 'must be a mapping with ca, cert, key and optionally serverName');
    return undefined;
  }
  p.unknownKeys('tls', raw, ['ca', 'cert', 'key', 'serverName']);
  const ca = p.str(raw, 'ca', 'tls.ca');
  const cert = p.str(raw, 'cert', 'tls.cert', false);
  const key = p.str(raw, 'key', 'tls.key', false);
  const serverName = p.str(raw, 'serverName', 'tls.serverName', false);
  for (const [field, value] of [
    ['tls.ca', ca],
    ['tls.cert', cert],
    ['tls.key', key],
  ] as const)
    if (value !== undefined) files.push({ field, path: path(value) });
  if ((cert === undefined) !== (key === undefined))
    p.add(
      cert === undefined ? 'tls.cert' : 'tls.key',
      'tls.cert and tls.key go together: set both or neither',
    );
  if (ca === undefined) return undefined;
  return Object.freeze({
    ca: path(ca),
    cert: cert === undefined ? undefined : path(cert),
    key: key === undefined ? undefined : path(key),
    serverName,
  });
}
