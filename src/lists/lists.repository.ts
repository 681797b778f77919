import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';

export interface ListView {
  id: string;
  name: string;
  archived: boolean;
}

@Injectable()
export class ListsRepository {
  constructor(private readonly database: Database) {}

  /** Every list of the organization, archived ones included, oldest first. */
  findAll(organizationId: string): Promise<ListView[]> {
    return this.database.query<ListView>(
      'SELECT id, name, archived FROM lists WHERE organization_id = $1 ORDER BY created_at, id',
      [organizationId],
    );
  }
}
