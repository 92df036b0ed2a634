// The checks on the PEM files the TLS settings name, run while the settings are read so that a
// missing or mismatched file is reported with every other bad setting.
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';

/** What a certificate file check found: a problem, or nothing. */
function fileProblem(variable: string, path: string, check: (pem: Buffer) => void): string | undefined {
  let pem: Buffer;
  try {
    pem = readFileSync(path);
  } catch (error) {
    return `${variable}=${JSON.stringify(path)} is not allowed: cannot read the file (${(error as Error).message})`;
  }
  try {
    check(pem);
  } catch (error) {
    return `${variable}=${JSON.stringify(path)} is not allowed: not a usable PEM file (${(error as Error).message})`;
  }
  return undefined;
}

/** A certificate chain and its key: both set, readable, PEM, and of one pair. */
export function keyPairProblems(
  cert: { variable: string; path: string },
  key: { variable: string; path: string },
  required: string,
): string[] {
  const problems: string[] = [];
  for (const file of [cert, key])
    if (file.path === '') problems.push(`${file.variable} is required: ${required}`);
  if (problems.length > 0) return problems;
  const certProblem = fileProblem(cert.variable, cert.path, (pem) => createSecureContext({ cert: pem }));
  const keyProblem = fileProblem(key.variable, key.path, (pem) => createSecureContext({ key: pem }));
  if (certProblem !== undefined) problems.push(certProblem);
  if (keyProblem !== undefined) problems.push(keyProblem);
  if (problems.length > 0) return problems;
  try {
    createSecureContext({ cert: readFileSync(cert.path), key: readFileSync(key.path) });
  } catch (error) {
    problems.push(
      `${cert.variable} and ${key.variable} do not make a pair: ${(error as Error).message} (${cert.path}, ${key.path})`,
    );
  }
  return problems;
}

/** A CA bundle: readable, with at least one certificate; [] or the problem. */
export function caProblems(variable: string, path: string): string[] {
  const problem = fileProblem(variable, path, (pem) => {
    if (!pem.toString('utf8').includes('-----BEGIN CERTIFICATE-----'))
      throw new Error('no certificate in it');
    createSecureContext({ ca: pem });
  });
  return problem === undefined ? [] : [problem];
}
