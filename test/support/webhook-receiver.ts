/** A real HTTP server on loopback that receives webhook deliveries, answering 500 to the first `failures` of them. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      this.received.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.statusCode = this.failures-- > 0 ? 500 : 200;
      res.end();
    });
  });

  constructor(private failures = 0) {}

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

