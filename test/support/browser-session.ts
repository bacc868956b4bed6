/** A cookie-keeping client for session tests: signs in, then sends the cookies (and CSRF header) back. */
import { Client, type Reply, type RequestOptions } from './client.js';

export class SessionClient {
  private cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  get csrf(): string | undefined {
    return this.cookies.get('csrftoken');
  }
  get sessionId(): string | undefined {
    return this.cookies.get('sessionid');
  }

  /** A client for another server (or a stale session id) holding these cookies. */
  withCookies(baseUrl: string, cookies: Record<string, string> = Object.fromEntries(this.cookies)): SessionClient {
    const other = new SessionClient(baseUrl);
    for (const [k, v] of Object.entries(cookies)) other.cookies.set(k, v);
    return other;
  }

  private remember(res: Reply): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const v = value.join('=');
      if (v === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), v);
    }
  }

  /** `csrf`: send the X-CSRFToken header (true: the cookie's value; a string: that value). */
  async request<T = any>(method: string, path: string, opts: RequestOptions & { csrf?: boolean | string } = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (opts.csrf === true && this.csrf) headers['X-CSRFToken'] = this.csrf;
    if (typeof opts.csrf === 'string') headers['X-CSRFToken'] = opts.csrf;
    const res = await new Client(this.baseUrl).request<T>(method, path, { ...opts, token: null, headers });
    this.remember(res);
    return res;
  }

  login(username: string, password: string) {
    return this.request('POST', '/api/auth/login', { body: { username, password } });
  }
}
