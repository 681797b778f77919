import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/database/project-root';
import { findPatches, type PatchFinding, type PatchRule } from './patch-finder';

/**
 * No code in src/ patches a library (developers' guide, "Plain first"): it assigns to no
 * prototype and to no member of an imported library object, wraps no library object's method,
 * touches no member whose name starts with "_" on an object it did not create (anything but
 * `this`), and reads no framework metadata key (patch-finder.ts says how each is found). Such code
 * breaks on a library's upgrade without a compile error; the library's documented way (its options,
 * hooks, middleware, instrumentations) is used instead.
 *
 * An exception needs an entry here: the file, the rule, the code as the finding prints it, one
 * sentence of reason and the upstream issue that would make it unnecessary. The goal is no entry.
 * An entry that matches nothing fails too, so the list stays the true one.
 */
interface Allowed {
  file: string;
  rule: PatchRule;
  code: string;
  reason: string;
  issue: string;
}

/**
 * Uses that cannot be avoided yet, each with a one-sentence reason and the upstream issue that would
 * remove it. Empty: nothing in src/ patches a library.
 */
const ALLOWED: readonly Allowed[] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}

const describeFinding = (finding: PatchFinding) => `${finding.file}:${finding.line} ${finding.rule}: ${finding.code}`;
const allows = (entry: Allowed, finding: PatchFinding) => entry.file === finding.file && entry.rule === finding.rule && entry.code === finding.code;

describe('no patching of libraries in src/', () => {
  const findings = sourceFiles(path.join(PROJECT_ROOT, 'src')).flatMap((file) =>
    findPatches(path.relative(PROJECT_ROOT, file).split(path.sep).join('/'), readFileSync(file, 'utf8')),
  );

  it('finds no patch outside the allow-list', () => {
    const allowed = findings.filter((finding) => ALLOWED.some((entry) => allows(entry, finding)));
    if (allowed.length > 0) console.info(`Allowed for now (ALLOWED in ${path.basename(__filename)}):\n${allowed.map(describeFinding).join('\n')}`);
    const offending = findings.filter((finding) => !ALLOWED.some((entry) => allows(entry, finding)));
    expect(offending.map(describeFinding)).toEqual([]);
  });

  it('lists only uses that still exist, each with a one-sentence reason and an upstream issue', () => {
    const stale = ALLOWED.filter((entry) => !findings.some((finding) => allows(entry, finding)));
    expect(stale.map((entry) => `${entry.file} ${entry.rule}: ${entry.code}`)).toEqual([]);
    for (const entry of ALLOWED) {
      expect(entry.reason).toMatch(/^[^.]+\.?$/); // one sentence
      expect(entry.issue).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/(issues|pull)\/\d+$/);
    }
  });
});

// The finder itself, on snippets: what it must flag, and plain code it must leave alone.
describe('patch-finder', () => {
  const rulesOf = (text: string) => findPatches('snippet.ts', text).map((finding) => `${finding.line} ${finding.rule}: ${finding.code}`);

  it('flags each kind of patch, with its line', () => {
    expect(
      rulesOf(`import pg from 'pg';
import { Pool } from 'pg';
import { GUARDS_METADATA } from '@nestjs/common/constants';
const storage = require('nestjs-pino/storage') as { Store: unknown };
pg.Client.prototype.query = function () {};
Object.defineProperty(Pool.prototype, 'connect', { value: () => undefined });
storage.Store = class {};
const emit = server.emit;
server.emit = function (...args) { return emit.apply(this, args); };
const inFlight = socket._httpMessage;
const { _spanLimits } = tracer;
const guards = Reflect.getMetadata('__guards__', handler);
const types = Reflect.getMetadata('design:paramtypes', target);
`),
    ).toEqual([
      "3 framework metadata: import { GUARDS_METADATA } from '@nestjs/common/constants';",
      '5 prototype: pg.Client.prototype.query',
      "6 prototype: Object.defineProperty(Pool.prototype, 'connect', { value: () => undefined })",
      '7 library member: storage.Store',
      '9 wrapped method: server.emit',
      '10 underscore member: socket._httpMessage',
      '11 underscore member: _spanLimits',
      "12 framework metadata: Reflect.getMetadata('__guards__', handler)",
      "13 framework metadata: Reflect.getMetadata('design:paramtypes', target)",
    ]);
  });

  it('leaves plain code alone: own objects and members, calls of library methods, own metadata keys', () => {
    expect(
      rulesOf(`import { Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { REQUIRED_SCOPE } from './scopes';
const settings = { retries: 1, onDone: () => undefined };
settings.retries = settings.retries + 1;
settings.onDone = () => console.log('done');
server.on('request', handler);
const keep = Object.prototype.hasOwnProperty.call(settings, 'retries');
class Counter {
  private _count = 0;
  add(): void { this._count += 1; }
}
const scope = new Reflector().get(REQUIRED_SCOPE, handler);
const models = Reflect.getMetadata(OPENAPI_MODELS, moduleClass);
export const Public = () => SetMetadata('isPublic', true);
`),
    ).toEqual([]);
  });
});
