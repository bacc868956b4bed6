/**
 * The blob store FILE_STORAGE names: local disk under BMS_DATA_DIR/files when unset, else the S3
 * bucket. The S3 client is loaded only then (importing it takes a few tenths of a second of a start).
 */
import path from 'node:path';
import type { FileSettings } from '../config.js';
import type { BlobStore } from './blob-store.js';
import { LocalStore } from './local-store.js';
import { parseS3Url } from './s3-location.js';

export async function openBlobStore(settings: FileSettings, dataDir: string): Promise<BlobStore> {
  if (!settings.storage) return new LocalStore(path.join(dataDir, 'files'));
  const location = parseS3Url(settings.storage);
  // config.ts checked the form already
  if (!location) throw new Error(`FILE_STORAGE=${settings.storage} is not s3://bucket/prefix`);
  const { S3Store } = await import('./s3-store.js');
  return new S3Store(location, { endpoint: settings.s3Endpoint, region: settings.s3Region, credentials: settings.s3Credentials });
}
