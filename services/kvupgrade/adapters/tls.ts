import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { CertificateFacts } from '../domain/cluster-facts.ts';
import type { TlsSpec } from '../domain/driver-spec.ts';

/** The cluster file's `tls` block, read (by loadClusterFile): what every HTTPS call and etcdctl run is given. */
export interface TlsMaterial {
  readonly spec: TlsSpec;
  readonly ca: Buffer;
  readonly cert: Buffer | undefined;
  readonly key: Buffer | undefined;
  readonly serverName: string | undefined;
}

/**
 * What plan judges about the certificates: that each file parses, that the key is the certificate's,
 * and when each expires. Never throws: a problem is a fact.
 */
export function certificateFacts(tls: TlsMaterial): CertificateFacts[] {
  const out: CertificateFacts[] = [];
  const certs = (field: string, file: string, pem: Buffer): X509Certificate[] | undefined => {
    const blocks = pem
      .toString('utf8')
      .match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
    if (!blocks) {
      out.push({ field, file, error: 'no PEM certificate in it' });
      return undefined;
    }
    try {
      return blocks.map((b) => new X509Certificate(b));
    } catch (error) {
      out.push({ field, file, error: (error as Error).message });
      return undefined;
    }
  };
  for (const ca of certs('tls.ca', tls.spec.ca, tls.ca) ?? [])
    out.push({
      field: 'tls.ca',
      file: tls.spec.ca,
      subject: ca.subject.replaceAll('\n', ', '),
      notAfter: Date.parse(ca.validTo),
    });
  if (tls.cert && tls.key && tls.spec.cert && tls.spec.key) {
    const [leaf] = certs('tls.cert', tls.spec.cert, tls.cert) ?? [];
    if (leaf) {
      let error: string | undefined;
      try {
        if (!leaf.checkPrivateKey(createPrivateKey(tls.key)))
          error = `tls.key ${tls.spec.key} is not the key of this certificate`;
      } catch (e) {
        error = `tls.key ${tls.spec.key}: ${(e as Error).message}`;
      }
      out.push({
        field: 'tls.cert',
        file: tls.spec.cert,
        subject: leaf.subject.replaceAll('\n', ', '),
        notAfter: Date.parse(leaf.validTo),
        ...(error ? { error } : {}),
      });
    }
  }
  return out;
}
