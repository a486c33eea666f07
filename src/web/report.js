// parley's HTML report: draws the tables and plots of the data embedded in this page
// (script#report-data, written by src/report/report_data.cc) with Chart.js. Model text (answers,
// task ids, protocol labels) is data: it is only ever set as textContent, never parsed as HTML.
(function () {
  'use strict';

  const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
                  '#bcbd22', '#17becf'];
  const OUTCOMES = [['right_right', 'right → right', '#2ca02c'], ['right_wrong', 'right → wrong', '#d62728'],
                    ['wrong_right', 'wrong → right', '#1f77b4'], ['wrong_wrong', 'wrong → wrong', '#7f7f7f']];
  const U_LABELS = {u_intra: 'U_intra', u_inter: 'U_inter', u_sys: 'U_sys'};

  let data;
  const root = document.getElementById('report');

  // ---- DOM helpers: every text goes through createTextNode ----
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === 'class') node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
    }
    return node;
  }
  const fixed = (x, digits) => (x === null || x === undefined || Number.isNaN(x) ? '–' : Number(x).toFixed(digits));
  const pct = (x) => (x === null || x === undefined ? '–' : fixed(x * 100, 1));
  const ci = (pair, f) => (pair ? '[' + f(pair[0]) + ',\u00a0' + f(pair[1]) + ']' : '');  // kept on one line
  const color = (i) => COLORS[i % COLORS.length];
  const answerText = (a) => (a === null || a === undefined ? '(unparsed)' : a);
  const pValue = (p) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

  // A table in a box that scrolls sideways when it is wider than the page.
  function table(headers, rows) {
    return el('div', {class: 'table-wrap'}, el('table', {class: 'table'},
      el('thead', {}, el('tr', {}, headers.map((h) => el('th', {scope: 'col'}, h)))),
      el('tbody', {}, rows.map((cells) => el('tr', {}, cells.map((c) => el('td', {}, c)))))));
  }

  function section(title, intro) {
    const node = el('section', {}, el('h2', {}, title), intro ? el('p', {class: 'intro'}, intro) : null);
    root.appendChild(node);
    return node;
  }

  // A figure for one plot: the caption says what it shows and, for a simulated run, that the
  // numbers are simulated. `points` counts the data points drawn (the browser tests read it).
  function plot(parent, id, caption, config, points) {
    const canvas = el('canvas', {role: 'img', 'aria-label': caption});
    const figure = el('figure', {class: 'plot', id: 'plot-' + id},
      el('div', {class: 'chart-box'}, canvas),
      el('figcaption', {}, caption + (data.simulated ? ' Simulated: these numbers come from parley\u2019s built-in simulator, not from a language model.' : '')));
    parent.appendChild(figure);
    config.options = Object.assign({animation: false, responsive: true, maintainAspectRatio: false}, config.options || {});
    const plugins = config.options.plugins || (config.options.plugins = {});
    plugins.legend = Object.assign({labels: {filter: (item, chart) => !chart.datasets[item.datasetIndex].errorBar}},
                                   plugins.legend || {});
    const chart = new Chart(canvas, config);
    figure.dataset.rendered = 'true';
    figure.dataset.points = String(points);
    return chart;
  }

  // Ticks to four significant digits, so that a flat series does not print rounding noise.
  function axis(title, extra) {
    return Object.assign({title: {display: true, text: title}, ticks: {format: {maximumSignificantDigits: 4}}},
                         extra || {});
  }

  // An error bar: a two-point segment drawn with the series' colour, left out of the legend.
  function segment(from, to, colour) {
    return {type: 'line', data: [from, to], borderColor: colour, backgroundColor: colour, borderWidth: 1.5,
            pointRadius: 0, showLine: true, errorBar: true, parsing: false};
  }

  const protocols = () => data.summary.protocols;

  // ---- sections ----
  function header() {
    const title = data.title ? 'parley report: ' + data.title : 'parley report';
    root.appendChild(el('header', {},
      el('h1', {}, title),
      el('p', {class: 'meta'}, 'parley ' + data.parley_version + ' · ' + protocols().length + ' protocols · ' +
        protocols().reduce((n, p) => n + p.n, 0) + ' debates')));
    if (data.simulated) {
      root.appendChild(el('p', {class: 'simulated-banner', role: 'note'},
        'SIMULATED: every number in this report comes from parley\u2019s built-in simulator, not from a language model.'));
    }
  }

  function comparisonTable() {
    const front = new Set(data.pareto_front);
    const s = section('Comparison', 'Per protocol: accuracy with its 95% bootstrap CI (2,000 resamples of the debates), ' +
      'tokens and calls per task with theirs, accuracy per 100k tokens (APT), and whether the protocol is on the ' +
      'accuracy–tokens Pareto front.');
    s.appendChild(table(
      ['protocol', 'debates', 'accuracy %', '95% CI', 'tokens / task', '95% CI', 'calls / task', '95% CI', 'APT',
       'unparsed %', 'failed', 'budget', 'Pareto'],
      protocols().map((p) => [p.name, p.n, pct(p.accuracy), ci(p.accuracy_ci, pct), fixed(p.tokens_mean, 0),
        ci(p.tokens_ci, (x) => fixed(x, 0)), fixed(p.calls_mean, 2), ci(p.calls_ci, (x) => fixed(x, 2)), fixed(p.apt, 2),
        pct(p.unparsed_rate), p.failed, p.budget, front.has(p.name) ? 'yes' : ''])));
    return s;
  }

  function accuracyTokens(parent) {
    const datasets = [];
    protocols().forEach((p, i) => {
      if (p.accuracy === null) return;  // no gold: no accuracy to plot
      const c = color(i), y = p.accuracy * 100, x = p.tokens_mean;
      datasets.push({label: p.name, data: [{x, y}], borderColor: c, backgroundColor: c, pointRadius: 5, parsing: false});
      datasets.push(segment({x, y: p.accuracy_ci[0] * 100}, {x, y: p.accuracy_ci[1] * 100}, c));
      datasets.push(segment({x: p.tokens_ci[0], y}, {x: p.tokens_ci[1], y}, c));
    });
    const front = protocols().filter((p) => data.pareto_front.includes(p.name))
      .map((p) => ({x: p.tokens_mean, y: p.accuracy * 100})).sort((a, b) => a.x - b.x);
    datasets.push({type: 'line', label: 'Pareto front', data: front, borderColor: '#444', borderDash: [6, 4],
                   pointRadius: 0, showLine: true, fill: false, parsing: false});
    // Costs spanning more than a factor of 20 are shown on a log scale, where each stays readable.
    const costs = protocols().map((p) => p.tokens_mean).filter((x) => x > 0);
    const logScale = costs.length > 1 && Math.max(...costs) / Math.min(...costs) > 20;
    plot(parent, 'accuracy-tokens',
      'Accuracy against tokens per task (prompt + completion' + (logScale ? ', log scale' : '') + '), one point per ' +
      'protocol, with 95% bootstrap CI bars on both axes; the dashed line joins the protocols on the Pareto front ' +
      '(none is both more accurate and cheaper).',
      {type: 'scatter', data: {datasets},
       options: {scales: {x: axis('tokens per task' + (logScale ? ' (log scale)' : ''),
                                  logScale ? {type: 'logarithmic'} : {}),
                          y: axis('accuracy (%)')}}}, protocols().length);
  }

  // Bars with their CI as thin floating bars drawn over them.
  function barsWithCi(parent, id, caption, labels, series, xTitle, yTitle) {
    const datasets = [];
    series.forEach((s, i) => {
      datasets.push({label: s.label, data: s.values, backgroundColor: s.color || color(i) + 'aa', borderColor: s.color || color(i),
                     borderWidth: 1});
      // Same `stack` as its bar, on an index axis that stacks and a value axis that does not:
      // the CI is drawn over its own bar, not summed with it.
      datasets[datasets.length - 1].stack = 'series' + i;
      if (s.cis) {
        datasets.push({label: s.label + ' CI', data: s.cis, backgroundColor: '#000', barPercentage: 0.12,
                       stack: 'series' + i, errorBar: true});
      }
    });
    const points = series.reduce((n, s) => n + s.values.filter((v) => v !== null).length, 0);
    return plot(parent, id, caption, {type: 'bar', data: {labels, datasets},
      options: {scales: {x: axis(xTitle, {stacked: true}), y: axis(yTitle, {beginAtZero: true, stacked: false})}}}, points);
  }

  function calls(parent) {
    barsWithCi(parent, 'calls', 'LLM calls per task, mean per protocol with its 95% bootstrap CI (black).',
      protocols().map((p) => p.name), [{label: 'calls per task', values: protocols().map((p) => p.calls_mean),
        cis: protocols().map((p) => p.calls_ci)}], 'protocol', 'calls per task');
  }

  function stackedOutcomes(parent, id, caption, labels, breakdowns, extra) {
    const datasets = OUTCOMES.map(([key, label, c]) => ({label, data: breakdowns.map((b) => (b ? b[key] : null)),
      backgroundColor: c}));
    for (const e of extra || []) datasets.push(e);
    const points = breakdowns.filter((b) => b).length;
    plot(parent, id, caption, {type: 'bar', data: {labels, datasets},
      options: {indexAxis: 'y', scales: {x: axis('units (task × seed)', {stacked: true}), y: {stacked: true}}}}, points);
  }

  function decisions() {
    const rows = protocols().filter((p) => p.vs_single && (p.vs_single.right_right + p.vs_single.right_wrong +
      p.vs_single.wrong_right + p.vs_single.wrong_wrong) > 0);
    if (!rows.length) return;
    const s = section('Decisions against the single agent',
      'iMAD Table 2: on the (task, seed) units both ran, whether the single agent was right and whether the protocol was.');
    stackedOutcomes(s, 'decisions',
      'Outcome of each protocol against the single-agent baseline on the same units: right → wrong counts the units ' +
      'the protocol got wrong where the single agent was right.',
      rows.map((p) => p.name), rows.map((p) => p.vs_single));
    s.appendChild(table(['protocol', 'right → right', 'right → wrong', 'wrong → right', 'wrong → wrong', 'net gain'],
      rows.map((p) => [p.name, p.vs_single.right_right, p.vs_single.right_wrong, p.vs_single.wrong_right,
        p.vs_single.wrong_wrong, p.vs_single.wrong_right - p.vs_single.right_wrong])));
    for (const p of rows) {
      const harmed = data.harmed[p.name];
      if (!harmed || !harmed.length) continue;
      s.appendChild(el('h3', {}, 'Units ' + p.name + ' got wrong where single was right (first ' + harmed.length + ')'));
      s.appendChild(table(['task', 'seed', 'gold', 'single\u2019s answer', p.name + '\u2019s answer', 'status'],
        harmed.map((h) => [h.task_id, h.seed, h.gold, answerText(h.single_answer), answerText(h.answer), h.status])));
    }
  }

  function selective() {
    const rows = protocols().filter((p) => p.selective && p.selective.decisions > 0);
    if (!rows.length) return;
    const s = section('Selective debate decisions',
      'iMAD Table 4: each unit skipped or debated, by whether the single answer was right and whether MAD\u2019s was ' +
      '(for skipped units, MAD\u2019s outcome comes from the run\u2019s MAD reference on the same unit).');
    const labels = [], breakdowns = [];
    for (const p of rows) {
      labels.push(p.name + ' · skipped', p.name + ' · debated');
      breakdowns.push(p.selective.skipped, p.selective.debated);
    }
    stackedOutcomes(s, 'selective', 'Skipped and debated units of each selective protocol by single → MAD outcome ' +
      '(units without a MAD outcome are counted in the table only).', labels, breakdowns);
    s.appendChild(table(['protocol', 'MAD reference', 'decisions', 'debate rate %', 'beneficial', 'judged',
      'beneficial rate %', 'skipped, no MAD outcome'],
      rows.map((p) => [p.name, p.selective.mad_reference || '–', p.selective.decisions, pct(p.selective.debate_rate),
        p.selective.beneficial, p.selective.judged, pct(p.selective.beneficial_rate),
        p.selective.skipped_right_unknown + p.selective.skipped_wrong_unknown])));
  }

  function difficulty() {
    const d = data.summary.difficulty;
    if (!d || !d.groups || !d.groups.length) return;
    const s = section('Accuracy by difficulty',
      'SVR-MAD Fig. 1–2: units grouped by how many of ' + d.agents + ' agents were right before debate (as ' + d.source +
      ' recorded it); ' + d.unanimous + ' units unanimous before debate are left out.');
    const labels = d.groups.map((g) => g.correct_before + ' of ' + d.agents + ' right (' + g.units + ' units)');
    // A group lacks the keys of protocols and signals with no unit in it: no point there.
    const keys = (field) => [...new Set(d.groups.flatMap((g) => Object.keys(g[field] || {})))];
    const percent = (g, field, key) => (g[field] && key in g[field] ? g[field][key] * 100 : null);
    const names = keys('accuracy'), signals = keys('top_correct');
    const datasets = names.map((name, i) => ({label: name, data: d.groups.map((g) => percent(g, 'accuracy', name)),
      borderColor: color(i), backgroundColor: color(i), tension: 0}));
    signals.forEach((signal, i) => datasets.push({label: 'top-ranked by ' + signal,
      data: d.groups.map((g) => percent(g, 'top_correct', signal)), borderColor: color(names.length + i),
      borderDash: [4, 3], backgroundColor: color(names.length + i)}));
    plot(s, 'difficulty', 'Accuracy (%) of each protocol by the number of agents right before debate; dashed: how often ' +
      'the agent ranked first by each prior signal was right.', {type: 'line', data: {labels, datasets},
      options: {scales: {x: axis('agents right before debate'), y: axis('accuracy (%)', {min: 0, max: 100})}}},
      d.groups.length);
  }

  function uncertainty() {
    if (!data.plots.includes('uncertainty')) return null;
    const s = section('Uncertainty', 'UDPO §2: U_intra (an agent\u2019s own instability), U_inter (disagreement between ' +
      'agents) and U_sys (the final round\u2019s system uncertainty), mean per debate with 95% bootstrap CIs.');
    const names = protocols().map((p) => p.name);
    const series = Object.keys(U_LABELS).map((u, i) => ({label: U_LABELS[u], color: color(i),
      values: protocols().map((p) => (p.metrics[u] ?? null)),
      cis: protocols().map((p) => (p.metrics_ci && p.metrics_ci[u]) || null)}));
    barsWithCi(s, 'uncertainty', 'Mean U_intra, U_inter and U_sys per debate by protocol, with 95% bootstrap CIs ' +
      '(black); a protocol that does not define a level has no bar.', names, series, 'protocol', 'mean per debate');
    return s;
  }

  function diagnosis(parent) {
    const d = data.diagnosis;
    if (!d) return;
    const s = parent || section('Uncertainty', '');
    if (data.plots.includes('separation')) {
      const labels = [], failed = [], successful = [], failedSd = [], successfulSd = [];
      for (const p of d.protocols) {
        for (const sep of p.failure_separation) {
          if (!sep.failed.n || !sep.successful.n) continue;
          labels.push(p.protocol + ' · ' + U_LABELS[sep.metric]);
          failed.push(sep.failed.mean);
          successful.push(sep.successful.mean);
          const band = (g) => (g.sd === null ? null : [Math.max(0, g.mean - g.sd), g.mean + g.sd]);
          failedSd.push(band(sep.failed));
          successfulSd.push(band(sep.successful));
        }
      }
      s.appendChild(el('h3', {}, 'Failed against successful debates'));
      barsWithCi(s, 'separation', 'Mean U of failed (wrong) and successful debates per protocol and level, with ' +
        '± one standard deviation (black): UDPO §3.2, Fig. 2. Welch\u2019s test and Cohen\u2019s d are in the table below.',
        labels, [{label: 'failed', color: '#d62728', values: failed, cis: failedSd},
                 {label: 'successful', color: '#2ca02c', values: successful, cis: successfulSd}], 'protocol · level', 'mean U');
      const rows = [];
      for (const p of d.protocols) {
        for (const sep of p.failure_separation) {
          if (!sep.failed.n && !sep.successful.n) continue;
          rows.push([p.protocol, U_LABELS[sep.metric], sep.failed.n, fixed(sep.failed.mean, 3), sep.successful.n,
            fixed(sep.successful.mean, 3), sep.welch ? pValue(sep.welch.p) : '–', fixed(sep.cohens_d, 2)]);
        }
      }
      s.appendChild(table(['protocol', 'U', 'failed n', 'failed mean', 'successful n', 'successful mean',
        'Welch p', 'Cohen\u2019s d'], rows));
    }
    for (const u of Object.keys(U_LABELS)) {
      const id = 'selective-prediction-' + u;
      if (!data.plots.includes(id)) continue;
      const datasets = [];
      let points = 0;
      d.protocols.forEach((p, i) => {
        const curve = p.selective_prediction.find((c) => c.metric === u);
        if (!curve || !curve.points.length) return;
        points += curve.points.length;
        datasets.push({label: p.protocol, data: curve.points.map((q) => ({x: q.k, y: q.accuracy * 100})),
          borderColor: color(i), backgroundColor: color(i), showLine: true, parsing: false});
      });
      plot(s, id, 'Selective prediction by ' + U_LABELS[u] + ': accuracy (%) of the k% of debates with the lowest ' +
        U_LABELS[u] + ', per protocol (UDPO §3.2, Fig. 4).', {type: 'scatter', data: {datasets},
        options: {scales: {x: axis('debates kept, lowest ' + U_LABELS[u] + ' first (%)', {min: 0, max: 100}),
          y: axis('accuracy (%)')}}}, points);
    }
  }

  function comparison() {
    const c = data.comparison;
    if (!c || !c.comparisons.length) return;
    const s = section('Paired comparison', 'parley compare: each protocol against ' + c.comparisons[0].second +
      ' on the (task, seed) units both ran: the mean difference (first − second) with its 95% BCa bootstrap CI ' +
      '(10,000 resamples), the paired permutation test, and Holm\u2019s adjustment within each pair (family: ' + c.family + ').');
    const metrics = [...new Set(c.comparisons.map((r) => r.metric))];
    for (const metric of metrics) {
      const rows = c.comparisons.filter((r) => r.metric === metric);
      const scale = metric === 'accuracy' ? 100 : 1;
      const labels = rows.map((r) => r.first + ' − ' + r.second);
      plot(s, 'comparison-' + metric, 'Difference in ' + metric + (scale === 100 ? ' (percentage points)' : '') +
        ', first − second, with its 95% BCa CI (bar) and the mean difference (point); a CI that crosses 0 is no ' +
        'evidence of a difference.', {type: 'bar', data: {labels, datasets: [
          {label: '95% CI', data: rows.map((r) => [r.ci_bca[0] * scale, r.ci_bca[1] * scale]), backgroundColor: '#1f77b466',
           borderColor: '#1f77b4', borderWidth: 1, barPercentage: 0.4},
          {type: 'line', label: 'mean difference', data: rows.map((r) => r.difference * scale), showLine: false,
           pointRadius: 5, borderColor: '#000', backgroundColor: '#000'}]},
        options: {indexAxis: 'y', scales: {x: axis(metric + ' difference'), y: {}}}}, rows.length);
    }
    s.appendChild(table(['first', 'second', 'metric', 'units', 'first mean', 'second mean', 'difference', '95% BCa CI',
      'permutation p', 'Holm p'], c.comparisons.map((r) => [r.first, r.second, r.metric, r.n, fixed(r.first_mean, 3),
      fixed(r.second_mean, 3), fixed(r.difference, 3), ci(r.ci_bca, (x) => fixed(x, 3)), pValue(r.permutation_p),
      pValue(r.permutation_p_holm)])));
    if (c.not_compared && c.not_compared.length)
      s.appendChild(el('p', {class: 'note'}, 'Not compared (no unit defines the metric on both sides): ' + c.not_compared.join('; ')));
  }

  function rounds() {
    if (!data.rounds.length) return;
    const s = section('Signals round by round', 'How the debates move from round to round: the share of answering ' +
      'agents on the round\u2019s plurality answer for every protocol whose agents answer in several rounds, and the ' +
      'controller state that protocols such as MACI record each round (maci_round events). Lines are means over the ' +
      'debates that reached the round; bands are their middle half (25th–75th percentile).');
    agreement(s);
    data.rounds.forEach((entry, index) => {
      const controller = entry.signals.filter((signal) => data.plots.includes('rounds-' + index + '-' + signal.name));
      if (!controller.length) return;
      s.appendChild(el('h3', {}, entry.protocol + ': controller signals'));
      const grid = el('div', {class: 'grid'});
      s.appendChild(grid);
      for (const signal of controller) {
        const labels = signal.points.map((p) => 'round ' + p.round);
        plot(grid, 'rounds-' + index + '-' + signal.name, entry.protocol + ': ' + signal.label + ' by round, mean over ' +
          'debates with the 25th–75th percentile band (n at the first round: ' + signal.points[0].n + ').',
          {type: 'line', data: {labels, datasets: [
            {label: '25th percentile', data: signal.points.map((p) => p.low), borderColor: '#9ecae1', pointRadius: 0,
             fill: false, errorBar: true},
            {label: '75th percentile', data: signal.points.map((p) => p.high), borderColor: '#9ecae1',
             backgroundColor: '#9ecae155', pointRadius: 0, fill: '-1', errorBar: true},
            {label: 'mean', data: signal.points.map((p) => p.mean), borderColor: '#08519c', backgroundColor: '#08519c'}]},
           options: {plugins: {legend: {display: false}}, scales: {x: axis('round'), y: axis(signal.label)}}},
          signal.points.length);
      }
      if (data.plots.includes('trace-' + index)) trace(s, entry, index);
    });
  }

  // The plurality share by round, one line per protocol (its colour as in the other plots).
  function agreement(parent) {
    if (!data.plots.includes('agreement')) return;
    const names = protocols().map((p) => p.name);
    const datasets = [];
    let points = 0;
    for (const entry of data.rounds) {
      const signal = entry.signals.find((x) => x.name === 'plurality_share');
      if (!signal) continue;
      points += signal.points.length;
      const c = color(names.indexOf(entry.protocol));
      datasets.push({label: entry.protocol, data: signal.points.map((p) => ({x: p.round, y: p.mean * 100})),
        borderColor: c, backgroundColor: c, showLine: true, parsing: false});
    }
    plot(parent, 'agreement', 'Agreement by round: the share (%) of answering agents on the round\u2019s plurality ' +
      'answer, mean over the debates that reached the round, per protocol.', {type: 'scatter', data: {datasets},
      options: {scales: {x: axis('round', {ticks: {stepSize: 1, format: {maximumFractionDigits: 0}}}), y: axis('agents on the plurality answer (%)',
        {max: 100})}}}, points);
  }

  // One debate's signals by round; a menu chooses which of the embedded debates.
  function trace(parent, entry, index) {
    const select = el('select', {'aria-label': 'debate to trace', id: 'trace-select-' + index},
      entry.traces.map((t, i) => el('option', {value: String(i)}, t.task_id + ' · seed ' + t.seed +
        (t.correct ? ' · right' : ' · wrong'))));
    parent.appendChild(el('p', {class: 'trace-choice'}, el('label', {}, 'Trace of one debate: ', select)));
    const names = entry.signals.map((s) => s.name);
    const labelOf = Object.fromEntries(entry.signals.map((s) => [s.name, s.label]));
    const datasetsOf = (t) => names.filter((n) => t.signals[n]).map((n) => ({label: labelOf[n],
      data: t.signals[n].map(([round, value]) => ({x: round, y: value})), borderColor: color(names.indexOf(n)),
      backgroundColor: color(names.indexOf(n)), showLine: true, parsing: false}));
    const count = (t) => names.reduce((n, name) => n + (t.signals[name] ? t.signals[name].length : 0), 0);
    const chart = plot(parent, 'trace-' + index, entry.protocol + ': every signal of the chosen debate by round (' +
      entry.traces.length + ' debates embedded: the first by task id and seed).',
      {type: 'scatter', data: {datasets: datasetsOf(entry.traces[0])},
       options: {scales: {x: axis('round', {ticks: {stepSize: 1, format: {maximumFractionDigits: 0}}}), y: axis('value')}}}, count(entry.traces[0]));
    select.addEventListener('change', () => {
      const t = entry.traces[Number(select.value)];
      chart.data.datasets = datasetsOf(t);
      chart.update();
      document.getElementById('plot-trace-' + index).dataset.points = String(count(t));
    });
  }

  function main() {
    data = JSON.parse(document.getElementById('report-data').textContent);
    document.title = data.title ? 'parley report: ' + data.title : 'parley report';
    header();
    const overview = comparisonTable();
    accuracyTokens(overview);
    calls(overview);
    decisions();
    selective();
    difficulty();
    diagnosis(uncertainty());
    comparison();
    rounds();
  }

  try {
    main();
  } catch (error) {
    document.body.dataset.error = String(error && error.stack ? error.stack : error);
    root.appendChild(el('p', {class: 'error'}, 'This report could not be drawn: ' + String(error)));
  }
})();
