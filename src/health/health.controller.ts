import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiSchema, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common/public.decorator';
import { Database } from '../database/database';
import { ApiAnswer } from '../docs/openapi.decorators';

/** Longest /health/ready waits for the database. */
const READY_TIMEOUT_MS = 2000;

@ApiSchema({ name: 'Health' })
class HealthModel {
  @ApiProperty({ enum: ['ok', 'unavailable'] })
  status!: 'ok' | 'unavailable';
}

/** Liveness (the process answers) and readiness (the database answers). */
@ApiTags('Operations')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly database: Database) {}

  @Get('live')
  @ApiOperation({ summary: 'The process answers' })
  @ApiAnswer(200, 'Up', HealthModel, { authenticated: false })
  @HttpCode(200)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'The database answers' })
  @ApiAnswer(200, 'Up', HealthModel, { authenticated: false })
  @ApiAnswer(503, 'The database does not answer', HealthModel, { authenticated: false })
  async ready(@Res({ passthrough: true }) res: Response): Promise<{ status: 'ok' | 'unavailable' }> {
    // Bounded: a database that does not answer is "unavailable", never a hung probe.
    if (await this.database.ping(READY_TIMEOUT_MS)) return { status: 'ok' };
    res.status(503);
    return { status: 'unavailable' };
  }
}
