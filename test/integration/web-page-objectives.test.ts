/// <reference lib="dom" />
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { uniqueName } from '../helpers/kafka.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { gatewayCall } from '../helpers/web-page.ts';

// The experiment page's objective views in Debian's chromium against the real service: the Pareto
// front of a two-objective experiment and of a three-objective one (a pair of objectives chosen
// from the keyboard), importance bars, a slice per parameter, parallel axes hidden from the
// keyboard, and the 390 px layout.
const infra = inject('infra');
const ROOT = join(import.meta.dirname, '..', '..');
const SHOTS = join(ROOT, 'test-output', 'screenshots');
const dir = mkdtempSync(join(tmpdir(), 'web-page-objectives-'));
const TRIALS = 30;
let server: ExperimentServer;
let browser: Browser;
let base: string;

/** Trial i: x drives accuracy, y latency and z memory; dropout does nothing. */
const trialValues = (i: number) => {
  const x = ((i * 37) % 31) / 31;
  const y = ((i * 23) % 29) / 29;
  const z = ((i * 7) % 37) / 37;
  return {
    assignments: {
      x: String(x),
      y: String(y),
      lr: String(10 ** (-3 + 2 * z)),
      dropout: String(((i * 11) % 13) / 26),
      optimizer: ['sgd', 'adam', 'rmsprop'][i % 3]!,
    },
    metrics: { accuracy: 0.5 + 0.4 * x, latency_ms: 10 + 90 * y, memory_mb: 100 + 400 * z },
  };
};
const PARAMETERS = [
  { name: 'x', parameterType: 'DOUBLE', feasibleSpace: { min: '0', max: '1' } },
  { name: 'y', parameterType: 'DOUBLE', feasibleSpace: { min: '0', max: '1' } },
  {
    name: 'lr',
    parameterType: 'DOUBLE',
    feasibleSpace: { min: '0.001', max: '0.1', distribution: 'LOG_UNIFORM' },
  },
  { name: 'dropout', parameterType: 'DOUBLE', feasibleSpace: { min: '0', max: '0.5' } },
  { name: 'optimizer', parameterType: 'CATEGORICAL', feasibleSpace: { list: ['sgd', 'adam', 'rmsprop'] } },
];

async function post(method: string, body: unknown): Promise<void> {
  const { status, text } = await gatewayCall(base, method, body);
  expect(status, text).toBe(200);
}

/** An nsga2 experiment with these objectives, every trial finished and reported. */
async function setUp(experiment: string, objectives: string[]): Promise<void> {
  const direction = (m: string) => (m === 'accuracy' ? 'maximize' : 'minimize');
  await post('Suggestion/GetSuggestions', {
    experiment: {
      name: experiment,
      spec: {
        objective: {
          type: 'MAXIMIZE',
          objectiveMetricName: 'accuracy',
          additionalMetricNames: objectives.slice(1),
        },
        algorithm: {
          algorithmName: 'nsga2',
          algorithmSettings: [
            { name: 'objectives', value: objectives.map((m) => `${m}:${direction(m)}`).join(',') },
          ],
        },
        parameterSpecs: { parameters: PARAMETERS },
      },
    },
    trials: Array.from({ length: TRIALS }, (_, i) => ({
      name: `${experiment}-t${i}`,
      spec: {
        parameterAssignments: {
          assignments: Object.entries(trialValues(i).assignments).map(([name, value]) => ({ name, value })),
        },
      },
      status: { condition: 'SUCCEEDED' },
    })),
    currentRequestNumber: 1,
    totalRequestNumber: TRIALS + 1,
  });
  await Promise.all(
    Array.from({ length: TRIALS }, (_, i) =>
      post('DBManager/ReportObservationLog', {
        trialName: `${experiment}-t${i}`,
        observationLog: {
          metricLogs: Object.entries(trialValues(i).metrics).map(([name, value]) => ({
            timeStamp: '2026-01-01T00:00:01Z',
            metric: { name, value: String(value) },
          })),
        },
      }),
    ),
  );
  await waitFor(
    'every trial in the front',
    async () =>
      (await (await fetch(`${base}/api/experiments/${experiment}/pareto`)).json()).trials?.length === TRIALS,
    { timeoutMs: 60_000 },
  );
}

const two = uniqueName('web-mo2');
const three = uniqueName('web-mo3');

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startExperimentServer({
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    OBSERVATION_STORE: 'sqlite',
    SQLITE_FILE: join(dir, 'observations.db'),
    PERSISTENCE_GROUP: uniqueName('test-web-objectives'),
    EARLY_STOPPING_WORKER: 'false',
  });
  base = `http://127.0.0.1:${server.httpPort}`;
  await setUp(two, ['accuracy', 'latency_ms']);
  await setUp(three, ['accuracy', 'latency_ms', 'memory_mb']);
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

async function open(experiment: string, width = 1280, height = 800): Promise<Page & { errors: string[] }> {
  const page = (await browser.newPage()) as Page & { errors: string[] };
  page.errors = [];
  page.on('pageerror', (error) => page.errors.push((error as Error).message));
  await page.setViewport({ width, height });
  await page.goto(`${base}/#/experiment/${experiment}`);
  await page.waitForFunction(() => document.querySelector('main')?.dataset.ready !== undefined, {
    timeout: 30_000,
  });
  return page;
}

/** What an ECharts instance draws, read from its option. */
const option = (page: Page, selector: string) =>
  page.evaluate((s) => {
    const e = (
      globalThis as unknown as {
        echarts: { getInstanceByDom(el: Element): { getOption(): Record<string, unknown> } };
      }
    ).echarts;
    const o = e.getInstanceByDom(document.querySelector(s)!).getOption() as {
      series: { name?: string; data: unknown }[];
      xAxis?: { name: string; type: string }[];
      yAxis?: { name: string; data?: string[] }[];
      parallelAxis?: { name: string }[];
    };
    const length = (d: unknown) =>
      ArrayBuffer.isView(d) ? (d as Float64Array).length / 2 : (d as unknown[]).length;
    return {
      series: o.series.map((x) => ({ name: x.name, points: length(x.data) })),
      xAxis: o.xAxis?.map((a) => `${a.type} ${a.name}`),
      yAxis: o.yAxis?.map((a) => a.name ?? a.data?.join(',')),
      parallelAxes: o.parallelAxis?.map((a) => a.name),
    };
  }, selector);

/** The front by the definition (accuracy maximized, the others minimized). */
function front(objectives: string[]): number[] {
  const loss = (i: number) =>
    objectives.map((m) => (m === 'accuracy' ? -1 : 1) * trialValues(i).metrics[m as 'accuracy']);
  const all = Array.from({ length: TRIALS }, (_, i) => i);
  const dominates = (a: number[], b: number[]) =>
    a.every((v, k) => v <= b[k]!) && a.some((v, k) => v < b[k]!);
  return all.filter((i) => !all.some((j) => dominates(loss(j), loss(i))));
}

describe('the objective views of the experiment page', () => {
  it('draws the Pareto front of two objectives, the importance bars and a slice per parameter', async () => {
    const page = await open(two);
    const expected = front(['accuracy', 'latency_ms']);
    expect(await option(page, '#pareto-chart')).toMatchObject({
      series: [
        { name: 'front', points: expected.length },
        { name: 'dominated', points: TRIALS - expected.length },
      ],
      xAxis: ['value accuracy (maximize)'],
      yAxis: ['latency_ms (minimize)'],
    });
    // No pair to choose with two objectives; the best trials are links, reachable by keyboard.
    expect(await page.$eval('#pareto-pair', (e) => (e as HTMLElement).hidden)).toBe(true);
    expect(await page.$$eval('#pareto-front a', (as) => as.map((a) => a.textContent))).toEqual(
      expected.map((i) => `${two}-t${i}`),
    );
    expect(await page.$eval('#pareto-note', (e) => e.textContent)).toMatch(
      new RegExp(
        `^${expected.length} of ${TRIALS} finished trials on the front; hypervolume [\\d.]+ from \\(`,
      ),
    );
    expect(await page.$eval('#objectives-fact', (e) => e.textContent)).toBe(
      'MAXIMIZE accuracy, MINIMIZE latency_ms',
    );

    // Importance: a series per objective; x first for accuracy, the parameters by its importance.
    const importance = await option(page, '#importance-chart');
    expect(importance.series.map((s) => s.name)).toEqual(['accuracy', 'latency_ms']);
    const order = (await page.$eval('#importance-chart', (e) => (e as HTMLElement).dataset.order))!.split(
      ',',
    );
    expect(order[0]).toBe('x');
    expect(order.sort()).toEqual(['dropout', 'lr', 'optimizer', 'x', 'y']);

    // A slice per parameter, each with every trial; lr on a log axis, optimizer by its choices.
    const slices = await page.$$eval('#slices .chart', (els) =>
      els.map((el) => [(el as HTMLElement).dataset.parameter, (el as HTMLElement).dataset.points]),
    );
    expect(slices).toEqual(['x', 'y', 'lr', 'dropout', 'optimizer'].map((p) => [p, String(TRIALS)]));
    expect((await option(page, '#slices .chart[data-parameter="lr"]')).xAxis).toEqual(['log lr']);
    expect((await option(page, '#slices .chart[data-parameter="optimizer"]')).xAxis).toEqual([
      'category optimizer',
    ]);
    // Latency instead of accuracy, from the keyboard.
    await page.focus('#slice-objective');
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => {
      const e = (
        globalThis as unknown as {
          echarts: { getInstanceByDom(el: Element): { getOption(): { yAxis: { name: string }[] } } };
        }
      ).echarts;
      return (
        e.getInstanceByDom(document.querySelector('#slices .chart[data-parameter="y"]')!).getOption()
          .yAxis[0]!.name === 'latency_ms'
      );
    });
    await page.screenshot({ path: join(SHOTS, 'experiment-objectives-1280x800.png'), fullPage: true });
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('hides and shows parallel axes from the keyboard; the last one shown stays', async () => {
    const page = await open(two);
    const axes = async () => (await option(page, '#parallel-chart')).parallelAxes;
    expect(await axes()).toEqual(['dropout', 'lr', 'optimizer', 'x', 'y', 'accuracy']);
    await page.focus('#parallel-axes input[value="dropout"]');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await waitFor('two axes hidden', async () =>
      JSON.stringify(await axes()) === JSON.stringify(['optimizer', 'x', 'y', 'accuracy']) ? true : undefined,
    );
    expect((await option(page, '#parallel-chart')).series[0]).toMatchObject({ points: TRIALS });
    // Shown again.
    await page.keyboard.press('Space');
    await waitFor('lr again', async () => ((await axes())?.includes('lr') ? true : undefined));
    // Hiding all but one leaves that one's box disabled.
    for (const name of ['lr', 'optimizer', 'x', 'y'])
      await page.$eval(`#parallel-axes input[value="${name}"]`, (i) => (i as HTMLInputElement).click());
    expect(await axes()).toEqual(['accuracy']);
    expect(
      await page.$eval('#parallel-axes input[value="accuracy"]', (i) => (i as HTMLInputElement).disabled),
    ).toBe(true);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('projects three objectives on a pair chosen from the keyboard', async () => {
    const page = await open(three);
    expect(await page.$eval('#pareto-pair', (e) => (e as HTMLElement).hidden)).toBe(false);
    const expected = front(['accuracy', 'latency_ms', 'memory_mb']);
    expect(await option(page, '#pareto-chart')).toMatchObject({
      series: [{ points: expected.length }, { points: TRIALS - expected.length }],
      yAxis: ['latency_ms (minimize)'],
    });
    expect(await page.$eval('#pareto-note', (e) => e.textContent)).toContain(
      'on the front (the front of all objectives, seen in two)',
    );
    await page.focus('#pareto-y');
    await page.keyboard.press('ArrowDown');
    await waitFor('memory on the y axis', async () =>
      (await option(page, '#pareto-chart')).yAxis?.[0] === 'memory_mb (minimize)' ? true : undefined,
    );
    // The same front: only the view changed.
    expect((await option(page, '#pareto-chart')).series[0]).toMatchObject({ points: expected.length });
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('stays usable at 390 px: nothing wider than the screen, the views one under the other', async () => {
    const phone = await open(three, 390, 844);
    expect(
      await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
    const widths = await phone.$$eval('#pareto-chart, #importance-chart, #slices .chart', (els) =>
      els.map((el) => el.getBoundingClientRect().right),
    );
    for (const right of widths) expect(right).toBeLessThanOrEqual(390);
    await phone.focus('#pareto-x');
    await phone.keyboard.press('ArrowDown');
    await waitFor('latency on the x axis', async () =>
      (await option(phone, '#pareto-chart')).xAxis?.[0] === 'value latency_ms (minimize)' ? true : undefined,
    );
    await phone.screenshot({ path: join(SHOTS, 'experiment-objectives-phone.png'), fullPage: true });
    expect(phone.errors).toEqual([]);
    await phone.close();
  });
});
