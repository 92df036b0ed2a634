import { setTimeout as sleep } from 'node:timers/promises';
import { createHttpRequester, type HttpRequester } from '../../services/kvupgrade/adapters/etcd-http.ts';
import type { TlsMaterial } from '../../services/kvupgrade/adapters/tls.ts';

/** One requester per TLS setting (plain http when undefined): connections are reused across calls. */
const requesters = new Map<TlsMaterial | undefined, HttpRequester>();
const requester = (tls: TlsMaterial | undefined): HttpRequester => {
  let r = requesters.get(tls);
  if (!r) {
    r = createHttpRequester(tls, 5000);
    requesters.set(tls, r);
  }
  return r;
};

const b64 = (text: string) => Buffer.from(text).toString('base64');

export interface WriterReport {
  /** Keys whose put a member acknowledged (HTTP 200). */
  readonly acknowledged: readonly string[];
  /** Writes that no endpoint accepted before giving up. */
  readonly failed: readonly string[];
  /** Writes that needed another endpoint than the first one tried. */
  readonly failedOver: number;
  /** Longest time from a write's first attempt to its acknowledgement. */
  readonly longestStallMs: number;
  /** Every write: when it was first tried (epoch ms) and how long it took until acknowledged or given up. */
  readonly writes: readonly { readonly at: number; readonly ms: number }[];
}

export interface Writer {
  stop(): Promise<WriterReport>;
}

/**
 * A client writing `<prefix><n>` = `v<n>` without pause through the v3 gateway, starting each write
 * on the next endpoint in turn and failing over to the others until one acknowledges it.
 */
export function startWriter(
  endpoints: readonly string[],
  options: { prefix?: string; giveUpMs?: number; tls?: TlsMaterial } = {},
): Writer {
  const { prefix = 'w/', giveUpMs = 15_000 } = options;
  const send = requester(options.tls);
  const acknowledged: string[] = [];
  const failed: string[] = [];
  let failedOver = 0;
  let longestStallMs = 0;
  const writes: { at: number; ms: number }[] = [];
  let stopping = false;

  async function put(endpoint: string, key: string, value: string): Promise<boolean> {
    try {
      const response = await send(`${endpoint}/v3/kv/put`, {
        method: 'POST',
        body: JSON.stringify({ key: b64(key), value: b64(value) }),
        timeoutMs: 1000,
      });
      return response.status === 200;
    } catch {
      return false;
    }
  }

  const loop = (async () => {
    for (let n = 0; !stopping; n++) {
      const key = `${prefix}${String(n).padStart(6, '0')}`;
      const started = Date.now();
      let attempt = 0;
      for (;;) {
        if (await put(endpoints[(n + attempt) % endpoints.length]!, key, `v${n}`)) {
          acknowledged.push(key);
          if (attempt > 0) failedOver++;
          break;
        }
        attempt++;
        if (Date.now() - started > giveUpMs) {
          failed.push(key);
          break;
        }
        if (attempt % endpoints.length === 0) await sleep(20);
      }
      longestStallMs = Math.max(longestStallMs, Date.now() - started);
      writes.push({ at: started, ms: Date.now() - started });
    }
  })();

  return {
    async stop() {
      stopping = true;
      await loop;
      return { acknowledged, failed, failedOver, longestStallMs, writes };
    },
  };
}

/** Every key under `prefix` with its value, read through one endpoint (linearizable). */
export async function readPrefix(
  endpoint: string,
  prefix: string,
  tls?: TlsMaterial,
): Promise<Map<string, string>> {
  const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const response = await requester(tls)(`${endpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: b64(prefix), range_end: b64(end) }),
  });
  const json = JSON.parse(response.body) as { kvs?: { key: string; value: string }[] };
  if (response.status !== 200) throw new Error(`range ${prefix} on ${endpoint}: HTTP ${response.status}`);
  return new Map(
    (json.kvs ?? []).map((kv) => [
      Buffer.from(kv.key, 'base64').toString(),
      Buffer.from(kv.value ?? '', 'base64').toString(),
    ]),
  );
}

export async function putKey(endpoint: string, key: string, value: string, tls?: TlsMaterial): Promise<void> {
  const response = await requester(tls)(`${endpoint}/v3/kv/put`, {
    method: 'POST',
    body: JSON.stringify({ key: b64(key), value: b64(value) }),
  });
  if (response.status !== 200)
    throw new Error(`put ${key} on ${endpoint}: HTTP ${response.status} ${response.body}`);
}
