/** Where FILE_STORAGE=s3://bucket/prefix puts files: read without loading the S3 client. */
export interface S3Location {
  bucket: string;
  /** Empty, or ending in `/`. */
  prefix: string;
}

/** `s3://bucket/some/prefix` → bucket and `some/prefix/`. */
export function parseS3Url(url: string): S3Location | undefined {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) return undefined;
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  return { bucket: m[1]!, prefix: prefix ? `${prefix}/` : '' };
}
