// Certificates for the gRPC TLS and xDS tests, made with openssl: CAs, and leaf certificates signed
// by one of them with chosen SANs.
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
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
