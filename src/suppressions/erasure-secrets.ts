import { createHmac } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client';

/** Maps a normalized email to the key its erased suppression is kept under. */
export type EmailHasher = (email: string) => string;

/**
 * HMAC-SHA-256 of a normalized email under an organization's erasure secret, lowercase hex
 * (docs/api.md, "Erasing a contact"). Computed here, not with pgcrypto's hmac(): pgcrypto is an
 * extension that not every PostgreSQL offers (managed services, minimal images), and the hash
 * must be the same on every server the data ever moves to.
 */
export function hashEmail(secret: string, email: string): string {
  return createHmac('sha256', secret).update(email, 'utf8').digest('hex');
}

/**
 * The erasure secret of each organization, read once per process through Prisma and kept: a
 * secret never changes (every hash stored under it would stop matching), so the cache cannot go
 * stale. Read before a transaction opens, so the lookup never holds a second pool connection
 * while a transaction holds one.
 */
export class ErasureSecrets {
  private readonly secrets = new Map<string, string>();

  constructor(private readonly prisma: Pick<PrismaClient, 'organization'>) {}

  async hasherFor(organizationId: string): Promise<EmailHasher> {
    let secret = this.secrets.get(organizationId);
    if (secret === undefined) {
      const org = await this.prisma.organization.findUnique({ where: { id: organizationId }, select: { erasureSecret: true } });
      // An organization that does not exist has nothing stored: any key matches nothing.
      if (!org) return (email) => hashEmail('', email);
      secret = org.erasureSecret;
      this.secrets.set(organizationId, secret);
    }
    const key = secret;
    return (email) => hashEmail(key, email);
  }
}
