/**
 * A list's piece (JSON records joined by commas) as JSON arrays of about SLICE_CHARS each, cut between
 * records. A list's head holds thousands of records in one text: parsed at once, its objects live
 * while thousands of rows are written, outlive young-generation collections and are promoted (some
 * 20 MiB for the issue list's 10,000-record heads), where a slice's are collected young. A piece of
 * at most SLICE_CHARS is one slice, unscanned.
 */
const SLICE_CHARS = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENS = new Set([0x7b, 0x5b]);
const CLOSES = new Set([0x7d, 0x5d]);

/** The index after the JSON value that starts at `from` (an object or array: a record). */
function valueEnd(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPENS.has(c)) depth++;
    else if (CLOSES.has(c) && --depth === 0) return i + 1;
  }
  return text.length;
}

export function* recordSlices(piece: string): Generator<string> {
  if (piece.length <= SLICE_CHARS) return yield `[${piece}]`;
  for (let start = 0; start < piece.length; ) {
    // whole records, past the comma after each, until the slice is long enough
    let end = valueEnd(piece, start);
    while (end - start < SLICE_CHARS && end < piece.length) end = valueEnd(piece, end + 1);
    yield `[${piece.slice(start, end)}]`;
    start = end + 1;
  }
}
