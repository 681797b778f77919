// Prisma 6.19 with the WebAssembly schema engine (`engine: "js"`) and the pg driver adapter:
// the whole toolchain (generate, migrate deploy, migrate diff, studio) runs offline this way.
// See README, "Dependencies and why" (Prisma).
import { PrismaPg } from '@prisma/adapter-pg';
import { defineConfig } from 'prisma/config';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  adapter() {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) {
      throw new Error('DATABASE_URL is not set (npm start sets it for the embedded database)');
    }
    // allowExitOnIdle: the CLI exits as soon as it is done instead of waiting for idle connections.
    return Promise.resolve(new PrismaPg({ connectionString, allowExitOnIdle: true }));
  },
});
