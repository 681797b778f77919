import { Client } from 'pg';
import { arrayLiteral } from './array-literal';

describe('arrayLiteral', () => {
  it('writes plain elements bare, NULL for null, and quotes what the array syntax would misread', () => {
    expect(arrayLiteral(['a1', '42', '2026-11-25T09:00:00.000Z', null, 7, 0.5])).toBe('{a1,42,2026-11-25T09:00:00.000Z,NULL,7,0.5}');
    expect(arrayLiteral(['', 'null', 'NULL', 'a b', 'a,b', '{x}', 'say "hi"', 'back\\slash'])).toBe(
      '{"","null","NULL","a b","a,b","{x}","say \\"hi\\"","back\\\\slash"}',
    );
    expect(arrayLiteral([])).toBe('{}');
  });

  // The parser is PostgreSQL's: what it reads back must be what was written, whatever the text.
  it('is read back by PostgreSQL as the same values', async () => {
    const values = ['', 'null', 'NULL', 'Null', ' lead', 'trail ', 'a\tb', 'a\nb', 'é ü ß 漢', '{', '}', ',', '"', '\\', '\\"', 'a"b\\c', "it's", 'plain', null];
    const client = new Client({ connectionString: process.env.TEST_PG_SERVER_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ v: (string | null)[] }>('SELECT $1::text[] AS v', [arrayLiteral(values)]);
      expect(rows[0].v).toEqual(values);
      const numbers = await client.query<{ v: string[] }>('SELECT $1::float8[]::text[] AS v', [arrayLiteral([0, 1.5, -2, 1e-7])]);
      expect(numbers.rows[0].v).toEqual(['0', '1.5', '-2', '1e-07']);
    } finally {
      await client.end();
    }
  });
});
