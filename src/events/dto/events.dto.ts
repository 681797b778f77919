import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { requestIdProperty } from '../../docs/openapi.decorators';
import { EVENT_TYPES, type EventType } from '../event-types';

@ApiSchema({ name: 'Event' })
export class EventModel {
  @ApiProperty({ type: String, pattern: '^evt_[0-9a-f]{32}$', description: 'Unique; also the `webhook-id` of its deliveries' })
  id!: string;

  @ApiProperty({ enum: [...EVENT_TYPES] })
  type!: EventType;

  @ApiProperty({ type: String, format: 'date-time', description: 'When the change was made (its transaction began)' })
  occurredAt!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The X-Request-Id of the request that made the change; null for the admin command line' })
  requestId!: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'By type (docs/events.md): `contact` (as GET /contacts/{email} shows it; `contact.erased`: `{ id }` only), `changedFields` and ' +
      '`addedListIds` (contact.updated), `listId` (contact.list_removed), `suppression` `{ email, reason }`, `list`, `field`',
  })
  data!: Record<string, unknown>;
}

/** GET /api/v2/events. */
@ApiSchema({ name: 'EventsPage' })
export class EventsPageModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ type: [EventModel], description: 'Oldest first, in commit order' })
  events!: EventModel[];

  @ApiProperty({
    type: String,
    description: 'Always a string: pass as `after` for what follows (the place after the last event returned, or the given `after` on an empty page)',
  })
  nextCursor!: string;
}
