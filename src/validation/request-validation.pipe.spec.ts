import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsString, ValidateNested } from 'class-validator';
import { RequestError } from '../errors/request-error';
import { BEFORE_ENTRIES } from './before-entries';
import { KnownKeysOnly } from './known-keys.decorator';
import { RequestValidationPipe } from './request-validation.pipe';

@KnownKeysOnly()
class Item {
  @IsString({ message: '$path must be a string' })
  name!: string;
}

/** Any DTO may put checks in BEFORE_ENTRIES: nothing here is specific to contacts. */
@KnownKeysOnly()
class Order {
  @ValidateNested({ each: true })
  @ArrayMaxSize(2, { groups: [BEFORE_ENTRIES], message: '$path holds at most 2' })
  @IsArray({ groups: [BEFORE_ENTRIES], message: '$path must be an array' })
  @Type(() => Item)
  items!: Item[];
}

/** A DTO with no check in BEFORE_ENTRIES. */
class Note {
  @IsString({ message: '$path must be a string' })
  text!: string;
}

const pipe = new RequestValidationPipe();
const run = (metatype: new () => object, body: unknown) => pipe.transform(body, { type: 'body', metatype });
const messageOf = async (promise: Promise<unknown>) => {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RequestError);
  return (error as RequestError).message;
};

/** An entry whose every read throws: reading, copying or transforming it fails the request with that error. */
const untouchable = () =>
  new Proxy(
    {},
    {
      get: () => {
        throw new Error('entry read');
      },
      ownKeys: () => {
        throw new Error('entry read');
      },
      getPrototypeOf: () => {
        throw new Error('entry read');
      },
    },
  );

describe('RequestValidationPipe: checks of group BEFORE_ENTRIES', () => {
  it('refuses on them before any entry is read', async () => {
    expect(await messageOf(run(Order, { items: [untouchable(), untouchable(), untouchable()] }))).toBe('items holds at most 2');
    // The unknown keys of the body come first, as in the full validation.
    expect(await messageOf(run(Order, { items: [untouchable(), untouchable(), untouchable()], x: 1 }))).toBe('Unknown key: x');
  });

  it('reads the entries once they pass (the same entries then fail the request)', async () => {
    await expect(run(Order, { items: [untouchable()] })).rejects.toThrow('entry read');
    expect(await messageOf(run(Order, { items: [{ name: 1 }] }))).toBe('items[0].name must be a string');
    const order = (await run(Order, { items: [{ name: 'a' }] })) as Order;
    expect(order).toBeInstanceOf(Order);
    expect(order.items).toHaveLength(1);
    expect(order.items[0]).toBeInstanceOf(Item);
    expect(order.items[0].name).toBe('a');
  });

  it('validates a DTO without such checks in full', async () => {
    expect(await messageOf(run(Note, { text: 1 }))).toBe('text must be a string');
    expect(await run(Note, { text: 'a' })).toBeInstanceOf(Note);
  });
});
