import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openApiDocument } from './openapi.document';

// One version for the package and the API document (CHANGELOG.md follows it).
it('the OpenAPI info.version is the package version', () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
  expect(openApiDocument.info.version).toBe(pkg.version);
});
