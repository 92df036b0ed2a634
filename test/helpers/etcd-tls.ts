import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCertificates {
  readonly dir: string;
  readonly ca: string;
  /** One certificate for every member, as server and as peer client (SAN IP:127.0.0.1, DNS:localhost). */
  readonly serverCert: string;
  readonly serverKey: string;
  /** The orchestrator's (and the test writer's) client certificate. */
  readonly clientCert: string;
  readonly clientKey: string;
}

async function openssl(args: string[]): Promise<void> {
  await run('openssl', args).catch((error: Error & { stderr?: string }) => {
    throw new Error(`openssl ${args.join(' ')} failed: ${error.stderr ?? error.message}`);
  });
}

/** A certificate signed by the test CA, valid `days` days, with the given extensions. */
export async function signedCertificate(
  dir: string,
  name: string,
  ca: { cert: string; key: string },
  options: { cn: string; days: number; extensions: string },
): Promise<{ cert: string; key: string }> {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const cert = join(dir, `${name}.crt`);
  const ext = join(dir, `${name}.ext`);
  await writeFile(ext, options.extensions);
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
  await openssl(['req', '-new', '-key', key, '-out', csr, '-subj', `/CN=${options.cn}`]);
  await openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    ca.cert,
    '-CAkey',
    ca.key,
    '-CAcreateserial',
    '-out',
    cert,
    '-days',
    String(options.days),
    '-extfile',
    ext,
  ]);
  return { cert, key };
}

export const CLIENT_EXTENSIONS =
  'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n';

/** A CA, a member certificate and a client certificate, made with openssl (EC P-256, a year). */
export async function makeCertificates(dir: string): Promise<TestCertificates> {
  await mkdir(dir, { recursive: true });
  const caKey = join(dir, 'ca.key');
  const ca = join(dir, 'ca.crt');
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', caKey]);
  await openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    caKey,
    '-out',
    ca,
    '-days',
    '365',
    '-subj',
    '/CN=kvupgrade test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const signer = { cert: ca, key: caKey };
  const server = await signedCertificate(dir, 'member', signer, {
    cn: 'etcd-member',
    days: 365,
    extensions:
      'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
  });
  const client = await signedCertificate(dir, 'client', signer, {
    cn: 'kvupgrade',
    days: 365,
    extensions: CLIENT_EXTENSIONS,
  });
  return {
    dir,
    ca,
    serverCert: server.cert,
    serverKey: server.key,
    clientCert: client.cert,
    clientKey: client.key,
  };
}

/** etcd's flags for client and peer TLS with client certificate authentication on both. */
export const etcdTlsFlags = (c: TestCertificates): string[] => [
  `--cert-file=${c.serverCert}`,
  `--key-file=${c.serverKey}`,
  `--trusted-ca-file=${c.ca}`,
  '--client-cert-auth',
  `--peer-cert-file=${c.serverCert}`,
  `--peer-key-file=${c.serverKey}`,
  `--peer-trusted-ca-file=${c.ca}`,
  '--peer-client-cert-auth',
];
