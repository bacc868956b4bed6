/**
 * The sign-in page in a real headless Chromium: sign in, create a token, use it over HTTP,
 * revoke it, see the request fail, sign out.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { suite } from './support/hooks.js';
import { makeUser } from './support/fixtures.js';
import { Client } from './support/client.js';
import { launchChromium } from './support/chromium.js';

describe('sign-in page (/app/)', function () {
  this.timeout(90_000);
  let browser: Browser;
  before(async () => (browser = await launchChromium()));
  after(async () => browser?.close());

  it('serves its own assets with a strict Content-Security-Policy', async () => {
    const page = await suite().admin.get('/app/', { token: null });
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('content-security-policy')).to.include("default-src 'self'");
    expect(page.text).to.not.match(/https?:\/\//);
    expect((await suite().admin.get('/app/app.js', { token: null })).headers.get('content-type')).to.match(/javascript/);
  });

  it('signs in, creates a token that works, revokes it, and signs out', async () => {
    const user = await makeUser({ permissions: ['issues.view_tracker'] });
    const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (r) => failed.push(r.url()));
    page.on('pageerror', (e) => failed.push(e.message));

    await page.goto(`${suite().service.url}/app/`);
    await page.fill('#signin input[name=username]', user.username);
    await page.fill('#signin input[name=password]', 'wrong-password');
    await page.click('#signin button[type=submit]');
    await page.waitForSelector('#message:not([hidden])');
    expect(await page.textContent('#message')).to.equal('Unable to log in with provided credentials.');

    await page.fill('#signin input[name=password]', 'correct-horse-1');
    await page.click('#signin button[type=submit]');
    await page.waitForSelector('#account:not([hidden])');
    expect(await page.textContent('#whoami')).to.equal(user.username);

    await page.fill('#create input[name=name]', 'Browser made');
    await page.click('#create button[type=submit]');
    await page.waitForSelector('#new-token:not([hidden])');
    const token = (await page.textContent('#new-token-value'))!.trim();
    expect(token).to.match(/^[0-9a-f]{64}$/);
    await page.click('#copy');
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(token);

    const api = new Client(suite().service.url, token);
    expect((await api.get('/api/issue/tracker')).status).to.equal(200);

    const row = page.locator('#tokens tr', { hasText: 'Browser made' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    const refused = await api.get('/api/issue/tracker');
    expect(refused.status).to.equal(401);
    expect(refused.body).to.deep.equal({ detail: 'Invalid token.' });

    await page.click('#signout');
    await page.waitForSelector('#signin:not([hidden])');
    await page.reload();
    await page.waitForSelector('#signin:not([hidden])');
    expect(failed).to.deep.equal([]);
    await context.close();
  });
});
