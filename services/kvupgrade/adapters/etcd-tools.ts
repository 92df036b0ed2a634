import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { unavailable } from '../../../shared/errors.ts';
import type { TlsSpec } from '../domain/driver-spec.ts';
import type { SnapshotStatus, SnapshotTool } from '../ports.ts';
import { parseJsonLossless } from './lossless-json.ts';
import { lastLines, runCommand } from './process.ts';

/** etcdctl's flags for the tls block. */
export const etcdctlTlsFlags = (tls: TlsSpec): string[] => [
  `--cacert=${tls.ca}`,
  ...(tls.cert ? [`--cert=${tls.cert}`] : []),
  ...(tls.key ? [`--key=${tls.key}`] : []),
];

/** `etcdctl snapshot save` and `etcdutl snapshot status`, as processes. */
export function createSnapshotTool(options: {
  readonly etcdctl: string;
  readonly etcdutl: string;
  readonly timeoutMs: number;
  readonly credentials?: { readonly user: string; readonly password: string };
  /** The tls block: etcdctl gets --cacert, --cert and --key (it has no server name option). */
  readonly tls?: TlsSpec;
}): SnapshotTool {
  const { etcdctl, etcdutl, timeoutMs, credentials, tls } = options;
  return {
    async save(endpoint, file) {
      await mkdir(dirname(file), { recursive: true });
      // A single endpoint: etcdctl refuses to snapshot through several.
      const args = [
        `--endpoints=${endpoint}`,
        `--command-timeout=${Math.ceil(timeoutMs / 1000)}s`,
        'snapshot',
        'save',
        file,
      ];
      // etcdctl asks for a password interactively otherwise; --user is its only batch form.
      if (credentials) args.unshift(`--user=${credentials.user}:${credentials.password}`);
      if (tls) args.unshift(...etcdctlTlsFlags(tls));
      const result = await runCommand(etcdctl, args, { timeoutMs });
      if (result.code !== 0) {
        throw unavailable(
          `etcdctl snapshot save from ${endpoint} failed (exit ${result.code ?? result.signal}): ${lastLines(result.stderr || result.stdout)}`,
        );
      }
    },
    async status(file): Promise<SnapshotStatus> {
      const result = await runCommand(etcdutl, ['snapshot', 'status', file, '-w', 'json'], { timeoutMs });
      if (result.code !== 0) {
        throw unavailable(
          `etcdutl snapshot status ${file} failed (exit ${result.code ?? result.signal}): ${lastLines(result.stderr || result.stdout)}`,
        );
      }
      const json = parseJsonLossless(result.stdout.trim().split('\n').at(-1) ?? '') as Record<
        string,
        unknown
      >;
      const n = (key: string) => {
        const value = Number(json[key]);
        if (!Number.isFinite(value))
          throw unavailable(`etcdutl snapshot status ${file}: no ${key} in ${result.stdout.trim()}`);
        return value;
      };
      return {
        hash: n('hash'),
        revision: n('revision'),
        totalKeys: n('totalKey'),
        totalBytes: n('totalSize'),
      };
    },
  };
}

/** The version a binary reports (`etcd --version`, `etcdctl version`, `etcdutl version`). */
export async function binaryVersion(
  file: string,
  args: readonly string[],
): Promise<{ version?: string; error?: string }> {
  try {
    const result = await runCommand(file, args, { timeoutMs: 10_000 });
    const match = /(?:etcd Version|etcdctl version|etcdutl version):\s*(\S+)/.exec(result.stdout);
    if (result.code === 0 && match) return { version: match[1] };
    return { error: `exit ${result.code ?? result.signal}: ${lastLines(result.stderr || result.stdout, 1)}` };
  } catch (error) {
    return { error: (error as Error).message };
  }
}
