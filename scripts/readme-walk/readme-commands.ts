// The commands a reader of README.md or of docs/ is told to run: every line of every ```sh block,
// and every example of the HTTP API table (`curl …`, `open …`), in the order they appear. Pure:
// text in, commands out, so the walk and its unit test read the documents the same way.

export interface ReadmeCommand {
  /** The command as written, its trailing `# comment` left out. */
  readonly text: string;
  /** The document, relative to the repository's root (README.md, docs/….md). */
  readonly file: string;
  /** 1-based line of that document. */
  readonly line: number;
  readonly source: 'sh block' | 'API table';
}

/** `text` without a trailing shell comment: a `#` that starts a word, outside quotes. */
export function withoutComment(text: string): string {
  let quote: string | undefined;
  let wordStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === '#' && wordStart) return text.slice(0, i).trimEnd();
    else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    wordStart = quote === undefined && /\s/.test(c);
  }
  return text.trimEnd();
}

/** The cells of a Markdown table row; a `|` inside backticks belongs to its cell. */
function cells(row: string): string[] {
  const out: string[] = [];
  let cell = '';
  let code = false;
  for (const c of row.trim().replace(/^\||\|$/g, '')) {
    if (c === '`') code = !code;
    if (c === '|' && !code) {
      out.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  out.push(cell.trim());
  return out;
}

/** Every command of one document in order (see the file's head). */
export function readmeCommands(markdown: string, file = 'README.md'): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  const lines = markdown.split('\n');
  let fence: 'sh' | 'other' | undefined;
  let exampleColumn: number | undefined;
  lines.forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed.startsWith('```')) {
      fence = fence === undefined ? (trimmed === '```sh' ? 'sh' : 'other') : undefined;
      return;
    }
    if (fence === 'sh') {
      const text = withoutComment(trimmed);
      if (text !== '') commands.push({ text, file, line, source: 'sh block' });
      return;
    }
    if (fence !== undefined) return;
    if (!trimmed.startsWith('|')) {
      exampleColumn = undefined;
      return;
    }
    const row = cells(trimmed);
    if (exampleColumn === undefined) {
      // A table whose header has an `example` column is the API table.
      const column = row.indexOf('example');
      if (column >= 0 && row[0] === 'call') exampleColumn = column;
      return;
    }
    const example = /^`(.*)`$/.exec(row[exampleColumn] ?? '')?.[1];
    if (example !== undefined) commands.push({ text: example, file, line, source: 'API table' });
    else {
      const open = /^open `(.*)`$/.exec(row[exampleColumn] ?? '')?.[1];
      if (open !== undefined) commands.push({ text: `open ${open}`, file, line, source: 'API table' });
    }
  });
  return commands;
}
