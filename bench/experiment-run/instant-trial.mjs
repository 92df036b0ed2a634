// A trial that does no training: it prints the time it started (ms since the epoch, this machine's
// wall clock) and its metric on one line, Katib's `name=value` format, and exits, so that what a
// trial costs around it is the system's alone. The accuracy depends on --x so a sampler has a point.
const x = Number(process.argv.find((a) => a.startsWith('--x='))?.slice(4) ?? '0.5');
const t0 = Date.now();
process.stdout.write(`t0=${t0} accuracy=${(1 - (x - 0.3) ** 2).toFixed(6)}\n`);
