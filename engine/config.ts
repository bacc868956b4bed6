/**
 * Settings, read once from the environment and checked before anything is opened (docs/operations.md,
 * "Settings"). Each bad setting becomes one line naming the variable, its value and what is
 * expected; an empty variable counts as unset.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bool, cleanEnv, host, makeValidator, str } from 'envalid';
import { KEY_PATTERN } from './storage/field-encryption.js';
import { WEB_URL_PATTERN } from './fields/strings.js';
import { StartupError } from './startup-error.js';

/** How long the service waits on PostgreSQL before answering 503 instead (0: no limit). */
export interface DatabaseBounds {
  /** A statement running longer is cancelled by the server. */
  statementTimeoutMs: number;
  /** A statement waiting longer for a lock is cancelled by the server. */
  lockTimeoutMs: number;
  /** A request waiting longer for a free pooled connection gives up. */
  acquireTimeoutMs: number;
  /** Connections in the pool. */
  poolSize: number;
  /** Named prepared statements a connection keeps (storage/statements.ts); 0: none. */
  preparedStatements: number;
}

export const DEFAULT_BOUNDS: DatabaseBounds = { statementTimeoutMs: 30_000, lockTimeoutMs: 5_000, acquireTimeoutMs: 5_000, poolSize: 10, preparedStatements: 100 };

/** The bounds `config` sets, each unset one its default. */
export const boundsOf = (config: DatabaseConfig): DatabaseBounds => ({ ...DEFAULT_BOUNDS, ...config.bounds });

/** For work that is long by nature (migrations, seeding): bounds protect requests, not maintenance. */
export const unbounded = <C extends DatabaseConfig>(config: C): C => ({
  ...config,
  bounds: { ...config.bounds, statementTimeoutMs: 0, lockTimeoutMs: 0 },
});

export interface DatabaseConfig {
  /** `postgres://…` for a server; undefined for the embedded PGlite under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Unset ones take `DEFAULT_BOUNDS`. */
  bounds?: Partial<DatabaseBounds>;
  /** FIELD_ENCRYPTION_KEY and FIELD_ENCRYPTION_PREVIOUS_KEYS (storage/field-keys.ts). */
  fieldKeys?: { current: string | undefined; previous: string[] };
}

/** What one serving process needs. */
export interface ServerConfig extends DatabaseConfig {
  host: string;
  port: number;
  logLevel: string;
  /** Mark cookies Secure (set when the service is behind HTTPS). */
  secureCookies: boolean;
  /** Believe `X-Forwarded-Proto` and `X-Forwarded-For` from the proxy in front (Koa's `proxy`). */
  trustProxy: boolean;
  /** PUBLIC_URL, without a trailing slash: where links point; unset: the host each request names, when well-formed. */
  publicUrl?: string;
  /** MAX_LIST_ROWS: the most records one list answer holds; undefined: no cap. */
  maxListRows?: number;
  /** LISTS_PER_USER: the lists one user has read at once (0: no bound); more wait their turn. */
  listsPerUser?: number;
  /** How long a token's principal is kept between requests (0: not at all); changes drop it at once. */
  principalCacheMs: number;
  /** DATABASE_REPLICA_URLS: streaming replicas of `databaseUrl` that GET lists and details read from. */
  replicaUrls?: string[];
  /** How often a replica marked down is tried again, in milliseconds. */
  replicaRetryMs?: number;
  /** CORS_ORIGINS: the origins (`https://app.example.com`) whose scripts may call the API; none: no CORS. */
  corsOrigins?: readonly string[];
  /** On SIGTERM/SIGINT, how long requests in flight may still take before their connections are cut. */
  shutdownTimeoutMs?: number;
  /** Webhook delivery (engine/webhooks); unset parts take `DEFAULT_WEBHOOKS`. */
  webhooks?: Partial<WebhookSettings>;
  /** MCP_WRITE_ENABLED: `/mcp` offers create_record and update_record. */
  mcpWriteEnabled?: boolean;
  /** Stored files (engine/files); unset parts take `DEFAULT_FILES`. */
  files?: Partial<FileSettings>;
  /** METRICS and METRICS_PORT: `/metrics` on a port of its own, bound to `host`; undefined: no metrics. */
  metrics?: { port: number };
  /** Scheduled jobs (engine/jobs); unset parts take `DEFAULT_JOBS`. */
  jobs?: Partial<JobSettings>;
  /** OTEL_EXPORTER_OTLP_ENDPOINT is set: main.ts starts OpenTelemetry tracing (engine/tracing) before the service loads. */
  tracing?: boolean;
  /** Imports (engine/exchange): IMPORT_SYNC_MAX_BYTES, IMPORT_MAX_BYTES; unset parts take their defaults. */
  imports?: Partial<{ syncMaxBytes: number; maxBytes: number }>;
  /** Aggregates (engine/reporting); unset parts take `DEFAULT_REPORTS`. */
  reports?: Partial<ReportSettings>;
}

export interface ReportSettings {
  /** TZ: the IANA time zone whose days, weeks, months, quarters and years an aggregate's time buckets are. */
  timeZone: string;
  /** AGGREGATE_MAX_GROUPS: the most groups one aggregate answers; more answer 400. */
  maxGroups: number;
}

export const DEFAULT_REPORTS: ReportSettings = { timeZone: 'UTC', maxGroups: 10_000 };

export interface JobSettings {
  /** This instance runs scheduled jobs (JOBS). */
  run: boolean;
  /** Not settings: how often the queue is polled and the schedules are looked at (tests shorten them). */
  pollSeconds: number;
  cronCheckSeconds: number;
}

export const DEFAULT_JOBS: JobSettings = { run: true, pollSeconds: 2, cronCheckSeconds: 30 };
export const DEFAULT_METRICS_PORT = 9464;

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
/** Enough for a page that loads a few lists at once; well under the pool, so one user leaves most of it to others. */
export const DEFAULT_LISTS_PER_USER = 4;

export interface WebhookSettings {
  /** This instance runs a dispatcher (WEBHOOK_DISPATCH). */
  dispatch: boolean;
  /** Deliver to loopback, private and link-local addresses too (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** How often the dispatcher looks for due deliveries (WEBHOOK_POLL_MS). */
  pollMs: number;
  /** The wait after the first failed attempt, doubled after each further one (WEBHOOK_RETRY_BASE_MS). */
  retryBaseMs: number;
  /** The longest wait between attempts (WEBHOOK_RETRY_MAX_MS). */
  retryMaxMs: number;
}

export const DEFAULT_WEBHOOKS: WebhookSettings = { dispatch: true, allowPrivate: false, pollMs: 1000, retryBaseMs: 30_000, retryMaxMs: 3_600_000 };

export interface FileSettings {
  /** FILE_STORAGE: `s3://bucket/prefix`; undefined: local disk under BMS_DATA_DIR/files. */
  storage: string | undefined;
  /** FILE_MAX_BYTES: the largest file an upload may carry. */
  maxBytes: number;
  /** S3_ENDPOINT: an S3-compatible store's URL; undefined: AWS's. */
  s3Endpoint: string | undefined;
  /** S3_REGION. */
  s3Region: string;
  /** Not a setting (the tests' loopback store): credentials instead of the AWS variables. */
  s3Credentials?: { accessKeyId: string; secretAccessKey: string };
}

export const DEFAULT_FILES: FileSettings = { storage: undefined, maxBytes: 100 * 1024 * 1024, s3Endpoint: undefined, s3Region: 'us-east-1' };

export interface Config extends ServerConfig {
  /** Worker processes serving HTTP (WEB_CONCURRENCY); above 1 they are forked with node:cluster. */
  workers: number;
}

/** More workers than this only adds memory: each is a whole process with its own database pool. */
const MAX_WORKERS = 64;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const isPostgresUrl = (input: string): boolean => URL.canParse(input) && ['postgres:', 'postgresql:'].includes(new URL(input).protocol);
const fieldKey = makeValidator<string>((input) => {
  if (!KEY_PATTERN.test(input)) throw new Error('not a key');
  return input;
});
const fieldKeys = makeValidator<string[]>((input) => {
  const keys = input.split(',').map((k) => k.trim());
  if (!keys.every((k) => KEY_PATTERN.test(k))) throw new Error('not keys');
  return keys;
});
const postgresUrl = makeValidator<string>((input) => {
  if (!isPostgresUrl(input)) throw new Error('not postgres');
  return input;
});
const postgresUrls = makeValidator<string[]>((input) => {
  const urls = input.split(',').map((url) => url.trim());
  if (!urls.every(isPostgresUrl)) throw new Error('not postgres');
  return urls;
});
/** A whole number from `min` to `max`, written in decimal digits only (no sign, exponent or spaces). */
const wholeNumber = (min: number, max: number) =>
  makeValidator<number>((input) => {
    if (!/^\d{1,12}$/.test(input) || Number(input) < min || Number(input) > max) throw new Error('out of range');
    return Number(input);
  });
const portNumber = wholeNumber(0, 65535);
const milliseconds = wholeNumber(0, 999_999_999);
const poolSize = wholeNumber(1, 9999);
const statementCount = wholeNumber(0, 9999);
const rowCount = wholeNumber(1, 999_999_999);
const listCount = wholeNumber(0, 9999);
const workerCount = wholeNumber(1, MAX_WORKERS);
const replicaRetry = wholeNumber(100, 3_600_000);
/** Comma-separated origins, each exactly `scheme://host[:port]` as a browser sends it in `Origin`. */
const originList = makeValidator<string[]>((input) => {
  const origins = input.split(',').map((o) => o.trim()).filter(Boolean);
  for (const o of origins) if (!/^https?:$/.test(new URL(o).protocol) || new URL(o).origin !== o) throw new Error('not an origin');
  return origins;
});
/** The service's address as its clients reach it: the URL fields' rule, a path at most; stored without a trailing slash. */
const publicUrl = makeValidator<string>((input) => {
  const url = new RegExp(WEB_URL_PATTERN).test(input) && URL.canParse(input) ? new URL(input) : undefined;
  if (!url || url.username || url.password || /[?#]/.test(input)) throw new Error('not a public URL');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
});
const pollInterval = wholeNumber(10, 3_600_000);
const byteCount = wholeNumber(1, 999_999_999_999);
const s3Url = makeValidator<string>((input) => {
  if (!/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(input)) throw new Error('not s3');
  return input;
});
const httpUrl = makeValidator<string>((input) => {
  if (!URL.canParse(input) || !/^https?:$/.test(new URL(input).protocol)) throw new Error('not http');
  return input;
});
/**
 * An IANA time zone name (`Europe/Zurich`) as both Node.js and PostgreSQL know them; a C library's
 * `:/etc/localtime` (some images set TZ so) names the zone Node.js resolved from it.
 */
const timeZone = makeValidator<string>((input) => {
  if (input.startsWith(':')) return Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(input)) throw new Error('not a zone');
  new Intl.DateTimeFormat('en', { timeZone: input }); // throws a RangeError for an unknown zone
  return input;
});
const logLevel = makeValidator<string>((input) => {
  if (!LOG_LEVELS.includes(input)) throw new Error('not a level');
  return input;
});

const DATABASE = {
  DATABASE_URL: postgresUrl({ default: undefined, desc: 'a PostgreSQL URL such as postgres://user:password@host:5432/database' }),
  BMS_DATA_DIR: str({ default: 'data', desc: 'a directory' }),
  STATEMENT_TIMEOUT_MS: milliseconds({ default: DEFAULT_BOUNDS.statementTimeoutMs, desc: 'milliseconds (0: no limit)' }),
  LOCK_TIMEOUT_MS: milliseconds({ default: DEFAULT_BOUNDS.lockTimeoutMs, desc: 'milliseconds (0: no limit)' }),
  POOL_ACQUIRE_TIMEOUT_MS: milliseconds({ default: DEFAULT_BOUNDS.acquireTimeoutMs, desc: 'milliseconds (0: no limit)' }),
  DATABASE_POOL_SIZE: poolSize({ default: DEFAULT_BOUNDS.poolSize, desc: 'a number of connections from 1 to 9999' }),
  DATABASE_PREPARED_STATEMENTS: statementCount({ default: DEFAULT_BOUNDS.preparedStatements, desc: 'a number of statements per connection from 0 to 9999 (0: none)' }),
  FIELD_ENCRYPTION_KEY: fieldKey({ default: undefined, desc: '64 hexadecimal characters (32 random bytes: `openssl rand -hex 32`)' }),
  FIELD_ENCRYPTION_PREVIOUS_KEYS: fieldKeys({ default: [], desc: 'keys of 64 hexadecimal characters separated by commas' }),
};
const SERVER = {
  HOST: host({ default: '127.0.0.1', desc: 'a host name or IP address to listen on' }),
  PORT: portNumber({ default: 8000, desc: 'a port number from 0 to 65535 (0: any free port)' }),
  LOG_LEVEL: logLevel({ default: 'info', desc: `one of ${LOG_LEVELS.join(', ')}` }),
  SECURE_COOKIES: bool({ default: false, desc: 'true or false' }),
  TRUST_PROXY: bool({ default: false, desc: 'true or false' }),
  PUBLIC_URL: publicUrl({ default: undefined, desc: 'the http or https URL clients reach the service at, such as https://api.example.com (a path may follow; no query, fragment or credentials)' }),
  MAX_LIST_ROWS: rowCount({ default: undefined, desc: 'a number of records from 1 to 999999999 (unset: no cap)' }),
  LISTS_PER_USER: listCount({ default: DEFAULT_LISTS_PER_USER, desc: 'a number of lists from 0 to 9999 (0: no limit)' }),
  PRINCIPAL_CACHE_MS: milliseconds({ default: 5000, desc: 'a whole number of milliseconds (0: no cache)' }),
  CORS_ORIGINS: originList({ default: [], desc: 'origins separated by commas, each like https://app.example.com (scheme, host, optional port; no path)' }),
  SHUTDOWN_TIMEOUT_MS: milliseconds({ default: DEFAULT_SHUTDOWN_TIMEOUT_MS, desc: 'a whole number of milliseconds' }),
  WEB_CONCURRENCY: workerCount({ default: 1, desc: `a number of worker processes from 1 to ${MAX_WORKERS}` }),
  DATABASE_REPLICA_URLS: postgresUrls({ default: undefined, desc: 'PostgreSQL URLs separated by commas' }),
  REPLICA_RETRY_MS: replicaRetry({ default: 5000, desc: 'a whole number of milliseconds from 100 to 3600000' }),
  WEBHOOK_DISPATCH: bool({ default: DEFAULT_WEBHOOKS.dispatch, desc: 'true or false' }),
  WEBHOOK_ALLOW_PRIVATE: bool({ default: DEFAULT_WEBHOOKS.allowPrivate, desc: 'true or false' }),
  WEBHOOK_POLL_MS: pollInterval({ default: DEFAULT_WEBHOOKS.pollMs, desc: 'a whole number of milliseconds from 10 to 3600000' }),
  WEBHOOK_RETRY_BASE_MS: milliseconds({ default: DEFAULT_WEBHOOKS.retryBaseMs, desc: 'a whole number of milliseconds' }),
  WEBHOOK_RETRY_MAX_MS: milliseconds({ default: DEFAULT_WEBHOOKS.retryMaxMs, desc: 'a whole number of milliseconds' }),
  MCP_WRITE_ENABLED: bool({ default: false, desc: 'true or false' }),
  METRICS: bool({ default: false, desc: 'true or false' }),
  METRICS_PORT: portNumber({ default: DEFAULT_METRICS_PORT, desc: 'a port number from 0 to 65535 (0: any free port)' }),
  JOBS: bool({ default: DEFAULT_JOBS.run, desc: 'true or false' }),
  // the OpenTelemetry SDK reads it (and the other OTEL_* variables) itself; checked here so a bad one stops the start
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl({ default: undefined, desc: 'the http or https URL of an OTLP/HTTP receiver, such as http://collector:4318' }),
  IMPORT_SYNC_MAX_BYTES: byteCount({ default: undefined, desc: 'a number of bytes from 1 to 999999999999' }),
  IMPORT_MAX_BYTES: byteCount({ default: undefined, desc: 'a number of bytes from 1 to 999999999999' }),
  TZ: timeZone({ default: DEFAULT_REPORTS.timeZone, desc: 'an IANA time zone name such as UTC or Europe/Zurich' }),
  AGGREGATE_MAX_GROUPS: rowCount({ default: DEFAULT_REPORTS.maxGroups, desc: 'a number of groups from 1 to 999999999' }),
};
const FILES = {
  FILE_STORAGE: s3Url({ default: undefined, desc: 's3://bucket/prefix (unset: local disk under BMS_DATA_DIR/files)' }),
  FILE_MAX_BYTES: byteCount({ default: DEFAULT_FILES.maxBytes, desc: 'a number of bytes from 1 to 999999999999' }),
  S3_ENDPOINT: httpUrl({ default: undefined, desc: 'the http or https URL of an S3-compatible store' }),
  S3_REGION: str({ default: DEFAULT_FILES.s3Region, desc: 'an S3 region name' }),
};

/** A URL's password, if it has one, replaced before the URL is shown. */
export const redactUrl = (url: string): string => url.replace(/(\/\/[^:/@]*:)[^@/]*@/g, '$1***@');

const shown = (name: string, value: string) =>
  name.startsWith('FIELD_ENCRYPTION_') ? `${name} (not shown)` : `${name}="${name.startsWith('DATABASE_') ? redactUrl(value) : value}"`;

/** The variables of `specs` that are set and not empty. */
const given = (env: NodeJS.ProcessEnv, specs: object): Record<string, string> =>
  Object.fromEntries(Object.keys(specs).flatMap((name) => (env[name] ? [[name, env[name]]] : [])));

/** Reports every bad setting at once, one line each. */
const reporter =
  (values: Record<string, string>, specs: Record<string, { desc?: string }>) =>
  ({ errors }: { errors: Partial<Record<string, Error>> }) => {
    const lines = Object.keys(errors).map((name) => `Invalid setting ${shown(name, values[name]!)}: expected ${specs[name]!.desc}.`);
    if (lines.length) throw new StartupError(lines.join('\n'));
  };

/** The nearest existing directory at or above `dir` must be one this process can write to. */
function checkDataDir(dir: string, value: string | undefined): void {
  let existing = dir;
  while (!fs.existsSync(existing)) existing = path.dirname(existing);
  try {
    if (!fs.statSync(existing).isDirectory()) throw new Error('not a directory');
    fs.accessSync(existing, fs.constants.W_OK);
  } catch {
    const name = value === undefined ? 'BMS_DATA_DIR (default "data")' : shown('BMS_DATA_DIR', value);
    throw new StartupError(`Invalid setting ${name}: expected a directory this user can write to (${existing} is not), or set DATABASE_URL.`);
  }
}

type DatabaseSettings = ReturnType<typeof cleanEnv<typeof DATABASE>>;

function databaseConfig(e: DatabaseSettings, values: Record<string, string>): DatabaseConfig {
  const config = {
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.BMS_DATA_DIR),
    fieldKeys: { current: e.FIELD_ENCRYPTION_KEY, previous: e.FIELD_ENCRYPTION_PREVIOUS_KEYS },
    bounds: {
      statementTimeoutMs: e.STATEMENT_TIMEOUT_MS,
      lockTimeoutMs: e.LOCK_TIMEOUT_MS,
      acquireTimeoutMs: e.POOL_ACQUIRE_TIMEOUT_MS,
      poolSize: e.DATABASE_POOL_SIZE,
      preparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    },
  };
  if (!config.databaseUrl) checkDataDir(config.dataDir, values.BMS_DATA_DIR);
  return config;
}

/** The file settings alone (the sweep command). */
export function readFileSettings(env: NodeJS.ProcessEnv = process.env): FileSettings {
  const values = given(env, FILES);
  const e = cleanEnv(values, FILES, { reporter: reporter(values, FILES) });
  return { storage: e.FILE_STORAGE, maxBytes: e.FILE_MAX_BYTES, s3Endpoint: e.S3_ENDPOINT, s3Region: e.S3_REGION };
}

/** The database settings alone (the manage commands need nothing else). */
export function readDatabaseConfig(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  const values = given(env, DATABASE);
  const e = cleanEnv(values, DATABASE, { reporter: reporter(values, DATABASE) });
  return databaseConfig(e, values);
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const specs = { ...DATABASE, ...SERVER, ...FILES };
  const values = given(env, specs);
  const e = cleanEnv(values, specs, { reporter: reporter(values, specs) });
  const config: Config = {
    ...databaseConfig(e, values),
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    secureCookies: e.SECURE_COOKIES,
    trustProxy: e.TRUST_PROXY,
    publicUrl: e.PUBLIC_URL,
    maxListRows: e.MAX_LIST_ROWS,
    listsPerUser: e.LISTS_PER_USER,
    principalCacheMs: e.PRINCIPAL_CACHE_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    corsOrigins: e.CORS_ORIGINS,
    workers: e.WEB_CONCURRENCY,
    replicaUrls: e.DATABASE_REPLICA_URLS,
    replicaRetryMs: e.REPLICA_RETRY_MS,
    webhooks: {
      dispatch: e.WEBHOOK_DISPATCH,
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      pollMs: e.WEBHOOK_POLL_MS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: e.WEBHOOK_RETRY_MAX_MS,
    },
    mcpWriteEnabled: e.MCP_WRITE_ENABLED,
    metrics: e.METRICS ? { port: e.METRICS_PORT } : undefined,
    jobs: { run: e.JOBS },
    tracing: e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined,
    imports: { ...(e.IMPORT_SYNC_MAX_BYTES !== undefined && { syncMaxBytes: e.IMPORT_SYNC_MAX_BYTES }), ...(e.IMPORT_MAX_BYTES !== undefined && { maxBytes: e.IMPORT_MAX_BYTES }) },
    reports: { timeZone: e.TZ, maxGroups: e.AGGREGATE_MAX_GROUPS },
    files: { storage: e.FILE_STORAGE, maxBytes: e.FILE_MAX_BYTES, s3Endpoint: e.S3_ENDPOINT, s3Region: e.S3_REGION },
  };
  if (config.secureCookies && !config.trustProxy) {
    throw new StartupError(
      'SECURE_COOKIES=true needs TRUST_PROXY=true: the service itself speaks plain HTTP, so Secure cookies work only behind an HTTPS proxy that sends X-Forwarded-Proto.',
    );
  }
  if (config.workers > 1 && !config.databaseUrl) {
    throw new StartupError(
      `WEB_CONCURRENCY=${config.workers} needs DATABASE_URL: the embedded database (BMS_DATA_DIR) can be opened by one process only.`,
    );
  }
  if (config.replicaUrls && !config.databaseUrl) {
    throw new StartupError('DATABASE_REPLICA_URLS needs DATABASE_URL: replicas copy a PostgreSQL server, not the embedded database.');
  }
  return config;
}

const RETENTION = {
  TRASH_RETENTION_DAYS: wholeNumber(1, 36_500)({ default: 30, desc: 'a whole number of days from 1 to 36500' }),
  AUDIT_RETENTION_DAYS: wholeNumber(1, 36_500)({ default: undefined, desc: 'a whole number of days from 1 to 36500 (unset: keep forever)' }),
};

/** How long deleted records stay in the trash, and audit entries in the trail (undefined: forever). */
export interface RetentionConfig {
  trashDays: number;
  auditDays: number | undefined;
}

export function readRetentionConfig(env: NodeJS.ProcessEnv = process.env): RetentionConfig {
  const values = given(env, RETENTION);
  const e = cleanEnv(values, RETENTION, { reporter: reporter(values, RETENTION) });
  return { trashDays: e.TRASH_RETENTION_DAYS, auditDays: e.AUDIT_RETENTION_DAYS };
}
