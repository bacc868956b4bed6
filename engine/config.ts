/** Settings, read once from the environment (README "Settings"). */
import path from 'node:path';

export interface Config {
  /** `postgres://…` for a server; undefined for the embedded PGlite under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  host: string;
  port: number;
  logLevel: string;
  /** Mark cookies Secure (set when the service is behind HTTPS). */
  secureCookies: boolean;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.BMS_DATA_DIR || 'data'),
    host: env.HOST || '127.0.0.1',
    port: Number(env.PORT || 8000),
    logLevel: env.LOG_LEVEL || 'info',
    secureCookies: env.SECURE_COOKIES === 'true',
  };
}
