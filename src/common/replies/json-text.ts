import { applyDecorators, Header, Type } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';

/**
 * A reply already serialized: JSON text of a `T`. A route that returns one
 * sends it as it is (see JsonTextReply), so a reply put together from text
 * the database keeps (a catalog page, see nodeListText) skips building
 * objects only for JSON.stringify to walk them.
 * The type parameter keeps what the text holds visible to readers and to the
 * compiler at the route.
 */
export type JsonText<T> = string & { readonly __jsonTextOf?: T };

/**
 * A route that answers JSON text it wrote itself (a JsonText of `type`):
 * sent with the JSON content type as it is, by either adapter, and documented
 * as `type` in the OpenAPI document.
 */
export function JsonTextReply(type: Type<unknown>): MethodDecorator {
  return applyDecorators(Header('Content-Type', 'application/json; charset=utf-8'), ApiOkResponse({ type }));
}
