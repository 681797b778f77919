import { Module } from '@nestjs/common';
import { StatementRegistry } from '../database/statements';
import { EVENT_RECORD_STATEMENTS } from './event-record.statements';
import { EVENT_REDACTION_STATEMENTS } from './event-redaction.statements';
import { EventsController } from './events.controller';
import { EventsFeedRepository } from './events-feed.repository';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { EVENTS_STATEMENTS } from './events.statements';
import { EventsSweeper } from './events.sweeper';

/**
 * Change events (contract section 14, docs/events.md): the feed (GET /api/v2/events) and its retention sweep. Exports
 * EventsRepository: every write path records its events through it, in its own transaction.
 */
@Module({ controllers: [EventsController], providers: [EventsRepository, EventsFeedRepository, EventsService, EventsSweeper], exports: [EventsRepository] })
export class EventsModule {
  constructor(statements: StatementRegistry) {
    statements.register([...EVENTS_STATEMENTS, ...EVENT_RECORD_STATEMENTS, ...EVENT_REDACTION_STATEMENTS]);
  }
}
