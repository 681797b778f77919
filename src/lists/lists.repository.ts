import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

export interface ListView {
  id: string;
  name: string;
  archived: boolean;
}

@Injectable()
export class ListsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Every list of the organization, archived ones included, oldest first. */
  findAll(organizationId: string): Promise<ListView[]> {
    return this.prisma.list.findMany({
      where: { organizationId },
      select: { id: true, name: true, archived: true },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
  }
}
