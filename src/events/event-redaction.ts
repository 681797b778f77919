/**
 * Erasure's redaction of one stored event text (events.body; docs/api.md, "Erasing a contact";
 * contract sections 13 and 16): the event without the address, as renderEvent (event-types.ts)
 * would write the redacted event. `data.contact` is reduced to `{ id }` and
 * `data.suppression.email` becomes null (the reason stays); everything else, and every key's place,
 * stays.
 *
 * The text is parsed and written again by JSON.stringify, so the result is JSON.stringify's bytes:
 * no whitespace, numbers as JavaScript writes them (`1e+21`), keys in the text's order. A text that
 * renderEvent wrote comes back unchanged but for the redacted values (JSON.stringify of what
 * JSON.parse read from JSON.stringify's text is that text again). Pure: EventsRepository.redactEventsOf
 * reads the texts and writes the results.
 */
export function redactEventText(body: string): string {
  const event = JSON.parse(body) as { data?: unknown };
  const data = event.data;
  if (isObject(data)) {
    if ('contact' in data) {
      // Assigning keeps the key's place in the object, so its place in the text.
      data.contact = { id: isObject(data.contact) && data.contact.id !== undefined ? data.contact.id : null };
    }
    if (isObject(data.suppression)) data.suppression.email = null;
  }
  return JSON.stringify(event);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
