/** A real S3-protocol server on loopback (s3rver, its objects in a temporary directory) for the S3 store's tests. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';

export interface S3Server {
  endpoint: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  close(): Promise<void>;
}

interface Running {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'bms-files'): Promise<S3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-s3-'));
  const server = new (S3rver as new (options: object) => Running)({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    // s3rver's fixed development credentials
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    close: async () => {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
