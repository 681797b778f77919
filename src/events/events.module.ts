import { Module } from '@nestjs/common';
import { EventsRepository } from './events.repository';

/**
 * Change events (contract section 14, docs/events.md). Exports EventsRepository: every write path
 * records its events through it, in its own transaction.
 */
@Module({ providers: [EventsRepository], exports: [EventsRepository] })
export class EventsModule {}
