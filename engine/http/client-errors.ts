/**
 * Requests Node's HTTP parser refuses before Koa sees them (a request line or header set over
 * `maxHeaderSize`, malformed syntax) still get the JSON error shape of CONTRACT 4, then the
 * connection closes: after a parse error the stream cannot be trusted.
 */
import type { Socket } from 'node:net';

/** A request line longer than this is why the headers overflowed: 414, not 431. */
const LONG_REQUEST_LINE = 8 * 1024;

function statusOf(err: NodeJS.ErrnoException & { rawPacket?: Buffer }): [number, string, string] {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    const packet = err.rawPacket ?? Buffer.alloc(0);
    const lineEnd = packet.indexOf('\r\n');
    if (lineEnd === -1 || lineEnd > LONG_REQUEST_LINE) return [414, 'URI Too Long', 'Request URI too long.'];
    return [431, 'Request Header Fields Too Large', 'Request header fields too large.'];
  }
  if (err.code === 'HPE_HEADER_TIMEOUT' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Request Timeout', 'Request timeout.'];
  return [400, 'Bad Request', 'Malformed request.'];
}

export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, detail] = statusOf(err);
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
