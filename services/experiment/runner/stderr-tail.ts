// The last lines a trial wrote to stderr: the failure reason Katib users otherwise dig out of a
// pod's log. Kept bounded in lines and characters, so a process that floods stderr costs nothing.
import { LineSplitter } from './metrics-lines.ts';

export const STDERR_TAIL_LINES = 20;
/** Characters kept per line: a single huge line (a dumped array) does not fill the event. */
export const STDERR_LINE_CHARS = 400;

export class StderrTail {
  private readonly lines: string[] = [];
  private readonly splitter = new LineSplitter();
  private readonly keep: number;

  constructor(keep = STDERR_TAIL_LINES) {
    this.keep = keep;
  }

  push(chunk: string): void {
    for (const line of this.splitter.push(chunk)) this.add(line);
  }

  /** The tail, the unfinished last line included. */
  text(): string {
    const rest = this.splitter.end();
    if (rest !== undefined) this.add(rest);
    return this.lines.join('\n');
  }

  private add(line: string): void {
    this.lines.push(line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}…` : line);
    if (this.lines.length > this.keep) this.lines.shift();
  }
}
