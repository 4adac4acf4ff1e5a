import { isNonPublicAddress, namesNonPublicHost, resolvesToNonPublic } from './callback-address';

describe('callback address guard', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1'])(
    'treats %s as non-public',
    (address) => expect(isNonPublicAddress(address)).toBe(true),
  );

  it.each(['8.8.8.8', '172.32.0.1', '93.184.216.34', '2606:4700::1111'])('treats %s as public', (address) =>
    expect(isNonPublicAddress(address)).toBe(false),
  );

  it('spots non-public hosts named in URLs', () => {
    expect(namesNonPublicHost('http://localhost:8080/hook')).toBe(true);
    expect(namesNonPublicHost('http://[::1]/hook')).toBe(true);
    expect(namesNonPublicHost('https://10.0.0.5/hook')).toBe(true);
    expect(namesNonPublicHost('https://hooks.example.com/x')).toBe(false);
  });

  it('resolves names before delivery', async () => {
    await expect(resolvesToNonPublic('http://localhost/hook')).resolves.toBe(true);
    await expect(resolvesToNonPublic('http://127.0.0.1:9/hook')).resolves.toBe(true);
  });
});
