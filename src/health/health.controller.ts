import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common/public.decorator';
import { Database } from '../database/database';

/** Longest /health/ready waits for the database. */
const READY_TIMEOUT_MS = 2000;

/** Liveness (the process answers) and readiness (the database answers). */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly database: Database) {}

  @Get('live')
  @HttpCode(200)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) res: Response): Promise<{ status: 'ok' | 'unavailable' }> {
    // Bounded: a database that does not answer is "unavailable", never a hung probe.
    if (await this.database.ping(READY_TIMEOUT_MS)) return { status: 'ok' };
    res.status(503);
    return { status: 'unavailable' };
  }
}
