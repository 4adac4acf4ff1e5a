import { ExecutionContext, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/**
 * What a route's JSON body may hold. Each limit is checked while the body
 * streams in, so a body is refused (413) as soon as it crosses one: its cost
 * is bounded by the limits, not by what the client sends. The figures and
 * why they are what they are: docs/request-bodies.md.
 */
export interface JsonBodyLimits {
  /** Bytes of JSON text, counted after any Content-Encoding is undone. */
  maxBytes: number;
  /** Objects and arrays nested inside each other. */
  maxDepth: number;
  /** Values in the whole document: objects, arrays, strings, numbers, booleans and nulls (keys are not values). */
  maxValues: number;
  /** Elements of any one array. */
  maxArrayElements: number;
  /** Members (keys) of any one object: what a DTO's validation walks, as it walks an array's elements. */
  maxObjectMembers: number;
}

export const MIB = 1024 * 1024;

/** Every route's limits unless it declares its own: far above what any registry or user body legitimately holds. */
export const DEFAULT_JSON_BODY_LIMITS: JsonBodyLimits = {
  maxBytes: 1 * MIB,
  maxDepth: 32,
  maxValues: 10_000,
  maxArrayElements: 1_000,
  // As many as values: a node's translations may grow past 1,000 members by merges, and must go back as they came.
  maxObjectMembers: 10_000,
};

/** How a route's handler gets its body: parsed JSON within these limits, or Node's unread stream. */
export type BodyHandling = { kind: 'json'; limits: JsonBodyLimits } | { kind: 'raw' };

const BODY_HANDLING = 'http:body-handling';

/** Limits of this route's JSON body, in place of the defaults it does not name. */
export function JsonBody(limits: Partial<JsonBodyLimits>): MethodDecorator {
  return SetMetadata(BODY_HANDLING, { kind: 'json', limits: { ...DEFAULT_JSON_BODY_LIMITS, ...limits } });
}

/**
 * The handler reads the request stream itself (an archive upload streamed to
 * storage; a signed callback read only once its signature holds): the body is
 * left unread for it, and its own code enforces its limits.
 */
export function RawBody(): MethodDecorator {
  return SetMetadata(BODY_HANDLING, { kind: 'raw' });
}

export function bodyHandlingOf(reflector: Reflector, handler: ReturnType<ExecutionContext['getHandler']>): BodyHandling {
  return reflector.get<BodyHandling | undefined>(BODY_HANDLING, handler) ?? { kind: 'json', limits: DEFAULT_JSON_BODY_LIMITS };
}
