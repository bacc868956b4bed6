/**
 * The interactive documentation (spec 4.5): Swagger UI from local assets, checked over HTTP and
 * in headless Chromium. The page loads with every request answered and none leaving the service,
 * shows the operations, takes `Token <key>` under Authorize and keeps it over a reload, and
 * "Try it out" on the employee list answers 200.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type BrowserContext } from 'playwright-core';
import { suite } from './support/hooks.js';
import { CHROMIUM_ARGS, chromiumOrPending } from './support/chromium.js';
import { created, makeUser, unique } from './support/fixtures.js';
import { operations, servedDocument } from './support/openapi-document.js';

const DOCS = '/api/schema/swagger-ui';

describe('Swagger UI', function () {
  this.timeout(60_000);

  it('serves the page and its assets from the service itself, without credentials', async () => {
    const client = suite().admin.as(null);
    const page = await client.get(`${DOCS}/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(page.text).not.to.match(/(src|href)="(https?:)?\/\//);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).to.equal(4);
    for (const asset of assets) {
      // absolute, so they resolve alike from `/swagger-ui` and `/swagger-ui/`
      expect(asset.startsWith(`${DOCS}/`), asset).to.equal(true);
      const res = await client.get(asset);
      expect(res.status, asset).to.equal(200);
    }
    expect((await client.get(`${DOCS}/swagger-ui.css`)).headers.get('content-type')).to.match(/^text\/css/);
    expect((await client.get(`${DOCS}/swagger-ui-bundle.js`)).headers.get('content-type')).to.match(/^(text|application)\/javascript/);
    expect((await client.get(`${DOCS}`)).text).to.equal(page.text);
    expect((await client.get(`${DOCS}/package.json`)).status).to.equal(404);
  });

  describe('in headless Chromium', () => {
    let context: BrowserContext;
    let profile: string;

    before(async function () {
      profile = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-chromium-'));
      const executablePath = chromiumOrPending(this);
      context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: CHROMIUM_ARGS });
    });

    after(async () => {
      await context?.close();
      fs.rmSync(profile, { recursive: true, force: true });
    });

    it('loads, shows the operations, authorises with "Token <key>" and runs the employee list', async () => {
      const { service } = suite();
      const user = await makeUser({ permissions: ['organisation.view_mitarbeitende'] });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
      page.on('response', (r) => void (r.status() >= 400 && problems.push(`${r.status()}: ${r.url()}`)));
      page.on('request', (r) => void (!r.url().startsWith(service.url) && !r.url().startsWith('data:') && problems.push(`external: ${r.url()}`)));
      page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
      // the page must work under the service's Content-Security-Policy, which Chromium enforces and reports here
      page.on('console', (m) => void (/Content Security Policy/i.test(m.text()) && problems.push(`CSP: ${m.text()}`)));

      await page.goto(`${service.url}${DOCS}/#/organisation/organisation_mitarbeitende_list`);
      const doc = await servedDocument();
      const operation = page.locator('#operations-organisation-organisation_mitarbeitende_list');
      await operation.locator('.opblock-body').waitFor();
      // the page renders lazily while scrolling; its model holds every operation, grouped by tag
      const shown = await page.evaluate(() => {
        const selectors = (window as unknown as { ui: { specSelectors: Record<string, () => { size: number }> } }).ui.specSelectors;
        return { operations: selectors.operations!().size, tags: selectors.taggedOperations!().size };
      });
      expect(shown).to.deep.equal({ operations: operations(doc).length, tags: doc.tags.length });
      expect(await page.locator('.opblock-summary-operation-id', { hasText: /^organisation_mitarbeitende_list$/ }).count()).to.equal(1);

      await page.locator('button.authorize').first().click();
      const tokenAuth = page.locator('.modal-ux .auth-container', { hasText: 'tokenAuth' });
      await tokenAuth.locator('input').fill(`Token ${user.token}`);
      await tokenAuth.locator('button.authorize').click();
      await tokenAuth.getByText('Authorized').waitFor();
      await page.locator('.modal-ux button.close-modal').click();

      // the token outlives a reload (persistAuthorization), which also brings the deep-linked operation back into view
      await page.reload();
      await operation.locator('.opblock-body').waitFor();
      await operation.locator('button.try-out__btn').click();
      await operation.locator('button.execute').click();
      const status = operation.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor();
      expect((await status.innerText()).trim()).to.equal('200');
      expect(problems).to.deep.equal([]);
    });

    it('runs the issue list with nothing filled in and shows the issues that exist, and plausible examples', async () => {
      const { service, admin } = suite();
      const tracker = await created(admin, '/api/issue/tracker', { title: unique('Swagger tracker'), visibility: 'normal' });
      const mine: number[] = [];
      for (const title of ['Printer jams', 'VPN drops', 'Badge reader offline']) mine.push((await created(admin, '/api/issue/issue', { tracker_id: tracker.id, title })).id);
      const user = await makeUser({ permissions: ['issues.view_issue'] });
      const expected = await user.client.get('/api/issue/issue');
      expect(expected.status).to.equal(200);
      expect(expected.body.map((i: { id: number }) => i.id)).to.include.members(mine);

      const page = await context.newPage();
      await page.goto(`${service.url}${DOCS}/#/issue/issue_issue_list`);
      const operation = page.locator('#operations-issue-issue_issue_list');
      await operation.locator('.opblock-body').waitFor();
      await page.evaluate((token) => (window as unknown as { ui: { preauthorizeApiKey(n: string, v: string): void } }).ui.preauthorizeApiKey('tokenAuth', token), `Token ${user.token}`);

      // the sample Swagger UI shows for the answer: small ids, not the largest integer
      const sample = JSON.parse(await operation.locator('.responses-table .response[data-code="200"] .example .microlight, .responses-table .response[data-code="200"] pre').first().innerText()) as Record<string, unknown>[];
      expect(sample[0]).to.include({ id: 42, tracker: 3 });
      expect(JSON.stringify(sample)).not.to.include('2147483647');

      await operation.locator('button.try-out__btn').click();
      // nothing is filled in, so nothing filters the list
      const filled = await operation.locator('.parameters input, .parameters select').evaluateAll((inputs) =>
        inputs.flatMap((i) => ((i as HTMLInputElement).value && (i as HTMLInputElement).value !== '--' ? [`${(i as HTMLInputElement).name || i.closest('tr')?.dataset.paramName}=${(i as HTMLInputElement).value}`] : [])),
      );
      expect(filled).to.deep.equal([]);
      await operation.locator('button.execute').click();
      const status = operation.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor();
      expect((await status.innerText()).trim()).to.equal('200');
      expect((await operation.locator('.request-url pre').innerText()).trim()).to.equal(`${service.url}/api/issue/issue`);
      const shown = JSON.parse(await operation.locator('.live-responses-table .response-col_description pre').first().innerText()) as { id: number }[];
      expect(shown).to.deep.equal(expected.body);
    });
  });
});
