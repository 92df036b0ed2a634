/// <reference lib="dom" />
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { MetricCurve } from '../../services/experiment/common/ports.ts';
import { expectColumnsKept } from '../helpers/curve-contract.ts';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { uniqueName } from '../helpers/kafka.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { gatewayCall, sortedBy, zoomChart } from '../helpers/web-page.ts';

// The page with more than a screen holds, in Debian's chromium against the real service: 120 trials
// paged and sorted by the server, and a trial of 40,000 points drawn from its reduced curve.
const infra = inject('infra');
const dir = mkdtempSync(join(tmpdir(), 'web-page-scale-'));
const TRIALS = 120;
const POINTS = 40_000;
const experiment = uniqueName('web-scale');
const trial = (i: number) => `${experiment}-t${String(i).padStart(3, '0')}`;
const long = trial(0);
const t0 = Date.UTC(2026, 0, 1);
const stamp = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');
/** Trial i's objective (accuracy, maximized) and learning rate; every 7th trial is early stopped. */
const accuracy = (i: number) => ((i * 37) % 101) / 100;
const lr = (i: number) => ((i * 53) % 97) / 1000 + 0.001;
/** The long trial's loss: a falling curve with spikes up and down that a chart must not lose. */
const loss = (i: number) =>
  Math.exp(-i / 10_000) + (i % 11) / 1000 + (i % 1_013 === 7 ? 5 : 0) - (i % 2_003 === 11 ? 5 : 0);
let server: ExperimentServer;
let browser: Browser;
let base: string;

/** A gateway call; one refused by a busy Kafka is sent again, and the checks read back what was stored. */
async function post(method: string, body: unknown): Promise<void> {
  const { status, text } = await gatewayCall(base, method, body);
  expect(status, text).toBe(200);
}
const report = (trialName: string, logs: { ms: number; metric: string; value: number }[]) =>
  post('DBManager/ReportObservationLog', {
    trialName,
    observationLog: {
      metricLogs: logs.map((l) => ({
        timeStamp: stamp(l.ms),
        metric: { name: l.metric, value: String(l.value) },
      })),
    },
  });

beforeAll(async () => {
  server = await startExperimentServer({
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    OBSERVATION_STORE: 'sqlite',
    SQLITE_FILE: join(dir, 'observations.db'),
    PERSISTENCE_GROUP: uniqueName('test-web-scale'),
    EARLY_STOPPING_WORKER: 'false',
  });
  base = `http://127.0.0.1:${server.httpPort}`;
  await post('Suggestion/GetSuggestions', {
    experiment: {
      name: experiment,
      spec: {
        objective: { type: 'MAXIMIZE', objectiveMetricName: 'accuracy' },
        algorithm: { algorithmName: 'random' },
        parameterSpecs: {
          parameters: [{ name: 'lr', parameterType: 'DOUBLE', feasibleSpace: { min: '0.001', max: '0.1' } }],
        },
      },
    },
    trials: Array.from({ length: TRIALS }, (_, i) => ({
      name: trial(i),
      spec: { parameterAssignments: { assignments: [{ name: 'lr', value: String(lr(i)) }] } },
      status: { condition: i % 7 === 3 ? 'EARLYSTOPPED' : 'SUCCEEDED' },
    })),
    currentRequestNumber: 1,
    totalRequestNumber: TRIALS + 1,
  });
  for (let i = 0; i < TRIALS; i += 20)
    await Promise.all(
      Array.from({ length: 20 }, (_, j) =>
        report(trial(i + j), [{ ms: t0, metric: 'accuracy', value: accuracy(i + j) }]),
      ),
    );
  for (let k = 0; k < POINTS; k += 10_000)
    await report(
      long,
      Array.from({ length: 10_000 }, (_, j) => ({
        ms: t0 + (k + j) * 10,
        metric: 'loss',
        value: loss(k + j),
      })),
    );
  await waitFor(
    'every objective and point stored',
    async () => {
      const summary = await (await fetch(`${base}/api/experiments/${experiment}/summary`)).json();
      const curves = await (await fetch(`${base}/api/trials/${long}/curves?metric=loss&columns=1`)).json();
      return summary.best?.every((b: number | null) => b !== null) && curves.curves?.[0]?.points === POINTS;
    },
    { timeoutMs: 90_000 },
  );
  browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
});

afterAll(async () => {
  await browser?.close();
  if (server) expect(await server.stop()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

async function open(
  hash: string,
  width = 1280,
  height = 800,
): Promise<Page & { errors: string[]; asked: string[] }> {
  const page = (await browser.newPage()) as Page & { errors: string[]; asked: string[] };
  page.errors = [];
  page.asked = [];
  page.on('pageerror', (error) => page.errors.push((error as Error).message));
  page.on('request', (request) => page.asked.push(request.url().replace(base, '')));
  await page.setViewport({ width, height });
  await page.goto(`${base}/${hash}`);
  await page.waitForFunction(() => document.querySelector('main')?.dataset.ready !== undefined, {
    timeout: 30_000,
  });
  return page;
}
const rows = (page: Page) =>
  page.$$eval('#trials tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-trial')!));
/** Waits until the table shows exactly these trials, in this order (a new page came from the server). */
const rowsAre = (page: Page, names: string[]) =>
  page.waitForFunction(
    (expected) =>
      JSON.stringify(
        [...document.querySelectorAll('#trials tbody tr')].map((tr) => tr.getAttribute('data-trial')),
      ) === expected,
    {},
    JSON.stringify(names),
  );
/** Waits until the table's first row is `name` (a new page came from the server). */
const firstRowIs = (page: Page, name: string) =>
  page.waitForFunction(
    (n) => document.querySelector('#trials tbody tr')?.getAttribute('data-trial') === n,
    {},
    name,
  );
const byAccuracy = Array.from({ length: TRIALS }, (_, i) => i).sort(
  (a, b) => accuracy(a) - accuracy(b) || a - b,
);

describe('the web page at scale', () => {
  it('pages the trials on the server, 50 at a time, Next and Previous by keyboard', async () => {
    const page = await open(`#/experiment/${experiment}`);
    expect(await rows(page)).toEqual(Array.from({ length: 50 }, (_, i) => trial(i)));
    expect(await page.$eval('#page-info', (e) => e.textContent)).toBe(`1–50 of ${TRIALS}`);
    expect(await page.$eval('#trial-count', (e) => e.textContent)).toBe(String(TRIALS));
    // The browser asked for one page, not for every trial.
    expect(page.asked.filter((u) => u.includes('/trials?'))).toEqual([
      `/api/experiments/${experiment}/trials?offset=0&limit=50&sort=order&order=asc`,
    ]);
    expect(await page.$eval('#page-prev', (e) => (e as HTMLButtonElement).disabled)).toBe(true);
    await page.focus('#page-next');
    await page.keyboard.press('Enter');
    await firstRowIs(page, trial(50));
    await page.keyboard.press('Enter');
    await firstRowIs(page, trial(100));
    expect(await rows(page)).toHaveLength(20);
    expect(await page.$eval('#page-info', (e) => e.textContent)).toBe(`101–120 of ${TRIALS}`);
    expect(await page.$eval('#page-next', (e) => (e as HTMLButtonElement).disabled)).toBe(true);
    await page.focus('#page-prev');
    await page.keyboard.press('Enter');
    await firstRowIs(page, trial(50));
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('sorts and filters on the server, across pages, in both directions', async () => {
    const page = await open(`#/experiment/${experiment}`);
    await page.focus('button[data-sort="bestObjective"]');
    await page.keyboard.press('Enter');
    await rowsAre(page, byAccuracy.slice(0, 50).map(trial));
    await page.click('#page-next');
    await firstRowIs(page, trial(byAccuracy[50]!));
    // Descending starts from the first page again, from the best.
    await page.click('button[data-sort="bestObjective"]');
    const best = [...byAccuracy].sort((a, b) => accuracy(b) - accuracy(a) || a - b);
    await sortedBy(page, 'bestObjective', 'descending');
    await rowsAre(page, best.slice(0, 50).map(trial));
    await page.click('button[data-sort="param:lr"]');
    const byLr = Array.from({ length: TRIALS }, (_, i) => i).sort((a, b) => lr(a) - lr(b) || a - b);
    await rowsAre(page, byLr.slice(0, 50).map(trial));
    expect(page.asked.filter((u) => u.includes('/trials?')).at(-1)).toBe(
      `/api/experiments/${experiment}/trials?offset=0&limit=50&sort=param%3Alr&order=asc`,
    );

    // Early-stopped trials only, then those of them whose name has "t01".
    const stopped = Array.from({ length: TRIALS }, (_, i) => i).filter((i) => i % 7 === 3);
    await page.select('#filter-status', 'EARLYSTOPPED');
    await rowsAre(page, stopped.sort((a, b) => lr(a) - lr(b) || a - b).map(trial));
    expect(await page.$eval('#page-info', (e) => e.textContent)).toBe(
      `1–${stopped.length} of ${stopped.length} (filtered)`,
    );
    await page.type('#filter-name', 'T01');
    await rowsAre(page, [10, 17].sort((a, b) => lr(a) - lr(b)).map(trial));
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it("draws the long trial's curve with the lowest and highest of every column, finer when zoomed in", async () => {
    const raw = (
      (await (await fetch(`${base}/api/trials/${long}/observations?metric=loss`)).json()) as {
        observations: { time: string; value: string }[];
      }
    ).observations.map((o) => ({ ms: Date.parse(o.time), value: Number(o.value) }));
    // Each point once, or a report twice when it was sent again after a 503.
    expect(raw.length).toBeGreaterThanOrEqual(POINTS);
    const page = await open(`#/trial/${long}`);
    const chartOf = () =>
      page.evaluate(() => {
        const el = document.querySelector('.metric-chart[data-metric="loss"]') as HTMLElement;
        const e = (
          globalThis as unknown as {
            echarts: {
              getInstanceByDom(el: Element): { getOption(): { series: { data: [number, number][] }[] } };
            };
          }
        ).echarts;
        const { points = '', origin = '', columnMs = '', zoom = '' } = el.dataset;
        return { points, origin, columnMs, zoom, data: e.getInstanceByDom(el).getOption().series[0]!.data };
      });
    const asCurve = (c: Awaited<ReturnType<typeof chartOf>>) =>
      ({ origin: Number(c.origin), columnMs: Number(c.columnMs), data: c.data }) as unknown as MetricCurve;
    const whole = await chartOf();
    expect(whole.points).toBe(String(raw.length));
    // About a point per pixel column, four at most: not the 40,000.
    expect(whole.data.length).toBeLessThan(4 * 1280);
    expectColumnsKept(asCurve(whole), raw, t0, t0 + (POINTS - 1) * 10);

    // Zoom into 2% of the curve (as the wheel or slider would): the finer slice comes from the server.
    await zoomChart(page, 'loss', 40, 42);
    const fine = await chartOf();
    const [from, to] = fine.zoom.split(',').map(Number) as [number, number];
    expect(Number(fine.columnMs)).toBeLessThan(Number(whole.columnMs));
    expectColumnsKept(asCurve(fine), raw, from, to);
    const inWindow = (c: { data: [number, number][] }) => c.data.filter(([t]) => t >= from && t <= to).length;
    expect(inWindow(fine)).toBeGreaterThan(5 * inWindow(whole));
    expect(page.asked.some((u) => u.includes(`/curves?metric=loss&from=`))).toBe(true);

    // Live points after the end: counted, and the spike among them drawn.
    await report(
      long,
      Array.from({ length: 500 }, (_, j) => ({
        ms: t0 + (POINTS + j) * 10,
        metric: 'loss',
        value: j === 250 ? 9 : 0.01,
      })),
    );
    await page.waitForFunction(
      (n) =>
        Number((document.querySelector('.metric-chart[data-metric="loss"]') as HTMLElement).dataset.points) >=
        n,
      { timeout: 30_000 },
      raw.length + 500,
    );
    expect((await chartOf()).data).toContainEqual([t0 + (POINTS + 250) * 10, 9]);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('stays usable at 390 px: nothing wider than the screen, sorting and paging by keyboard', async () => {
    const phone = await open(`#/experiment/${experiment}`, 390, 844);
    expect(
      await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
    await phone.focus('button[data-sort="bestObjective"]');
    await phone.keyboard.press('Enter');
    await rowsAre(phone, byAccuracy.slice(0, 50).map(trial));
    await phone.focus('#page-next');
    await phone.keyboard.press('Enter');
    await firstRowIs(phone, trial(byAccuracy[50]!));
    expect(
      await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
    expect(phone.errors).toEqual([]);
    await phone.close();
  });
});
