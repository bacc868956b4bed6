// Records of other resources that point at a record (a tracker's issues): its related lists,
// one folded section per foreign key pointing here, each one request when opened; and, when a
// delete is refused, the records that hold it, by name.
import { api } from './api.js';
import { h, labelOf, navTitle, recordLabel, shortTitle } from './dom.js';
import { inLang, t } from './i18n.js';
import { expandOf, recordsTable } from './list.js';
import { registerPanel } from './record-panels.js';

const SHOWN = 10;
const HOLDERS_SHOWN = 5;

/** The referrers of `meta` whose resource the user may view: `{ referrer, source }`. */
function referrersOf(meta, app, only = () => true) {
  return meta.referrers.filter((r) => only(r) && app.can(r.resource, 'view')).map((referrer) => ({ referrer, source: app.meta.resources[referrer.resource] }));
}

/** The records of `source` whose `referrer` key is `id`, the first `limit`, with the total. */
async function referring(source, referrer, id, limit, columns = []) {
  const params = new URLSearchParams({ [referrer.param]: String(id), limit: String(limit), count: 'true' });
  const expand = expandOf(source, columns);
  if (expand) params.set('expand', expand);
  const res = await api('GET', `${source.path}?${params}`);
  return res.status === 200 ? { records: res.data, total: Number(res.headers.get('X-Total-Count') ?? res.data.length) } : { records: [], total: 0 };
}

const listHref = (source, referrer, id) => `#/r/${source.key}?${referrer.param}=${id}`;

/** A heading for a related list: the resource, and which of its keys when it has several pointing here. */
function headingOf(meta, source, referrer) {
  const several = meta.referrers.filter((r) => r.resource === referrer.resource).length > 1;
  return several ? `${navTitle(source)} · ${inLang(referrer.labels)}` : navTitle(source);
}

function relatedList(meta, record, app, { referrer, source }) {
  const body = h('div', { class: 'related-body' });
  const section = h('details', { class: 'related', 'data-resource': source.key, 'data-relation': referrer.relation }, h('summary', {}, headingOf(meta, source, referrer)), body);
  let loaded = false;
  section.addEventListener('toggle', async () => {
    if (!section.open || loaded) return;
    loaded = true;
    const columns = source.listColumns.filter((c) => c !== referrer.relation);
    const { records, total } = await referring(source, referrer, record.id, SHOWN, columns);
    body.replaceChildren(
      records.length ? recordsTable(source, columns, records, app, { caption: headingOf(meta, source, referrer) }) : h('p', {}, t('noRecords')),
      total > records.length ? h('p', {}, h('a', { href: listHref(source, referrer, record.id) }, `${t('showAll')} (${total})`)) : '',
    );
  });
  return section;
}

registerPanel({
  id: 'related',
  place: 'after',
  applies: (meta, app) => referrersOf(meta, app).length > 0,
  render: (meta, record, app) => h('section', { class: 'related-lists', 'aria-label': t('related') }, h('h2', {}, t('related')), referrersOf(meta, app).map((r) => relatedList(meta, record, app, r))),
});

/**
 * For a refused delete: the records holding `record` (protecting keys pointing at it), by name
 * with links, a few per resource and a link to the rest. One request per holding resource.
 */
export async function holdersOf(meta, record, app) {
  const holding = referrersOf(meta, app, (r) => r.protects);
  const found = await Promise.all(holding.map(async (r) => ({ ...r, ...(await referring(r.source, r.referrer, record.id, HOLDERS_SHOWN)) })));
  return found
    .filter((f) => f.records.length)
    .map(({ source, referrer, records, total }) =>
      h(
        'p',
        { class: 'holders', 'data-resource': source.key },
        `${t('heldBy')} ${shortTitle(source)} (${labelOf({ labels: referrer.labels })}): `,
        records.flatMap((r, i) => [i ? ', ' : '', h('a', { href: `#/r/${source.key}/${r.id}` }, recordLabel(source, r))]),
        total > records.length ? [' ', h('a', { href: listHref(source, referrer, record.id) }, t('andMore', { n: total - records.length }))] : '',
      ),
    );
}
