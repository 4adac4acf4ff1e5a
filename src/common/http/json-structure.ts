import { Tokenizer, TokenType } from '@streamparser/json';
import { JsonBodyLimits } from './json-body-limits';

/** The body crossed one of its route's limits (413). */
export class JsonLimitExceededError extends Error {}

/** What a body that is JSON but a bare scalar (`null`, `1`, `"x"`) is told; an array is told so by the validation pipe. */
export const NOT_A_JSON_OBJECT = 'request body must be a JSON object';

/** The body is not one JSON object or array (400). */
export class MalformedJsonError extends Error {
  constructor(message = 'request body is not valid JSON') {
    super(message);
  }
}

/** What may come next inside the innermost open container (or at the top, outside every container). */
type Expecting = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'nothing';

interface OpenContainer {
  kind: 'object' | 'array';
  /** An array's elements, an object's members. */
  elements: number;
  expecting: Expecting;
}

const VALUE_TOKENS = new Set([TokenType.STRING, TokenType.NUMBER, TokenType.TRUE, TokenType.FALSE, TokenType.NULL]);

/**
 * Follows a JSON text chunk by chunk as it arrives, with a streaming
 * tokenizer (@streamparser/json), and throws as soon as the text crosses a
 * structural limit (JsonLimitExceededError) or stops being JSON
 * (MalformedJsonError). It keeps only a counter per open container, never
 * the values: the document itself is parsed by JSON.parse once it has been
 * accepted whole. Checking the grammar here, not only counting, is what
 * bounds the work on a body such as a million commas, which holds no value
 * to count.
 */
export class JsonStructureLimiter {
  private readonly tokenizer = new Tokenizer();
  private readonly open: OpenContainer[] = [];
  private topLevel: Expecting = 'value';
  private bareScalar = false;
  private values = 0;

  constructor(private readonly limits: JsonBodyLimits) {
    this.tokenizer.onToken = ({ token }) => this.take(token);
    this.tokenizer.onError = (error) => {
      throw error instanceof JsonLimitExceededError || error instanceof MalformedJsonError ? error : new MalformedJsonError();
    };
  }

  write(chunk: Buffer): void {
    this.tokenizer.write(chunk);
  }

  /** After the last chunk: throws unless the text was one whole object or array. */
  end(): void {
    this.tokenizer.end();
    if (this.topLevel !== 'nothing') throw new MalformedJsonError();
    if (this.bareScalar) throw new MalformedJsonError(NOT_A_JSON_OBJECT);
  }

  private take(token: TokenType): void {
    const container = this.open.at(-1);
    const expecting = container?.expecting ?? this.topLevel;
    switch (token) {
      case TokenType.LEFT_BRACE:
      case TokenType.LEFT_BRACKET:
        this.startValue(container, expecting);
        if (this.open.length === this.limits.maxDepth) {
          throw new JsonLimitExceededError(`request body is nested more than ${this.limits.maxDepth} levels deep`);
        }
        this.open.push(
          token === TokenType.LEFT_BRACE
            ? { kind: 'object', elements: 0, expecting: 'key-or-close' }
            : { kind: 'array', elements: 0, expecting: 'value-or-close' },
        );
        return;
      case TokenType.RIGHT_BRACE:
      case TokenType.RIGHT_BRACKET: {
        const closes = token === TokenType.RIGHT_BRACE ? 'object' : 'array';
        const canClose = expecting === 'comma-or-close' || expecting === 'key-or-close' || expecting === 'value-or-close';
        if (container?.kind !== closes || !canClose) throw new MalformedJsonError();
        this.open.pop();
        this.valueEnded();
        return;
      }
      case TokenType.COMMA:
        if (!container || expecting !== 'comma-or-close') throw new MalformedJsonError();
        container.expecting = container.kind === 'object' ? 'key' : 'value';
        return;
      case TokenType.COLON:
        if (!container || expecting !== 'colon') throw new MalformedJsonError();
        container.expecting = 'value';
        return;
      default:
        if (!VALUE_TOKENS.has(token)) throw new MalformedJsonError();
        if (!container) {
          // A bare scalar is JSON, but not a body: told so at the end, once nothing else (not JSON) has followed it.
          if (expecting !== 'value') throw new MalformedJsonError();
          this.topLevel = 'nothing';
          this.bareScalar = true;
          return;
        }
        if (token === TokenType.STRING && (expecting === 'key' || expecting === 'key-or-close')) {
          if (++container.elements > this.limits.maxObjectMembers) {
            throw new JsonLimitExceededError(`request body has an object of more than ${this.limits.maxObjectMembers} members`);
          }
          container.expecting = 'colon';
          return;
        }
        this.startValue(container, expecting);
        this.valueEnded();
    }
  }

  /** A value begins where one may: it is counted, in the document and in its array. */
  private startValue(container: OpenContainer | undefined, expecting: Expecting): void {
    if (expecting !== 'value' && expecting !== 'value-or-close') throw new MalformedJsonError();
    if (++this.values > this.limits.maxValues) {
      throw new JsonLimitExceededError(`request body holds more than ${this.limits.maxValues} values`);
    }
    if (container?.kind === 'array' && ++container.elements > this.limits.maxArrayElements) {
      throw new JsonLimitExceededError(`request body has an array of more than ${this.limits.maxArrayElements} elements`);
    }
  }

  private valueEnded(): void {
    const container = this.open.at(-1);
    if (container) container.expecting = 'comma-or-close';
    else this.topLevel = 'nothing';
  }
}
