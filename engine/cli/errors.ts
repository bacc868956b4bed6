/** Failures a command reports as a message (no stack): bad usage exits 2, a refused command 1. */
export class UsageError extends Error {}
export class CommandError extends Error {}
