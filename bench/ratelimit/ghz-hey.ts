// The neutral load generators of the side-by-side benchmark: ghz for gRPC and hey for /json, run
// as tools, their reports read back as decisions/s, p50/p99 and errors.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

export interface LoadFigures {
  decisions: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

export type Generator = (
  service: { readonly grpc: string; readonly http: number },
  callers: number,
  seconds: number,
) => Promise<LoadFigures>;

/** ghz against the gRPC port: `callers` concurrent callers over at most `maxConnections` connections. */
export function ghzGenerator(ghz: string, maxConnections: number): Generator {
  return async (service, callers, seconds) => {
    const connections = Math.min(callers, maxConnections);
    const { stdout } = await run(
      ghz,
      [
        '--insecure',
        '--proto',
        join(ROOT, 'proto', 'envoy/service/ratelimit/v3/rls.proto'),
        '-i',
        join(ROOT, 'proto'),
        '--call',
        'envoy.service.ratelimit.v3.RateLimitService.ShouldRateLimit',
        '-d',
        '{"domain":"bench","descriptors":[{"entries":[{"key":"user","value":"u{{.WorkerID}}"}]}],"hits_addend":1}',
        '-c',
        String(callers),
        '--connections',
        String(connections),
        '-z',
        `${seconds}s`,
        '-O',
        'json',
        service.grpc,
      ],
      { maxBuffer: 1 << 26 },
    );
    const report = JSON.parse(stdout) as {
      count: number;
      rps: number;
      latencyDistribution: Array<{ percentage: number; latency: number }> | null;
      statusCodeDistribution: Record<string, number>;
    };
    const at = (p: number) =>
      (report.latencyDistribution?.find((d) => d.percentage === p)?.latency ?? 0) / 1e6;
    const ok = report.statusCodeDistribution.OK ?? 0;
    return {
      decisions: ok,
      perSecond: report.rps * (ok / Math.max(1, report.count)),
      p50Ms: at(50),
      p99Ms: at(99),
      errors: report.count - ok,
    };
  };
}

/** hey against /json: `callers` concurrent keep-alive callers. */
export function heyGenerator(hey: string): Generator {
  return async (service, callers, seconds) => {
    const { stdout } = await run(
      hey,
      [
        '-z',
        `${seconds}s`,
        '-c',
        String(callers),
        '-m',
        'POST',
        '-T',
        'application/json',
        '-d',
        '{"domain":"bench","descriptors":[{"entries":[{"key":"user","value":"json"}]}]}',
        `http://127.0.0.1:${service.http}/json`,
      ],
      { maxBuffer: 1 << 26 },
    );
    const perSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
    // hey prints `  99%% in 0.0044 secs` (its format string's %% left as is).
    const pct = (p: number) => Number(new RegExp(`${p}%+ in ([\\d.]+) secs`).exec(stdout)?.[1] ?? 0) * 1000;
    const codes = [...stdout.matchAll(/\[(\d+)\]\s+(\d+) responses/g)];
    const ok = codes.filter(([, code]) => code === '200').reduce((n, [, , c]) => n + Number(c), 0);
    const all = codes.reduce((n, [, , c]) => n + Number(c), 0);
    return {
      decisions: ok,
      perSecond: perSecond * (ok / Math.max(1, all)),
      p50Ms: pct(50),
      p99Ms: pct(99),
      errors: all - ok,
    };
  };
}
