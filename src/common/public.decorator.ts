import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';

/** Marks a route that needs no API key and is not counted per organization (health, metrics, docs). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
