// The experiments list and one experiment: its trials table a page at a time (sorted and filtered by
// the server), the objective plot and parallel coordinates from the trials' summary, and the
// objective views (./objectives.js): Pareto front, parameter importance, a slice per parameter.

import { drawObjective, drawParallel, parallelAxisNames } from './charts.js';
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
import { drawImportance, drawPareto, drawSlice } from './objectives.js';

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
      <section><h2 id="parallel-title">Parameters against the objective</h2><p class="note" id="parallel-note"></p>
        <fieldset class="axes" id="parallel-axes"><legend>Axes shown</legend></fieldset>
        <div class="chart" id="parallel-chart" role="img" aria-labelledby="parallel-title parallel-note"></div></section>
      <section id="pareto-section" hidden><h2 id="pareto-title">Pareto front</h2><p class="note" id="pareto-note"></p>
        <div class="pair" id="pareto-pair" hidden><label>X <select id="pareto-x"></select></label><label>Y <select id="pareto-y"></select></label></div>
        <div class="chart" id="pareto-chart" role="img" aria-labelledby="pareto-title pareto-note"></div>
        <p class="front-list" id="pareto-front"></p></section>
      <section><h2 id="importance-title">Parameter importance</h2><p class="note" id="importance-note"></p><div class="chart" id="importance-chart" role="img" aria-labelledby="importance-title importance-note"></div></section>
    </div>
    <section><h2 id="slices-title">Slices: the objective against each parameter</h2>
      <p class="note" id="slices-note"></p>
      <label class="pick" id="slice-pick" hidden>Objective <select id="slice-objective"></select></label>
      <div class="slices" id="slices"></div></section>
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
  const importanceChart = chart(document.getElementById('importance-chart'), {});
  /** Made when the experiment turns out to have two objectives or more (a hidden chart has no size). */
  let paretoChart;
  const view = { sort: 'order', dir: 'asc', offset: 0, status: '', q: '' };
  /** Parallel axes the reader hid; which objectives the Pareto plot and the slices show. */
  const hiddenAxes = new Set();
  const pick = { x: 0, y: 1, slice: 0 };
  /** parameter → its slice chart. */
  const slices = new Map();
  let pareto;
  let importance;
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
      ${
        (e.objectives ?? []).length > 1
          ? `<dt>Objectives</dt><dd id="objectives-fact">${e.objectives.map((o) => `${esc(o.type)} ${esc(o.metricName)}`).join(', ')}</dd>`
          : `<dt>Objective</dt><dd>${esc(e.objectiveType)} ${esc(e.objectiveMetric)}</dd>`
      }
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
    renderAxes();
    timed('parallel chart', () => drawParallel(parallelChart, summary, hiddenAxes));
  };

  /** A checkbox per parallel axis (keyboard: Tab, Space); the last one shown cannot be hidden. */
  const renderAxes = () => {
    const names = parallelAxisNames(summary);
    const box = document.getElementById('parallel-axes');
    const known = [...box.querySelectorAll('input')].map((i) => i.value);
    if (known.join('\n') !== names.join('\n'))
      box.innerHTML = `<legend>Axes shown</legend>${names
        .map(
          (n) =>
            `<label><input type="checkbox" value="${esc(n)}"${hiddenAxes.has(n) ? '' : ' checked'} /> ${esc(n)}</label>`,
        )
        .join('')}`;
    const boxes = [...box.querySelectorAll('input')];
    const shown = boxes.filter((i) => i.checked);
    for (const i of boxes) i.disabled = shown.length === 1 && i.checked;
  };
  document.getElementById('parallel-axes').addEventListener('change', (e) => {
    const { value, checked } = e.target;
    if (checked) hiddenAxes.delete(value);
    else hiddenAxes.add(value);
    renderAxes();
    timed('parallel chart', () => drawParallel(parallelChart, summary, hiddenAxes));
  });

  /** The Pareto plot (two objectives or more), the importance bars and the slices. */
  const showObjectives = async ({ withImportance = true } = {}) => {
    await nextFrame();
    timed('pareto chart', showPareto);
    if (withImportance) {
      await nextFrame();
      timed('importance chart', showImportance);
    }
    await showSlices();
  };

  const fillPair = (select, objectives, chosen) => {
    const options = objectives.map((o, k) => `<option value="${k}">${esc(o.metricName)}</option>`).join('');
    if (select.innerHTML !== options) select.innerHTML = options;
    select.value = String(chosen);
  };

  const showPareto = () => {
    const section = document.getElementById('pareto-section');
    const note = document.getElementById('pareto-note');
    if (!pareto || pareto.objectives.length < 2) {
      section.hidden = true;
      return;
    }
    section.hidden = false;
    paretoChart ??= chart(document.getElementById('pareto-chart'), {});
    const { objectives } = pareto;
    document.getElementById('pareto-pair').hidden = objectives.length < 3;
    if (objectives.length >= 3) {
      fillPair(document.getElementById('pareto-x'), objectives, pick.x);
      fillPair(document.getElementById('pareto-y'), objectives, pick.y);
    }
    const drawn = drawPareto(paretoChart, pareto, pick.x, pick.y, (trial) => {
      location.hash = `#/trial/${enc(trial)}`;
    });
    const el = document.getElementById('pareto-chart');
    el.dataset.front = String(drawn.front);
    el.dataset.others = String(drawn.others);
    const projected = objectives.length > 2 ? ' (the front of all objectives, seen in two)' : '';
    note.textContent = `${pareto.front.length.toLocaleString('en-US')} of ${pareto.trials.length.toLocaleString('en-US')} finished trials on the front${projected}; hypervolume ${fmt(pareto.hypervolume)} from (${(pareto.reference ?? []).map(fmt).join(', ')})`;
    const shown = pareto.front.slice(0, 20);
    document.getElementById('pareto-front').innerHTML = shown.length
      ? `Best trials: ${shown.map((t) => `<a href="#/trial/${enc(t)}">${esc(t)}</a>`).join(', ')}${
          pareto.front.length > shown.length ? ` and ${pareto.front.length - shown.length} more` : ''
        }`
      : '';
  };
  const choosePair = () => {
    pick.x = Number(document.getElementById('pareto-x').value);
    pick.y = Number(document.getElementById('pareto-y').value);
    timed('pareto chart', showPareto);
  };
  document.getElementById('pareto-x').addEventListener('change', choosePair);
  document.getElementById('pareto-y').addEventListener('change', choosePair);

  const showImportance = () => {
    const note = document.getElementById('importance-note');
    const el = document.getElementById('importance-chart');
    if (!importance) {
      note.textContent = importanceError ?? '';
      el.dataset.order = '';
      return;
    }
    const order = drawImportance(importanceChart, importance);
    el.dataset.order = order.join(',');
    const sampled =
      importance.fittedOn < importance.trials
        ? `, each forest on ${importance.fittedOn.toLocaleString('en-US')} drawn at random`
        : '';
    note.textContent =
      order.length === 0
        ? 'Needs two finished trials that report every objective, and a search space.'
        : `fANOVA on a random forest: ${importance.trials.toLocaleString('en-US')} finished trials${sampled}`;
  };

  const showSlices = async () => {
    const container = document.getElementById('slices');
    const note = document.getElementById('slices-note');
    if (!pareto) {
      note.textContent = paretoError ?? '';
      return;
    }
    const { objectives } = pareto;
    const select = document.getElementById('slice-objective');
    document.getElementById('slice-pick').hidden = objectives.length < 2;
    fillPair(select, objectives, pick.slice);
    const specs = new Map((summary.experiment.parameters ?? []).map((p) => [p.name, p]));
    const parameters = specs.size > 0 ? [...specs.keys()] : summary.parameters;
    if ([...slices.keys()].join('\n') !== parameters.join('\n')) {
      for (const c of slices.values()) c.dispose();
      slices.clear();
      container.innerHTML = parameters
        .map(
          (p, i) =>
            `<figure><figcaption id="slice-title-${i}">${esc(p)}</figcaption><div class="chart small" data-parameter="${esc(p)}" role="img" aria-labelledby="slice-title-${i} slices-title"></div></figure>`,
        )
        .join('');
      for (const el of container.querySelectorAll('.chart')) slices.set(el.dataset.parameter, chart(el, {}));
    }
    note.textContent = `${objectives[pick.slice].metricName} of each of the ${pareto.trials.length.toLocaleString('en-US')} finished trials`;
    const index = new Map(summary.names.map((n, i) => [n, i]));
    for (const [parameter, c] of slices) {
      // Each chart in a task of its own: there may be many, each with every trial.
      await nextFrame();
      const drawn = timed(`slice ${parameter}`, () =>
        drawSlice(c, { parameter, spec: specs.get(parameter), pareto, summary, index, k: pick.slice }),
      );
      c.getDom().dataset.points = String(drawn);
    }
  };
  document.getElementById('slice-objective').addEventListener('change', (e) => {
    pick.slice = Number(e.target.value);
    showSlices().catch(() => undefined);
  });
  const ignoreAbort = (error) => {
    if (error.name !== 'AbortError') throw error;
  };
  let paretoError;
  let importanceError;
  const loadPareto = async () => {
    try {
      pareto = await getJson(`/api/experiments/${enc(name)}/pareto`);
      paretoError = undefined;
    } catch (error) {
      paretoError = error.message;
    }
  };
  const loadImportance = async () => {
    try {
      importance = await getJson(`/api/experiments/${enc(name)}/importance`);
      importanceError = undefined;
    } catch (error) {
      importanceError = error.message;
    }
  };

  performance.mark('experiment:fetch');
  [summary] = await Promise.all([
    getJson(`/api/experiments/${enc(name)}/summary`),
    loadPage().catch(ignoreAbort),
  ]);
  // Asked for once the summary is here (asked together, the server's one event loop would hold the
  // summary back behind them) and answered while its charts are drawn; a failure leaves a note.
  const objectiveViews = Promise.all([loadPareto(), loadImportance()]);
  performance.mark('experiment:table');
  performance.mark('experiment:charts');
  await showSummary();
  performance.mark('experiment:charts-drawn');
  await objectiveViews;
  performance.mark('experiment:objectives');
  await showObjectives();
  // Where the time of showing an experiment goes (read by bench/web.ts).
  performance.measure('experiment: fetch and parse', 'experiment:fetch', 'experiment:table');
  performance.measure('experiment: charts', 'experiment:charts', 'experiment:charts-drawn');
  performance.measure(
    'experiment: front and importance fetched',
    'experiment:fetch',
    'experiment:objectives',
  );
  performance.measure('experiment: objective views', 'experiment:objectives');

  // New trials, observations, statuses and rules: the table's page at most twice a second, the
  // summary (every trial) every two seconds, and both once more a little later (the persistence
  // worker may apply an event after the stream delivered it).
  let trailing;
  const reloadPage = throttle(() => loadPage().catch(() => undefined), 500);
  const reloadSummary = throttle(async () => {
    const [next] = await Promise.all([
      getJson(`/api/experiments/${enc(name)}/summary`).catch(() => summary),
      loadPareto(),
    ]);
    summary = next;
    await showSummary();
    await showObjectives({ withImportance: false });
  }, 2_000);
  // Importance grows forests on the server (kept until the trials change): at most every ten seconds.
  const reloadImportance = throttle(async () => {
    await loadImportance();
    showImportance();
  }, 10_000);
  const refresh = () => {
    clearTimeout(trailing);
    trailing = setTimeout(() => {
      reloadPage();
      reloadSummary();
      reloadImportance();
    }, 2_500);
    reloadPage();
    reloadSummary();
    reloadImportance();
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
