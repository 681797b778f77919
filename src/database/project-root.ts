import path from 'node:path';

/** The project folder (holds prisma/ and prisma.config.ts), from src/ under ts-node or dist/ when built. */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
