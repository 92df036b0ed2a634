// The HTTP listener's route table: which handler answers a method and path. The first endpoint
// whose path matches decides: its handler when it takes the method, 405 when it does not; no
// match is 404. Named segments (':name') are percent-decoded once the method is accepted.
import { invalidArgument } from '../../../../shared/errors.ts';

export interface Endpoint<H> {
  /** Segments joined by '/', ':name' taking any one segment; or a test of the whole path. */
  readonly path: string | ((path: string) => boolean);
  /** The methods it answers, all named by a 405's Allow. */
  readonly methods: readonly string[];
  readonly handler: H;
}

export type Routed<H> =
  | { readonly kind: 'found'; readonly handler: H; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'wrong method'; readonly allow: string }
  | { readonly kind: 'not found' };

export function routeRequest<H>(table: readonly Endpoint<H>[], method: string, path: string): Routed<H> {
  const segments = path.split('/').filter((s) => s !== '');
  for (const endpoint of table) {
    const raw = typeof endpoint.path === 'string' ? matchSegments(endpoint.path, segments) : undefined;
    if (typeof endpoint.path === 'string' ? raw === undefined : !endpoint.path(path)) continue;
    if (!endpoint.methods.includes(method))
      return { kind: 'wrong method', allow: endpoint.methods.join(', ') };
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(raw ?? {})) params[name] = decodeSegment(value);
    return { kind: 'found', handler: endpoint.handler, params };
  }
  return { kind: 'not found' };
}

/** The pattern's named segments, as they are in the path; undefined when the path does not match. */
function matchSegments(pattern: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = pattern.split('/');
  if (parts.length !== segments.length) return undefined;
  const named: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i]!;
    if (part.startsWith(':')) named[part.slice(1)] = segment;
    else if (part !== segment) return undefined;
  }
  return named;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidArgument(`path: ${JSON.stringify(segment)} is not valid percent-encoding`);
  }
}
