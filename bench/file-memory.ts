/**
 * `--file-memory MIB`: streaming, checked by memory. One service (1 worker, FILE_MAX_BYTES above the
 * file) gets a file of MIB MiB uploaded as a raw body and then downloaded, each by one client that
 * makes and checks the bytes as they go (never holding the file); the service's resident memory
 * (Linux VmRSS before, VmHWM during) must rise by less than LIMIT_MIB over each.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { peakRss, resetPeakRss, rss } from './proc.js';
import type { BenchData } from './seed.js';
import { startTarget, type Target } from './targets.js';

export const LIMIT_MIB = 64;
const CHUNK = Buffer.alloc(2 ** 20, 'Bench file memory bytes.\n');

export interface FileMemory {
  mib: number;
  uploadRiseMiB: number;
  downloadRiseMiB: number;
  passed: boolean;
}

/** `mib` MiB of CHUNK, made as they are read. */
function generated(mib: number): Readable {
  let left = mib;
  return new Readable({
    read() {
      this.push(left-- > 0 ? CHUNK : null);
    },
  });
}

function request(url: string, init: http.RequestOptions, body: Readable | undefined, onData: (chunk: Buffer) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, init, (res) => {
      res.on('data', onData);
      res.on('end', () => resolve(res.statusCode!));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

/** How far `pid`'s resident memory rose above what it held before `work`, in MiB. */
async function rise(pid: number, work: () => Promise<void>): Promise<number> {
  const before = rss(pid);
  resetPeakRss(pid);
  await work();
  return (peakRss(pid) - before) / 2 ** 20;
}

export async function measureFileMemory(databaseUrl: string, data: BenchData, mib: number): Promise<FileMemory> {
  const size = mib * 2 ** 20;
  const target: Target = await startTarget('service', databaseUrl, 1, { FILE_MAX_BYTES: String(size) });
  try {
    const [pid] = target.servingPids();
    const url = `${target.url}/api/dms/document/${data.documents[0]}/file`;
    const authorization = `Token ${data.adminToken}`;
    const sent = createHash('sha256');
    const answer: Buffer[] = [];
    const uploadRiseMiB = await rise(pid!, async () => {
      const body = generated(mib).on('data', (c: Buffer) => sent.update(c));
      const headers = { authorization, 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="big.bin"', 'content-length': String(size) };
      const status = await request(url, { method: 'PUT', headers }, body, (c) => answer.push(c));
      if (status !== 200) throw new Error(`the ${mib} MiB upload answered ${status}: ${Buffer.concat(answer).toString().slice(0, 300)}`);
    });
    const sha256 = sent.digest('hex');
    if ((JSON.parse(Buffer.concat(answer).toString()) as { sha256: string }).sha256 !== sha256) throw new Error('the upload stored other bytes');
    const got = createHash('sha256');
    let length = 0;
    const downloadRiseMiB = await rise(pid!, async () => {
      const status = await request(url, { headers: { authorization } }, undefined, (c) => {
        got.update(c);
        length += c.length;
      });
      if (status !== 200) throw new Error(`the ${mib} MiB download answered ${status}`);
    });
    if (length !== size || got.digest('hex') !== sha256) throw new Error('the download differs from the upload');
    return { mib, uploadRiseMiB, downloadRiseMiB, passed: uploadRiseMiB < LIMIT_MIB && downloadRiseMiB < LIMIT_MIB };
  } finally {
    await target.stop();
  }
}

export function fileMemoryReport(m: FileMemory): string {
  const mib = (n: number) => `${n.toFixed(1)} MiB`;
  return (
    `A ${m.mib.toLocaleString('en-US')} MiB file through the service (1 worker), byte-identical both ways: ` +
    `resident memory up ${mib(m.uploadRiseMiB)} over the upload, ${mib(m.downloadRiseMiB)} over the download ` +
    `(limit ${LIMIT_MIB} MiB: ${m.passed ? 'passed' : 'FAILED'}).`
  );
}
