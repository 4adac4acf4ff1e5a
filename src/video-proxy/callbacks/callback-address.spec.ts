import { isNonPublicAddress, namesNonPublicHost } from './callback-address';
import { postJson, publicOnlyLookup, RefusedAddressError } from './callback-http';

describe('callback address guard', () => {
  it.each(['198.18.0.1', '224.0.0.1', '255.255.255.255', '64:ff9b::7f00:1', 'ff02::1', '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1'])(
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

  it('refuses unparsable and trailing-dot forms at creation', () => {
    expect(namesNonPublicHost('http://0x100000000/h')).toBe(true);
    expect(namesNonPublicHost('http://localhost./hook')).toBe(true);
  });

  it('checks the address connected to, inside the connection’s own DNS lookup', async () => {
    const error = await new Promise<Error | null>((resolve) => publicOnlyLookup('localhost', {}, (e) => resolve(e)));
    expect(error).toBeInstanceOf(RefusedAddressError);
    const viaName = await postJson('http://localhost:9/hook', '{}', {}, { allowPrivate: false, timeoutMs: 2000 });
    expect(viaName.error).toBeInstanceOf(RefusedAddressError);
    const viaLiteral = await postJson('http://[::1]:9/hook', '{}', {}, { allowPrivate: false, timeoutMs: 2000 });
    expect(viaLiteral.error).toBeInstanceOf(RefusedAddressError);
  });
});
