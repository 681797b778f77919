import { Injectable } from '@nestjs/common';
import { Database } from '../../src/database/database';
import { runIn, type SqlClient } from '../../src/database/statements';
import { COPY_MEMBERS, CREATE_LIST, FIND_LIST } from './list-copies.statements';

export interface ListCopy {
  id: string;
  name: string;
  members: number;
}

/** The only place that reads or writes for list copies: its registered statements, in one transaction. */
@Injectable()
export class ListCopiesRepository {
  constructor(private readonly database: Database) {}

  /** Runs `work` in one transaction (Database.transaction): all of it is written, or none of it. */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.database.transaction(work);
  }

  async findList(tx: SqlClient, organizationId: string, id: string): Promise<{ id: string } | null> {
    const [list] = await runIn(tx, FIND_LIST, [id, organizationId]);
    return list ?? null;
  }

  async createList(tx: SqlClient, organizationId: string, name: string): Promise<{ id: string; name: string }> {
    const [list] = await runIn(tx, CREATE_LIST, [organizationId, name]);
    return list;
  }

  async copyMembers(tx: SqlClient, fromListId: string, toListId: string): Promise<number> {
    const [row] = await runIn(tx, COPY_MEMBERS, [fromListId, toListId]);
    return row.copied;
  }
}
