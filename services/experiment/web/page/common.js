// What the page's views share: escaping and number formats, JSON reads, charts and live streams
// that close when the view is left.

const crumbs = document.getElementById('crumbs');
const live = document.getElementById('live');
export const echarts = globalThis.echarts;

/** Everything the current view opened (streams, charts, timers), closed when the route changes. */
const cleanup = [];
export const onLeave = (fn) => cleanup.push(fn);
export const leave = () => {
  for (const fn of cleanup.splice(0)) fn();
};

export const esc = (value) =>
  String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  );
export const enc = encodeURIComponent;
export const fmt = (n) =>
  n === null || n === undefined
    ? ''
    : Number(n)
        .toPrecision(6)
        .replace(/\.?0+$/, '');
export const when = (ms) => (ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : '');

/**
 * [x, y] pairs for a scatter; many of them as one flat typed array, which the chart reads without an
 * object per point.
 */
export function pointsOf(pairs) {
  if (pairs.length <= 2_000) return pairs;
  const flat = new Float64Array(pairs.length * 2);
  for (const [i, [x, y]] of pairs.entries()) {
    flat[2 * i] = x;
    flat[2 * i + 1] = y;
  }
  return flat;
}

/** Yields to the browser (it paints, handles input) before the next piece of work. */
export const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

export async function getJson(path, signal) {
  const res = await fetch(path, { headers: { accept: 'application/json' }, signal });
  const body = await res.json();
  if (!res.ok) throw new Error(body?.error?.message ?? `${res.status}`);
  return body;
}

export function setCrumbs(items) {
  crumbs.innerHTML = [`<li><a href="#/">Experiments</a></li>`]
    .concat(
      items.map(([label, href]) =>
        href ? `<li><a href="${href}">${esc(label)}</a></li>` : `<li aria-current="page">${esc(label)}</li>`,
      ),
    )
    .join('');
}

/** Options every chart has, also after a `notMerge` update (which would bring animations back). */
const BASE = { aria: { enabled: true }, animation: false };

export function chart(el, option) {
  const c = echarts.init(el, null, { renderer: 'canvas' });
  const setOption = c.setOption.bind(c);
  c.setOption = (next, opts) => setOption({ ...BASE, ...next }, opts);
  c.setOption(option);
  const resize = () => {
    if (!c.isDisposed()) c.resize();
  };
  window.addEventListener('resize', resize);
  onLeave(() => {
    window.removeEventListener('resize', resize);
    if (!c.isDisposed()) c.dispose();
  });
  return c;
}

/** An EventSource whose events call `on[type]`; shows whether the page is live. */
export function stream(path, on) {
  const source = new EventSource(path);
  source.onopen = () => {
    live.textContent = 'live';
    live.classList.add('on');
  };
  source.onerror = () => {
    live.textContent = 'reconnecting…';
    live.classList.remove('on');
  };
  for (const [type, handler] of Object.entries(on))
    source.addEventListener(type, (e) => handler(JSON.parse(e.data)));
  onLeave(() => {
    source.close();
    live.textContent = '';
    live.classList.remove('on');
  });
}

/** Calls `fn` at most once per `ms`, and once more after the last call (events keep coming). */
export function throttle(fn, ms) {
  let timer;
  let again = false;
  const run = () => {
    timer = setTimeout(() => {
      timer = undefined;
      if (again) {
        again = false;
        fn();
        run();
      }
    }, ms);
  };
  onLeave(() => clearTimeout(timer));
  return () => {
    if (timer) {
      again = true;
      return;
    }
    fn();
    run();
  };
}

export const badge = (condition) =>
  condition
    ? `<span class="badge ${esc(condition)}">${esc(condition)}</span>`
    : '<span class="badge">unknown</span>';

export const rulesText = (rules) =>
  rules.length
    ? rules
        .map((r) => `${esc(r.name)} ${esc(r.comparison)} ${esc(r.value)} from step ${r.startStep}`)
        .join('; ')
    : '—';
