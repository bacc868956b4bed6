/**
 * The sign-in page, over HTTP and in a real headless Chromium: sign in, create a token, use it
 * over HTTP, revoke it after confirming, see the request fail, sign out; the value shown once
 * goes when its token does; the page links to the API docs and has an icon.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { suite } from './support/hooks.js';
import { makeUser, type TestUser } from './support/fixtures.js';
import { Client } from './support/client.js';
import { chromiumOrPending, launchChromium } from './support/chromium.js';

describe('sign-in page (/app/)', function () {
  this.timeout(90_000);

  it('serves its own assets with a strict Content-Security-Policy', async () => {
    const page = await suite().admin.get('/app/', { token: null });
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('content-security-policy')).to.include("default-src 'self'");
    expect(page.text).to.not.match(/https?:\/\//);
    expect((await suite().admin.get('/app/app.js', { token: null })).headers.get('content-type')).to.match(/javascript/);
  });

  it('links to the API documentation, which answers', async () => {
    const client = suite().admin.as(null);
    const page = await client.get('/app/');
    expect(page.text).to.include('<a id="docs" href="/api/schema/swagger-ui/">');
    expect((await client.get('/api/schema/swagger-ui/')).status).to.equal(200);
  });

  it('answers /favicon.ico with a 16×16 icon, without credentials', async () => {
    const res = await fetch(`${suite().service.url}/favicon.ico`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/x-icon');
    const ico = Buffer.from(await res.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), one image of 16×16
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4), ico[6], ico[7]]).to.deep.equal([0, 1, 1, 16, 16]);
    expect(ico.readUInt32LE(18) + ico.readUInt32LE(14)).to.equal(ico.length);
  });
});

describe('sign-in page (/app/) in headless Chromium', function () {
  this.timeout(90_000);
  let browser: Browser;
  before(async function () {
    browser = await launchChromium(chromiumOrPending(this));
  });
  after(async () => browser?.close());

  /** From wherever sign-in led, the API tokens screen. */
  async function openTokens(page: Page): Promise<void> {
    await page.locator('#nav a', { hasText: 'API tokens' }).click();
    await page.waitForSelector('#account:not([hidden])');
  }

  async function signedIn(user: TestUser): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${suite().service.url}/app/`);
    await page.fill('#signin input[name=username]', user.username);
    await page.fill('#signin input[name=password]', 'correct-horse-1');
    await page.click('#signin button[type=submit]');
    await openTokens(page);
    return page;
  }

  async function createInPage(page: Page, name: string): Promise<string> {
    await page.fill('#create input[name=name]', name);
    await page.click('#create button[type=submit]');
    await page.locator('#tokens tr', { hasText: name }).waitFor();
    return (await page.textContent('#new-token-value'))!.trim();
  }

  it('signs in, creates a token that works, revokes it, and signs out', async () => {
    const user = await makeUser({ permissions: ['issues.view_tracker'] });
    const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (r) => failed.push(r.url()));
    page.on('pageerror', (e) => failed.push(e.message));
    page.on('console', (m) => void (/Content Security Policy/i.test(m.text()) && failed.push(m.text())));

    await page.goto(`${suite().service.url}/app/`);
    await page.fill('#signin input[name=username]', user.username);
    await page.fill('#signin input[name=password]', 'wrong-password');
    await page.click('#signin button[type=submit]');
    await page.waitForSelector('#message:not([hidden])');
    expect(await page.textContent('#message')).to.equal('Unable to log in with provided credentials.');

    await page.fill('#signin input[name=password]', 'correct-horse-1');
    await page.click('#signin button[type=submit]');
    // signed in, one lands on the dashboard; the tokens are a link of the navigation away
    await page.locator('#view h1', { hasText: 'Dashboard' }).waitFor();
    await openTokens(page);
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
    const asked: string[] = [];
    page.once('dialog', (dialog) => void (asked.push(`${dialog.type()}: ${dialog.message()}`), dialog.accept()));
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    expect(asked).to.deep.equal(['confirm: Revoke the token "Browser made"? Programs using it are refused from then on.']);
    const refused = await api.get('/api/issue/tracker');
    expect(refused.status).to.equal(401);
    expect(refused.body).to.deep.equal({ detail: 'Invalid token.' });
    // the revoked token's value is no longer on show
    expect(await page.isHidden('#new-token')).to.equal(true);
    expect(await page.textContent('#new-token-value')).to.equal('');

    await page.click('#signout');
    await page.waitForSelector('#signin:not([hidden])');
    await page.reload();
    await page.waitForSelector('#signin:not([hidden])');
    expect(failed).to.deep.equal([]);
    await context.close();
  });

  it('keeps a token when the revocation is not confirmed', async () => {
    const user = await makeUser({ permissions: ['issues.view_tracker'] });
    const page = await signedIn(user);
    const token = await createInPage(page, 'Kept');
    const asked = new Promise<string>((resolve) => page.once('dialog', (dialog) => void (resolve(dialog.message()), dialog.dismiss())));
    await page.locator('#tokens tr', { hasText: 'Kept' }).getByRole('button', { name: 'Revoke' }).click();
    expect(await asked).to.equal('Revoke the token "Kept"? Programs using it are refused from then on.');
    // another token's creation refreshes the list from the server
    await createInPage(page, 'Second');
    expect(await page.locator('#tokens tr', { hasText: 'Kept' }).count()).to.equal(1);
    expect((await new Client(suite().service.url, token).get('/api/issue/tracker')).status).to.equal(200);
    await page.context().close();
  });

  it('stops showing a value once a refresh of the list no longer has its token', async () => {
    const user = await makeUser({ permissions: ['issues.view_tracker'] });
    const older = await user.client.post('/api/auth/tokens', { name: 'Older' });
    const page = await signedIn(user);
    const token = await createInPage(page, 'Revoked elsewhere');
    expect(token).to.match(/^[0-9a-f]{64}$/);
    // revoked by another client; revoking "Older" on the page refreshes the list
    const id = (await user.client.get('/api/auth/tokens')).body.find((t: any) => t.name === 'Revoked elsewhere').id;
    expect((await user.client.delete(`/api/auth/tokens/${id}`)).status).to.equal(204);
    page.once('dialog', (dialog) => void dialog.accept());
    const row = page.locator('#tokens tr', { hasText: 'Older' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    expect(older.status).to.equal(201);
    expect(await page.isHidden('#new-token')).to.equal(true);
    expect(await page.textContent('#new-token-value')).to.equal('');
    await page.context().close();
  });

  it('shows its icon, which the browser decodes', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${suite().service.url}/app/`);
    expect(await page.getAttribute('link[rel=icon]', 'href')).to.equal('/favicon.ico');
    const size = await page.evaluate(async () => {
      const img = new Image();
      img.src = '/favicon.ico';
      await img.decode();
      return [img.naturalWidth, img.naturalHeight];
    });
    expect(size).to.deep.equal([16, 16]);
    await page.context().close();
  });
});
