// The experiments page: plain ES modules, no build step. Charts by Apache ECharts (served from its
// npm package as /vendor/echarts.min.js). Routes: #/ (experiments), #/experiment/NAME, #/trial/NAME.
// Data from the read endpoints; live updates from the Server-Sent Events streams.

import { esc, leave } from './common.js';
import { experimentsView, experimentView } from './experiment.js';
import { trialView } from './trial.js';

const main = document.getElementById('main');

async function route() {
  leave();
  const hash = location.hash.replace(/^#\/?/, '');
  const [kind, ...rest] = hash.split('/');
  const name = decodeURIComponent(rest.join('/'));
  try {
    if (kind === 'experiment' && name) await experimentView(name);
    else if (kind === 'trial' && name) await trialView(name);
    else await experimentsView();
    main.dataset.ready = hash || 'experiments';
  } catch (error) {
    main.innerHTML = `<p class="error" role="alert">${esc(error.message)}</p>`;
    main.dataset.ready = 'error';
  }
}

window.addEventListener('hashchange', () => {
  delete main.dataset.ready;
  route().then(() => main.focus());
});
route();
