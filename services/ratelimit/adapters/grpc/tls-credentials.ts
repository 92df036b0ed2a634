// TLS on the gRPC listener (GRPC_SERVER_USE_TLS and friends): the pair is re-read when its files
// change (a half-written one keeps the previous), clients are checked against GRPC_CLIENT_TLS_CACERT
// by the TLS handshake and against GRPC_CLIENT_TLS_SAN on each call.
import { readFileSync, statSync } from 'node:fs';
import type { PeerCertificate, SecureContextOptions, TLSSocket, TlsOptions } from 'node:tls';
import { createSecureContext } from 'node:tls';
import type { GrpcFailure, UnaryCall } from '../../../../shared/grpc-server/grpc-server.ts';
import { GRPC_STATUS } from '../../../../shared/grpc-server/http2-parts.ts';
import type { Logger } from '../../../../shared/logger.ts';

export interface GrpcTlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  /** '' : no client certificates asked for. */
  readonly clientCaFile: string;
  /** '' : any verified client certificate is accepted. */
  readonly clientSan: string;
}

/** The DNS names of a certificate's subjectAltName (`DNS:a, IP Address:1.2.3.4, DNS:b`). */
export function dnsNames(certificate: PeerCertificate | undefined): string[] {
  const text = certificate?.subjectaltname ?? '';
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('DNS:'))
    .map((part) => part.slice(4));
}

interface PemFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly ca: Buffer | undefined;
}

/** Reads the files; throws when they do not make a usable pair (or the CA does not parse). */
function readPem(files: GrpcTlsFiles): PemFiles {
  const cert = readFileSync(files.certFile);
  const key = readFileSync(files.keyFile);
  const ca = files.clientCaFile !== '' ? readFileSync(files.clientCaFile) : undefined;
  createSecureContext({ cert, key, ca }); // throws on a mismatched or unparsable pair
  return { cert, key, ca };
}

export interface RotatingTls {
  /** For the listener: the pair, and client certificates required and verified when a CA is set. */
  readonly options: TlsOptions;
  /** Refuses (UNAUTHENTICATED) a call whose client certificate lacks GRPC_CLIENT_TLS_SAN. */
  readonly admit: ((call: UnaryCall) => GrpcFailure | undefined) | undefined;
  /** Where a new pair goes (the listener's setSecureContext). */
  attach(target: (options: SecureContextOptions) => void): void;
  /** Re-reads the files now (also done every `checkEveryMs`); true when a new pair was put in force. */
  reload(): boolean;
  stop(): void;
}

/**
 * TLS options from the files, checked every `checkEveryMs` (mtime, size, inode): a changed, valid
 * certificate/key pair (and CA) replaces the old one for new connections; an invalid one is logged
 * and the old one stays. Throws when the files do not load at the start.
 */
export function createRotatingServerTls(options: {
  files: GrpcTlsFiles;
  logger: Logger;
  checkEveryMs?: number;
}): RotatingTls {
  const { files, logger } = options;
  const paths = [files.certFile, files.keyFile, files.clientCaFile].filter((p) => p !== '');
  const stamp = (): string =>
    paths
      .map((path) => {
        try {
          const info = statSync(path);
          return `${info.mtimeMs}:${info.size}:${info.ino}`;
        } catch {
          return 'missing';
        }
      })
      .join('|');

  let lastStamp = stamp();
  const verifyClients = files.clientCaFile !== '';
  const contextOf = (pem: PemFiles): TlsOptions => ({
    cert: pem.cert,
    key: pem.key,
    ...(verifyClients ? { ca: pem.ca, requestCert: true, rejectUnauthorized: true } : {}),
  });
  const initial = contextOf(readPem(files));
  const targets: Array<(options: SecureContextOptions) => void> = [];

  const reload = (): boolean => {
    const now = stamp();
    if (now === lastStamp) return false;
    let latest: PemFiles;
    try {
      latest = readPem(files);
    } catch (error) {
      // Maybe half-way through a rotation: tried again at the next check.
      logger.warn({ err: error }, 'gRPC TLS files changed but do not load; the previous ones stay in force');
      return false;
    }
    lastStamp = now;
    for (const target of targets) target(contextOf(latest));
    logger.warn({ cert: files.certFile }, 'gRPC TLS certificate reloaded');
    return true;
  };
  const timer = setInterval(reload, options.checkEveryMs ?? 1_000);
  timer.unref();
  return {
    options: { ...initial, ALPNProtocols: ['h2'] },
    admit: files.clientSan === '' ? undefined : sanCheck(files.clientSan, logger),
    attach: (target) => targets.push(target),
    reload,
    stop: () => clearInterval(timer),
  };
}

/** GRPC_CLIENT_TLS_SAN: the verdict is taken once per connection (its certificate does not change). */
function sanCheck(san: string, logger: Logger): (call: UnaryCall) => GrpcFailure | undefined {
  const verdicts = new WeakMap<object, GrpcFailure | null>();
  return (call) => {
    const socket = call.socket as TLSSocket;
    let verdict = verdicts.get(socket);
    if (verdict === undefined) {
      const names = dnsNames(socket.getPeerCertificate?.());
      verdict = names.includes(san)
        ? null
        : {
            code: GRPC_STATUS.UNAUTHENTICATED,
            details: `client certificate SAN ${JSON.stringify(names)} does not include ${JSON.stringify(san)}`,
          };
      if (verdict !== null)
        logger.warn(
          { method: call.headers[':path'], peer: socket.remoteAddress, san: names },
          'gRPC call refused: the client certificate does not carry GRPC_CLIENT_TLS_SAN',
        );
      verdicts.set(socket, verdict);
    }
    return verdict ?? undefined;
  };
}

/** The gRPC listener's TLS from the settings: undefined (plaintext) unless GRPC_SERVER_USE_TLS. */
export function grpcServerTls(
  settings: {
    readonly grpcServerUseTls: boolean;
    readonly grpcServerTlsCert: string;
    readonly grpcServerTlsKey: string;
    readonly grpcClientTlsCacert: string;
    readonly grpcClientTlsSan: string;
  },
  logger: Logger,
  onStop: (name: string, stop: () => void) => void,
): RotatingTls | undefined {
  if (!settings.grpcServerUseTls) return undefined;
  const tls = createRotatingServerTls({
    files: {
      certFile: settings.grpcServerTlsCert,
      keyFile: settings.grpcServerTlsKey,
      clientCaFile: settings.grpcClientTlsCacert,
      clientSan: settings.grpcClientTlsSan,
    },
    logger,
  });
  onStop('gRPC TLS file watch', () => tls.stop());
  return tls;
}
