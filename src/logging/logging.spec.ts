import { loggablePath, maskSecrets } from './logging';

describe('loggablePath', () => {
  it('masks the email of GET /contacts/{email}', () => {
    expect(loggablePath('/api/v2/contacts/ada%40example.com')).toBe('/api/v2/contacts/[email]');
  });

  it('keeps /contacts/batch and other paths as they are', () => {
    expect(loggablePath('/api/v2/contacts/batch')).toBe('/api/v2/contacts/batch');
    expect(loggablePath('/api/v2/lists')).toBe('/api/v2/lists');
  });

  it('never logs a query string: a key or an email sent there stays out of the logs', () => {
    expect(loggablePath('/api/v2/lists?api_key=csk_secret')).toBe('/api/v2/lists?[query]');
    expect(loggablePath('/api/v2/contacts/batch?dryRun=true&email=ada@example.com')).toBe('/api/v2/contacts/batch?[query]');
  });
});

describe('loggablePath whatever the route and letter case', () => {
  it.each([
    ['/API/V2/CONTACTS/a%40b.com', '/API/V2/CONTACTS/[email]'],
    ['/api/v2/contact/x@y.com', '/api/v2/contact/[email]'],
    ['/api/v2/contacts/x@y.com/extra', '/api/v2/contacts/[email]/extra'],
    ['/anything/A%40B.COM', '/anything/[email]'],
    ['/api/v2/Contacts/not-an-email', '/api/v2/Contacts/[email]'],
    ['/api/v2/lists/csk_abcdef', '/api/v2/lists/[key]'],
    ['/api/v2/lists/CSK%5Fabcdef', '/api/v2/lists/[key]'],
    ['/API/V2/CONTACTS/BATCH', '/API/V2/CONTACTS/BATCH'],
  ])('%s is logged as %s', (url, logged) => {
    expect(loggablePath(url)).toBe(logged);
  });
});

describe('maskSecrets (every log line)', () => {
  it('masks emails and keys in free text, such as a database error detail', () => {
    const line = JSON.stringify({
      err: { detail: 'Key (organization_id, email)=(0b5e, Ada.Lovelace+x@Example.COM) already exists.' },
      msg: 'key csk_AbC-123_xyz rejected for bob%40example.com',
    });
    const masked = maskSecrets(line);
    expect(masked).not.toMatch(/lovelace|example\.com|csk_abc|bob/i);
    expect(masked).toContain('[email]');
    expect(masked).toContain('[key]');
    expect(JSON.parse(masked)).toEqual({
      err: { detail: 'Key (organization_id, email)=(0b5e, [email]) already exists.' },
      msg: 'key [key] rejected for [email]',
    });
  });

  it('leaves ordinary lines alone', () => {
    const line = '{"level":30,"req":{"id":"1","method":"GET","path":"/api/v2/lists"},"msg":"request completed"}';
    expect(maskSecrets(line)).toBe(line);
  });
});
