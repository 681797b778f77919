import { Injectable } from '@nestjs/common';
import { RequestErrorCode } from '../../src/errors/error-codes';
import { RequestError } from '../../src/errors/request-error';
import { type ListCopy, ListCopiesRepository } from './list-copies.repository';

@Injectable()
export class ListCopiesService {
  constructor(private readonly repository: ListCopiesRepository) {}

  /** A new list with the same members as `listId`, in one transaction. */
  copy(organizationId: string, listId: string, name: string): Promise<ListCopy> {
    return this.repository.transaction(async (tx) => {
      const source = await this.repository.findList(tx, organizationId, listId);
      if (!source) throw new RequestError(RequestErrorCode.LIST_NOT_FOUND, 'No list with this id in this organization');
      const list = await this.repository.createList(tx, organizationId, name);
      const members = await this.repository.copyMembers(tx, source.id, list.id);
      return { ...list, members };
    });
  }
}
