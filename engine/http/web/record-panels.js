// What a record's screen shows besides its form, as a registry: panels (sections drawn before or
// after the form, on the record tab), actions (buttons under it) and tabs (beside the record tab,
// drawn when first opened). A feature adds its view of a record (files, history, a restore
// button…) by registering here, without touching the record screen:
//
//   registerPanel({ id: 'files', place: 'after', applies: (meta, app) => …, render: async (meta, record, app) => element });
//   registerAction({ id: 'restore', applies: (meta, record, app) => …, label: () => t('restore'), run: async (meta, record, app) => … });
//   registerTab({ id: 'history', applies: (meta, app) => …, label: () => t('history'), render: async (meta, record, app) => [elements] });
//
// `render` may return null (nothing to show). Panels, actions and tabs appear in the order registered.

const panels = [];
const actions = [];
const tabs = [];

/** `{ id, place: 'before' | 'after', applies(meta, app), render(meta, record, app) }`. */
export function registerPanel(panel) {
  panels.push(panel);
}

/** `{ id, applies(meta, record, app), label(meta, record), run(meta, record, app), danger? }`. */
export function registerAction(action) {
  actions.push(action);
}

/** `{ id, applies(meta, app), label(), render(meta, record, app) }`; `id` names the tab in the URL (`?tab=id`). */
export function registerTab(tab) {
  tabs.push(tab);
}

/** The panels of `place` for a record of `meta`, drawn. */
export async function panelsOf(place, meta, record, app) {
  const chosen = panels.filter((p) => p.place === place && p.applies(meta, app));
  return (await Promise.all(chosen.map((p) => p.render(meta, record, app)))).filter(Boolean);
}

export const actionsOf = (meta, record, app) => actions.filter((a) => a.applies(meta, record, app));

/** The hash of a record's screen showing tab `tab` (the record tab without `?tab=`). */
export const recordHash = (meta, id, tab = 'record') => `#/r/${meta.key}/${id}${tab === 'record' ? '' : `?tab=${tab}`}`;

export const tabsOf = (meta, app) => tabs.filter((tab) => tab.applies(meta, app));
