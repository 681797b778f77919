import { checkFieldChange, checkNewField } from './field-checks';
import type { CustomFieldDefinition } from './field-definitions';

describe('checkNewField (POST /fields and `field create`)', () => {
  it('accepts a definition and fills what was not given', () => {
    expect(checkNewField({ key: 'plan', type: 'select', options: ['a', 'b'], defaultValue: 'b' })).toEqual({
      ok: true,
      value: { key: 'plan', type: 'select', required: false, defaultValue: 'b', options: ['a', 'b'] },
    });
    expect(checkNewField({ key: 'n', type: 'number', required: true, defaultValue: null, options: null })).toEqual({
      ok: true,
      value: { key: 'n', type: 'number', required: true, defaultValue: null, options: [] },
    });
  });

  it('a standard field name is a conflict (409), checked after every 400', () => {
    expect(checkNewField({ key: 'firstName', type: 'text' })).toMatchObject({ ok: false, conflict: true });
    expect(checkNewField({ key: 'firstName', type: 'nope' })).toMatchObject({ ok: false, conflict: false });
  });

  it('names the inputs as the caller does', () => {
    const names = { key: '--key', type: '--type', required: '--required', defaultValue: '--default', options: '--options' };
    expect(checkNewField({ key: 'x', type: 'number', defaultValue: 'a' }, names)).toMatchObject({ message: expect.stringMatching(/^--default/) });
    expect(checkNewField({ key: 'x', type: 'number', defaultValue: 'a' })).toMatchObject({ message: expect.stringMatching(/^defaultValue/) });
  });
});

describe('checkFieldChange (PATCH /fields/{key})', () => {
  const select: CustomFieldDefinition = { key: 'plan', type: 'select', required: false, defaultValue: 'a', options: ['a', 'b'] };

  it('options only grow, in any order; the default is kept unless changed', () => {
    expect(checkFieldChange(select, { options: ['b', 'c', 'a'] })).toEqual({ ok: true, value: { ...select, options: ['b', 'c', 'a'] } });
    expect(checkFieldChange(select, { options: ['a'] })).toMatchObject({ ok: false, message: expect.stringContaining('"b"') });
  });

  it('a new default must fit the options after the change; null removes it', () => {
    expect(checkFieldChange(select, { defaultValue: 'c' })).toMatchObject({ ok: false });
    expect(checkFieldChange(select, { defaultValue: 'c', options: ['a', 'b', 'c'] })).toMatchObject({ ok: true, value: { defaultValue: 'c' } });
    expect(checkFieldChange(select, { defaultValue: null })).toMatchObject({ ok: true, value: { defaultValue: null } });
  });

  it('options only for select fields; required only a boolean', () => {
    const text: CustomFieldDefinition = { key: 't', type: 'text', required: false, defaultValue: null, options: [] };
    expect(checkFieldChange(text, { options: ['a'] })).toMatchObject({ ok: false });
    expect(checkFieldChange(text, { required: 1 })).toMatchObject({ ok: false });
    expect(checkFieldChange(text, { required: true })).toEqual({ ok: true, value: { ...text, required: true } });
  });
});
