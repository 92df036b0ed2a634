// The experiments list and one experiment: its trials table a page at a time (sorted and filtered by
// the server), the objective plot and parallel coordinates from the trials' summary.

import { drawObjective, drawParallel } from './charts.js';
import {
  badge,
  chart,
  enc,
  esc,
  fmt,
  getJson,
  nextFrame,
  onLeave,
  rulesText,
  setCrumbs,
  stream,
  throttle,
  when,
} from './common.js';

const main = document.getElementById('main');
const PAGE = 50;

export async function experimentsView() {
  setCrumbs([]);
  document.title = 'Experiments';
  const { experiments } = await getJson('/api/experiments');
  main.innerHTML = `<h1>Experiments</h1>
    <p><a href="/api/experiments?format=csv">Download CSV</a></p>
    ${
      experiments.length === 0
        ? '<p class="empty">No experiment yet: ask for suggestions or early-stopping rules and it appears here.</p>'
        : `<div class="table-wrap"><table id="experiments"><caption class="skip">Experiments</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Algorithm</th><th scope="col">Objective</th><th scope="col">Trials</th><th scope="col">Updated (UTC)</th></tr></thead>
      <tbody>${experiments
        .map(
          (
            e,
          ) => `<tr data-experiment="${esc(e.name)}"><td><a href="#/experiment/${enc(e.name)}">${esc(e.name)}</a></td>
          <td>${esc(e.algorithm)}</td><td>${esc(e.objectiveType)} ${esc(e.objectiveMetric)}</td>
          <td class="num">${e.trialCount}</td><td>${when(e.updatedAtMs)}</td></tr>`,
        )
        .join('')}</tbody></table></div>`
    }`;
}

const COLUMNS = [
  { key: 'order', label: '#' },
  { key: 'name', label: 'Trial' },
  { key: 'condition', label: 'Status' },
  { key: 'bestObjective', label: 'Best objective' },
];

export async function experimentView(name) {
  setCrumbs([[name]]);
  document.title = `Experiment ${name}`;
  main.innerHTML = `<h1>${esc(name)}</h1><dl class="facts" id="facts"></dl>
    <div class="grid">
      <section><h2 id="objective-title">Objective by trial</h2><div class="chart" id="objective-chart" role="img" aria-labelledby="objective-title"></div></section>
      <section><h2 id="parallel-title">Parameters against the objective</h2><p class="note" id="parallel-note"></p><div class="chart" id="parallel-chart" role="img" aria-labelledby="parallel-title parallel-note"></div></section>
    </div>
    <h2>Trials <span id="trial-count" class="badge"></span> <a href="/api/experiments/${enc(name)}/trials?format=csv">CSV</a></h2>
    <form class="filters" id="trial-filters" role="search" aria-label="Filter the trials">
      <label>Status <select id="filter-status"><option value="">any</option></select></label>
      <label>Name contains <input id="filter-name" type="search" autocomplete="off" /></label>
    </form>
    <div class="table-wrap"><table id="trials"><caption class="skip">Trials of ${esc(name)}</caption><thead></thead><tbody></tbody></table></div>
    <nav class="pager" aria-label="Pages of trials">
      <button type="button" id="page-prev">Previous</button>
      <span id="page-info" role="status" aria-live="polite"></span>
      <button type="button" id="page-next">Next</button>
    </nav>`;
  const objectiveChart = chart(document.getElementById('objective-chart'), {});
  const parallelChart = chart(document.getElementById('parallel-chart'), {});
  const view = { sort: 'order', dir: 'asc', offset: 0, status: '', q: '' };
  let summary;
  let page;
  let pageRequest;

  const pageUrl = () => {
    const q = new URLSearchParams({
      offset: String(view.offset),
      limit: String(PAGE),
      sort: view.sort,
      order: view.dir,
    });
    if (view.status) q.set('status', view.status);
    if (view.q) q.set('q', view.q);
    return `/api/experiments/${enc(name)}/trials?${q}`;
  };

  const renderTable = () => {
    const params = summary.parameters;
    const columns = [...COLUMNS, ...params.map((p) => ({ key: `param:${p}`, label: p }))];
    const table = document.getElementById('trials');
    table.tHead.innerHTML = `<tr>${columns
      .map((c) => {
        const aria = view.sort === c.key ? (view.dir === 'asc' ? 'ascending' : 'descending') : 'none';
        const arrow = view.sort === c.key ? (view.dir === 'asc' ? ' ▲' : ' ▼') : '';
        return `<th scope="col" aria-sort="${aria}"><button type="button" data-sort="${esc(c.key)}">${esc(c.label)}${arrow}</button></th>`;
      })
      .join('')}</tr>`;
    table.tBodies[0].innerHTML = page.trials
      .map((t) => {
        const value = (p) => t.assignments.find((a) => a.name === p)?.value ?? '';
        return `<tr data-trial="${esc(t.name)}" data-condition="${esc(t.condition)}">
        <td class="num">${t.order}</td><td><a href="#/trial/${enc(t.name)}">${esc(t.name)}</a></td>
        <td>${badge(t.condition)}</td><td class="num">${fmt(t.bestObjective)}</td>
        ${params.map((p) => `<td class="num">${esc(value(p))}</td>`).join('')}</tr>`;
      })
      .join('');
    const filtered = view.status !== '' || view.q !== '';
    document.getElementById('trial-count').textContent = String(filtered ? summary.names.length : page.total);
    const shownTo = view.offset + page.trials.length;
    document.getElementById('page-info').textContent =
      page.total === 0
        ? 'no trial'
        : `${view.offset + 1}–${shownTo} of ${page.total}${filtered ? ' (filtered)' : ''}`;
    document.getElementById('page-prev').disabled = view.offset === 0;
    document.getElementById('page-next').disabled = shownTo >= page.total;
  };

  const renderFilters = () => {
    const select = document.getElementById('filter-status');
    const known = [...new Set(summary.conditions.filter((c) => c !== ''))].sort();
    const options = ['', ...known];
    if ([...select.options].map((o) => o.value).join('\n') === options.join('\n')) return;
    select.innerHTML = options
      .map((c) => `<option value="${esc(c)}">${c === '' ? 'any' : esc(c)}</option>`)
      .join('');
    select.value = view.status;
  };

  /** The current page again (sort, filter, paging, or news); a later request wins over an earlier one. */
  const loadPage = async () => {
    pageRequest?.abort();
    const request = new AbortController();
    pageRequest = request;
    const next = await getJson(pageUrl(), request.signal);
    if (request.signal.aborted) return;
    page = next;
    if (summary) renderTable();
  };

  document.getElementById('trials').addEventListener('click', (e) => {
    const key = e.target.closest('button[data-sort]')?.dataset.sort;
    if (!key) return;
    view.dir = view.sort === key && view.dir === 'asc' ? 'desc' : 'asc';
    view.sort = key;
    view.offset = 0;
    loadPage()
      .then(() => document.querySelector(`button[data-sort="${CSS.escape(key)}"]`)?.focus())
      .catch(() => undefined);
  });
  const turn = (delta) => {
    view.offset = Math.max(0, view.offset + delta);
    loadPage().catch(() => undefined);
  };
  document.getElementById('page-prev').addEventListener('click', () => turn(-PAGE));
  document.getElementById('page-next').addEventListener('click', () => turn(PAGE));
  const filters = document.getElementById('trial-filters');
  filters.addEventListener('submit', (e) => e.preventDefault());
  const filter = () => {
    view.status = document.getElementById('filter-status').value;
    view.q = document.getElementById('filter-name').value.trim();
    view.offset = 0;
    loadPage().catch(() => undefined);
  };
  filters.addEventListener('change', filter);
  let typing;
  filters.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(filter, 250);
  });
  onLeave(() => clearTimeout(typing));

  const renderFacts = () => {
    const e = summary.experiment;
    document.getElementById('facts').innerHTML = `
      <dt>Algorithm</dt><dd>${esc(e.algorithm) || '—'}</dd>
      <dt>Objective</dt><dd>${esc(e.objectiveType)} ${esc(e.objectiveMetric)}</dd>
      <dt>Early stopping</dt><dd id="rules">${rulesText(e.rules)}</dd>`;
  };

  /** The summary again: facts, filters, the table's columns and both charts. */
  const showSummary = async () => {
    renderFacts();
    renderFilters();
    if (page) renderTable();
    // Each chart in a task of its own, after the table is painted.
    await nextFrame();
    const addTrials = timed('objective chart', () => drawObjective(objectiveChart, summary));
    await nextFrame();
    timed('objective points', addTrials);
    await nextFrame();
    timed('parallel chart', () => drawParallel(parallelChart, summary));
  };
  const ignoreAbort = (error) => {
    if (error.name !== 'AbortError') throw error;
  };

  performance.mark('experiment:fetch');
  [summary] = await Promise.all([
    getJson(`/api/experiments/${enc(name)}/summary`),
    loadPage().catch(ignoreAbort),
  ]);
  performance.mark('experiment:table');
  performance.mark('experiment:charts');
  await showSummary();
  // Where the time of showing an experiment goes (read by bench/web.ts).
  performance.measure('experiment: fetch and parse', 'experiment:fetch', 'experiment:table');
  performance.measure('experiment: charts', 'experiment:charts');

  // New trials, observations, statuses and rules: the table's page at most twice a second, the
  // summary (every trial) every two seconds, and both once more a little later (the persistence
  // worker may apply an event after the stream delivered it).
  let trailing;
  const reloadPage = throttle(() => loadPage().catch(() => undefined), 500);
  const reloadSummary = throttle(async () => {
    summary = await getJson(`/api/experiments/${enc(name)}/summary`).catch(() => summary);
    await showSummary();
  }, 2_000);
  const refresh = () => {
    clearTimeout(trailing);
    trailing = setTimeout(() => {
      reloadPage();
      reloadSummary();
    }, 2_500);
    reloadPage();
    reloadSummary();
  };
  onLeave(() => clearTimeout(trailing));
  stream(`/api/experiments/${enc(name)}/stream`, {
    observations: refresh,
    status: refresh,
    rules: refresh,
    trials: refresh,
  });
}

/** Runs `draw` under a measure of its own (read by bench/web.ts). */
function timed(what, draw) {
  const started = performance.now();
  const result = draw();
  performance.measure(`experiment: ${what}`, { start: started, end: performance.now() });
  return result;
}
