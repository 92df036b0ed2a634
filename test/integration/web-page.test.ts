/// <reference lib="dom" />
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ExperimentServer, startExperimentServer } from '../helpers/experiment-server.ts';
import { uniqueName } from '../helpers/kafka.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { sortedBy } from '../helpers/web-page.ts';

// The page as a person uses it: Debian's chromium (headless, driven by puppeteer-core) against the
// real service and Kafka, while a Python grpcio client runs a tpe + medianstop experiment.
const run = promisify(execFile);
const infra = inject('infra');
const ROOT = join(import.meta.dirname, '..', '..');
const INTEROP = join(ROOT, 'test', 'interop');
const SHOTS = join(ROOT, 'test-output', 'screenshots');
const dir = mkdtempSync(join(tmpdir(), 'web-page-'));
/** What the tests read back from an ECharts instance's option. */
interface ChartOption {
  series: { data: unknown[]; markLine: { data: { yAxis: number }[] } }[];
  parallelAxis: { name: string }[];
}
const TRIALS = 6;
const BAD = 4;
let server: ExperimentServer;
let browser: Browser;
let base: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  await run('bash', [join(INTEROP, 'compile_proto.sh'), join(dir, 'stubs')], { timeout: 60_000 });
  server = await startExperimentServer({
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    OBSERVATION_STORE: 'sqlite',
    SQLITE_FILE: join(dir, 'observations.db'),
    PERSISTENCE_GROUP: uniqueName('test-web-persistence'),
    WORKER_SESSION_TIMEOUT_MS: '6000',
    READ_BARRIER_TIMEOUT_MS: '30000',
  });
  base = `http://127.0.0.1:${server.httpPort}`;
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

async function openPage(width: number, height: number): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width, height });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push((error as Error).message));
  (page as Page & { errors?: string[] }).errors = errors;
  return page;
}

const ready = (page: Page, prefix: string) =>
  page.waitForFunction(
    (p) => document.querySelector('main')?.dataset.ready?.startsWith(p),
    { timeout: 30_000 },
    prefix,
  );

describe('the web page, with a Python grpcio client running an experiment', () => {
  it('lists the trials live, marks the stopped one, and draws its curve with the rule line', async () => {
    const experiment = uniqueName('web-exp');
    const gate = join(dir, `${experiment}.gate`);
    const client = run(
      '/usr/bin/python3',
      [
        join(INTEROP, 'experiment_client.py'),
        join(dir, 'stubs'),
        server.address,
        experiment,
        String(TRIALS),
        String(BAD),
        gate,
      ],
      { timeout: 180_000 },
    );
    // The page is opened as soon as the experiment exists; the client holds the other trials back until
    // the page has shown its first count (the gate file), so they must arrive live.
    await waitFor(
      'the experiment in the read model',
      async () => (await fetch(`${base}/api/experiments/${experiment}`)).ok,
      {
        timeoutMs: 60_000,
      },
    );
    const page = await openPage(1280, 800);
    await page.goto(`${base}/#/experiment/${experiment}`);
    await ready(page, 'experiment/');
    const firstCount = Number(await page.$eval('#trial-count', (e) => e.textContent));
    writeFileSync(gate, '');
    const result = JSON.parse((await client).stdout) as { trials: string[]; rules: unknown[]; bad: string };
    expect(result.trials).toHaveLength(TRIALS);
    expect(result.rules).toEqual([
      expect.objectContaining({ name: 'accuracy', comparison: 'LESS', start_step: 3 }),
    ]);

    // No reload: the counts and the stopped trial come over the live stream.
    await page.waitForFunction(
      (n, bad) =>
        document.querySelector('#trial-count')?.textContent === String(n) &&
        document.querySelector(`tr[data-trial="${bad}"]`)?.getAttribute('data-condition') ===
          'EARLYSTOPPED' &&
        [...document.querySelectorAll('#trials tbody tr td:nth-child(4)')].every(
          (td) => td.textContent !== '',
        ) &&
        document.querySelectorAll('#trials tbody tr[data-condition="SUCCEEDED"]').length === n - 1,
      { timeout: 60_000 },
      TRIALS,
      result.bad,
    );
    expect(firstCount).toBeLessThan(TRIALS);
    const rows = await page.$$eval('#trials tbody tr', (trs) =>
      trs.map((tr) => ({
        name: tr.getAttribute('data-trial'),
        condition: tr.getAttribute('data-condition'),
      })),
    );
    expect(rows.map((r) => r.name)).toEqual(result.trials);
    expect(rows.filter((r) => r.condition === 'EARLYSTOPPED').map((r) => r.name)).toEqual([result.bad]);
    // The others succeeded: the client's last GetSuggestions listed them so.
    expect(rows.filter((r) => r.condition === 'SUCCEEDED')).toHaveLength(TRIALS - 1);
    // The rules are in the summary, which follows the stream at most every two seconds (the table's
    // page every half second), so they may show after the table does.
    await page.waitForFunction(() => document.querySelector('#rules')?.textContent !== '—', {
      timeout: 30_000,
    });
    expect(await page.$eval('#rules', (e) => e.textContent)).toMatch(/^accuracy LESS [\d.]+ from step 3$/);
    // Both charts drew: objective by trial (the stopped trial in its own series) and parallel coordinates.
    // They follow the summary, reloaded at most every two seconds.
    const charts = () =>
      page.evaluate(() => {
        const e = (
          globalThis as unknown as {
            echarts: { getInstanceByDom(el: Element): { getOption(): ChartOption } };
          }
        ).echarts;
        const objective = e.getInstanceByDom(document.getElementById('objective-chart')!).getOption();
        const parallel = e.getInstanceByDom(document.getElementById('parallel-chart')!).getOption();
        return {
          stopped: objective.series[1]?.data.length,
          trials: objective.series[0]?.data.length,
          axes: parallel.parallelAxis.map((a) => a.name),
          lines: parallel.series[0]?.data.length,
        };
      });
    const expected = { stopped: 1, trials: TRIALS - 1, axes: ['lr', 'momentum', 'accuracy'], lines: TRIALS };
    await waitFor('both charts with every trial', async () =>
      JSON.stringify(await charts()) === JSON.stringify(expected) ? true : undefined,
    ).catch(async (error: Error) => {
      expect(await charts(), error.message).toEqual(expected);
    });

    // Sortable from the keyboard: Tab to the "Best objective" header button, Enter sorts.
    await page.focus('button[data-sort="bestObjective"]');
    await page.keyboard.press('Enter');
    await sortedBy(page, 'bestObjective', 'ascending');
    expect(await page.$eval('#trials tbody tr', (tr) => tr.getAttribute('data-trial'))).toBe(result.bad);
    await page.screenshot({ path: join(SHOTS, 'experiment-1280x800.png') });

    // The stopped trial's page: one chart per metric, the rule's line and the stop point on accuracy.
    // Clicked in the page itself: a live refresh may redraw the table between a lookup and a click.
    await page.$eval(`tr[data-trial="${result.bad}"] a`, (link) => (link as HTMLAnchorElement).click());
    await ready(page, 'trial/');
    const metricCharts = () =>
      page.$$eval('.metric-chart', (els) =>
        els.map((el) => ({
          metric: (el as HTMLElement).dataset.metric,
          points: Number((el as HTMLElement).dataset.points),
          rule: (el as HTMLElement).dataset.rule,
          stopped: (el as HTMLElement).dataset.stopped,
        })),
      );
    // Why it stopped: the algorithm and the values it compared.
    expect(await page.$eval('#trial-why', (e) => e.textContent)).toMatch(
      /^Trial is early stopped: best accuracy [\d.]+ at step \d+ is less than [\d.]+ \(medianstop\)$/,
    );
    const shown = await metricCharts();
    expect(shown.map((c) => c.metric).sort()).toEqual(['accuracy', 'loss']);
    const accuracy = shown.find((c) => c.metric === 'accuracy')!;
    expect(accuracy.points).toBe(6);
    expect(Number(accuracy.rule)).toBeGreaterThan(0.12);
    expect(accuracy.stopped).not.toBe('');
    const markLine = await page.evaluate(() => {
      const e = (
        globalThis as unknown as { echarts: { getInstanceByDom(el: Element): { getOption(): ChartOption } } }
      ).echarts;
      const el = document.querySelector('.metric-chart[data-metric="accuracy"]')!;
      return e.getInstanceByDom(el).getOption().series[0]?.markLine.data[0]?.yAxis;
    });
    expect(markLine).toBe(Number(accuracy.rule));
    await page.screenshot({ path: join(SHOTS, 'trial-1280x800.png') });

    // A new point (reported over the HTTP gateway) appears without a reload.
    const reply = await fetch(`${base}/api.v1.beta1.DBManager/ReportObservationLog`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        trialName: result.bad,
        observationLog: {
          metricLogs: [{ timeStamp: new Date().toISOString(), metric: { name: 'accuracy', value: '0.125' } }],
        },
      }),
    });
    expect(reply.status).toBe(200);
    await page.waitForFunction(
      () =>
        (document.querySelector('.metric-chart[data-metric="accuracy"]') as HTMLElement)?.dataset.points ===
        '7',
      { timeout: 30_000 },
    );

    expect((page as Page & { errors?: string[] }).errors).toEqual([]);
    await page.close();

    // Phone-sized: nothing wider than the screen, charts one under the other.
    const phone = await openPage(390, 844);
    await phone.goto(`${base}/#/experiment/${experiment}`);
    await ready(phone, 'experiment/');
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await phone.screenshot({ path: join(SHOTS, 'experiment-phone.png'), fullPage: true });
    expect((phone as Page & { errors?: string[] }).errors).toEqual([]);
    await phone.close();
  });

  it('shows a clear message for an unknown trial', async () => {
    const page = await openPage(1280, 800);
    await page.goto(`${base}/#/trial/${uniqueName('no-such-trial')}`);
    await ready(page, 'error');
    expect(await page.$eval('[role="alert"]', (e) => e.textContent)).toMatch(
      /^trial "no-such-trial-[0-9a-f]+": not found$/,
    );
    await page.close();
  });
});
