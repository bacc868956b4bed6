/**
 * What an answer must look like whatever was asked (CONTRACT 3–4): never a 5xx; a refusal is a
 * JSON error of a status the contract lists, with its shape (400: field → messages or `detail`;
 * others: `{"detail": …}`) and its headers; no SQL or driver words; a JSON success parses whole.
 * And a `Link` header is well-formed and points where it should.
 */

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const DETAIL_STATUSES = new Set([400, 401, 403, 404, 405, 409, 413, 414, 415, 429]);
const REQUIRED_HEADERS: Record<number, [string, RegExp]> = {
  401: ['www-authenticate', /^Token$/],
  405: ['allow', /^[A-Z]+(, [A-Z]+)*$/],
  429: ['retry-after', /^\d+$/],
};
/** Words of SQL and of the driver, which must never reach a client. */
const LEAKS = /\bselect\b[^"]*\bfrom\b|insert into|delete from|\bupdate\b \S+ set\b|syntax error at|relation "|violates .*constraint|invalid input syntax|duplicate key value|\bpg_\w+|knex|\bat \S+ \(\/|node:internal/i;

const isMessageList = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((m) => typeof m === 'string' && m !== '');

/** The ways `answer` breaks the contract; empty when it keeps it. */
export function contractProblems(answer: Answer): string[] {
  const { status, text } = answer;
  if (status >= 500) return [`a server error ${status}`];
  const json = (answer.headers.get('content-type') ?? '').startsWith('application/json');
  let body: unknown;
  if (json && text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      return [`${status} with a JSON content type but a body that is not JSON`];
    }
  }
  if (status < 400) return [];
  const problems: string[] = [];
  if (!DETAIL_STATUSES.has(status)) problems.push(`status ${status} is none the contract lists`);
  if (!json) problems.push(`error ${status} is not JSON`);
  if (LEAKS.test(text)) problems.push('the error shows SQL, driver or stack words');
  const [header, pattern] = REQUIRED_HEADERS[status] ?? [];
  if (header && !pattern!.test(answer.headers.get(header) ?? '')) problems.push(`${status} without a valid ${header} header`);
  const isDetail = typeof body === 'object' && body !== null && Object.keys(body).join() === 'detail' && typeof (body as { detail: unknown }).detail === 'string';
  const isFieldErrors = status === 400 && typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length > 0 && Object.values(body).every(isMessageList);
  if (!isDetail && !isFieldErrors) problems.push(`error body is not ${status === 400 ? 'field → messages nor ' : ''}{"detail": …}`);
  return problems;
}

/** `<target>; rel="…"`, comma-separated, with no quote, angle bracket or white space inside a target. */
const LINKS = /^<[^<>"\s]+>; rel="[a-z-]+"(, <[^<>"\s]+>; rel="[a-z-]+")*$/;

/** The ways `answer`'s `Link` header is malformed or names another origin than `origin` (a target that is a path alone aside). */
export function linkProblems(answer: Answer, origin: string): string[] {
  const link = answer.headers.get('link');
  if (link === null) return [];
  if (!LINKS.test(link)) return [`a Link header that is not <URL>; rel="…": ${link.slice(0, 200)}`];
  return [...link.matchAll(/<([^>]+)>/g)].flatMap(([, target]) =>
    /^\/(?!\/)/.test(target!) || (URL.canParse(target!) && new URL(target!).origin === origin) ? [] : [`a Link to ${target!.slice(0, 100)}, not at ${origin}`],
  );
}
