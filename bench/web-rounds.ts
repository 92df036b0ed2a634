/// <reference lib="dom" />
// One round of the web bench in Debian's headless chromium: open the experiment page (its objective
// views among the charts), sort its trials by objective, hide a parallel axis, show the slices of
// the other objective, open the long trial's page, zoom into its curve, then report a burst of points
// and wait until the open chart has them. Each step's time and its longest main-thread task.
import type { Browser, Page } from 'puppeteer-core';
import { sortedBy, zoomChart } from '../test/helpers/web-page.ts';

export interface Round {
  experimentMs: number;
  experimentLongest: number;
  /** CPU time of the longest task by CPU (a shared machine's other work inflates the wall time). */
  experimentCpu: number;
  experimentParts: string;
  rows: number;
  sortMs: number;
  sortLongest: number;
  sortCpu: number;
  axisMs: number;
  axisLongest: number;
  axisCpu: number;
  sliceMs: number;
  sliceLongest: number;
  sliceCpu: number;
  trialMs: number;
  trialLongest: number;
  trialCpu: number;
  trialParts: string;
  pointsDrawn: number;
  zoomMs: number;
  liveMs: number;
  liveLongest: number;
  liveCpu: number;
}

interface Watched {
  longest: number;
}

/** A fresh tab that records the longest main-thread task from its first script on. */
async function openTab(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await page.evaluateOnNewDocument(() => {
    const w = globalThis as unknown as Watched;
    w.longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.longest = Math.max(w.longest, e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  return page;
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  tdur?: number;
  args?: { name?: string };
}

/** The longest main-thread task of the page's renderer by CPU time, in ms, from a Chrome trace. */
function longestCpu(trace: Uint8Array | undefined): number {
  if (!trace) return Number.NaN;
  const events = (JSON.parse(Buffer.from(trace).toString('utf8')) as { traceEvents: TraceEvent[] })
    .traceEvents;
  const main = new Set(
    events
      .filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  let longest = 0;
  for (const e of events)
    if (e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && main.has(`${e.pid}:${e.tid}`))
      longest = Math.max(longest, (e.tdur ?? 0) / 1000);
  return longest;
}

/**
 * Runs `step` under a trace, then gives the page a moment to finish what it queued (progressive
 * chart drawing still counts); its time, its longest task and that task's CPU time.
 */
async function timedStep(page: Page, step: () => Promise<unknown>, trace: boolean) {
  await page.evaluate(() => {
    (globalThis as unknown as Watched).longest = 0;
  });
  if (trace) await page.tracing.start({ categories: ['toplevel', 'disabled-by-default-devtools.timeline'] });
  const started = performance.now();
  await step();
  const ms = performance.now() - started;
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
  const cpu = trace ? longestCpu(await page.tracing.stop()) : Number.NaN;
  return { ms, longest: await page.evaluate(() => (globalThis as unknown as Watched).longest), cpu };
}

const measures = (page: Page, prefix: string) =>
  page.evaluate(
    (p) =>
      performance
        .getEntriesByType('measure')
        .filter((m) => m.name.startsWith(p))
        .map((m) => `${m.name.slice(p.length)} ${m.duration.toFixed(0)} ms`)
        .join(', '),
    prefix,
  );

const ready = (page: Page) =>
  page.waitForFunction(() => document.querySelector('main')?.dataset.ready !== undefined, {
    timeout: 120_000,
  });

export async function runRound(options: {
  browser: Browser;
  base: string;
  experiment: string;
  longTrial: string;
  /** Sends `n` new points of the long trial's metric `loss` (through the gateway). */
  report: (n: number) => Promise<void>;
  burst: number;
  /** Trace each step for the CPU time of its longest task. */
  trace: boolean;
}): Promise<Round> {
  const timed = (page: Page, step: () => Promise<unknown>) => timedStep(page, step, options.trace);
  const { browser, base } = options;
  const page = await openTab(browser);
  /** Opens the page from about:blank, so that the trace holds the whole load. */
  const load = async (p: Page, hash: string) => {
    await p.goto('about:blank');
    return timed(p, async () => {
      await p.goto(`${base}/${hash}`);
      await ready(p);
    });
  };
  const experiment = await load(page, `#/experiment/${encodeURIComponent(options.experiment)}`);
  const experimentParts = await measures(page, 'experiment: ');
  const rows = await page.$$eval('#trials tbody tr', (r) => r.length);
  const sort = await timed(page, async () => {
    await page.click('button[data-sort="bestObjective"]');
    await sortedBy(page, 'bestObjective', 'ascending');
  });
  const axes = () =>
    page.evaluate(() => {
      const e = (
        globalThis as unknown as {
          echarts: { getInstanceByDom(el: Element): { getOption(): { parallelAxis: unknown[] } } };
        }
      ).echarts;
      return e.getInstanceByDom(document.getElementById('parallel-chart')!).getOption().parallelAxis.length;
    });
  const axesBefore = await axes();
  const axis = await timed(page, async () => {
    await page.click('#parallel-axes input[value="layers"]');
    await page.waitForFunction(
      (n) => {
        const e = (
          globalThis as unknown as {
            echarts: { getInstanceByDom(el: Element): { getOption(): { parallelAxis: unknown[] } } };
          }
        ).echarts;
        return (
          e.getInstanceByDom(document.getElementById('parallel-chart')!).getOption().parallelAxis.length === n
        );
      },
      {},
      axesBefore - 1,
    );
  });
  // The slices drawn one by one, each in a task: done when the last one shows latency.
  const slice = await timed(page, async () => {
    await page.select('#slice-objective', '1');
    await page.waitForFunction(() => {
      const e = (
        globalThis as unknown as {
          echarts: { getInstanceByDom(el: Element): { getOption(): { yAxis: { name: string }[] } } };
        }
      ).echarts;
      const charts = [...document.querySelectorAll('#slices .chart')];
      return charts.every((el) => e.getInstanceByDom(el).getOption().yAxis[0]!.name === 'latency_ms');
    });
  });
  await page.close();

  const tab = await openTab(browser);
  const trial = await load(tab, `#/trial/${encodeURIComponent(options.longTrial)}`);
  const trialParts = await measures(tab, 'trial: ');
  const chartData = (key: string) =>
    tab.$eval(
      '.metric-chart[data-metric="loss"]',
      (e, k) => (e as HTMLElement).dataset[k as string] ?? '',
      key,
    );
  const pointsDrawn = Number(await chartData('drawn'));
  const shown = Number(await chartData('points'));
  // Zoom into a tenth in the middle, as a wheel or the slider would.
  const zoom = await timed(tab, () => zoomChart(tab, 'loss', 45, 55));
  const live = await timed(tab, async () => {
    await options.report(options.burst);
    await tab.waitForFunction(
      (n) =>
        Number((document.querySelector('.metric-chart[data-metric="loss"]') as HTMLElement).dataset.points) >=
        n,
      { timeout: 60_000 },
      shown + options.burst,
    );
  });
  await tab.close();
  return {
    experimentMs: experiment.ms,
    experimentLongest: experiment.longest,
    experimentCpu: experiment.cpu,
    experimentParts,
    rows,
    sortMs: sort.ms,
    sortLongest: sort.longest,
    sortCpu: sort.cpu,
    axisMs: axis.ms,
    axisLongest: axis.longest,
    axisCpu: axis.cpu,
    sliceMs: slice.ms,
    sliceLongest: slice.longest,
    sliceCpu: slice.cpu,
    trialMs: trial.ms,
    trialLongest: trial.longest,
    trialCpu: trial.cpu,
    trialParts,
    pointsDrawn,
    // The zoom waits 150 ms for the wheel to settle before it asks: that pause is not counted.
    zoomMs: zoom.ms - 150,
    liveMs: live.ms,
    liveLongest: live.longest,
    liveCpu: live.cpu,
  };
}
