# Contact Sync service image: `docker compose up` runs it with PostgreSQL and Redis.
# Node 24 LTS in both stages (Node 20 left support on 2026-04-30); the same major as CI's second run (.ci/run).
FROM node:24-bookworm-slim AS build
WORKDIR /app
# postinstall runs `prisma generate`, which needs the schema, the config and scripts/prisma.js.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# Runtime dependencies only; the prisma CLI stays (it is a dependency): the service applies
# pending migrations at start with `prisma migrate deploy` (prisma/ and prisma.config.ts).
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
# The process itself (not npm) gets SIGTERM, drains requests and exits 0. The node flags are those of
# `npm start` (package.json; docs/production.md, "Memory").
CMD ["node", "--max-old-space-size=512", "dist/main.js"]
