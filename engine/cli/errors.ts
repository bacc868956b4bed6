/** Failures a command reports as a message (no stack): bad usage and invalid values exit 2, a refused command 1. */
export class UsageError extends Error {}
export class CommandError extends Error {}
/** Values the API would refuse (an e-mail address, a password too short), in its words: exit 2, without the command list. */
export class InvalidValues extends Error {}
