import jsYaml from 'js-yaml';
import { GoYamlError, toGoSyntaxError } from './go-yaml-error.ts';
import type { ScalarTag, YamlNode, YamlScalar } from './nodes.ts';
import { parseGoInteger, resolvePlain } from './resolve.ts';
import { ScalarBox } from './scalar-box.ts';
import { toNodes } from './to-node.ts';

/**
 * Parses YAML text the way gopkg.in/yaml.v2 does, on top of js-yaml: one implicit type catches
 * every plain scalar so that resolution (YAML 1.1) is ours, scalars keep their text and line,
 * mapping keys keep their type, and duplicate keys are allowed (the last one wins).
 * Returns the first document (yaml.Unmarshal reads one), or null for an empty stream.
 */
export function parseGoYaml(source: string): YamlNode | null {
  const scalarKeys = new Map<string, YamlScalar>();
  const lines = new WeakMap<object, number>();
  const openPositions: number[] = [];
  let lineOf: ((position: number) => number) | undefined;

  const listener = (event: 'open' | 'close', state: ListenerState): void => {
    if (event === 'open') {
      openPositions.push(state.position);
      return;
    }
    lineOf ??= lineFinder(state.input);
    // yaml.v2 reports a node at its first token (properties included): skip blanks and comments.
    const line = lineOf(contentStart(state.input, openPositions.pop() ?? 0));
    const result = state.result;
    if (result instanceof RawScalar || typeof result === 'string') {
      const raw = typeof result === 'string' ? new RawScalar('str', result) : result;
      state.result = new ScalarBox(toScalar(raw, line), scalarKeys, raw.tag === 'merge');
    } else if (
      typeof result === 'object' &&
      result !== null &&
      !(result instanceof ScalarBox) &&
      !lines.has(result)
    ) {
      lines.set(result, line);
    }
  };

  const documents: unknown[] = [];
  try {
    jsYaml.loadAll(source, (document) => documents.push(document), {
      schema: GO_YAML_SCHEMA,
      json: true,
      listener,
    });
  } catch (error) {
    if (error instanceof GoYamlError) throw error;
    throw toGoSyntaxError(source, error);
  }
  const first = documents[0];
  return first === undefined || first === null ? null : toNodes(first, scalarKeys, lines);
}

interface ListenerState {
  readonly input: string;
  readonly position: number;
  result: unknown;
}

function contentStart(input: string, from: number): number {
  let position = from;
  while (position < input.length) {
    const char = input[position];
    if (char === '#') {
      while (position < input.length && input[position] !== '\n' && input[position] !== '\r') position += 1;
    } else if (char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\ufeff') {
      position += 1;
    } else {
      break;
    }
  }
  return position;
}

/** 1-based line of a position, by binary search over line starts. */
function lineFinder(input: string): (position: number) => number {
  const starts = [0];
  for (const match of input.matchAll(/\r\n|\r|\n/g)) starts.push(match.index + match[0].length);
  return (position) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
}

class RawScalar {
  readonly tag: ScalarTag | 'plain' | 'merge';
  readonly text: string;
  constructor(tag: ScalarTag | 'plain' | 'merge', text: string) {
    this.tag = tag;
    this.text = text;
  }
}

function toScalar(raw: RawScalar, line: number): YamlScalar {
  const { text } = raw;
  if (raw.tag === 'plain') {
    const { tag, value } = resolvePlain(text);
    return { kind: 'scalar', tag, text, value, line };
  }
  if (raw.tag === 'str' || raw.tag === 'merge')
    return { kind: 'scalar', tag: 'str', text, value: text, line };
  if (raw.tag === 'binary') return { kind: 'scalar', tag: 'binary', text, value: text, line };
  const resolved = resolvePlain(text);
  const found = resolved.tag === 'uint' ? 'int' : resolved.tag;
  if (found === raw.tag) return { kind: 'scalar', tag: resolved.tag, text, value: resolved.value, line };
  if (raw.tag === 'float' && found === 'int') {
    return {
      kind: 'scalar',
      tag: 'float',
      text,
      value: Number(parseGoInteger(text.replaceAll('_', ''))),
      line,
    };
  }
  if (raw.tag === 'timestamp' && found === 'str')
    return { kind: 'scalar', tag: 'timestamp', text, value: text, line };
  throw new GoYamlError(`yaml: cannot decode !!${found} \`${text}\` as a !!${raw.tag}`);
}

const PLAIN = new jsYaml.Type('tag:go-yaml,plain', {
  kind: 'scalar',
  resolve: () => true,
  construct: (text: string) => new RawScalar(text === '<<' ? 'merge' : 'plain', text),
});

const EXPLICIT = (['str', 'int', 'bool', 'float', 'null', 'binary', 'timestamp'] as const).map(
  (tag) =>
    new jsYaml.Type(`tag:yaml.org,2002:${tag}`, {
      kind: 'scalar',
      resolve: () => true,
      construct: (text: string | null) => new RawScalar(tag, text ?? ''),
    }),
);

const GO_YAML_SCHEMA = jsYaml.FAILSAFE_SCHEMA.extend({ implicit: [PLAIN], explicit: EXPLICIT });
