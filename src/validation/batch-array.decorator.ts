import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsDefined } from 'class-validator';
import { RequestErrorCode } from '../errors/error-codes';
import { BEFORE_ENTRIES } from './before-entries';
import type { ConstraintContext } from './request-validation.pipe';

const batchLimit: ConstraintContext = { code: RequestErrorCode.BATCH_LIMIT_EXCEEDED };
const groups = [BEFORE_ENTRIES];

/**
 * The batch array of a request body (`contacts`, `emails`): present, an array, 1 to `limit`
 * entries, checked in that order and before anything about the entries (group BEFORE_ENTRIES),
 * so too many entries is BATCH_LIMIT_EXCEEDED whatever they hold. Decorators written above this
 * one check the entries, after these.
 */
export function BatchArray(options: { limit: number; entries: string; arrayOf: string }): PropertyDecorator {
  const { limit, entries, arrayOf } = options;
  // Applied in this order, as stacked decorators are bottom-up: the first failure wins.
  return applyDecorators(
    IsDefined({ groups, message: '$path is required' }),
    IsArray({ groups, message: `$path must be an array of ${arrayOf}` }),
    ArrayNotEmpty({ groups, message: '$path must not be empty' }),
    ArrayMaxSize(limit, {
      groups,
      context: batchLimit,
      message: (args) => `A batch holds at most ${limit} ${entries}; ${(args.value as unknown[]).length} were sent`,
    }),
  );
}
