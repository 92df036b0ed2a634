/// <reference lib="dom" />
// The web page under load, in Debian's headless chromium against the real experiment server on real
// Kafka: an experiment of BENCH_TRIALS trials (500) and a trial of BENCH_POINTS points (100,000).
// Prints how long each page takes to show its data, the longest main-thread task while it loads (a
// page "freezes" when that is long), how long sorting the trials table takes, and how soon a burst
// of new points reaches the chart over the live stream.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Page } from 'puppeteer-core';
import { kafkaSettings } from '../shared/bus/kafka-settings.ts';
import { int, readSettings } from '../shared/settings.ts';
import { startExperimentServer } from '../test/helpers/experiment-server.ts';

const settings = readSettings(
  {
    ...kafkaSettings,
    trials: int('BENCH_TRIALS', 500, { min: 1, max: 10_000 }),
    points: int('BENCH_POINTS', 100_000, { min: 100, max: 2_000_000 }),
    burst: int('BENCH_LIVE_POINTS', 1_000, { min: 1, max: 100_000 }),
  },
  process.env,
);
const say = (line: string) => process.stdout.write(`${line}\n`);
const run = randomBytes(3).toString('hex');
const experiment = `bench-web-${run}`;
const trialName = (i: number) => `${experiment}-t${i}`;
const dir = await mkdtemp(join(tmpdir(), 'bench-web-'));
const server = await startExperimentServer({
  KAFKA_BROKERS: settings.kafkaBrokers.join(','),
  SQLITE_FILE: join(dir, 'observations.db'),
  PERSISTENCE_GROUP: `bench-web-${run}`,
  EARLY_STOPPING_WORKER: 'false',
});
const base = `http://127.0.0.1:${server.httpPort}`;

async function post(method: string, body: unknown): Promise<void> {
  const res = await fetch(`${base}/api.v1.beta1.${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method}: ${res.status} ${await res.text()}`);
}

const stamp = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');
const t0 = Date.UTC(2026, 0, 1);

try {
  // The trials, named with their parameters by one GetSuggestions request, one objective value each.
  await post('Suggestion/GetSuggestions', {
    experiment: {
      name: experiment,
      spec: {
        parameterSpecs: {
          parameters: [
            { name: 'lr', parameterType: 'DOUBLE', feasibleSpace: { min: '0.001', max: '0.1' } },
            { name: 'layers', parameterType: 'INT', feasibleSpace: { min: '1', max: '8' } },
          ],
        },
        objective: { type: 'MAXIMIZE', objectiveMetricName: 'accuracy' },
        algorithm: { algorithmName: 'random' },
      },
    },
    trials: Array.from({ length: settings.trials }, (_, i) => ({
      name: trialName(i),
      spec: {
        parameterAssignments: {
          assignments: [
            { name: 'lr', value: String(0.001 + Math.random() * 0.099) },
            { name: 'layers', value: String(1 + Math.floor(Math.random() * 8)) },
          ],
        },
      },
      status: { condition: i % 17 === 3 ? 'EARLYSTOPPED' : 'SUCCEEDED' },
    })),
    currentRequestNumber: 1,
    totalRequestNumber: settings.trials + 1,
  });
  for (let i = 0; i < settings.trials; i += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, settings.trials - i) }, (_, j) =>
        post('DBManager/ReportObservationLog', {
          trialName: trialName(i + j),
          observationLog: {
            metricLogs: [
              {
                timeStamp: stamp(t0 + (i + j) * 1000),
                metric: { name: 'accuracy', value: String(Math.random()) },
              },
            ],
          },
        }),
      ),
    );
  // The long trial: its points in reports of 10,000.
  const long = trialName(0);
  for (let i = 0; i < settings.points; i += 10_000)
    await post('DBManager/ReportObservationLog', {
      trialName: long,
      observationLog: {
        metricLogs: Array.from({ length: Math.min(10_000, settings.points - i) }, (_, j) => ({
          timeStamp: stamp(t0 + (i + j) * 10),
          metric: {
            name: 'loss',
            value: String(Math.exp(-(i + j) / settings.points) + Math.random() * 0.05),
          },
        })),
      },
    });
  // Until the store has them all.
  for (;;) {
    const res = await fetch(`${base}/api/trials/${long}/observations?metric=loss&format=csv`);
    const lines = (await res.text()).split('\r\n').length - 2;
    if (lines >= settings.points) break;
    await new Promise((r) => setTimeout(r, 200));
  }

  const browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const load = async (p: Page, hash: string) => {
      await p.evaluateOnNewDocument(() => {
        const w = globalThis as unknown as { longest: number };
        w.longest = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) w.longest = Math.max(w.longest, e.duration);
        }).observe({ type: 'longtask', buffered: true });
      });
      const started = performance.now();
      await p.goto(`${base}/${hash}`);
      await p.waitForFunction(() => document.querySelector('main')?.dataset.ready !== undefined, {
        timeout: 120_000,
      });
      const ms = performance.now() - started;
      const longest = await p.evaluate(() => (globalThis as unknown as { longest: number }).longest);
      return { ms, longest };
    };

    const exp = await load(page, `#/experiment/${experiment}`);
    const expParts = await page.evaluate(() =>
      performance
        .getEntriesByType('measure')
        .map((m) => `${m.name.replace('experiment: ', '')} ${m.duration.toFixed(0)} ms`)
        .join(', '),
    );
    const rows = await page.$$eval('#trials tbody tr', (r) => r.length);
    const sortStarted = performance.now();
    await page.click('button[data-sort="bestObjective"]');
    await page.waitForFunction(
      () =>
        document
          .querySelector('button[data-sort="bestObjective"]')
          ?.closest('th')
          ?.getAttribute('aria-sort') === 'ascending',
    );
    const sortMs = performance.now() - sortStarted;
    say(
      `experiment page, ${rows} trials: shown in ${exp.ms.toFixed(0)} ms, longest main-thread task ${exp.longest.toFixed(0)} ms (${expParts}); sorting by objective ${sortMs.toFixed(0)} ms`,
    );

    const trialPage = await browser.newPage();
    await trialPage.setViewport({ width: 1280, height: 800 });
    const trial = await load(trialPage, `#/trial/${long}`);
    const shown = await trialPage.$eval('.metric-chart[data-metric="loss"]', (e) =>
      Number((e as HTMLElement).dataset.points),
    );
    const parts = await trialPage.evaluate(() =>
      performance
        .getEntriesByType('measure')
        .map((m) => `${m.name.replace('trial: ', '')} ${m.duration.toFixed(0)} ms`)
        .join(', '),
    );
    say(
      `trial page, ${shown} points: shown in ${trial.ms.toFixed(0)} ms, longest main-thread task ${trial.longest.toFixed(0)} ms (${parts})`,
    );

    // A burst of new points through the gateway, until the open chart has them all.
    const burstStarted = performance.now();
    await post('DBManager/ReportObservationLog', {
      trialName: long,
      observationLog: {
        metricLogs: Array.from({ length: settings.burst }, (_, j) => ({
          timeStamp: stamp(t0 + (settings.points + j) * 10),
          metric: { name: 'loss', value: '0.01' },
        })),
      },
    });
    await trialPage.waitForFunction(
      (n) =>
        Number((document.querySelector('.metric-chart[data-metric="loss"]') as HTMLElement).dataset.points) >=
        n,
      { timeout: 60_000 },
      shown + settings.burst,
    );
    const frame = await trialPage.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const s = performance.now();
          requestAnimationFrame(() => resolve(performance.now() - s));
        }),
    );
    say(
      `live: ${settings.burst} new points on the open chart ${(performance.now() - burstStarted).toFixed(0)} ms after the report was sent; next frame after ${frame.toFixed(0)} ms`,
    );
  } finally {
    await browser.close();
  }
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
