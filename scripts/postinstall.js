#!/usr/bin/env node
// After install: generate what git does not keep.
// 1. The Prisma client (src/generated/prisma), always.
// 2. dist/, the build that `npm run admin` and `npm run studio` run (scripts/run-built.js), when
//    src/ and TypeScript are there (not in the Docker image's stages, which copy src/ after
//    installing or install production dependencies only): the first admin command is then as
//    quick as the next.
// 3. The client package's types (client/src/generated/openapi.ts) from the OpenAPI document the
//    app serves, when the sources and the dev tools are there (not in the Docker runtime stage,
//    which installs production dependencies only and has no client/).
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const run = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

const prisma = run([path.join(__dirname, 'prisma.js'), 'generate']);
if (prisma !== 0) process.exit(prisma);

const resolvable = (request) => {
  try {
    require.resolve(request, { paths: [root] });
    return true;
  } catch {
    return false;
  }
};
if (existsSync(path.join(root, 'src', 'main.ts')) && resolvable('typescript/bin/tsc')) {
  const build = run([require.resolve('typescript/bin/tsc', { paths: [root] }), '-p', 'tsconfig.build.json']);
  if (build !== 0) process.exit(build);
}

const hasClientSources = existsSync(path.join(root, 'client')) && existsSync(path.join(root, 'src', 'app.factory.ts'));
if (hasClientSources && resolvable('ts-node/register/transpile-only')) {
  process.exit(run(['-r', 'ts-node/register/transpile-only', path.join(__dirname, 'client-types.ts')]));
}
