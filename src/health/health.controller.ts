import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiSchema, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common/public.decorator';
import { PrismaService } from '../database/prisma.service';
import { ApiAnswer } from '../docs/openapi.decorators';

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
  constructor(private readonly prisma: PrismaService) {}

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
    try {
      await this.prisma.$queryRaw`SELECT 1`;
      return { status: 'ok' };
    } catch {
      res.status(503);
      return { status: 'unavailable' };
    }
  }
}
