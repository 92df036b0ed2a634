import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { AppError, unavailable } from '../../../shared/errors.ts';
import { Agent as HttpAgent, request as httpRequest } from '../../../shared/node-http.ts';
import type { ClusterMember, EtcdClient, MemberStatus } from '../ports.ts';
import { parseJsonLossless, uint64Text } from './lossless-json.ts';
import type { TlsMaterial } from './tls.ts';

/** Where the probe key lives: a read of it proves the quorum without touching user data. */
const PROBE_KEY = Buffer.from('kvupgrade/probe').toString('base64');

export class EtcdAuthRequiredError extends AppError {
  readonly authRequired = true;
  constructor(url: string, message: string) {
    super('FAILED_PRECONDITION', `${url}: auth is enabled (${message})`);
    this.name = 'EtcdAuthRequiredError';
  }
}

type Json = Record<string, unknown>;

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}
export type HttpRequester = (
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number },
) => Promise<HttpAnswer>;

/**
 * One HTTP(S) requester for every call to the members: plain `http:` URLs as they are, `https:` URLs
 * with the tls block's CA, client certificate and server name. Connections are kept alive.
 * Rejects with the socket's or TLS's error (its `code`: ECONNREFUSED, UNABLE_TO_VERIFY_LEAF_SIGNATURE...).
 */
export function createHttpRequester(tls: TlsMaterial | undefined, defaultTimeoutMs: number): HttpRequester {
  const plain = new HttpAgent({ keepAlive: true });
  const secure = new HttpsAgent({
    keepAlive: true,
    ...(tls
      ? {
          ca: tls.ca,
          ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
          ...(tls.serverName ? { servername: tls.serverName } : {}),
        }
      : {}),
  });
  return (url, init = {}) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const https = url.startsWith('https:');
      const send = https ? httpsRequest : httpRequest;
      const body = init.body === undefined ? undefined : Buffer.from(init.body);
      const req = send(
        url,
        {
          method: init.method ?? 'GET',
          agent: https ? secure : plain,
          headers: {
            ...init.headers,
            ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
          },
          signal: AbortSignal.timeout(init.timeoutMs ?? defaultTimeoutMs),
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

/** The server certificate a member presents on its https client URL: subject and expiry (ms). */
export function serverCertificate(
  url: string,
  tls: TlsMaterial,
  timeoutMs: number,
): Promise<{ readonly subject: string; readonly notAfter: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      host: hostname,
      port: Number(port || 443),
      ca: tls.ca,
      ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
      servername: tls.serverName ?? (/^[\d.]+$|:/.test(hostname) ? '' : hostname),
      rejectUnauthorized: false, // reading the certificate only; the calls themselves verify it
      timeout: timeoutMs,
    });
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      socket.destroy();
      const cn = cert?.subject?.CN;
      if (!cert?.valid_to) reject(unavailable(`${url}: no server certificate`));
      else
        resolve({
          subject: `CN=${Array.isArray(cn) ? cn.join(',') : (cn ?? '')}`,
          notAfter: Date.parse(cert.valid_to),
        });
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(unavailable(`${url}: no TLS handshake in ${timeoutMs} ms`));
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      reject(unavailable(`${url}: ${error.code ?? error.message}`, error)),
    );
  });
}

/**
 * The HTTP side of an etcd member: /health, /version, /metrics and the v3 JSON gateway (`/v3/...`,
 * present on 3.4 and 3.5). IDs stay decimal strings. With credentials, gateway calls carry a token
 * from `/v3/auth/authenticate`, fetched again when the member says it is no longer valid.
 */
export function createEtcdHttp(options: {
  readonly timeoutMs: number;
  readonly credentials?: { readonly user: string; readonly password: string };
  readonly tls?: TlsMaterial;
}): EtcdClient {
  const { timeoutMs, credentials, tls } = options;
  const tokens = new Map<string, string>();
  const send = createHttpRequester(tls, timeoutMs);

  async function request(
    url: string,
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<{ status: number; body: string }> {
    try {
      return await send(`${url}${path}`, init);
    } catch (error) {
      const cause =
        (error as { code?: string }).code === 'ABORT_ERR'
          ? 'TimeoutError'
          : ((error as { code?: string }).code ?? (error as Error).name);
      // A member that did not answer in time may be busy, not gone: callers may ask again.
      if (cause === 'TimeoutError')
        throw new AppError('DEADLINE_EXCEEDED', `${url}${path}: no answer in ${timeoutMs} ms`, {
          cause: error,
        });
      throw unavailable(`${url}${path}: ${cause}`, error);
    }
  }

  async function authenticate(url: string): Promise<string | undefined> {
    if (!credentials) return undefined;
    const cached = tokens.get(url);
    if (cached) return cached;
    const { status, body } = await request(url, '/v3/auth/authenticate', {
      method: 'POST',
      body: JSON.stringify({ name: credentials.user, password: credentials.password }),
    });
    const token = (parseJsonLossless(body) as Json).token;
    if (status !== 200 || typeof token !== 'string')
      throw new EtcdAuthRequiredError(url, `authenticate as ${credentials.user}: ${errorText(body)}`);
    tokens.set(url, token);
    return token;
  }

  async function gateway(url: string, path: string, payload: object, retried = false): Promise<Json> {
    const token = await authenticate(url);
    const { status, body } = await request(url, path, {
      method: 'POST',
      headers: token ? { Authorization: token } : {},
      body: JSON.stringify(payload),
    }).catch((error: unknown) => {
      // A restarted 3.4 member forgets its tokens and takes ~2 s to say so: start afresh next time.
      tokens.delete(url);
      throw error;
    });
    if (status === 200) return parseJsonLossless(body) as Json;
    const message = errorText(body);
    if (/invalid auth token|user name is empty|auth: revision/.test(message)) {
      tokens.delete(url);
      if (credentials && !retried) return gateway(url, path, payload, true);
      throw new EtcdAuthRequiredError(url, message);
    }
    throw unavailable(`${url}${path}: HTTP ${status}: ${message}`);
  }

  const number = (value: unknown): number => Number(uint64Text(value) ?? Number.NaN);

  return {
    async certificate(url) {
      if (!tls || !url.startsWith('https:')) return undefined;
      return serverCertificate(url, tls, timeoutMs);
    },
    async health(url) {
      const { status, body } = await request(url, '/health');
      if (status !== 200) throw unavailable(`${url}/health: HTTP ${status}: ${body.trim()}`);
      const health = (parseJsonLossless(body) as Json).health;
      return health === 'true' || health === true;
    },
    async version(url) {
      const { status, body } = await request(url, '/version');
      const json = status === 200 ? (parseJsonLossless(body) as Json) : {};
      if (typeof json.etcdserver !== 'string' || typeof json.etcdcluster !== 'string') {
        throw unavailable(`${url}/version: HTTP ${status}: ${body.trim()}`);
      }
      return {
        server: json.etcdserver,
        cluster: json.etcdcluster,
        ...(typeof json.storage === 'string' && json.storage !== '' ? { storage: json.storage } : {}),
      };
    },
    async isLeader(url) {
      const { status, body } = await request(url, '/metrics');
      const match = /^etcd_server_is_leader (\S+)$/m.exec(body);
      if (status !== 200 || !match)
        throw unavailable(`${url}/metrics: HTTP ${status}, no etcd_server_is_leader`);
      return Number(match[1]) === 1;
    },
    async quorumRead(url) {
      const json = await gateway(url, '/v3/kv/range', { key: PROBE_KEY, serializable: false });
      return { revision: number((json.header as Json | undefined)?.revision) };
    },
    async authEnabled(url) {
      const { status, body } = await request(url, '/v3/kv/range', {
        method: 'POST',
        body: JSON.stringify({ key: PROBE_KEY, serializable: true }),
      });
      if (status === 200) return false;
      if (/user name is empty/.test(errorText(body))) return true;
      throw unavailable(`${url}/v3/kv/range: HTTP ${status}: ${errorText(body)}`);
    },
    async status(url): Promise<MemberStatus> {
      const json = await gateway(url, '/v3/maintenance/status', {});
      const header = (json.header ?? {}) as Json;
      const downgrade = json.downgradeInfo as Json | undefined;
      return {
        memberId: uint64Text(header.member_id) ?? '',
        clusterId: uint64Text(header.cluster_id) ?? '',
        leaderId: uint64Text(json.leader) ?? '',
        revision: number(header.revision),
        raftIndex: number(json.raftIndex),
        version: String(json.version ?? ''),
        ...(typeof json.storageVersion === 'string' && json.storageVersion !== ''
          ? { storageVersion: json.storageVersion }
          : {}),
        ...(downgrade?.enabled === true && typeof downgrade.targetVersion === 'string'
          ? { downgradeTarget: downgrade.targetVersion }
          : {}),
      };
    },
    async memberList(url): Promise<ClusterMember[]> {
      const json = await gateway(url, '/v3/cluster/member/list', {});
      const members = Array.isArray(json.members) ? (json.members as Json[]) : [];
      return members.map((m) => ({
        id: uint64Text(m.ID) ?? '',
        name: typeof m.name === 'string' ? m.name : '',
        peerUrls: Array.isArray(m.peerURLs) ? m.peerURLs.map(String) : [],
        clientUrls: Array.isArray(m.clientURLs) ? m.clientURLs.map(String) : [],
        isLearner: m.isLearner === true,
      }));
    },
    accepting(url) {
      const { hostname, port, protocol } = new URL(url);
      return new Promise<boolean>((resolve) => {
        const socket = netConnect({
          host: hostname.replace(/^\[|\]$/g, ''),
          port: Number(port || (protocol === 'https:' ? 443 : 80)),
        });
        const done = (open: boolean) => {
          socket.destroy();
          resolve(open);
        };
        socket.setTimeout(timeoutMs, () => done(true)); // no refusal: something holds the port
        socket.once('connect', () => done(true));
        socket.once('error', () => done(false));
      });
    },
    forgetToken(url) {
      tokens.delete(url);
    },
    async moveLeader(leaderUrl, targetId) {
      await gateway(leaderUrl, '/v3/maintenance/transfer-leadership', { targetID: targetId });
    },
    async downgrade(url, action, version) {
      const json = await gateway(url, '/v3/maintenance/downgrade', {
        action: { validate: 'VALIDATE', enable: 'ENABLE', cancel: 'CANCEL' }[action],
        version,
      }).catch((error: unknown) => {
        // The gateway answers a refused downgrade with HTTP 400..500 and etcd's message.
        if (error instanceof AppError && /HTTP [45]\d\d/.test(error.message))
          throw new AppError(
            'FAILED_PRECONDITION',
            `etcd refused downgrade ${action} ${version}: ${error.message}`,
          );
        throw error;
      });
      return String(json.version ?? '');
    },
  };
}

/** The gateway's error text: 3.4 sends `error` and `message`, 3.5 only `message`. */
function errorText(body: string): string {
  try {
    const json = JSON.parse(body) as Json;
    return String(json.message ?? json.error ?? body).trim();
  } catch {
    return body.trim();
  }
}
