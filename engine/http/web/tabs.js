// Tabs as the WAI-ARIA pattern has them: a tablist of buttons (role tab) and one panel (role
// tabpanel) per tab. One tab is in the Tab order; arrow keys, Home and End move between tabs and
// show the one they reach (automatic activation). A panel is drawn the first time it is shown, so a
// tab nobody opens costs no request.
import { h } from './dom.js';

/**
 * `tabs`: `[{ id, label, draw: async () => children }]`; `chosen`: the id shown first (else the
 * first tab), drawn before this resolves; `onChoose(id)`: told of every later choice (the URL
 * keeps it). `name` labels the tablist.
 */
export async function tabView({ name, tabs, chosen, onChoose }) {
  const buttons = tabs.map((tab) => h('button', { type: 'button', role: 'tab', id: `tab-${tab.id}`, 'aria-controls': `panel-${tab.id}`, 'data-tab': tab.id }, tab.label));
  const panels = tabs.map((tab) => h('div', { role: 'tabpanel', id: `panel-${tab.id}`, class: 'tab-panel', 'aria-labelledby': `tab-${tab.id}`, tabindex: 0 }));
  const drawn = new Set();
  const show = async (i) => {
    buttons.forEach((button, j) => {
      button.setAttribute('aria-selected', String(i === j));
      button.tabIndex = i === j ? 0 : -1;
      panels[j].hidden = i !== j;
    });
    if (drawn.has(i)) return;
    drawn.add(i);
    panels[i].setAttribute('aria-busy', 'true');
    panels[i].replaceChildren(...(await tabs[i].draw()).filter((p) => p !== null && p !== undefined));
    panels[i].removeAttribute('aria-busy');
  };
  const choose = (i, focus) => {
    if (focus) buttons[i].focus();
    if (buttons[i].getAttribute('aria-selected') === 'true') return;
    onChoose?.(tabs[i].id);
    void show(i);
  };
  buttons.forEach((button, i) => button.addEventListener('click', () => choose(i, false)));
  const list = h('div', { role: 'tablist', class: 'tabs', 'aria-label': name }, buttons);
  list.addEventListener('keydown', (event) => {
    const at = buttons.indexOf(document.activeElement);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: buttons.length - 1 }[event.key];
    if (at < 0 || to === undefined) return;
    event.preventDefault();
    choose((to + buttons.length) % buttons.length, true);
  });
  await show(Math.max(0, tabs.findIndex((tab) => tab.id === chosen)));
  return h('div', { class: 'tab-view' }, list, panels);
}
