#!/usr/bin/env node
// After install: generate what git does not keep.
// 1. The Prisma client (src/generated/prisma), always.
// 2. The client package's types (client/src/generated/openapi.ts) from the OpenAPI document the
//    app serves, when the sources and the dev tools are there (not in the Docker runtime stage,
//    which installs production dependencies only and has no client/).
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const run = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

const prisma = run([path.join(__dirname, 'prisma.js'), 'generate']);
if (prisma !== 0) process.exit(prisma);

const hasClientSources = existsSync(path.join(root, 'client')) && existsSync(path.join(root, 'src', 'app.factory.ts'));
let hasTsNode = true;
try {
  require.resolve('ts-node/register/transpile-only', { paths: [root] });
} catch {
  hasTsNode = false;
}
if (hasClientSources && hasTsNode) {
  process.exit(run(['-r', 'ts-node/register/transpile-only', path.join(__dirname, 'client-types.ts')]));
}
