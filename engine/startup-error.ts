/** A start-up failure the user can fix (a setting, the database, the port): reported as its message alone, exit 1. */
export class StartupError extends Error {}
