import { Injectable, type PipeTransform } from '@nestjs/common';
import { invalidRequest } from '../errors/request-error';

/** `?dryRun=true|false`; absent is false, anything else (a repeated parameter too) is a request error. */
export function parseDryRun(value: unknown): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalidRequest('dryRun must be true or false');
}

/** `@Query('dryRun', DryRunPipe)`: synchronous, so it refuses before the body's (async) validation does. */
@Injectable()
export class DryRunPipe implements PipeTransform<unknown, boolean> {
  transform(value: unknown): boolean {
    return parseDryRun(value);
  }
}
