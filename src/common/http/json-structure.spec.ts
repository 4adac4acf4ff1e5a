import { DEFAULT_JSON_BODY_LIMITS, JsonBodyLimits } from './json-body-limits';
import { JsonLimitExceededError, JsonStructureLimiter, MalformedJsonError } from './json-structure';

const LIMITS: JsonBodyLimits = { ...DEFAULT_JSON_BODY_LIMITS, maxDepth: 3, maxValues: 10, maxArrayElements: 4, maxObjectMembers: 10 };

/** Feeds `text` in chunks of `chunkSize` bytes (a token may be split across chunks), then ends. */
function follow(text: string, chunkSize = 3, limits = LIMITS): void {
  const limiter = new JsonStructureLimiter(limits);
  const bytes = Buffer.from(text);
  for (let offset = 0; offset < bytes.length; offset += chunkSize) {
    limiter.write(bytes.subarray(offset, offset + chunkSize));
  }
  limiter.end();
}

describe('JsonStructureLimiter', () => {
  it('accepts objects and arrays within every limit, split anywhere', () => {
    for (const text of ['{}', '[]', ' {"a": [1, "x", true], "b": {"c": null}} ', '[[1,2],[3,-4.5e2]]', '{"é": "ü\\u00e9\\""}']) {
      for (const chunkSize of [1, 2, 1000]) expect(() => follow(text, chunkSize)).not.toThrow();
    }
  });

  it('counts values, not keys: ten values pass, eleven do not', () => {
    expect(() => follow('{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}')).not.toThrow();
    expect(() => follow('{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10}')).toThrow(
      new JsonLimitExceededError('request body holds more than 10 values'),
    );
  });

  it('refuses an array with more elements than allowed, however small they are', () => {
    expect(() => follow('{"a":[[],[],[],[]]}')).not.toThrow();
    expect(() => follow('{"a":[[],[],[],[],[]]}')).toThrow(new JsonLimitExceededError('request body has an array of more than 4 elements'));
  });

  it('refuses an object with more members than allowed, whatever their values (validation walks each)', () => {
    const fourMembers = { ...LIMITS, maxObjectMembers: 4 };
    expect(() => follow('{"a":{"k1":[],"k2":{},"k3":[],"k4":{}}}', 3, fourMembers)).not.toThrow();
    expect(() => follow('{"a":{"k1":[],"k2":{},"k3":[],"k4":{},"k5":[]}}', 3, fourMembers)).toThrow(
      new JsonLimitExceededError('request body has an object of more than 4 members'),
    );
  });

  it('refuses nesting deeper than allowed', () => {
    expect(() => follow('{"a":{"b":[]}}')).not.toThrow();
    expect(() => follow('{"a":{"b":[[]]}}')).toThrow(new JsonLimitExceededError('request body is nested more than 3 levels deep'));
  });

  it('stops at the limit: what follows it is never looked at', () => {
    const limiter = new JsonStructureLimiter(LIMITS);
    expect(() => limiter.write(Buffer.from(`[${'[],'.repeat(100_000)}`))).toThrow(JsonLimitExceededError);
  });

  it('refuses text that is not one object or array, token by token (no value to count is no way past the limits)', () => {
    const malformed = ['', '{"a" 1}', '{"a":1,}', '[1 2]', '[,]', ']', '{"a":1}}', '{}[]', '{1:2}', '[1:2]', '{"a":1', '{"a":tru}'];
    for (const text of malformed) expect(() => follow(text)).toThrow(MalformedJsonError);
    const limiter = new JsonStructureLimiter(LIMITS);
    expect(() => limiter.write(Buffer.from(`[1${','.repeat(1_000_000)}`))).toThrow(MalformedJsonError);
  });

  it('tells a bare scalar, which is JSON, that a body is an object; what follows a scalar is not JSON', () => {
    for (const text of ['1', '"s"', 'null', 'true']) expect(() => follow(text)).toThrow(new MalformedJsonError('request body must be a JSON object'));
    for (const text of ['{} 1', '1 2', 'null null', 'nullx', 'truex', '"a" {}', '42]']) {
      expect(() => follow(text)).toThrow(new MalformedJsonError('request body is not valid JSON'));
    }
  });
});
