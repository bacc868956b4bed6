/**
 * The admin app at `/app/`, generated from the declarations: over HTTP (the redirect from `/`, the
 * metadata naming every declared resource) and in headless Chromium: sign in, the issue list
 * filtered by state and searched, an issue created through the form with two categories after a
 * validation error beside the title, moved `new` → `pending` with a button and seen in the history,
 * a tracker with issues refused deletion in words, and no create button for a user without
 * `issues.add_issue`. With ADMIN_SCREENSHOTS=1 it writes the README's screenshots into docs/.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
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

describe('admin app (/app/) in headless Chromium', function () {
  this.timeout(90_000);
  let browser: Browser;
  before(async function () {
    browser = await launchChromium(chromiumOrPending(this));
  });
  after(async () => browser?.close());

  /** A page signed in as `user`, which fails the test on any script error. */
  async function signedIn(user: TestUser, errors: string[]): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => void (m.text().includes('Content Security Policy') && errors.push(m.text())));
    await page.goto(`${suite().service.url}/`);
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
    expect(links).to.include.members(['API tokens', 'Issue (Meldung)', 'Tracker (Meldekreis)']).and.not.include('Category (Kategorie)');
    expect(links).to.have.length(3);

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
});
