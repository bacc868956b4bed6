/** A small HTTP client for the tests: real requests to the listening server. */
import http from 'node:http';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export class Client {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null = null,
  ) {}

  as(token: string | null): Client {
    return new Client(this.baseUrl, token);
  }

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? this.token : opts.token;
    if (token) headers.Authorization = `Token ${token}`;
    let body: string | Buffer | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body: body as BodyInit | undefined, redirect: "manual" });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  }

  get<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('GET', path, opts);
  }
  post<T = any>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('POST', path, { ...opts, body });
  }
  put<T = any>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('PUT', path, { ...opts, body });
  }
  patch<T = any>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...opts, body });
  }
  delete<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('DELETE', path, opts);
  }
}

/** An answer as `httpRequest` gives it. */
export interface RawReply {
  status: number;
  headers: Headers;
  text: string;
}

/** A request through node:http, which sends any `Host` header it is given (fetch drops it); connections kept alive by `agent`. */
export function httpRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array }, agent?: http.Agent): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    // as fetch does: node:http leaves it out for a DELETE's body, which then reads as the next request
    const length = init.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(init.body)) };
    const req = http.request(url, { method: init.method ?? 'GET', headers: { ...length, ...init.headers }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) for (const v of [value ?? []].flat()) headers.append(name, v);
        resolve({ status: res.statusCode!, headers, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
