import { Controller, HttpCode, Module, Post, Query } from '@nestjs/common';
import type { CallerIdentity } from '../../src/auth/authenticated-request';
import { Caller } from '../../src/auth/caller.decorator';
import { RequireScope } from '../../src/auth/scopes';
import { PrismaService } from '../../src/database/prisma.service';

/** The contacts one probe request writes: `${tag}-0@probe.test` and `${tag}-1@probe.test`. */
export const probeEmails = (tag: string) => [`${tag}-0@probe.test`, `${tag}-1@probe.test`];

/**
 * A test-only write served by Prisma Client inside an interactive transaction (no production route
 * writes through Prisma yet): two contacts, a pause that keeps the transaction open (so that
 * terminated backends land inside it), then both list memberships. All of it or nothing; its
 * failures reach the app's global filter like any route's.
 */
@Controller('test/prisma-write')
class PrismaWriteProbeController {
  constructor(private readonly prisma: PrismaService) {}

  @Post()
  @HttpCode(200)
  @RequireScope('contacts:write')
  async write(@Caller() caller: CallerIdentity, @Query('tag') tag: string, @Query('listId') listId: string): Promise<{ contactIds: string[] }> {
    return this.prisma.$transaction(async (tx) => {
      const contacts = [];
      for (const email of probeEmails(tag)) {
        contacts.push(await tx.contact.create({ data: { organizationId: caller.organizationId, email }, select: { id: true, email: true } }));
      }
      await tx.$executeRaw`SELECT pg_sleep(0.02)`;
      await tx.listMembership.createMany({ data: contacts.map((c) => ({ contactId: c.id, listId, email: c.email })) });
      return { contactIds: contacts.map((c) => c.id) };
    });
  }
}

@Module({ controllers: [PrismaWriteProbeController] })
export class PrismaWriteProbeModule {}
