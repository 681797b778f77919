import { loggablePath } from './logging';

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
