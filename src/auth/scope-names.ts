import { ApiKeyScope } from '../generated/prisma/enums';

/**
 * What an API key may do (docs/api.md, "Key scopes"): `admin` implies `contacts:write`, which
 * implies `contacts:read`. Keys made before scopes existed have `contacts:write`.
 */
export const SCOPES = ['contacts:read', 'contacts:write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What `key create` without `--scope` gives, and what keys made before scopes existed have. */
export const DEFAULT_SCOPE: Scope = 'contacts:write';

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** Whether a key holding `held` may call a route that needs `needed` (each scope implies those before it). */
export function scopeAllows(held: Scope, needed: Scope): boolean {
  return SCOPES.indexOf(held) >= SCOPES.indexOf(needed);
}

/**
 * Prisma names the enum's values `contacts_read`, `contacts_write`, `admin` (a Prisma identifier
 * cannot hold ":"); the database and the API use the scope names themselves.
 */
const PRISMA_SCOPE: Record<Scope, ApiKeyScope> = {
  'contacts:read': ApiKeyScope.contacts_read,
  'contacts:write': ApiKeyScope.contacts_write,
  admin: ApiKeyScope.admin,
};

export function toPrismaScope(scope: Scope): ApiKeyScope {
  return PRISMA_SCOPE[scope];
}

export function fromPrismaScope(scope: ApiKeyScope): Scope {
  return SCOPES.find((name) => PRISMA_SCOPE[name] === scope)!;
}
