import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { Patch, Post, RequestMethod, UseGuards, UseInterceptors, type CallHandler, type CanActivate, type NestInterceptor, type Type } from '@nestjs/common';
import { GUARDS_METADATA, INTERCEPTORS_METADATA, METHOD_METADATA, MODULE_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { DryRunCheck } from '../../src/contacts/dry-run.pipe';
import { ChecksAfterBody, checksAfterBody, JsonBody, JsonBodyGuard, TakesNoBody } from '../../src/http-body/json-body.guard';
import { ClientRequestIdGuard } from '../../src/requests/client-request-id';
import { ListCopiesModule } from '../example-module/list-copies.module';
import { PrismaWriteProbeModule } from '../faults/prisma-write-probe.module';
import { createTestAppWithOrg, type TestApp } from '../utils/test-app';
import { portOf, sendHeadersOnly } from '../rate-limit/support';
import { rawPost } from '../utils/net';

const LIMIT = 1_048_576;

/** Body rules of docs/api.md#basics, on POST /api/v2/contacts of the real app. */
describe('JSON request bodies', () => {
  let t: TestApp;
  let apiKey: string;
  let listId: string;
  beforeAll(async () => ({ t, apiKey, listId } = await createTestAppWithOrg()));
  afterAll(() => t.close());

  let n = 0;
  /** A valid new contact, padded with JSON whitespace to exactly `size` bytes. */
  const contactOfSize = (size: number) => {
    const json = JSON.stringify({ email: `body-${++n}-${Date.now()}@example.com`, listIds: [listId] });
    return Buffer.from(json + ' '.repeat(size - Buffer.byteLength(json)));
  };
  /** A raw POST (supertest would JSON-encode a Buffer) with its Content-Length. */
  const post = async (body: Buffer | string, contentType = 'application/json', headers: Record<string, string> = {}) => {
    const bytes = Buffer.from(body);
    const headersToSend = { Authorization: `Bearer ${apiKey}`, 'Content-Type': contentType, 'Content-Length': String(bytes.length), ...headers };
    const res = await rawPost(portOf(t), '/api/v2/contacts', headersToSend, [bytes]);
    return { status: res.status, body: JSON.parse(res.body) };
  };
  const auth = () => ({ Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' });
  const expectError = (res: { status: number; body: { error: { code: string } } }, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  };

  describe('size', () => {
    it('accepts a body of exactly 1,048,576 bytes and refuses one byte more with 413', async () => {
      expect((await post(contactOfSize(LIMIT))).status).toBe(201);
      expectError(await post(contactOfSize(LIMIT + 1)), 413, 'PAYLOAD_TOO_LARGE');
    });

    it('refuses a Content-Length over the limit before reading the body', async () => {
      const res = await sendHeadersOnly(portOf(t), '/api/v2/contacts', { ...auth(), 'Content-Length': String(LIMIT + 1) });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('stops reading a chunked body as soon as it passes the limit', async () => {
      // Never finished: the 413 comes from the first bytes past the limit, not from the end.
      const res = await rawPost(portOf(t), '/api/v2/contacts', { ...auth(), 'Transfer-Encoding': 'chunked' }, [contactOfSize(LIMIT + 10)], {
        end: false,
      });
      expect(res.status).toBe(413);
      expect(res.headers.connection).toBe('close');
    });

    it.each([
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ])('limits the decoded size of %s bodies: within the limit accepted, a bomb cut off at the limit', async (encoding, compress) => {
      const ok = await post(compress(contactOfSize(LIMIT)), 'application/json', { 'Content-Encoding': encoding });
      expect(ok.status).toBe(201);
      // 64 MiB of zeros in a few kilobytes, and the request never finished: an answer proves the
      // server stopped inflating at the limit instead of inflating (and waiting for) everything.
      const bomb = compress(Buffer.alloc(64 * LIMIT));
      expect(bomb.length).toBeLessThan(LIMIT / 4);
      const res = await rawPost(portOf(t), '/api/v2/contacts', { ...auth(), 'Content-Encoding': encoding, 'Transfer-Encoding': 'chunked' }, [bomb], {
        end: false,
      });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error.code).toBe('PAYLOAD_TOO_LARGE');
      // 64 MiB compressed here and inflated up to the limit there: br took 14.8 s with two Jest runs
      // side by side on the loaded 2 cores (the default bound is 30 s).
    }, 120_000);
  });

  describe('content type and encoding', () => {
    it('matches application/json case-insensitively, with a UTF-8 charset parameter', async () => {
      expect((await post(contactOfSize(100), 'Application/JSON')).status).toBe(201);
      expect((await post(contactOfSize(100), 'application/json; charset=utf-8')).status).toBe(201);
      expect((await post(contactOfSize(100), 'application/json;Charset="UTF-8"')).status).toBe(201);
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'application/json-patch+json'])(
      'refuses Content-Type %s with 400 INVALID_REQUEST',
      async (type) => {
        expectError(await post(contactOfSize(100), type), 400, 'INVALID_REQUEST');
      },
    );

    it('refuses a POST without Content-Type', async () => {
      const res = await rawPost(portOf(t), '/api/v2/contacts', { Authorization: `Bearer ${apiKey}` }, [contactOfSize(100)]);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error).toEqual({ code: 'INVALID_REQUEST', message: 'Content-Type must be application/json' });
    });

    it.each(['iso-8859-1', 'us-ascii', 'utf-16le'])('accepts any charset parameter when the body is UTF-8 (charset=%s)', async (charset) => {
      expect((await post(contactOfSize(100), `application/json; charset=${charset}`)).status).toBe(201);
    });

    it('refuses a body that is not UTF-8 whatever its charset parameter says', async () => {
      const utf16 = Buffer.from(contactOfSize(100).toString(), 'utf16le');
      expectError(await post(utf16, 'application/json; charset=utf-16le'), 400, 'INVALID_REQUEST');
      const latin1 = Buffer.from('{"email":"caf\xe9@example.com"}', 'latin1');
      expectError(await post(latin1, 'application/json; charset=iso-8859-1'), 400, 'INVALID_REQUEST');
    });

    it.each(['compress', 'zstd', 'gzip, gzip', 'bogus'])('refuses Content-Encoding %s with 400', async (encoding) => {
      expectError(await post(contactOfSize(100), 'application/json', { 'Content-Encoding': encoding }), 400, 'INVALID_REQUEST');
    });

    it('refuses a body that does not decode as its Content-Encoding', async () => {
      expectError(await post(contactOfSize(100), 'application/json', { 'Content-Encoding': 'gzip' }), 400, 'INVALID_REQUEST');
    });
  });

  describe('JSON', () => {
    it('refuses malformed JSON with 400 INVALID_REQUEST', async () => {
      const res = await post('{"email": "a@example.com",');
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toBe('Request body is not valid JSON');
    });

    it('refuses an empty body (malformed JSON)', async () => {
      const res = await post('');
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toMatch(/empty/);
      // Without any Content-Length either.
      const none = await rawPost(portOf(t), '/api/v2/contacts', auth(), []);
      expect(none.status).toBe(400);
    });

    it('refuses a body that is not UTF-8', async () => {
      const latin1 = Buffer.from(`{"email":"caf\xe9@example.com","listIds":["${listId}"]}`, 'latin1');
      const res = await post(latin1);
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toMatch(/UTF-8/);
    });

    it('accepts a UTF-8 byte order mark', async () => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), contactOfSize(100)]);
      expect((await post(body)).status).toBe(201);
    });
  });

  describe('order of checks: per-IP → key → organization → size → JSON → shape', () => {
    it('answers an unauthenticated request without reading its body', async () => {
      const res = await sendHeadersOnly(portOf(t), '/api/v2/contacts', { 'Content-Type': 'application/json', 'Content-Length': String(50 * LIMIT) });
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).error.code).toBe('INVALID_API_KEY');
    });

    it('checks the key before content type and JSON', async () => {
      const res = await t.http().post('/api/v2/contacts').set('Content-Type', 'text/plain').send('{nope');
      expectError(res, 401, 'INVALID_API_KEY');
    });

    it('checks the size before the JSON', async () => {
      expectError(await post(Buffer.alloc(LIMIT + 1, '{')), 413, 'PAYLOAD_TOO_LARGE');
    });

    it('checks the JSON before the shape', async () => {
      const malformed = await post('[{"email": 1,]');
      expect(malformed.body.error.message).toBe('Request body is not valid JSON');
      const wrongShape = await post('[]');
      expectError(wrongShape, 400, 'INVALID_REQUEST');
      expect(wrongShape.body.error.message).not.toBe('Request body is not valid JSON');
    });
  });

  describe('which routes read a body', () => {
    /** Every route handler of these controllers, with its method, route guards and interceptors. */
    const handlersOf = (controllers: Type[]) => {
      const handlers: Array<{ name: string; method: RequestMethod; guards: unknown[]; interceptors: unknown[] }> = [];
      for (const controller of controllers) {
        for (const name of Object.getOwnPropertyNames(controller.prototype)) {
          const handler = (controller.prototype as Record<string, unknown>)[name];
          const method = typeof handler === 'function' ? (Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined) : undefined;
          if (method === undefined) continue;
          const guards = (Reflect.getMetadata(GUARDS_METADATA, handler as object) as unknown[] | undefined) ?? [];
          const interceptors = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler as object) as unknown[] | undefined) ?? [];
          handlers.push({ name: `${controller.name}.${name}`, method, guards, interceptors });
        }
      }
      return handlers;
    };
    /** The app's controllers as Nest registered them, and those of the test modules mounted beside it. */
    const controllers = () => [
      ...[...t.app.get(ModulesContainer).values()].flatMap((module) => [...module.controllers.values()].map((wrapper) => wrapper.metatype as Type)),
      ...[ListCopiesModule, PrismaWriteProbeModule].flatMap((module) => Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, module) as Type[]),
    ];

    it('every POST and PATCH route reads its body once, as a route guard, before its after-body checks; no other route has the reader', () => {
      const handlers = handlersOf(controllers());
      const withBody = handlers.filter((h) => h.method === RequestMethod.POST || h.method === RequestMethod.PATCH);
      expect(withBody.length).toBeGreaterThanOrEqual(14);
      expect(withBody.filter((h) => h.guards.filter((g) => g === JsonBodyGuard).length !== 1).map((h) => h.name)).toEqual([]);
      const readLate = (h: (typeof handlers)[number]) => h.guards.findIndex(checksAfterBody) !== -1 && h.guards.findIndex(checksAfterBody) < h.guards.indexOf(JsonBodyGuard);
      expect(withBody.filter(readLate).map((h) => h.name)).toEqual([]);
      const others = handlers.filter((h) => !withBody.includes(h));
      expect(others.length).toBeGreaterThan(0);
      expect(others.filter((h) => h.method === RequestMethod.ALL).map((h) => h.name)).toEqual([]); // would take a body unchecked
      expect(others.filter((h) => h.guards.includes(JsonBodyGuard)).map((h) => h.name)).toEqual([]);
      // The contacts POSTs: the client request id before the body, the dryRun check after it, and
      // no interceptor (Nest's rxjs chain is skipped: docs/performance.md, single8).
      for (const name of ['ContactsController.createOrUpdate', 'ContactsController.batch']) {
        const handler = handlers.find((h) => h.name === name);
        expect([name, ...(handler?.guards ?? [])]).toEqual([name, ClientRequestIdGuard, JsonBodyGuard, DryRunCheck]);
        expect([name, ...(handler?.interceptors ?? [])]).toEqual([name]);
      }
    });

    class Own implements NestInterceptor {
      intercept(_context: unknown, next: CallHandler) {
        return next.handle();
      }
    }
    class First implements CanActivate {
      canActivate() {
        return true;
      }
    }
    @ChecksAfterBody()
    class After implements CanActivate {
      canActivate() {
        return true;
      }
    }

    it('@JsonBody() and @TakesNoBody() put the reader after the route guards declared below them, before those above and before interceptors', () => {
      class Probe {
        @Post() @JsonBody() create() {}
        @Patch() @UseInterceptors(Own) @UseGuards(After) @JsonBody() @UseGuards(First) change() {}
        @Post() @UseGuards(After) @TakesNoBody() act() {}
      }
      expect(handlersOf([Probe]).map((h) => [h.name, h.guards, h.interceptors])).toEqual([
        ['Probe.create', [JsonBodyGuard], []],
        ['Probe.change', [First, JsonBodyGuard, After], [Own]],
        ['Probe.act', [JsonBodyGuard, After], []],
      ]);
    });

    it.each([
      ['JsonBody', JsonBody],
      ['TakesNoBody', TakesNoBody],
    ])('@%s() above a guard that checks after the body refuses to define the class, naming the route', (name, decorator) => {
      const define = () => {
        class Probe {
          @Post() @decorator() @UseGuards(After) create() {}
        }
        return Probe;
      };
      expect(define).toThrow(`@${name}() of Probe.create must be below the guards that check after the body`);
    });
  });
});
