import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common/public.decorator';
import { MetricsService } from './metrics.service';

/** `GET /metrics`: the Prometheus text exposition of this instance's metrics and its process's. */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  async scrape(@Res() res: Response): Promise<void> {
    const { contentType, text } = await this.metrics.exposition();
    // A Buffer keeps the registry's Content-Type byte for byte (a string would make Express rewrite it).
    res.status(200).setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', contentType);
    res.send(Buffer.from(text, 'utf8'));
  }
}
