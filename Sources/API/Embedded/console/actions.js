// The campaign buttons of an admin key: pause, resume, cancel and retry, each after a confirmation that says what
// it will do to how many deliveries.
import { APIError, post } from './api.js';
import { h, number } from './dom.js';

/** The buttons `report` (a `GET /v1/campaigns/{id}` answer) allows; none without the admin scope. `done` runs after
 * an action, with a message saying what happened. */
export function campaignActions(report, context, done) {
  if (!context.may('admin')) return null;
  const counts = report.counts;
  const finished = report.status === 'completed' || report.status === 'cancelled';
  const bulk = report.kind === 'bulk';
  const actions = [];
  // Deliveries are made as the audience is expanded: until then, the rest of it is not counted yet.
  const rest = report.expanded ? '' : ', and the part of its audience not expanded yet,';
  if (bulk && !finished && !report.paused) {
    actions.push(['Pause', 'pause', `Pause campaign ${report.id}?`,
      `Its ${number(counts.pending)} pending deliveries${rest} wait until it is resumed; nothing is lost.`]);
  }
  if (bulk && report.paused) {
    actions.push(['Resume', 'resume', `Resume campaign ${report.id}?`,
      `Its ${number(counts.pending)} pending deliveries${rest} will be sent.`]);
  }
  if (!finished) {
    actions.push(['Cancel', 'cancel', `Cancel campaign ${report.id}?`,
      `Its ${number(counts.pending)} pending deliveries${rest} will not be sent (those already on their way to APNs `
        + `finish). The ${number(report.total - counts.pending)} finished deliveries stay as they are. This cannot be `
        + 'undone.']);
  }
  if (finished && counts.failed > 0) {
    actions.push(['Retry', 'retry', `Retry campaign ${report.id}?`,
      `Its ${number(counts.failed)} failed deliveries will be sent again.`]);
  }
  if (actions.length === 0) return null;
  return h('div', { class: 'actions' }, actions.map(([label, verb, heading, text]) => h('button', {
    type: 'button', class: verb === 'cancel' ? 'danger' : '', 'data-action': verb, 'data-key': `${verb}-${report.id}`,
    'aria-label': `${label} campaign ${report.id}`,
    onclick: async () => {
      if (!(await context.confirm(heading, text, label))) return;
      try {
        const answer = await post(`/v1/campaigns/${encodeURIComponent(report.id)}/${verb}`);
        done(describe(verb, report.id, answer));
      } catch (error) {
        done(error instanceof APIError ? `${label} failed: ${error.message}` : String(error));
      }
    },
  }, label)));
}

function describe(verb, id, answer) {
  switch (verb) {
    case 'cancel': return `Campaign ${id} cancelled: ${number(answer.cancelled)} deliveries will not be sent, ${number(answer.inFlight)} were already on their way.`;
    case 'retry': return `Campaign ${id}: ${number(answer.requeued)} deliveries will be sent again.`;
    case 'pause': return `Campaign ${id} paused.`;
    default: return `Campaign ${id} resumed.`;
  }
}

/** A campaign's progress: a bar of finished deliveries, with the figure as text. */
export function progress(report) {
  const finished = report.total - report.counts.pending;
  const done = report.status === 'completed' || report.status === 'cancelled';
  const percent = report.total === 0 ? (done ? 100 : 0) : Math.floor((finished * 100) / report.total);
  return h('div', { class: 'progress' },
    h('progress', { max: 100, value: percent, 'aria-label': `Campaign ${report.id}: ${percent}% finished` }),
    h('span', { class: 'percent', 'data-percent': percent }, `${percent}%`),
    h('span', { class: 'muted' }, ` ${number(finished)} of ${number(report.total)}`));
}
