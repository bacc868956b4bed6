/**
 * What Knex may log, for both drivers' pools. A failed acquire also rejects the query that asked
 * for it, which reports it; Knex would add its stack on stdout, among the JSON log lines. A
 * connection that broke is replaced, and a request that met the break reports it, so Knex's note on
 * discarding it adds nothing; nor does one closed on purpose.
 */
import { LEFT_UNREAD } from './text-pieces.js';

const REPORTED = /^(Acquire connection error|Connection Error: )/;

export const log = { warn: (message: string) => void (REPORTED.test(message) || message.endsWith(LEFT_UNREAD) || process.stderr.write(`${message}\n`)) };
