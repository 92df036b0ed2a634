// Certificates for the gRPC TLS and xDS tests, made with openssl: CAs, and leaf certificates signed
// by one of them with chosen SANs.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import { type ChannelCredentials, credentials } from '@grpc/grpc-js';
import { CLIENT_EXTENSIONS, signedCertificate } from './etcd-tls.ts';

const run = promisify(execFile);

export interface CertAuthority {
  readonly cert: string;
  readonly key: string;
}

export interface Leaf {
  readonly cert: string;
  readonly key: string;
}

/** A self-signed CA (EC P-256, a year) in `dir` as `<name>.crt` / `<name>.key`. */
export async function makeCa(dir: string, name: string): Promise<CertAuthority> {
  await mkdir(dir, { recursive: true });
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  await run('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
  await run('openssl', [
    'req',
    '-x509',
    '-new',
    '-key',
    key,
    '-out',
    cert,
    '-days',
    '365',
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return { cert, key };
}

/** A server certificate for 127.0.0.1 and localhost (plus `dnsNames`). */
export const serverLeaf = (dir: string, name: string, ca: CertAuthority, dnsNames: string[] = []) =>
  signedCertificate(dir, name, ca, {
    cn: name,
    days: 365,
    extensions: `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost${dnsNames.map((n) => `,DNS:${n}`).join('')}\n`,
  });

/** A client certificate carrying `dnsName` as its SAN. */
export const clientLeaf = (dir: string, name: string, ca: CertAuthority, dnsName: string) =>
  signedCertificate(dir, name, ca, {
    cn: name,
    days: 365,
    extensions: `${CLIENT_EXTENSIONS}subjectAltName=DNS:${dnsName}\n`,
  });

/** Channel credentials trusting `caPem`, presenting `leaf` as the client certificate when given. */
export async function tlsChannelCredentials(caPem: Buffer, leaf?: Leaf): Promise<ChannelCredentials> {
  return leaf === undefined
    ? credentials.createSsl(caPem)
    : credentials.createSsl(caPem, await readFile(leaf.key), await readFile(leaf.cert));
}

/** The CN of the certificate the TLS listener on 127.0.0.1:`port` presents to a new connection from `client`. */
export async function presentedCn(port: number, caPem: Buffer, client: Leaf): Promise<string> {
  const [key, cert] = [await readFile(client.key), await readFile(client.cert)];
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: '127.0.0.1', port, servername: 'localhost', ca: caPem, key, cert, ALPNProtocols: ['h2'] },
      () => {
        const cn = socket.getPeerCertificate().subject.CN;
        socket.destroy();
        resolve(String(cn));
      },
    );
    socket.on('error', reject);
  });
}

/** What a test of the gRPC listener's rotating TLS needs, made in `dir`. */
export interface ListenerCertificates {
  readonly ca: CertAuthority;
  readonly caPem: Buffer;
  /** Where the listener reads its pair: `first`'s at the start. */
  readonly certFile: string;
  readonly keyFile: string;
  /** Server certificates named `<prefix>-first` and `<prefix>-second`. */
  readonly first: Leaf;
  readonly second: Leaf;
  /** Client certificates of the CA: SAN envoy.mesh.local, and intruder.mesh.local. */
  readonly good: Leaf;
  readonly wrongSan: Leaf;
}

export async function listenerCertificates(dir: string, prefix: string): Promise<ListenerCertificates> {
  const ca = await makeCa(dir, `${prefix}-ca`);
  const first = await serverLeaf(dir, `${prefix}-first`, ca);
  const certificates = {
    ca,
    caPem: await readFile(ca.cert),
    certFile: join(dir, `${prefix}.crt`),
    keyFile: join(dir, `${prefix}.key`),
    first,
    second: await serverLeaf(dir, `${prefix}-second`, ca),
    good: await clientLeaf(dir, 'envoy', ca, 'envoy.mesh.local'),
    wrongSan: await clientLeaf(dir, 'intruder', ca, 'intruder.mesh.local'),
  };
  await copyFile(first.cert, certificates.certFile);
  await copyFile(first.key, certificates.keyFile);
  return certificates;
}

/** Puts `from`'s content at `to` as a deploy tool does: written beside, then renamed in. */
export async function replaceFile(from: string, to: string): Promise<void> {
  await copyFile(from, `${to}.next`);
  await rename(`${to}.next`, to);
}
