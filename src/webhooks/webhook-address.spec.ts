import { checkTarget, isPublicAddress, type Resolver, sharingLookups, TargetRefused, urlProblem } from './webhook-address';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0',
    '100.64.0.1', '100.127.255.255', '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1', '192.0.2.10', '198.51.100.7',
    '203.0.113.99', '198.18.0.1', '192.0.0.8',
    '::', '::1', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1',
    '::ffff:8.8.8.8', '64:ff9b::7f00:1', '2001:db8::1', '2002:7f00:1::1', '2001::1', 'fec0::1', '::127.0.0.1',
    'not an address', '',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.216.34', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:81c::200e'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('urlProblem', () => {
  it('refuses http unless insecure targets are allowed, and anything that is not an absolute http(s) URL', () => {
    expect(urlProblem('http://example.com/hook', false)).toMatch(/https/);
    expect(urlProblem('http://example.com/hook', true)).toBeNull();
    expect(urlProblem('https://example.com/hook', false)).toBeNull();
    expect(urlProblem('ftp://example.com/', true)).toMatch(/https/);
    expect(urlProblem('/relative', false)).toMatch(/absolute/);
    expect(urlProblem('https://user:pw@example.com/', false)).toMatch(/password/);
  });

  it('refuses a port outside 1-65535, port 0 included', () => {
    for (const url of ['https://hooks.example:0/', 'https://hooks.example:00/x', 'https://hooks.example:65536/', 'https://hooks.example:99999999999/', 'https://[2606:4700::1]:0/']) {
      expect(urlProblem(url, false)).toBe('url port must be from 1 to 65535');
    }
    for (const url of ['https://hooks.example:1/', 'https://hooks.example:65535/', 'https://hooks.example:443/', 'https://hooks.example/']) {
      expect(urlProblem(url, false)).toBeNull();
    }
  });
});

describe('checkTarget', () => {
  const hostile: Resolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
  const publicDns: Resolver = () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]);

  it('refuses a public-looking name that a hostile resolver answers with 127.0.0.1', async () => {
    await expect(checkTarget('https://hooks.example.com/x', { allowInsecure: false, resolve: hostile })).rejects.toThrow(TargetRefused);
  });

  it('refuses the name when any one of its addresses is not public', async () => {
    const mixed: Resolver = () => Promise.resolve([{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }]);
    await expect(checkTarget('https://hooks.example.com/x', { allowInsecure: false, resolve: mixed })).rejects.toThrow(/non-public/);
  });

  it('refuses literal private, loopback and mapped addresses without asking the resolver', async () => {
    const resolve = jest.fn(publicDns);
    for (const url of ['https://127.0.0.1/', 'https://[::1]/', 'https://[::ffff:127.0.0.1]/', 'https://169.254.169.254/latest/meta-data']) {
      await expect(checkTarget(url, { allowInsecure: false, resolve })).rejects.toThrow(TargetRefused);
    }
    expect(resolve).not.toHaveBeenCalled();
  });

  it('gives the one checked address the attempt connects to', async () => {
    await expect(checkTarget('https://hooks.example.com/x', { allowInsecure: false, resolve: publicDns })).resolves.toMatchObject({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('allows local addresses and http with WEBHOOK_ALLOW_INSECURE', async () => {
    await expect(checkTarget('http://hooks.example.com/x', { allowInsecure: true, resolve: hostile })).resolves.toMatchObject({ address: '127.0.0.1' });
  });

  it('refuses a name that does not resolve', async () => {
    const failing: Resolver = () => Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));
    await expect(checkTarget('https://nowhere.invalid/', { allowInsecure: false, resolve: failing })).rejects.toThrow(/resolve/);
  });
});

describe('sharingLookups', () => {
  it('shares a lookup under way between the attempts that begin meanwhile, and looks up again after it ended', async () => {
    const answers = ['93.184.216.34', '127.0.0.1'];
    let calls = 0;
    let release: () => void = () => undefined;
    const slow: Resolver = () => {
      const address = answers[calls++];
      return new Promise((resolve) => (release = () => resolve([{ address, family: 4 }])));
    };
    const resolve = sharingLookups(slow);
    const first = resolve('hooks.example.com');
    const second = resolve('hooks.example.com');
    release();
    expect(await first).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(await second).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(calls).toBe(1);
    // The next attempt asks again and gets the new (here hostile) answer: nothing is cached.
    const third = resolve('hooks.example.com');
    release();
    expect(await third).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(calls).toBe(2);
  });
});
