// TLS and mutual TLS on the gRPC listener (GRPC_SERVER_USE_TLS and friends): server credentials
// whose certificate and key are re-read when their files change (a rotation needs no restart; a
// half-written pair keeps the previous one in force), client certificates required and verified
// against GRPC_CLIENT_TLS_CACERT, and GRPC_CLIENT_TLS_SAN checked on every call.
import { readFileSync, statSync } from 'node:fs';
import type { PeerCertificate, SecureContextOptions } from 'node:tls';
import { createSecureContext } from 'node:tls';
import {
  Metadata,
  ServerCredentials,
  ServerInterceptingCall,
  type ServerInterceptor,
  status,
} from '@grpc/grpc-js';
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

class RotatingServerCredentials extends ServerCredentials {
  readonly #interceptors: ServerInterceptor[];
  constructor(
    serverOptions: { requestCert: boolean; rejectUnauthorized: boolean },
    context: SecureContextOptions,
    interceptors: ServerInterceptor[],
  ) {
    super(serverOptions, context);
    this.#interceptors = interceptors;
  }
  override _equals(other: ServerCredentials): boolean {
    return other === this;
  }
  override _getInterceptors(): ServerInterceptor[] {
    return this.#interceptors;
  }
  replace(context: SecureContextOptions): void {
    this.updateSecureContextOptions(context);
  }
}

/** Refuses every call whose client certificate does not carry `san` as a DNS SAN. */
function sanInterceptor(san: string, logger: Logger): ServerInterceptor {
  return (method, call) => {
    const certificate = call.getAuthContext().sslPeerCertificate;
    const names = dnsNames(certificate);
    if (names.includes(san)) return new ServerInterceptingCall(call);
    logger.warn(
      { method: method.path, peer: call.getPeer(), san: names },
      'gRPC call refused: the client certificate does not carry GRPC_CLIENT_TLS_SAN',
    );
    return new ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata() {
            call.sendStatus({
              code: status.UNAUTHENTICATED,
              details: `client certificate SAN ${JSON.stringify(names)} does not include ${JSON.stringify(san)}`,
              metadata: new Metadata(),
            });
          },
          onReceiveMessage() {},
          onReceiveHalfClose() {},
        });
      },
    });
  };
}

export interface RotatingTls {
  readonly credentials: ServerCredentials;
  /** Re-reads the files now (also done every `checkEveryMs`); true when a new pair was put in force. */
  reload(): boolean;
  stop(): void;
}

/**
 * Server credentials from the files, checked every `checkEveryMs` (mtime and size): a changed,
 * valid certificate/key pair (and CA) replaces the old one for new connections; an invalid one is
 * logged and the old one stays.
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
  const read = (): SecureContextOptions => {
    const context: SecureContextOptions = {
      cert: readFileSync(files.certFile),
      key: readFileSync(files.keyFile),
      ...(files.clientCaFile !== '' ? { ca: readFileSync(files.clientCaFile) } : {}),
    };
    createSecureContext(context); // throws on a mismatched or unparsable pair
    return context;
  };

  let lastStamp = stamp();
  const interceptors = files.clientSan !== '' ? [sanInterceptor(files.clientSan, logger)] : [];
  const credentials = new RotatingServerCredentials(
    { requestCert: files.clientCaFile !== '', rejectUnauthorized: true },
    read(),
    interceptors,
  );
  const reload = (): boolean => {
    const now = stamp();
    if (now === lastStamp) return false;
    let context: SecureContextOptions;
    try {
      context = read();
    } catch (error) {
      // Maybe half-way through a rotation: tried again at the next check.
      logger.warn({ err: error }, 'gRPC TLS files changed but do not load; the previous ones stay in force');
      return false;
    }
    lastStamp = now;
    credentials.replace(context);
    logger.warn({ cert: files.certFile }, 'gRPC TLS certificate reloaded');
    return true;
  };
  const timer = setInterval(reload, options.checkEveryMs ?? 1_000);
  timer.unref();
  return { credentials, reload, stop: () => clearInterval(timer) };
}

/** The gRPC listener's credentials from the settings: undefined (plaintext) unless GRPC_SERVER_USE_TLS. */
export function grpcServerCredentials(
  settings: {
    readonly grpcServerUseTls: boolean;
    readonly grpcServerTlsCert: string;
    readonly grpcServerTlsKey: string;
    readonly grpcClientTlsCacert: string;
    readonly grpcClientTlsSan: string;
  },
  logger: Logger,
  onStop: (name: string, stop: () => void) => void,
): ServerCredentials | undefined {
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
  return tls.credentials;
}
