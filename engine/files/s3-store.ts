/**
 * Blobs in an S3-compatible bucket (FILE_STORAGE=s3://bucket/prefix): `<prefix>blobs/<sha256>` and
 * `<prefix>tmp/<uuid>`. Uploads stream through lib-storage's multipart upload (8 MiB parts, two in
 * flight: memory stays bounded whatever the size); a failed one is aborted. Promotion is a
 * server-side copy. An upload cut off by a crash leaves an incomplete multipart upload, which the
 * bucket's lifecycle rule (AbortIncompleteMultipartUpload) removes.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { SHA256, type BlobStore, type ByteRange, type StoredEntry, type TempBlob } from './blob-store.js';
import type { S3Location } from './s3-location.js';

const PART_SIZE = 8 * 1024 * 1024;

const notFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

export class S3Store implements BlobStore {
  private readonly client: S3Client;

  constructor(
    private readonly location: S3Location,
    config: S3ClientConfig,
  ) {
    // checksums only where S3 requires them: S3-compatible stores do not all take the newer trailers
    this.client = new S3Client({ forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED', ...config });
  }

  private blobKey(sha256: string): string {
    return `${this.location.prefix}blobs/${sha256}`;
  }
  private tempKey(key: string): string {
    return `${this.location.prefix}tmp/${key}`;
  }

  async writeTemp(source: Readable): Promise<TempBlob> {
    const key = randomUUID();
    const upload = new Upload({ client: this.client, params: { Bucket: this.location.bucket, Key: this.tempKey(key), Body: source }, partSize: PART_SIZE, queueSize: 2 });
    // the metering stream's error (413) must end the upload too
    const failed = new Promise<never>((_, reject) => source.once('error', reject));
    try {
      await Promise.race([upload.done(), failed]);
    } catch (err) {
      await upload.abort().catch(() => undefined);
      await this.discard({ key });
      throw err;
    }
    return { key };
  }

  async promote(temp: TempBlob, sha256: string): Promise<void> {
    const { bucket } = this.location;
    if (!(await this.exists(sha256))) {
      await this.client.send(new CopyObjectCommand({ Bucket: bucket, Key: this.blobKey(sha256), CopySource: `${bucket}/${this.tempKey(temp.key)}` }));
    }
    await this.discard(temp);
  }

  async discard(temp: TempBlob): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.tempKey(temp.key) }));
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    const answer = await this.client.send(
      new GetObjectCommand({ Bucket: this.location.bucket, Key: this.blobKey(sha256), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
    );
    return answer.Body as Readable;
  }

  async exists(sha256: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.blobKey(sha256) }));
      return true;
    } catch (err) {
      if (notFound(err)) return false;
      throw err;
    }
  }

  async *list(): AsyncIterable<StoredEntry> {
    let token: string | undefined;
    const { bucket, prefix } = this.location;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        const rest = (o.Key ?? '').slice(prefix.length);
        const modified = o.LastModified ?? new Date(0);
        if (rest.startsWith('tmp/')) yield { kind: 'temp', key: rest.slice(4), modified };
        else if (rest.startsWith('blobs/') && SHA256.test(rest.slice(6))) yield { kind: 'blob', sha256: rest.slice(6), modified };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async remove(entry: StoredEntry): Promise<void> {
    const key = entry.kind === 'blob' ? this.blobKey(entry.sha256) : this.tempKey(entry.key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: key }));
  }

  destroy(): void {
    this.client.destroy();
  }
}
