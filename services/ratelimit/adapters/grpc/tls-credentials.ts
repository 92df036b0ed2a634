// TLS on the gRPC listener (GRPC_SERVER_USE_TLS and friends): the pair is re-read when its files
// change (a half-written one keeps the previous), clients are checked against GRPC_CLIENT_TLS_CACERT
// and GRPC_CLIENT_TLS_SAN, all through grpc-js's exported certificate-provider credentials.
import { readFileSync, statSync } from 'node:fs';
import type { PeerCertificate } from 'node:tls';
import { createSecureContext } from 'node:tls';
import {
  experimental,
  Metadata,
  type ServerCredentials,
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

interface PemFiles {
  readonly identity: experimental.IdentityCertificateUpdate;
  readonly ca: experimental.CaCertificateUpdate | null;
}

/**
 * The files as a grpc-js certificate provider: it hands its listeners only pairs (and CAs) that
 * load together, so a rotation caught half-way never reaches the listener. (grpc-js's own
 * FileWatcherCertificateProvider hands on whatever it read.)
 */
class FileCertificates implements experimental.CertificateProvider {
  readonly #files: GrpcTlsFiles;
  #latest: PemFiles;
  readonly #identityListeners = new Set<experimental.IdentityCertificateUpdateListener>();
  readonly #caListeners = new Set<experimental.CaCertificateUpdateListener>();

  /** Reads the files now; throws when they do not make a usable pair. */
  constructor(files: GrpcTlsFiles) {
    this.#files = files;
    this.#latest = this.read();
  }

  read(): PemFiles {
    const certificate = readFileSync(this.#files.certFile);
    const privateKey = readFileSync(this.#files.keyFile);
    const ca = this.#files.clientCaFile !== '' ? readFileSync(this.#files.clientCaFile) : undefined;
    createSecureContext({ cert: certificate, key: privateKey, ca }); // throws on a mismatched or unparsable pair
    return { identity: { certificate, privateKey }, ca: ca === undefined ? null : { caCertificate: ca } };
  }

  /** Puts `latest` in force: the CA first, so that no connection sees a new pair with an old CA. */
  replace(latest: PemFiles): void {
    this.#latest = latest;
    for (const listener of this.#caListeners) listener(latest.ca);
    for (const listener of this.#identityListeners) listener(latest.identity);
  }

  // grpc-js adds its listener before it watches the credentials: the first update comes a tick later.
  addIdentityCertificateListener(listener: experimental.IdentityCertificateUpdateListener): void {
    this.#identityListeners.add(listener);
    process.nextTick(() => listener(this.#latest.identity));
  }
  removeIdentityCertificateListener(listener: experimental.IdentityCertificateUpdateListener): void {
    this.#identityListeners.delete(listener);
  }
  addCaCertificateListener(listener: experimental.CaCertificateUpdateListener): void {
    this.#caListeners.add(listener);
    process.nextTick(() => listener(this.#latest.ca));
  }
  removeCaCertificateListener(listener: experimental.CaCertificateUpdateListener): void {
    this.#caListeners.delete(listener);
  }
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
 * logged and the old one stays. Throws when the files do not load at the start.
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
  const certificates = new FileCertificates(files);
  const verifyClients = files.clientCaFile !== '';
  // grpc-js names this function's first parameter caCertificateProvider but uses it as the identity
  // provider, and the second as the CA provider (server-credentials.ts); the unit test pins that.
  const tls = experimental.createCertificateProviderServerCredentials(
    certificates,
    verifyClients ? certificates : null,
    verifyClients,
  );
  const credentials =
    files.clientSan !== ''
      ? experimental.createServerCredentialsWithInterceptors(tls, [sanInterceptor(files.clientSan, logger)])
      : tls;

  const reload = (): boolean => {
    const now = stamp();
    if (now === lastStamp) return false;
    let latest: PemFiles;
    try {
      latest = certificates.read();
    } catch (error) {
      // Maybe half-way through a rotation: tried again at the next check.
      logger.warn({ err: error }, 'gRPC TLS files changed but do not load; the previous ones stay in force');
      return false;
    }
    lastStamp = now;
    certificates.replace(latest);
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
