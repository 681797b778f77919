import { isStorableText } from '../common/storable-text';
import { invalidRequest } from '../errors/request-error';
import { urlProblem } from './webhook-address';
import { WEBHOOK_EVENT_TYPES } from './webhook-event-types';

/** The value checks of POST and PATCH /api/v2/webhooks (the DTOs check the keys). */

export function urlOf(value: unknown, allowInsecure: boolean): string {
  if (typeof value !== 'string') throw invalidRequest('url must be a string');
  if (!isStorableText(value)) throw invalidRequest('url must be an https URL');
  const problem = urlProblem(value, allowInsecure);
  if (problem) throw invalidRequest(problem);
  return value;
}

export function typesOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((type) => typeof type !== 'string')) throw invalidRequest('types must be an array of event types');
  if (value.length === 0) throw invalidRequest('types must name at least one event type');
  const known: readonly string[] = WEBHOOK_EVENT_TYPES;
  const unknown = (value as string[]).find((type) => !known.includes(type));
  if (unknown !== undefined) throw invalidRequest(`types holds ${JSON.stringify(unknown)}, which is not an event type (${known.join(', ')})`);
  if (new Set(value).size !== value.length) throw invalidRequest('types must name each event type once');
  return value as string[];
}

export function descriptionOf(value: unknown): string {
  if (typeof value !== 'string') throw invalidRequest('description must be a string');
  if (!isStorableText(value) || [...value].length > 255) throw invalidRequest('description must be at most 255 characters of text');
  return value;
}

export function enabledOf(value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalidRequest('enabled must be a boolean');
  return value;
}
