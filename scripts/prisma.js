#!/usr/bin/env node
// Runs the Prisma CLI for commands that need no database (generate, migrate diff, validate).
// Prisma 6.19 downloads its Rust query engine when DATABASE_URL is unset, which cannot work
// offline; a placeholder URL avoids that. No connection is made with it.
const { spawnSync } = require('node:child_process');

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
env.DATABASE_URL ??= 'postgresql://placeholder@127.0.0.1:5432/placeholder';
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
