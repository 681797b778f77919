import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions, ApiSchema } from '@nestjs/swagger';
import { schemaRef, requestIdProperty } from '../../docs/openapi.decorators';
import { CONTACT_ERROR_CODES, type ContactErrorCode, singleEndpointCodes } from '../contact-error-codes';
import { SUPPRESSION_REASONS, type SuppressionReason } from '../contact-rules';

/**
 * The response models of the two POST endpoints (docs/api.md#endpoints, #rules-and-codes, #dry-run), for the OpenAPI
 * document: one model per result status, so each carries exactly its fields. The bodies are
 * rendered by contact-results.ts; test/ops/conformance.e2e-spec.ts checks real ones against these.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the mixin signature TypeScript requires
type Constructor = new (...args: any[]) => object;

const email = { type: String, description: 'The normalized email' } as const;
const contactId = { type: String, format: 'uuid', description: "The contact's id" } as const;
const stringList = (description: string, extra: { maxItems?: number } = {}): ApiPropertyOptions => ({ type: [String], description, ...extra });

/** The result models on top of `Base` (the single endpoint's body, or a batch row). */
function resultModels<TBase extends Constructor>(Base: TBase, prefix: string) {
  @ApiSchema({ name: `${prefix}Created` })
  class Created extends Base {
    @ApiPropertyOptional({ ...contactId, description: "The new contact's id; absent in a dry run" })
    id?: string;

    @ApiProperty(email)
    email!: string;

    @ApiProperty({ enum: ['created'] })
    status!: 'created';
  }

  @ApiSchema({ name: `${prefix}Updated` })
  class Updated extends Base {
    @ApiProperty(contactId)
    id!: string;

    @ApiProperty(email)
    email!: string;

    @ApiProperty({ enum: ['updated'] })
    status!: 'updated';

    @ApiProperty(stringList('Keys of the fields whose value changed, sorted'))
    changedFields!: string[];

    @ApiProperty(stringList('Lists the contact was added to'))
    addedListIds!: string[];
  }

  @ApiSchema({ name: `${prefix}Unchanged` })
  class Unchanged extends Base {
    @ApiProperty(contactId)
    id!: string;

    @ApiProperty(email)
    email!: string;

    @ApiProperty({ enum: ['unchanged'] })
    status!: 'unchanged';

    @ApiPropertyOptional(stringList('Always empty when present', { maxItems: 0 }))
    changedFields?: string[];

    @ApiPropertyOptional(stringList('Always empty when present', { maxItems: 0 }))
    addedListIds?: string[];
  }

  function Failed(name: string, codes: readonly ContactErrorCode[]) {
    @ApiSchema({ name })
    class FailedModel extends Base {
      @ApiProperty({ type: String, nullable: true, description: 'The normalized input when it was a string, else null' })
      email!: string | null;

      @ApiProperty({ enum: ['failed'] })
      status!: 'failed';

      @ApiProperty({ enum: codes, description: 'The first per-contact rule that failed (docs/api.md, "Rules and codes")' })
      code!: ContactErrorCode;

      @ApiProperty()
      message!: string;

      @ApiPropertyOptional(stringList('With INVALID_LIST only: each offending id once, in order of first appearance'))
      invalidListIds?: string[];

      @ApiPropertyOptional({ enum: SUPPRESSION_REASONS, description: 'With SUPPRESSED_EMAIL only' })
      suppressionReason?: SuppressionReason;
    }
    return FailedModel;
  }

  return { Created, Updated, Unchanged, Failed };
}

class SingleBody {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiPropertyOptional({ type: Boolean, enum: [true], description: 'Present (true) on dry runs only' })
  dryRun?: true;
}

class BatchRowBase {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Position of the row in `contacts`' })
  index!: number;
}

const single = resultModels(SingleBody, 'Contact');
export const ContactCreated = single.Created;
export const ContactUpdated = single.Updated;
export const ContactUnchanged = single.Unchanged;
/** 400 of POST /contacts: a per-contact failure. */
export const ContactFailure = single.Failed('ContactFailure', singleEndpointCodes(400));
/** 409 of POST /contacts: DUPLICATE_EMAIL or SUPPRESSED_EMAIL. */
export const ContactConflict = single.Failed('ContactConflict', singleEndpointCodes(409));

const row = resultModels(BatchRowBase, 'BatchRow');
export const BatchRowCreated = row.Created;
export const BatchRowUpdated = row.Updated;
export const BatchRowUnchanged = row.Unchanged;
export const BatchRowFailed = row.Failed('BatchRowFailed', CONTACT_ERROR_CODES);

/** Named unions (swagger cannot name a oneOf): ContactsModule describes them, docs/openapi.ts adds them as components. */
export const CONTACT_UNIONS = {
  ContactSuccess: [ContactCreated, ContactUpdated, ContactUnchanged],
  BatchRow: [BatchRowCreated, BatchRowUpdated, BatchRowUnchanged, BatchRowFailed],
} as const;

@ApiSchema({ name: 'BatchSummary' })
export class BatchSummaryModel {
  @ApiProperty({ type: 'integer', minimum: 0 }) created!: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) updated!: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) unchanged!: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) failed!: number;
}

@ApiSchema({ name: 'BatchResponse' })
export class BatchResponseModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiPropertyOptional({ type: Boolean, enum: [true], description: 'Present (true) on dry runs only' })
  dryRun?: true;

  @ApiProperty({ type: 'array', items: schemaRef('BatchRow'), description: 'One entry per input row, in input order' })
  results!: unknown[];

  @ApiProperty({ type: BatchSummaryModel })
  summary!: BatchSummaryModel;
}

@ApiSchema({ name: 'ContactView' })
export class ContactViewModel {
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ type: [String], description: 'Oldest membership first' }) listIds!: string[];

  @ApiProperty({
    type: 'object',
    description: 'Every field with a value (standard and custom); dates as YYYY-MM-DD strings',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
  })
  fields!: Record<string, unknown>;

  @ApiProperty({
    type: 'object',
    nullable: true,
    selfRequired: true, // present (null) when not suppressed; `required` below is the object's
    required: ['reason'],
    additionalProperties: false,
    properties: { reason: { type: 'string', enum: [...SUPPRESSION_REASONS] } },
    description: 'null when the email is not suppressed',
  })
  suppressed!: { reason: SuppressionReason } | null;

  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

@ApiSchema({ name: 'ContactResponse' })
export class ContactResponseModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ type: ContactViewModel })
  contact!: ContactViewModel;
}

/** GET /api/v2/contacts. */
@ApiSchema({ name: 'ContactsPage' })
export class ContactsPageModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ type: [ContactViewModel], description: 'By normalized email in byte order; each as GET /contacts/{email} shows it' })
  contacts!: ContactViewModel[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Opaque; pass as `cursor` with the same filters for the next page. null on the last page.',
  })
  nextCursor!: string | null;
}

/** DELETE /api/v2/contacts/{email}. */
@ApiSchema({ name: 'ContactDeleted' })
export class ContactDeletedModel {
  @ApiProperty(requestIdProperty)
  request_id!: string;

  @ApiProperty({ description: 'The normalized email' })
  email!: string;

  @ApiProperty({ type: String, enum: ['deleted'] })
  status!: 'deleted';
}
