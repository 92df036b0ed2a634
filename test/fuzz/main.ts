// npm run fuzz: every target (or those named) for a number of inputs each, then one line per target
// with its counts. `npm run fuzz -- --inputs 1000000 --seed 7 rls-request resp-reader`; `--minutes 20`
// stops each target after that long (its line says how many inputs it ran).
import { parseArgs } from 'node:util';
import { fuzz } from './fuzz-core.ts';
import { TARGETS } from './targets.ts';

const { values, positionals } = parseArgs({
  options: {
    inputs: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    minutes: { type: 'string' },
  },
  allowPositionals: true,
});
const inputs = Number(values.inputs);
const seed = Number(values.seed);
const chosen =
  positionals.length === 0 ? TARGETS : TARGETS.filter(({ target }) => positionals.includes(target.name));
if (chosen.length === 0) throw new Error(`no target named ${positionals.join(', ')}`);

let failed = false;
for (const { target } of chosen) {
  let lastReport = performance.now();
  const result = await fuzz(target, {
    seed,
    inputs,
    ...(values.minutes === undefined ? {} : { maxMs: Number(values.minutes) * 60_000 }),
    onProgress: (done, differences, crashes) => {
      if (performance.now() - lastReport < 30_000) return;
      lastReport = performance.now();
      const found = `${differences} differences, ${crashes} crashes`;
      process.stderr.write(`  ${target.name}: ${done.toLocaleString('en')} inputs, ${found}\n`);
    },
  });
  failed ||= result.differences + result.crashes > 0;
  const rate = Math.round(result.inputs / (result.ms / 1000));
  process.stdout.write(
    `${target.name.padEnd(22)} ${result.inputs.toLocaleString('en').padStart(11)} inputs  ` +
      `${result.differences} differences  ${result.crashes} crashes  ` +
      `${result.notCompared.toLocaleString('en')} not compared  ${(result.ms / 1000).toFixed(1)} s (${rate.toLocaleString('en')}/s, ` +
      `slowest batch ${Math.round(result.slowestBatchMs)} ms)  oracle: ${target.oracle}\n`,
  );
  for (const finding of result.findings.slice(0, 5))
    process.stdout.write(`  ${finding.kind}: ${finding.input}\n    ${finding.detail.split('\n')[0]}\n`);
}
process.exitCode = failed ? 1 : 0;
