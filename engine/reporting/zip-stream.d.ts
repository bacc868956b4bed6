/** The part of zip-stream (archiver's zip writer) the XLSX writer uses; the package ships no types. */
declare module 'zip-stream' {
  import type { Readable } from 'node:stream';

  class ZipStream extends Readable {
    constructor(options?: { zlib?: { level?: number } });
    /** Adds one file; the next may be added once `callback` was called. A stream source is piped in. */
    entry(source: string | Buffer | Readable, data: { name: string }, callback: (err: Error | null) => void): this;
    /** Writes the central directory and ends the stream. */
    finalize(): void;
  }
  export = ZipStream;
}
