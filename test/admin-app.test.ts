/**
 * The admin app at `/app/`, generated from the declarations: over HTTP (the redirect from `/`, the
 * metadata naming every declared resource) and in headless Chromium: sign in, the issue list
 * filtered by state and searched, an issue created through the form with two categories after a
 * validation error beside the title, moved `new` → `pending` with a button and seen in the history,
 * a tracker with issues refused deletion in words, and no create button for a user without
 * `issues.add_issue`. With ADMIN_SCREENSHOTS=1 it writes the README's screenshots into docs/.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { suite } from './support/hooks.js';
import { chromiumOrPending, launchChromium } from './support/chromium.js';
import { created, makeUser, unique, type TestUser } from './support/fixtures.js';

const DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs');
const SCREENSHOTS = process.env.ADMIN_SCREENSHOTS === '1';

describe('admin app (/app/)', () => {
  it('is where / leads', async () => {
    const res = await suite().admin.as(null).get('/');
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('/app/');
  });

  it('describes every declared resource in its public metadata, under a strict Content-Security-Policy and an ETag', async () => {
    const { admin, service } = suite();
    const res = await admin.as(null).get('/app/metadata.json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy')).to.include("default-src 'self'");
    // asked again by the browser (no-cache), it costs nothing while unchanged
    expect(res.headers.get('cache-control')).to.equal('no-cache');
    // (fetch adds `Cache-Control: no-cache`, an end-to-end reload, to a conditional request that names none)
    const again = await admin.as(null).get('/app/metadata.json', { headers: { 'If-None-Match': res.headers.get('etag')!, 'Cache-Control': 'max-age=0' } });
    expect(again.status).to.equal(304);
    const keys = [...service.app.services.keys()];
    expect(Object.keys(res.body.resources)).to.have.members(keys);
    expect(res.body.modules.flatMap((m: { resources: string[] }) => m.resources)).to.have.members(keys);
    const issue = res.body.resources['issue/issue'];
    expect(issue).to.include({ path: '/api/issue/issue', recordLabel: 'title' });
    expect(issue.listColumns).to.deep.equal(['id', 'title', 'state', 'tracker', 'assigned_user', 'deadline']);
    expect(issue.search).to.deep.equal(['Title', 'Description']);
    expect(issue.fields.find((f: { name: string }) => f.name === 'categories')).to.include({ kind: 'm2m', writeName: 'category_ids', target: 'issue/category' });
    expect(issue.filters.map((f: { param: string }) => f.param)).to.include.members(['state', 'deadline_from', 'deadline_to', 'tracker', 'categories']);
  });
});

describe('admin app dashboard counts (/app/summary.json)', () => {
  it('counts, per resource the user may view and per state, the records their lists show; signed out, 401', async () => {
    const { admin } = suite();
    expect((await admin.as(null).get('/app/summary.json')).status).to.equal(401);
    const user = await makeUser({ permissions: ['issues.view_tracker'] });
    await created(admin, '/api/issue/tracker', { title: unique('Seen tracker'), visibility: 'normal' });
    await created(admin, '/api/issue/tracker', { title: unique('Hidden tracker'), visibility: 'confidential' });
    const res = await user.client.get('/app/summary.json');
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(['issue/tracker']);
    const listed = async (query: string) => Number((await user.client.get(`/api/issue/tracker?limit=1&count=true${query}`)).headers.get('x-total-count'));
    const { total, states } = res.body['issue/tracker'];
    expect(total).to.equal(await listed(''));
    expect(total).to.be.below(Number((await admin.get('/api/issue/tracker?limit=1&count=true')).headers.get('x-total-count')));
    for (const [state, n] of Object.entries(states)) expect(n, state).to.equal(await listed(`&state=${state}`));
  });
});

describe('admin app (/app/) in headless Chromium', function () {
  this.timeout(90_000);
  let browser: Browser;
  before(async function () {
    browser = await launchChromium(chromiumOrPending(this));
  });
  after(async () => browser?.close());

  /**
   * A page signed in as `user`, which fails the test on any script error and on a 401 logged in the
   * console (asking who is signed in before anyone is). `options` are the browser context's (a phone's
   * viewport, a German locale, CSP bypassed for injecting axe-core).
   */
  async function signedIn(user: TestUser, errors: string[], options: BrowserContextOptions = {}): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 }, ...options })).newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => void (/Content Security Policy|status of 401/.test(m.text()) && errors.push(m.text())));
    await page.goto(`${suite().service.url}/`);
    await page.locator('#signin:not([hidden])').waitFor();
    await page.fill('#signin input[name=username]', user.username);
    await page.fill('#signin input[name=password]', 'correct-horse-1');
    await page.click('#signin button[type=submit]');
    await page.waitForSelector('#user:not([hidden])');
    return page;
  }

  const rowTitles = (page: Page) => page.locator('#records tbody tr td:nth-child(2)').allInnerTexts();

  /** Clicks `selector` and waits for the screen it leads to to be drawn. */
  async function clickAndDraw(page: Page, selector: string): Promise<void> {
    const before = Number(await page.getAttribute('#view', 'data-drawn'));
    await page.click(selector);
    await page.waitForFunction((n) => Number(document.querySelector('#view')!.getAttribute('data-drawn')) > n && !document.querySelector('#view')!.hasAttribute('aria-busy'), before);
  }
  const applyFilters = (page: Page) => clickAndDraw(page, '#filters button[type=submit]');

  it('lists, filters, searches, creates with categories, moves a state, and refuses to delete a tracker with issues', async () => {
    const { admin } = suite();
    const crud = ['view', 'add', 'change', 'delete'].flatMap((a) => ['issue', 'tracker', 'issuecategory'].map((m) => `issues.${a}_${m}`));
    const user = await makeUser({ permissions: crud });
    const word = unique('Browser');
    const tracker = await created(admin, '/api/issue/tracker', { title: `${word} tracker`, visibility: 'normal', admin_ids: [user.id] });
    const categories = [await created(admin, '/api/issue/category', { title: `${word} hardware`, tracker_id: tracker.id }), await created(admin, '/api/issue/category', { title: `${word} network`, tracker_id: tracker.id })];
    await created(admin, '/api/issue/issue', { title: `${word} printer jams`, tracker_id: tracker.id });
    const vpn = await created(admin, '/api/issue/issue', { title: `${word} VPN drops`, tracker_id: tracker.id });
    expect((await admin.patch(`/api/issue/issue/${vpn.id}`, { state: 'pending' })).status).to.equal(200);

    const errors: string[] = [];
    const page = await signedIn(user, errors);
    // navigation by module, then resource
    await page.locator('#nav li', { hasText: 'Issue' }).getByRole('link', { name: 'Issue (Meldung)' }).click();
    await page.locator('#records').waitFor();
    expect(await page.locator('#records thead th').allInnerTexts()).to.deep.equal(['Id', 'Title', 'State', 'Tracker', 'Assigned user', 'Deadline']);

    await page.selectOption('#filter-state', 'pending');
    await applyFilters(page);
    // states by their declared names, the raw value on hover
    const states = await page.locator('#records tbody tr td:nth-child(3) [data-raw]').evaluateAll((spans) => spans.map((s) => s.getAttribute('title')));
    expect(states.length).to.be.greaterThan(0);
    expect(new Set(states)).to.deep.equal(new Set(['pending']));
    expect(new Set(await page.locator('#records tbody tr td:nth-child(3)').allInnerTexts())).to.deep.equal(new Set(['Pending']));
    expect(await rowTitles(page)).to.include(`${word} VPN drops`).and.not.include(`${word} printer jams`);

    await page.selectOption('#filter-state', '');
    await page.fill('#filter-search', `${word} printer`);
    await page.check('#filters input[name=count]');
    await applyFilters(page);
    expect(await rowTitles(page)).to.deep.equal([`${word} printer jams`]);
    expect(await page.textContent('#rows')).to.equal('Rows 1–1 of 1');
    await page.fill('#filter-search', word);
    await applyFilters(page);
    // counts per state above the list, with its filters; exports of the same list
    expect(await page.locator('#state-counts li').allInnerTexts()).to.deep.equal(['New 1', 'Pending 1']);
    const csv = await page.getAttribute('.exports a:first-child', 'href');
    expect(new URL(csv!, page.url()).searchParams.get('search')).to.equal(word);
    const exported = await page.request.get(new URL(csv!, page.url()).href);
    expect(exported.headers()['content-type']).to.match(/^text\/csv/);
    expect(await exported.text()).to.include(`${word} printer jams`).and.include(`${word} VPN drops`);
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'admin-list.png') });

    // the form: the server's error beside the title, then two categories picked by search
    await page.click('#new-record');
    await page.locator('#record-form').waitFor();
    await page.fill('.field[data-field=tracker_id] input[type=search]', word);
    await page.locator('#field-tracker_id option', { hasText: `${word} tracker` }).waitFor({ state: 'attached' });
    await page.selectOption('#field-tracker_id', String(tracker.id));
    await page.click('#record-form button[type=submit]');
    const titleError = page.locator('.field[data-field=title] .error');
    await titleError.waitFor();
    expect(await titleError.textContent()).to.equal('This field is required.');
    expect(await page.getAttribute('#field-title', 'aria-describedby')).to.include('field-title-error');
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'admin-error.png'), fullPage: true });

    await page.fill('#field-title', `${word} badge reader offline`);
    await page.fill('.field[data-field=category_ids] input[type=search]', word);
    for (const c of categories) await page.locator('#field-category_ids option', { hasText: c.title }).waitFor({ state: 'attached' });
    await page.selectOption('#field-category_ids', categories.map((c) => String(c.id)));
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'admin-form.png'), fullPage: true });
    await page.click('#record-form button[type=submit]');
    await page.locator('h1', { hasText: `${word} badge reader offline` }).waitFor();
    expect(await page.textContent('#message')).to.equal('Issue created.');
    const id = Number(/\/(\d+)$/.exec(page.url())![1]);
    const issue = (await admin.get(`/api/issue/issue/${id}`)).body;
    expect(issue).to.include({ title: `${word} badge reader offline`, tracker: tracker.id, state: 'new' });
    expect(issue.categories).to.deep.equal(categories.map((c) => c.id));

    // the moves the declaration allows from `new`, as buttons
    expect(await page.locator('button.move').allInnerTexts()).to.deep.equal(['Move to pending', 'Move to rejected']);
    await page.click('button.move[data-to=pending]');
    await page.locator('strong.state', { hasText: 'pending' }).waitFor();
    // states named, their raw values in `data-raw`
    const history = await page
      .locator('table.history tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(0, 3).map((td) => td.querySelector('[data-raw]')?.getAttribute('data-raw') ?? td.textContent)));
    expect(history).to.deep.equal([
      ['—', 'new', String(user.id)],
      ['new', 'pending', String(user.id)],
    ]);
    expect((await admin.get(`/api/issue/issue/${id}`)).body.state).to.equal('pending');

    // an edit sends what changed
    await page.fill('#field-deadline', '2027-01-31');
    await clickAndDraw(page, '#record-form button[type=submit]');
    expect(await page.textContent('#message')).to.equal('Saved.');
    expect((await admin.get(`/api/issue/issue/${id}`)).body).to.include({ deadline: '2027-01-31', state: 'pending', title: `${word} badge reader offline` });

    // deleting a tracker that still has issues: confirmed, then refused in words
    await page.goto(`${suite().service.url}/app/#/r/issue/tracker/${tracker.id}`);
    await page.locator('h1', { hasText: `${word} tracker` }).waitFor();
    const asked: string[] = [];
    page.once('dialog', (dialog) => void (asked.push(dialog.message()), dialog.accept()));
    await page.click('#delete');
    await page.waitForSelector('#message:not([hidden])');
    expect(asked).to.deep.equal([`Delete tracker ${word} tracker (#${tracker.id})? This cannot be undone.`]);
    expect(await page.textContent('#message')).to.equal(`Cannot delete tracker ${tracker.id}: referenced by 3 issue records.`);
    expect((await admin.get(`/api/issue/tracker/${tracker.id}`)).status).to.equal(200);
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it('offers only what the permissions allow: no create button without issues.add_issue, a 403 as a message', async () => {
    const { admin } = suite();
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('Read-only tracker'), visibility: 'normal' });
    const issue = await created(admin, '/api/issue/issue', { title: unique('Read-only issue'), tracker_id: tracker.id });
    const user = await makeUser({ permissions: ['issues.view_issue', 'issues.view_tracker', 'issues.change_tracker'] });
    const errors: string[] = [];
    const page = await signedIn(user, errors);
    // only the resources it may view
    const links = await page.locator('#nav a').allInnerTexts();
    // and the trash, as issues have one
    expect(links).to.include.members(['API tokens', 'Trash', 'Issue (Meldung)', 'Tracker (Meldekreis)']).and.not.include('Category (Kategorie)');
    expect(links).to.have.length(4);

    await page.goto(`${suite().service.url}/app/#/r/issue/issue`);
    await page.locator('#records').waitFor();
    expect(await page.locator('#new-record').count()).to.equal(0);
    await page.goto(`${suite().service.url}/app/#/r/issue/issue/${issue.id}`);
    await page.locator('h1', { hasText: issue.title }).waitFor();
    expect(await page.locator('#delete, button.move, #record-form button[type=submit]').count()).to.equal(0);
    expect(await page.locator('.field.readonly', { hasText: 'Title' }).count()).to.equal(1);

    // the model permission allows a change, the tracker's admins rule does not
    await page.goto(`${suite().service.url}/app/#/r/issue/tracker/${tracker.id}`);
    await page.locator('h1', { hasText: tracker.title }).waitFor();
    await page.click('button.move[data-to=approved]');
    await page.waitForSelector('#message:not([hidden])');
    expect(await page.textContent('#message')).to.equal('You do not have permission to perform this action.');
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it('imports a CSV through the list’s dialog: a dry run shows every error by row, then the corrected file is imported', async () => {
    const { admin, service } = suite();
    const user = await makeUser({ permissions: ['view', 'add', 'change'].flatMap((a) => [`issues.${a}_issue`, `issues.${a}_tracker`]) });
    const word = unique('Imported');
    const tracker = await created(admin, '/api/issue/tracker', { title: `${word} tracker`, visibility: 'normal', admin_ids: [user.id] });
    const errors: string[] = [];
    const page = await signedIn(user, errors);
    await page.goto(`${service.url}/app/#/r/issue/issue`);
    await page.locator('#records').waitFor();
    // the CSV export link asks for a spreadsheet's CSV: a BOM, formulas escaped
    const csv = new URL((await page.getAttribute('.exports a:first-child', 'href'))!, page.url()).searchParams;
    expect([csv.get('format'), csv.get('bom'), csv.get('escape_formulas')]).to.deep.equal(['csv', 'true', 'true']);

    await page.click('details.import-dialog summary');
    const upload = (lines: string[]) => page.setInputFiles('#import-file', { name: 'issues.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\r\n')) });
    await upload(['title,tracker_id,deadline', `${word} one,${tracker.id},2027-02-01`, `,${tracker.id},`, `${word} three,${tracker.id},tomorrow`]);
    await page.click('#import-check');
    const table = page.locator('#import-result table.import-errors');
    await table.waitFor();
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).to.deep.equal([
      ['3', 'title', 'This field is required.'],
      ['4', 'deadline', 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
    ]);
    expect(await service.db('issue_issue').where({ tracker_id: tracker.id }).pluck('title')).to.deep.equal([]);

    await upload(['title,tracker_id,deadline', `${word} one,${tracker.id},2027-02-01`, `${word} two,${tracker.id},`]);
    await page.click('#import-check');
    await page.locator('#import-result p[role=status]', { hasText: 'Valid: 2 rows (2 to create, 0 to update).' }).waitFor();
    await page.click('#import-run');
    await page.locator('#import-result p[role=status]', { hasText: 'Imported 2 rows: 2 created, 0 updated.' }).waitFor();
    expect(await service.db('issue_issue').where({ tracker_id: tracker.id }).orderBy('id').pluck('title')).to.deep.equal([`${word} one`, `${word} two`]);
    expect(errors).to.deep.equal([]);
  });

  /** A tracker with two issues, one assigned to `user` and pending, for the tests below. */
  async function trackerWithIssues(user: TestUser) {
    const { admin } = suite();
    const word = unique('Named');
    const tracker = await created(admin, '/api/issue/tracker', { title: `${word} tracker`, visibility: 'normal', admin_ids: [user.id] });
    const assigned = await created(admin, '/api/issue/issue', { title: `${word} boiler leaks`, tracker_id: tracker.id, assigned_user_id: user.id });
    expect((await admin.patch(`/api/issue/issue/${assigned.id}`, { state: 'pending' })).status).to.equal(200);
    const other = await created(admin, '/api/issue/issue', { title: `${word} door squeaks`, tracker_id: tracker.id });
    return { word, tracker, assigned, other };
  }

  /** A user who may work with issues and see users (so users are named too). */
  async function issueWorker(extra: string[] = []): Promise<TestUser> {
    const { body: meta } = await suite().admin.as(null).get('/app/metadata.json');
    const crud = ['view', 'add', 'change', 'delete'].flatMap((a) => ['issue', 'tracker', 'issuecategory'].map((m) => `issues.${a}_${m}`));
    return makeUser({ permissions: [...crud, meta.resources.user.permissions.view, ...extra] });
  }

  /** The rows of the diff shown, by field: the cells' texts, and the raw values (`title`) of the names in them. */
  const diffOf = (page: Page) =>
    page.locator('#panel-history table.diff tbody tr').evaluateAll((rows) =>
      Object.fromEntries(rows.map((r) => [r.getAttribute('data-field'), [...r.querySelectorAll('td')].map((td) => ({ text: td.textContent, raw: [...td.querySelectorAll('[title]')].map((e) => e.getAttribute('title')) }))])),
    );
  const hashOf = (page: Page) => new URL(page.url()).hash;
  const tabState = (page: Page) =>
    page.evaluate(() => ({
      selected: document.querySelector('[role=tab][aria-selected=true]')?.getAttribute('data-tab'),
      focused: document.activeElement?.getAttribute('data-tab'),
      shown: [...document.querySelectorAll('[role=tabpanel]')].filter((p) => !(p as HTMLElement).hidden).map((p) => p.id),
    }));

  it('shows a record’s history as a tab, opened by click, keyboard or link: versions, differences naming related records, a restore; the trash restores and purges', async () => {
    const { admin } = suite();
    const user = await issueWorker();
    const { word, tracker, other, assigned } = await trackerWithIssues(user);
    const second = await created(admin, '/api/issue/tracker', { title: `${word} second tracker`, visibility: 'normal', admin_ids: [user.id] });
    const categories = [await created(admin, '/api/issue/category', { title: `${word} heating`, tracker_id: second.id }), await created(admin, '/api/issue/category', { title: `${word} plumbing`, tracker_id: second.id })];
    for (const body of [{ title: `${word} door creaks` }, { title: `${word} door bangs`, deadline: '2027-05-31' }, { tracker_id: second.id, category_ids: categories.map((c) => c.id) }]) {
      expect((await admin.patch(`/api/issue/issue/${other.id}`, body)).status).to.equal(200);
    }
    const me = (await admin.get('/api/auth/me')).body;
    const errors: string[] = [];
    const page = await signedIn(user, errors);
    const asked: string[] = [];
    page.on('request', (r) => void (new URL(r.url()).pathname.startsWith('/api/') && asked.push(new URL(r.url()).pathname)));

    // the record tab first; the history is a tab beside it, asked for only when opened
    await page.goto(`${suite().service.url}/app/#/r/issue/issue/${other.id}`);
    await page.locator('h1', { hasText: `${word} door bangs` }).waitFor();
    expect(await page.locator('[role=tablist] [role=tab]').allInnerTexts()).to.deep.equal(['Record', 'History']);
    expect(await page.getAttribute('[role=tablist]', 'aria-label')).to.equal(`Issue ${word} door bangs (#${other.id})`);
    expect(await tabState(page)).to.deep.include({ selected: 'record', shown: ['panel-record'] });
    expect(await page.getAttribute('#tab-history', 'tabindex')).to.equal('-1');
    expect(await page.getAttribute('#panel-history', 'aria-labelledby')).to.equal('tab-history');
    expect(asked.filter((p) => p.endsWith('/history'))).to.deep.equal([]);

    // opened by a click: the hash names the tab; the versions newest first, by whom
    asked.length = 0;
    await page.click('#tab-history');
    await page.locator('#panel-history table.versions tbody tr').first().waitFor();
    expect(hashOf(page)).to.equal(`#/r/issue/issue/${other.id}?tab=history`);
    expect(await tabState(page)).to.deep.include({ selected: 'history', shown: ['panel-history'] });
    expect(await page.locator('#panel-history table.versions tbody tr td:nth-child(3)').allInnerTexts()).to.deep.equal(['changed', 'changed', 'changed', 'created']);
    expect(await page.locator('#panel-history table.versions tbody tr td:nth-child(2)').allInnerTexts()).to.deep.equal(Array(4).fill(me.username));
    // the latest change against the one before it: trackers and categories by name, their ids on hover
    expect(await diffOf(page)).to.deep.equal({
      tracker: [
        { text: `${word} tracker`, raw: [`#${tracker.id}`] },
        { text: `${word} second tracker`, raw: [`#${second.id}`] },
      ],
      categories: [
        { text: '—', raw: [] },
        { text: `${word} heating, ${word} plumbing`, raw: categories.map((c) => `#${c.id}`) },
      ],
    });
    expect(await page.getAttribute('#panel-history table.diff tr[data-field=tracker] td:first-of-type a', 'href')).to.equal(`#/r/issue/tracker/${tracker.id}`);
    // one request for the versions, then one per record named that the record did not bring (its expand did): the old tracker, the author
    expect(asked.sort()).to.deep.equal([`/api/issue/issue/${other.id}/history`, `/api/issue/tracker/${tracker.id}`, `/api/user/${me.id}`].sort());
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'admin-history.png'), fullPage: true });
    // a version against the one before it
    await page.click('#panel-history table.versions tbody tr:nth-child(2) button.compare-version');
    expect(await diffOf(page)).to.deep.equal({
      title: [
        { text: `${word} door creaks`, raw: [] },
        { text: `${word} door bangs`, raw: [] },
      ],
      deadline: [
        { text: '—', raw: [] },
        { text: new Date('2027-05-31T00:00:00').toLocaleDateString('en'), raw: [] },
      ],
    });

    // by keyboard: the record tab is the one in the Tab order; the arrows move between tabs and show them
    await page.goto(`${suite().service.url}/app/#/r/issue/issue/${other.id}`);
    await page.locator('#tab-record[aria-selected=true]').waitFor();
    await page.focus('#tab-record');
    await page.keyboard.press('ArrowRight');
    await page.locator('#panel-history table.versions').waitFor();
    expect(await tabState(page)).to.deep.equal({ selected: 'history', focused: 'history', shown: ['panel-history'] });
    expect(hashOf(page)).to.equal(`#/r/issue/issue/${other.id}?tab=history`);
    await page.keyboard.press('ArrowLeft');
    expect(await tabState(page)).to.deep.equal({ selected: 'record', focused: 'record', shown: ['panel-record'] });
    expect(hashOf(page)).to.equal(`#/r/issue/issue/${other.id}`);
    await page.keyboard.press('End');
    expect(await tabState(page)).to.deep.equal({ selected: 'history', focused: 'history', shown: ['panel-history'] });

    // by link: the hash opens the tab; a state by its name, its value on hover
    await page.goto(`${suite().service.url}/app/#/r/issue/issue/${assigned.id}?tab=history`);
    await page.locator('h1', { hasText: `${word} boiler leaks` }).waitFor();
    await page.locator('#panel-history table.diff').waitFor();
    expect(await tabState(page)).to.deep.include({ selected: 'history', shown: ['panel-history'] });
    expect(await diffOf(page)).to.deep.equal({
      state: [
        { text: 'New', raw: ['new'] },
        { text: 'Pending', raw: ['pending'] },
      ],
    });

    // a version written back from the tab, asked first: a new version of its own, and the tab stays open
    await page.goto(`${suite().service.url}/app/#/r/issue/issue/${other.id}?tab=history`);
    await page.locator('#panel-history table.versions tbody tr').nth(3).waitFor();
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => void (dialogs.push(dialog.message()), dialog.accept()));
    await clickAndDraw(page, '#panel-history table.versions tbody tr:nth-child(3) button.restore-version');
    expect(dialogs[0]).to.match(/^Restore the version of .+\? Its values are written back as a new change\.$/);
    expect(await page.textContent('#message')).to.match(/^Version of .+ restored\.$/);
    await page.locator('h1', { hasText: `${word} door creaks` }).waitFor();
    expect(hashOf(page)).to.equal(`#/r/issue/issue/${other.id}?tab=history`);
    await page.locator('#panel-history table.versions tbody tr').nth(4).waitFor();
    expect((await admin.get(`/api/issue/issue/${other.id}`)).body).to.include({ title: `${word} door creaks`, deadline: null, tracker: tracker.id });
    expect((await admin.get(`/api/issue/issue/${other.id}`)).body.categories).to.deep.equal([]);
    expect((await admin.get(`/api/issue/issue/${other.id}/history`)).body).to.have.length(5);

    // deleted, it is in the trash, named, with who deleted it; restored from there
    await page.click('#tab-record');
    page.once('dialog', (dialog) => void dialog.accept());
    await clickAndDraw(page, '#delete');
    await page.goto(`${suite().service.url}/app/#/trash?resource=issue/issue`);
    const entry = page.locator(`#trash tbody tr[data-record="issue/issue/${other.id}"]`);
    await entry.waitFor();
    expect(await entry.locator('td').allInnerTexts()).to.deep.include.members(['Issue', `${word} door creaks`, user.username]);
    expect(await page.locator('#trash-resource option:checked').innerText()).to.equal('Issue (Meldung)');
    await clickAndDraw(page, `#trash tbody tr[data-record="issue/issue/${other.id}"] button.restore`);
    expect(await page.textContent('#message')).to.equal(`Issue ${word} door creaks (#${other.id}) restored.`);
    await page.locator('h1', { hasText: `${word} door creaks` }).waitFor();
    expect((await admin.get(`/api/issue/issue/${other.id}`)).body.tracker).to.equal(tracker.id);

    // purged for good, asked first
    const doomed = await created(admin, '/api/issue/issue', { title: `${word} fax broken`, tracker_id: tracker.id });
    expect((await admin.delete(`/api/issue/issue/${doomed.id}`)).status).to.equal(204);
    await page.goto(`${suite().service.url}/app/#/trash`);
    await page.locator(`#trash tbody tr[data-record="issue/issue/${doomed.id}"]`).waitFor();
    dialogs.length = 0;
    page.once('dialog', (dialog) => void (dialogs.push(dialog.message()), dialog.accept()));
    await clickAndDraw(page, `#trash tbody tr[data-record="issue/issue/${doomed.id}"] button.purge`);
    expect(dialogs).to.deep.equal([`Delete issue ${word} fax broken (#${doomed.id}) for good? This cannot be undone.`]);
    expect(await page.textContent('#message')).to.equal(`Issue ${word} fax broken (#${doomed.id}) purged.`);
    expect(await page.locator(`#trash tbody tr[data-record="issue/issue/${doomed.id}"]`).count()).to.equal(0);
    expect((await admin.get(`/api/trash?resource=issue/issue&record_id=${doomed.id}`)).body).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it('filters the trash by who deleted (a user picker) and since when, in the URL as a list’s filters are', async () => {
    const { admin, service } = suite();
    const user = await issueWorker();
    const { word, tracker, other, assigned } = await trackerWithIssues(user);
    const old = await created(admin, '/api/issue/issue', { title: `${word} telex silent`, tracker_id: tracker.id });
    // two deleted by the user (one of them long ago), one by someone else
    for (const issue of [old, other]) expect((await user.client.delete(`/api/issue/issue/${issue.id}`)).status).to.equal(204);
    expect((await admin.delete(`/api/issue/issue/${assigned.id}`)).status).to.equal(204);
    // days ago, within the retention period (the retention test purges older entries)
    const daysAgo = (n: number) => new Date(Math.floor(Date.now() / 1000 - n * 86_400) * 1000);
    const then = daysAgo(5);
    const since = daysAgo(2).toISOString().slice(0, 10);
    await service.db('trash').where({ resource: 'issue/issue', record_id: old.id }).update({ deleted_at: then.toISOString() });
    const errors: string[] = [];
    const page = await signedIn(user, errors);
    const shown = () => page.locator('#trash tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-record')));
    const query = () => Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.split('?')[1]));

    await page.goto(`${suite().service.url}/app/#/trash`);
    await page.locator('#trash tbody tr').first().waitFor();
    expect(await page.locator('#trash-filters label').allInnerTexts()).to.deep.equal(['Resource', 'Deleted by', 'Deleted on or after']);
    // the deleter picked by name
    await page.fill('#trash-filters .picker-search', user.username);
    await page.locator('#trash-deleted_by option', { hasText: user.username }).waitFor({ state: 'attached' });
    await page.selectOption('#trash-deleted_by', String(user.id));
    await clickAndDraw(page, '#trash-filters button[type=submit]');
    expect(query()).to.deep.equal({ deleted_by: String(user.id) });
    expect(await shown()).to.deep.equal([`issue/issue/${other.id}`, `issue/issue/${old.id}`]);
    // who and when, by name
    const row = page.locator(`#trash tbody tr[data-record="issue/issue/${old.id}"]`);
    expect(await row.locator('td:nth-child(4)').innerText()).to.equal(user.username);
    expect(await row.locator('td:nth-child(3) time').getAttribute('datetime')).to.equal(then.toISOString());
    expect(await row.locator('td:nth-child(3)').innerText()).to.equal(then.toLocaleString('en'));

    // and since a date
    await page.fill('#trash-deleted_after', since);
    await clickAndDraw(page, '#trash-filters button[type=submit]');
    expect(query()).to.deep.equal({ deleted_by: String(user.id), deleted_after: since });
    expect(await shown()).to.deep.equal([`issue/issue/${other.id}`]);
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'admin-trash.png'), fullPage: true });

    // the URL alone draws the same screen, its filters filled in
    const someoneElse = (await admin.get('/api/auth/me')).body;
    await page.goto(`${suite().service.url}/app/#/trash?deleted_after=${since}&resource=issue/issue&deleted_by=${someoneElse.id}`);
    await page.locator(`#trash tbody tr[data-record="issue/issue/${assigned.id}"]`).waitFor();
    expect(await shown()).to.not.include(`issue/issue/${other.id}`);
    expect(await page.inputValue('#trash-deleted_after')).to.equal(since);
    expect(await page.locator('#trash-resource option:checked').innerText()).to.equal('Issue (Meldung)');
    await page.locator('#trash-deleted_by option:checked', { hasText: someoneElse.username }).waitFor({ state: 'attached' });
    // nothing matches: said so
    await page.goto(`${suite().service.url}/app/#/trash?deleted_by=${user.id}&deleted_after=2999-01-01`);
    await page.locator('#view p', { hasText: 'No deleted record matches the filters.' }).waitFor();
    // a bound the API refuses: its message, beside the filters
    await page.goto(`${suite().service.url}/app/#/trash?deleted_after=yesterday`);
    await page.locator('#view p.error').waitFor();
    expect(await page.locator('#view p.error').innerText()).to.match(/^deleted_after: /);
    expect(await page.locator('#trash-filters').count()).to.equal(1);
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it('speaks German in the history and the trash', async () => {
    const { admin } = suite();
    const user = await issueWorker();
    const { word, other, assigned } = await trackerWithIssues(user);
    expect((await admin.patch(`/api/issue/issue/${other.id}`, { title: `${word} Tür knarrt` })).status).to.equal(200);
    expect((await admin.delete(`/api/issue/issue/${assigned.id}`)).status).to.equal(204);
    const errors: string[] = [];
    const page = await signedIn(user, errors, { locale: 'de-CH' });
    await page.goto(`${suite().service.url}/app/#/r/issue/issue/${other.id}`);
    await page.locator('h1', { hasText: `${word} Tür knarrt` }).waitFor();
    expect(await page.locator('[role=tab]').allInnerTexts()).to.deep.equal(['Datensatz', 'Verlauf']);
    await page.click('#tab-history');
    await page.locator('table.versions tbody tr').first().waitFor();
    expect(await page.locator('table.versions tbody tr td:nth-child(3)').allInnerTexts()).to.deep.equal(['geändert', 'erstellt']);
    expect(await page.locator('table.versions button.restore-version').innerText()).to.equal('Wiederherstellen');
    expect(await page.locator('table.diff thead th').allInnerTexts()).to.deep.equal(['Feld', 'Ältere Version', 'Neuere Version']);
    // a restore the API refuses (pending → new is no move the machine allows): its message, as the API sends it, and nothing written
    expect((await admin.patch(`/api/issue/issue/${other.id}`, { state: 'pending' })).status).to.equal(200);
    // the hash keeps the tab open over a reload
    await page.reload();
    await page.locator('table.versions tbody tr').nth(2).waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('table.versions tbody tr:last-child button.restore-version');
    await page.waitForSelector('#message:not([hidden])');
    expect(await page.getAttribute('#message', 'class')).to.equal('error');
    const refused = await admin.post(`/api/issue/issue/${other.id}/history/${(await admin.get(`/api/issue/issue/${other.id}/history`)).body.at(-1).version}/restore`, {});
    expect(refused.status).to.equal(400);
    expect(await page.textContent('#message')).to.equal(`state: ${refused.body.state[0]}`);
    expect((await admin.get(`/api/issue/issue/${other.id}`)).body).to.include({ state: 'pending', title: `${word} Tür knarrt` });
    expect(await page.locator('#nav a', { hasText: 'Papierkorb' }).getAttribute('href')).to.equal('#/trash');
    await page.goto(`${suite().service.url}/app/#/trash`);
    await page.locator(`#trash tbody tr[data-record="issue/issue/${assigned.id}"]`).waitFor();
    expect(await page.locator('#view h1').innerText()).to.equal('Papierkorb');
    expect(await page.locator('#trash thead th').allInnerTexts()).to.deep.equal(['Ressource', 'Datensatz', 'Gelöscht', 'Durch']);
    expect(await page.locator('#trash-filters label').allInnerTexts()).to.deep.equal(['Ressource', 'Gelöscht von', 'Gelöscht ab']);
    expect(await page.locator(`#trash tbody tr[data-record="issue/issue/${assigned.id}"] button`).allInnerTexts()).to.deep.equal(['Wiederherstellen', 'Endgültig löschen']);
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it('names related records, not ids: in the list, the record, the filters and pickers, related lists, and a refused delete', async () => {
    const user = await issueWorker();
    const { word, tracker, assigned, other } = await trackerWithIssues(user);
    const errors: string[] = [];
    const page = await signedIn(user, errors);

    // the list: one request for the page, relations expanded (the dashboard signing in landed on
    // may still be asking for the user's own issues: those requests are not the list's)
    const lists: string[] = [];
    page.on('request', (r) => void (r.url().includes('/api/issue/issue?search=') && lists.push(r.url())));
    await page.goto(`${suite().service.url}/app/#/r/issue/issue?search=${encodeURIComponent(word)}&ordering=id`);
    await page.locator('#records tbody tr').first().waitFor();
    expect(lists).to.have.length(1);
    expect(new URL(lists[0]!).searchParams.get('expand')).to.equal('tracker,assigned_user');
    const row = page.locator(`#records tbody tr[data-id="${assigned.id}"]`);
    expect(await row.locator('td:nth-child(4)').innerText()).to.equal(`${word} tracker`);
    expect(await row.locator('td:nth-child(4) a').getAttribute('href')).to.equal(`#/r/issue/tracker/${tracker.id}`);
    expect(await row.locator('td:nth-child(5)').innerText()).to.equal(user.username);
    expect(await row.locator('td:nth-child(3)').innerText()).to.equal('Pending');
    expect(await row.locator('td:nth-child(3) span').getAttribute('title')).to.equal('pending');

    // the record: read-only relations and pickers named at once, state by its name
    await page.goto(`${suite().service.url}/app/#/r/issue/issue/${assigned.id}`);
    await page.locator('h1', { hasText: `${word} boiler leaks` }).waitFor();
    expect(await page.locator('#field-tracker_id option:checked').innerText()).to.equal(`${word} tracker (#${tracker.id})`);
    expect(await page.locator('#field-assigned_user_id option:checked').innerText()).to.equal(`${user.username} (#${user.id})`);
    expect(await page.locator('strong.state').innerText()).to.equal('Pending');
    const creator = (await suite().admin.get('/api/auth/me')).body;
    expect(await page.locator('.record-columns a').getAttribute('href')).to.equal(`#/r/user/${creator.id}`);
    expect(await page.locator('.record-columns').innerText()).to.include(`Created by: ${creator.username}`);

    // a filter by tracker shows the tracker's name
    await page.goto(`${suite().service.url}/app/#/r/issue/issue?tracker=${tracker.id}`);
    await page.locator('#filter-tracker option:checked', { hasText: `${word} tracker` }).waitFor({ state: 'attached' });
    expect(await page.locator('#records tbody tr').count()).to.equal(2);

    // the tracker's issues as a related list
    await page.goto(`${suite().service.url}/app/#/r/issue/tracker/${tracker.id}`);
    await page.locator('h1', { hasText: `${word} tracker` }).waitFor();
    const related = page.locator('details.related[data-resource="issue/issue"]');
    await related.locator('summary').click();
    await related.locator('tbody tr').first().waitFor();
    expect(await related.locator('tbody tr td:nth-child(2)').allInnerTexts()).to.have.members([`${word} boiler leaks`, `${word} door squeaks`]);

    // a refused delete: the API's message, styled as an error, in view, and the issues holding it by name
    page.once('dialog', (dialog) => void dialog.accept());
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.click('#delete');
    await page.locator('#message-details a').first().waitFor();
    expect(await page.getAttribute('#message', 'class')).to.equal('error');
    expect(await page.getAttribute('#message', 'role')).to.equal('alert');
    expect(await page.locator('#message').isVisible()).to.equal(true);
    const box = (await page.locator('#message').boundingBox())!;
    expect(box.y).to.be.within(0, 860 - box.height);
    const holders = await page.locator('#message-details a').evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute('href')]));
    expect(holders).to.have.deep.members([
      [`${word} boiler leaks`, `#/r/issue/issue/${assigned.id}`],
      [`${word} door squeaks`, `#/r/issue/issue/${other.id}`],
    ]);
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'admin-delete-refused.png') });

    // success in its own style
    await page.goto(`${suite().service.url}/app/#/r/issue/issue/${other.id}`);
    await page.locator('h1', { hasText: `${word} door squeaks` }).waitFor();
    await page.fill('#field-deadline', '2027-03-31');
    await clickAndDraw(page, '#record-form button[type=submit]');
    expect(await page.textContent('#message')).to.equal('Saved.');
    expect(await page.getAttribute('#message', 'class')).to.equal('success');
    expect(await page.getAttribute('#message', 'role')).to.equal('status');
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'admin-record.png'), fullPage: true });
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it('lands on a dashboard after sign-in: counts per module and state as the lists count them, my records, recent changes; the navigation folds and finds', async () => {
    const user = await issueWorker(['audit.view_entry']);
    const { word, assigned } = await trackerWithIssues(user);
    const errors: string[] = [];
    const page = await signedIn(user, errors);
    await page.locator('h1', { hasText: 'Dashboard' }).waitFor();
    expect(page.url()).to.match(/\/app\/(#\/?)?$/);

    // counts as the user's own lists count them
    const count = async (query: string) => Number((await user.client.get(`/api/issue/issue?limit=1&count=true${query}`)).headers.get('x-total-count'));
    const issues = page.locator('.counts li[data-resource="issue/issue"]');
    expect(Number(await issues.locator('.count').innerText())).to.equal(await count(''));
    expect(await issues.locator('li[data-state=pending]').innerText()).to.equal(`Pending ${await count('&state=pending')}`);
    expect(await issues.locator('li[data-state=pending] a').getAttribute('href')).to.equal('#/r/issue/issue?state=pending');
    expect(await page.locator('.dashboard-counts h3').allInnerTexts()).to.deep.equal(['Issues', 'Users and groups']);

    // assigned to me, and the latest changes named by their records
    expect(await page.locator('.assigned a', { hasText: `${word} boiler leaks` }).getAttribute('href')).to.equal(`#/r/issue/issue/${assigned.id}`);
    expect(await page.locator('.changes li', { hasText: `${word} door squeaks` }).first().innerText()).to.include('created');
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'admin-dashboard.png'), fullPage: true });

    // modules by their declared names; the search box narrows the resources
    expect(await page.locator('#nav summary').allInnerTexts()).to.deep.equal(['Issues', 'Users and groups']);
    await page.fill('#nav-search', 'track');
    expect(await page.locator('#nav details a').allInnerTexts()).to.deep.equal(['Tracker (Meldekreis)']);
    await page.press('#nav-search', 'Enter');
    await page.locator('#records').waitFor();
    expect(page.url()).to.match(/#\/r\/issue\/tracker$/);
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it('folds the navigation of a user with many resources, opening the current module', async () => {
    const { body: meta } = await suite().admin.as(null).get('/app/metadata.json');
    const everything = Object.values(meta.resources as Record<string, { permissions: { view: string } }>).map((r) => r.permissions.view);
    const user = await makeUser({ permissions: everything });
    const errors: string[] = [];
    const page = await signedIn(user, errors);
    await page.locator('h1', { hasText: 'Dashboard' }).waitFor();
    const open = () => page.locator('#nav details[open] summary').allInnerTexts();
    expect(await open()).to.deep.equal([]);
    const summaries = await page.locator('#nav summary').allInnerTexts();
    expect(summaries).to.include.members(['Business context', 'Glossary', 'Issues']);
    for (const name of summaries) expect(name).to.not.match(/^[A-Z]+$/);
    await page.locator('#nav summary', { hasText: 'Glossary' }).click();
    expect(await open()).to.deep.equal(['Glossary']);
    await page.goto(`${suite().service.url}/app/#/r/issue/issue`);
    await page.locator('#records').waitFor();
    expect(await open()).to.have.members(['Glossary', 'Issues']);
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it("uploads a document's file by drag and drop with its progress, downloads it, uploads a second version and restores the first", async () => {
    const { admin } = suite();
    const user = await makeUser({ permissions: ['folder', 'document'].flatMap((m) => ['view', 'add', 'change', 'delete'].map((a) => `dms.${a}_${m}`)) });
    const folder = await created(admin, '/api/dms/folder', { title: unique('Browser files') });
    const doc = await created(admin, '/api/dms/document', { title: unique('Browser document'), folder_id: folder.id });
    const first = Buffer.from(`first version ${unique('x')}\n`.repeat(20_000));
    const second = Buffer.from(`second version ${unique('x')}\n`);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

    const errors: string[] = [];
    const page = await signedIn(user, errors);
    await page.goto(`${suite().service.url}/app/#/r/dms/document/${doc.id}`);
    const section = page.locator('section.files[data-files=file]');
    await section.waitFor();
    expect(await section.locator('.current').textContent()).to.equal('No file yet.');

    // dropped: the progress bar's values recorded as the upload goes (it reflects them in its `value` attribute)
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { progressSeen: string[] }).progressSeen = seen;
      new MutationObserver((changes) => changes.forEach((c) => seen.push((c.target as Element).getAttribute('value')!))).observe(document.body, { subtree: true, attributeFilter: ['value'] });
    });
    const dropped = await page.evaluateHandle(
      ([text, name]) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([text!], name!, { type: 'text/plain' }));
        return transfer;
      },
      [first.toString(), 'Prüfbericht.txt'],
    );
    await page.dispatchEvent('.dropzone[data-drop=file]', 'drop', { dataTransfer: dropped });
    await page.locator('#message', { hasText: 'Uploaded Prüfbericht.txt.' }).waitFor();
    expect((await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen)).at(-1)).to.equal('1');
    const stored = (await admin.get(`/api/dms/document/${doc.id}`)).body.file;
    expect(stored).to.include({ name: 'Prüfbericht.txt', size: first.length, type: 'text/plain', sha256: sha(first), version: 1, uploaded_by: user.id });

    // the link downloads the same bytes
    const link = section.locator('.current a');
    expect(await link.textContent()).to.equal('Prüfbericht.txt');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).to.equal('Prüfbericht.txt');
    expect(sha(fs.readFileSync((await download.path())!))).to.equal(sha(first));

    // a second version chosen with the file input, then the first restored from the versions table
    await page.setInputFiles('input[data-upload=file]', { name: 'second.txt', mimeType: 'text/plain', buffer: second });
    await page.locator('table.versions tr[data-version="2"]').waitFor();
    const versions = () => page.locator('table.versions tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)));
    expect(await versions()).to.deep.equal([
      ['2', 'second.txt'],
      ['1', 'Prüfbericht.txt'],
    ]);
    await page.click('table.versions tr[data-version="1"] button.restore-version');
    await page.locator('table.versions tr[data-version="3"]').waitFor();
    expect(await page.textContent('#message')).to.equal('Version 1 restored as a new version.');
    expect(await versions()).to.deep.equal([
      ['3 (from 1)', 'Prüfbericht.txt'],
      ['2', 'second.txt'],
      ['1', 'Prüfbericht.txt'],
    ]);
    expect((await admin.get(`/api/dms/document/${doc.id}`)).body.file).to.include({ version: 3, restored_from: 1, sha256: sha(first) });
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it('attaches a file to an issue, lists it as a download and removes it', async () => {
    const { admin } = suite();
    const user = await makeUser({ permissions: ['issue', 'tracker'].flatMap((m) => ['view', 'change'].map((a) => `issues.${a}_${m}`)) });
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('Attachments'), admin_ids: [user.id] });
    const issue = await created(admin, '/api/issue/issue', { title: unique('With attachments'), tracker_id: tracker.id });
    const errors: string[] = [];
    const page = await signedIn(user, errors);
    await page.goto(`${suite().service.url}/app/#/r/issue/issue/${issue.id}`);
    await page.locator('section.files[data-files=attachments]').waitFor();
    await page.setInputFiles('input[data-upload=attachments]', { name: 'log.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n1,2\n') });
    await page.locator('#message', { hasText: 'Uploaded log.csv.' }).waitFor();
    const [attached] = (await admin.get(`/api/issue/issue/${issue.id}`)).body.attachments;
    expect(attached).to.include({ name: 'log.csv', type: 'text/csv', size: 8 });
    expect(await page.locator('ul.attachments li a').getAttribute('href')).to.equal(attached.url);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click(`li[data-attachment="${attached.id}"] button.remove-attachment`);
    await page.locator('#message', { hasText: 'Removed log.csv.' }).waitFor();
    expect((await admin.get(`/api/issue/issue/${issue.id}`)).body.attachments).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it('fits a 390 px phone: the navigation is a menu, the content takes the width, tables scroll on their own', async () => {
    const user = await issueWorker();
    const { word, assigned } = await trackerWithIssues(user);
    const errors: string[] = [];
    const page = await signedIn(user, errors, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await page.locator('h1', { hasText: 'Dashboard' }).waitFor();
    expect(await page.locator('#nav').isVisible()).to.equal(false);
    await page.click('#menu');
    expect(await page.getAttribute('#menu', 'aria-expanded')).to.equal('true');
    await page.locator('#nav a', { hasText: 'Issue (Meldung)' }).click();
    await page.locator('#records').waitFor();
    expect(await page.locator('#nav').isVisible()).to.equal(false);
    const widths = async () => page.evaluate(() => ({ page: document.documentElement.scrollWidth, main: document.querySelector('main')!.getBoundingClientRect().width }));
    let measured = await widths();
    expect(measured.page).to.be.at.most(390);
    expect(measured.main).to.be.at.least(360);
    // the filters start folded, so the results come first
    expect(await page.locator('details.filter-panel').getAttribute('open')).to.equal(null);
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'admin-phone-list.png'), fullPage: true });

    await page.goto(`${suite().service.url}/app/#/r/issue/issue/${assigned.id}`);
    await page.locator('h1', { hasText: `${word} boiler leaks` }).waitFor();
    measured = await widths();
    expect(measured.page).to.be.at.most(390);
    expect((await page.locator('#field-title').boundingBox())!.width).to.be.at.least(300);
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'admin-phone-record.png'), fullPage: true });
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it('speaks German to a browser that prefers it, with the labels the declarations give; the API messages stay as they are', async () => {
    const user = await issueWorker();
    const { word, tracker } = await trackerWithIssues(user);
    const errors: string[] = [];
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'de-CH' })).newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${suite().service.url}/`);
    expect(await page.locator('#signin h1').innerText()).to.equal('Anmelden');
    expect(await page.getAttribute('html', 'lang')).to.equal('de');
    await page.fill('#signin input[name=username]', user.username);
    await page.fill('#signin input[name=password]', 'correct-horse-1');
    await page.click('#signin button[type=submit]');
    await page.locator('h1', { hasText: 'Übersicht' }).waitFor();
    expect(await page.locator('#nav summary').allInnerTexts()).to.deep.equal(['Meldungen', 'Benutzer und Gruppen']);

    await page.locator('#nav a', { hasText: 'Meldung' }).first().waitFor();
    await page.goto(`${suite().service.url}/app/#/r/issue/issue?search=${encodeURIComponent(word)}&state=pending`);
    await page.locator('#records tbody tr').first().waitFor();
    expect(await page.locator('#records thead th').allInnerTexts()).to.deep.equal(['Id', 'Titel', 'Status', 'Meldekreis', 'Zugewiesen an', 'Frist']);
    expect(await page.locator('#records tbody tr td:nth-child(3)').allInnerTexts()).to.deep.equal(['Ausstehend']);
    expect(await page.locator('#view h1').innerText()).to.equal('Meldung');
    expect(await page.locator('#filter-state option:checked').innerText()).to.equal('Ausstehend');
    if (SCREENSHOTS) await page.screenshot({ path: path.join(DOCS, 'admin-german.png') });

    // the API's contract message is shown as the API sends it
    await page.goto(`${suite().service.url}/app/#/r/issue/tracker/${tracker.id}`);
    await page.locator('h1', { hasText: `${word} tracker` }).waitFor();
    expect(await page.locator('button.move').allInnerTexts()).to.deep.equal(['Nach Freigegeben', 'Nach Archiviert']);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#delete');
    await page.locator('#message-details a').first().waitFor();
    expect(await page.textContent('#message')).to.equal(`Cannot delete tracker ${tracker.id}: referenced by 2 issue records.`);
    expect(await page.locator('#message-details').innerText()).to.include('Verwendet von: Meldung (Meldekreis)');
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });

  it('has no serious or critical axe-core violation on the dashboard, list, form, record, history tab and trash screens', async () => {
    const user = await issueWorker(['audit.view_entry']);
    const { word, assigned } = await trackerWithIssues(user);
    const errors: string[] = [];
    // axe-core is injected as a script of the test's own: the page's policy allows scripts of this origin only
    const page = await signedIn(user, errors, { bypassCSP: true });
    const axeScript = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
    const audit = async (screen: string) => {
      await page.addScriptTag({ path: axeScript });
      const violations = await page.evaluate(async () => {
        const { violations } = await (window as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe.run(document);
        return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      });
      expect(violations, screen).to.deep.equal([]);
    };
    await page.locator('h1', { hasText: 'Dashboard' }).waitFor();
    await audit('dashboard');
    await page.goto(`${suite().service.url}/app/#/r/issue/issue?search=${encodeURIComponent(word)}`);
    await page.locator('#records tbody tr').first().waitFor();
    await audit('list');
    await page.goto(`${suite().service.url}/app/#/r/issue/issue/new`);
    await page.locator('#record-form').waitFor();
    await page.click('#record-form button[type=submit]');
    await page.locator('.field[data-field=title] .error:not([hidden])').waitFor();
    await audit('form with errors');
    await page.goto(`${suite().service.url}/app/#/r/issue/issue/${assigned.id}`);
    await page.locator('h1', { hasText: `${word} boiler leaks` }).waitFor();
    await audit('record');
    await page.click('#tab-history');
    await page.locator('#panel-history table.diff').waitFor();
    await audit('record history tab');
    expect((await suite().admin.delete(`/api/issue/issue/${assigned.id}`)).status).to.equal(204);
    const deleter = (await suite().admin.get('/api/auth/me')).body;
    await page.goto(`${suite().service.url}/app/#/trash?resource=issue/issue&deleted_by=${deleter.id}`);
    await page.locator('#trash tbody tr').first().waitFor();
    await page.locator('#trash-deleted_by option:checked', { hasText: deleter.username }).waitFor({ state: 'attached' });
    await audit('trash, filtered');
    await page.goto(`${suite().service.url}/app/#/tokens`);
    await page.locator('#account:not([hidden])').waitFor();
    await audit('tokens');
    expect(errors).to.deep.equal([]);
    await page.context().close();
  });
});
