/// <reference lib="dom" />
// What the web page's tests and its bench do alike: calls through the HTTP gateway, and zooming or
// sorting as a person would, waiting for the page's answer.
import type { Page } from 'puppeteer-core';

/**
 * POST /api.v1.beta1.<method> with a JSON body; the answer's status and text. On a busy machine the
 * service may find Kafka slow to answer and refuse (503): the call is sent again (up to 30 times),
 * so a report may be stored twice.
 */
export async function gatewayCall(
  base: string,
  method: string,
  body: unknown,
): Promise<{ status: number; text: string }> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${base}/api.v1.beta1.${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 503 || attempt === 30) return { status: res.status, text };
    await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 250 * attempt)));
  }
}

/** Zooms a metric's chart to start..end percent (as the wheel or slider would) and waits for the finer slice. */
export async function zoomChart(page: Page, metric: string, start: number, end: number): Promise<void> {
  const selector = `.metric-chart[data-metric="${metric}"]`;
  await page.evaluate(
    (s, from, to) => {
      const e = (
        globalThis as unknown as {
          echarts: { getInstanceByDom(el: Element): { dispatchAction(a: unknown): void } };
        }
      ).echarts;
      e.getInstanceByDom(document.querySelector(s)!).dispatchAction({
        type: 'dataZoom',
        start: from,
        end: to,
      });
    },
    selector,
    start,
    end,
  );
  await page.waitForFunction(
    (s) => (document.querySelector(s) as HTMLElement).dataset.zoom !== '',
    { timeout: 30_000 },
    selector,
  );
}

/** Waits until the trials table says it is sorted by `key` in that direction. */
export function sortedBy(page: Page, key: string, direction: 'ascending' | 'descending') {
  return page.waitForFunction(
    (k, d) =>
      document.querySelector(`button[data-sort="${k}"]`)?.closest('th')?.getAttribute('aria-sort') === d,
    {},
    key,
    direction,
  );
}
