import { applyDecorators, Header, Type } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';

/**
 * A reply already serialized: JSON text of a `T`. A route that returns one
 * sends it as it is (see JsonTextReply), so a reply written straight from
 * database rows skips building objects only for JSON.stringify to walk them.
 * The type parameter keeps what the text holds visible to readers and to the
 * compiler at the route.
 */
export type JsonText<T> = string & { readonly __jsonTextOf?: T };

/** Characters JSON.stringify escapes in a string: quote, backslash, controls, and lone surrogates. */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(text)`, without its escaping pass for the common text that
 * needs none. (A pair of surrogates is escaped by neither; it takes the slow
 * path, which gives the same text.)
 */
export function jsonString(text: string): string {
  return NEEDS_ESCAPING.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/**
 * A route that answers JSON text it wrote itself (a JsonText of `type`):
 * sent with the JSON content type as it is, by either adapter, and documented
 * as `type` in the OpenAPI document.
 */
export function JsonTextReply(type: Type<unknown>): MethodDecorator {
  return applyDecorators(Header('Content-Type', 'application/json; charset=utf-8'), ApiOkResponse({ type }));
}
