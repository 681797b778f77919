import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/database/project-root';

const CLIENT = path.join(PROJECT_ROOT, 'client');

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: PROJECT_ROOT, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const clientTypes = (...args: string[]) => run(['-r', 'ts-node/register/transpile-only', 'scripts/client-types.ts', '--check', ...args]);

// Each test runs a Node or tsc child process that compiles the OpenAPI types (one took 45.8 s of its
// 60 s with two Jest runs side by side on the loaded 2 cores): three to four times that, not a bound.
describe('client/ package', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'contact-sync-client-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('the generated types on disk are what openapi-typescript makes of the document the app serves', async () => {
    const check = await clientTypes();
    expect([check.code, check.stderr]).toEqual([0, '']);
  }, 180_000);

  it('and the check fails when they differ', async () => {
    const edited = path.join(tmp, 'openapi.ts');
    writeFileSync(edited, readFileSync(path.join(CLIENT, 'src', 'generated', 'openapi.ts'), 'utf8').replace('"/api/v2/lists"', '"/api/v2/lists2"'));
    const check = await clientTypes('--file', edited);
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/differs from the OpenAPI document/);
  }, 180_000);

  it('builds with the root install alone, to the main and types its package.json names, with nothing at run time but Node', async () => {
    const pkg = JSON.parse(readFileSync(path.join(CLIENT, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: '@contact-sync/client', main: 'dist/index.js', types: 'dist/index.d.ts', license: 'MIT' });
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'README.md', 'LICENSE']));
    for (const file of ['README.md', 'LICENSE']) expect(existsSync(path.join(CLIENT, file))).toBe(true);

    const outDir = path.join(tmp, 'dist');
    const build = await run([require.resolve('typescript/bin/tsc'), '-p', 'client/tsconfig.json', '--outDir', outDir]);
    expect([build.code, build.stdout]).toEqual([0, '']);
    expect(existsSync(path.join(outDir, 'index.d.ts'))).toBe(true);
    // The built package loads in plain Node and requires only Node built-ins and its own files.
    const load = await run(['-e', `const m = require(${JSON.stringify(path.join(outDir, 'index.js'))}); console.log(Object.keys(m).sort().join(','))`]);
    expect(load.stdout.trim().split(',')).toEqual(expect.arrayContaining(['ContactSyncClient', 'ContactSyncError', 'chunkContacts']));
    const requires = [...readFileSync(path.join(outDir, 'client.js'), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
    expect(requires.filter((r) => !r.startsWith('node:') && !r.startsWith('./'))).toEqual([]);
  }, 240_000);
});
