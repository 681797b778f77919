import { ConfigError, loadConfig } from './app-config';

describe('DB_LOCK_TIMEOUT_MS', () => {
  it('defaults to 60% of DB_STATEMENT_TIMEOUT_MS, so a lock wait always ends first', () => {
    expect(loadConfig({}).DB_LOCK_TIMEOUT_MS).toBe(3000);
    expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '1500' }).DB_LOCK_TIMEOUT_MS).toBe(900);
  });

  it('accepts a value below the statement timeout, and 0 (no lock_timeout)', () => {
    expect(loadConfig({ DB_LOCK_TIMEOUT_MS: '4999' }).DB_LOCK_TIMEOUT_MS).toBe(4999);
    expect(loadConfig({ DB_LOCK_TIMEOUT_MS: '0' }).DB_LOCK_TIMEOUT_MS).toBe(0);
  });

  it.each([
    ['5000', {}, 'must be below DB_STATEMENT_TIMEOUT_MS (5000)'],
    ['2000', { DB_STATEMENT_TIMEOUT_MS: '1000' }, 'must be below DB_STATEMENT_TIMEOUT_MS (1000)'],
    ['-1', {}, 'must be 0 or more'],
    ['soon', {}, 'must be a whole number'],
  ])('refuses %s with a message naming the variable', (value, env, message) => {
    const load = () => loadConfig({ ...env, DB_LOCK_TIMEOUT_MS: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(`Invalid configuration: DB_LOCK_TIMEOUT_MS="${value}" ${message}`);
  });
});

describe('EVENT_RETENTION_DAYS', () => {
  it('defaults to 7 and accepts whole and fractional days', () => {
    expect(loadConfig({}).EVENT_RETENTION_DAYS).toBe(7);
    expect(loadConfig({ EVENT_RETENTION_DAYS: '30' }).EVENT_RETENTION_DAYS).toBe(30);
    expect(loadConfig({ EVENT_RETENTION_DAYS: '0.5' }).EVENT_RETENTION_DAYS).toBe(0.5);
  });

  it.each([
    ['0', 'must be a number of days greater than 0'],
    ['-1', 'must be a number of days greater than 0'],
    ['Infinity', 'must be a number of days greater than 0'],
    ['a week', 'must be a number of days'],
  ])('refuses %s with a message naming the variable', (value, message) => {
    const load = () => loadConfig({ EVENT_RETENTION_DAYS: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(`Invalid configuration: EVENT_RETENTION_DAYS="${value}" ${message}`);
  });
});
