import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, RequestHandler, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { BODY_LIMIT_BYTES, jsonBody } from './json-body';

/** POST and PATCH carry a body (PATCH /lists/{id}, /fields/{key}, /webhooks/{id}); other methods none. */
const METHODS_WITH_BODY: ReadonlySet<string> = new Set(['POST', 'PATCH']);

/**
 * On a route handler that reads its own body as a stream, after the same guards (POST
 * /api/v2/imports: a file far above the 1 MiB of a JSON body): this guard leaves it unread.
 */
export const ReadsOwnBody = Reflector.createDecorator<true>({ transform: () => true });

/**
 * The one place request bodies are read: the last of the global guards (app.module.ts), which runs
 * the `jsonBody` middleware on every POST and PATCH. Every check of the request path (API key,
 * organization limit, scope, path, headers, ?dryRun, X-Client-Request-Id) is a global guard listed
 * before it, so a request refused by any of them never has its body read, and `@Body()` sees the
 * parsed document. Route authors declare nothing for it: the body's shape is the `@Body()`
 * parameter's DTO, and a POST that takes no input says so with `@Body(NoBodyPipe)`. A check that
 * must come before the body is a global guard listed before this one, never a route's own guard
 * (Nest runs those after every global guard).
 */
@Injectable()
export class ReadBodyGuard implements CanActivate {
  private readonly read: RequestHandler;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly reflector: Reflector,
  ) {
    this.read = jsonBody({ limit: BODY_LIMIT_BYTES, timeoutMs: config.BODY_TIMEOUT_MS });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    if (!METHODS_WITH_BODY.has(req.method) || this.reflector.get(ReadsOwnBody, context.getHandler())) return true;
    await runMiddleware(this.read, req, http.getResponse<Response>());
    return true;
  }
}

/** Runs connect middleware to its `next()`: resolves, or rejects with what it passed to `next`. */
function runMiddleware(middleware: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void middleware(req, res, (error?: unknown) => {
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error('The body reader failed'));
    });
  });
}
