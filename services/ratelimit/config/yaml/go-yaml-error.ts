/** A failure with gopkg.in/yaml.v2's own error text (`yaml: ...`), as yaml.Unmarshal would return it. */
export class GoYamlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoYamlError';
  }
}

interface JsYamlMark {
  readonly line: number;
}

interface JsYamlFailure {
  readonly reason?: string;
  readonly mark?: JsYamlMark;
}

/**
 * Translates a js-yaml syntax error into yaml.v2's text where the two parsers meet on the same
 * problem; the rest keep js-yaml's reason behind yaml.v2's `yaml: line N: ` prefix.
 */
export function toGoSyntaxError(source: string, failure: unknown): GoYamlError {
  const { reason = String(failure), mark } = (failure ?? {}) as JsYamlFailure;
  const line0 = mark?.line ?? 0;
  if (/^unexpected end of the stream within a (single|double) quoted scalar$/.test(reason)) {
    // The scanner reports the end of the stream (whose line counts the final newline).
    return scannerError(lineBreaks(source), 0, 'found unexpected end of stream');
  }
  if (reason === 'tab characters must not be used in indentation') {
    return scannerError(line0, 0, 'found character that cannot start any token');
  }
  const alias = /^unidentified alias "(.*)"$/.exec(reason);
  if (alias !== null) return new GoYamlError(`yaml: unknown anchor '${alias[1]}' referenced`);
  return new GoYamlError(`yaml: line ${line0 + 1}: ${reason}`);
}

/** yaml.v2 `parser.fail`: a scanner problem on line L (0-based) is reported as L+1, line 0 falls back to the context line. */
function scannerError(problemLine0: number, contextLine0: number, problem: string): GoYamlError {
  const line = problemLine0 !== 0 ? problemLine0 + 1 : contextLine0;
  return new GoYamlError(line !== 0 ? `yaml: line ${line}: ${problem}` : `yaml: ${problem}`);
}

function lineBreaks(source: string): number {
  return source.match(/\r\n|\r|\n/g)?.length ?? 0;
}
