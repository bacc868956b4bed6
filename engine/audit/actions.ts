/**
 * The actions of audit entries: the writes the change capture records, and the security events the
 * engine records beside them (engine/audit/security-events.ts), which never carry a secret value.
 */
export const WRITE_ACTIONS = ['create', 'update', 'delete'] as const;

export const SECURITY_ACTIONS = [
  'sign_in',
  'sign_in_failed',
  'sign_out',
  'password_changed',
  'password_reset',
  'token_created',
  'token_revoked',
  'groups_changed',
  'superuser_changed',
  'session_ended',
] as const;

export type SecurityAction = (typeof SECURITY_ACTIONS)[number];

export const ENTRY_ACTIONS = [...WRITE_ACTIONS, ...SECURITY_ACTIONS];
