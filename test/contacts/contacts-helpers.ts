import type { TestApp } from '../utils/test-app';

export async function contactCount(t: TestApp, organizationId: string): Promise<number> {
  return t.prisma.contact.count({ where: { organizationId } });
}

export async function membershipCount(t: TestApp, organizationId: string): Promise<number> {
  return t.prisma.listMembership.count({ where: { contact: { organizationId } } });
}
