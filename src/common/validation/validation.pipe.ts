import { ArgumentMetadata, BadRequestException, Injectable, Optional, ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidatorOptions } from '@nestjs/common/interfaces/external/validator-options.interface';
import { ModuleRef } from '@nestjs/core';
import { NOT_A_JSON_OBJECT } from '../http/json-structure';
import { bodyRulesOf } from './body-rules';
import { failedConstraintMessages } from './constraint-messages';
import { unstorableText } from './storable-text';

/** class-validator's message for a field the class does not declare (whitelist). */
export const unknownProperty = (property: string) => `property ${property} should not exist`;

/** The key of a BodyRules problem among a field's constraints (see StrictValidationPipe.validate). */
const RULES_CONSTRAINT = 'bodyRules';

/**
 * A required field the request left out: it fails every rule of its own
 * (a missing `id` would be told it must match a pattern and be long enough),
 * where "is required" is what is true. A BodyRules problem says its own.
 */
const isMissing = (error: ValidationError) =>
  error.value === undefined && error.constraints !== undefined && !(RULES_CONSTRAINT in error.constraints);

/** Every failed constraint as "<field path>: <problem>"-style sentences, nested fields included. */
export function describeValidationErrors(errors: ValidationError[], parentPath = ''): string[] {
  return errors.flatMap((error) => {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    const messages = isMissing(error) ? [`${error.property} is required`] : failedConstraintMessages(error.constraints, error.value);
    const own = messages.map((text) => {
      if (!parentPath) return text;
      // Each message names its field first, but for an unknown field ("property x should not exist") and a list's
      // rule ("each value in x must …"): all get the path.
      if (text.startsWith(`${error.property} `)) return `${path}${text.slice(error.property.length)}`;
      const eachValue = `each value in ${error.property} `;
      if (text.startsWith(eachValue)) return `each value in ${path} ${text.slice(eachValue.length)}`;
      return text === unknownProperty(error.property) ? unknownProperty(path) : text;
    });
    return [...own, ...describeValidationErrors(error.children ?? [], path)];
  });
}

/** Keys that would reach object prototypes if any code ever merged them; never legitimate in this API. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Deeper than any field of this API nests. JSON.parse accepts thousands of
 * levels, but every later walk over them (this one, class-transformer,
 * class-validator) is recursive and would exhaust the stack: a 500.
 */
export const MAX_INPUT_DEPTH = 32;

/**
 * The first problem no DTO rule can see: a prototype-polluting key (which
 * class-transformer would drop silently), text that cannot be stored as sent
 * (a NUL character or an unpaired surrogate, in a value or a property name:
 * see unstorableText), or nesting deeper than MAX_INPUT_DEPTH.
 */
export function findUnsafeInput(value: unknown, path: string, depth = 0, root = 'the request body'): string | undefined {
  if (typeof value === 'string') {
    const problem = unstorableText(value);
    return problem && `${path} ${problem}`;
  }
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  if (depth === MAX_INPUT_DEPTH) {
    return `${path || root} is nested more than ${MAX_INPUT_DEPTH} levels deep`;
  }
  for (const [key, inner] of Object.entries(value)) {
    // A property name is never echoed with its bad character: a map's keys are stored (a class name, say).
    const keyProblem = unstorableText(key);
    if (keyProblem) return `property names in ${path || root} ${keyProblem}`;
    const innerPath = path ? `${path}.${key}` : key;
    if (!Array.isArray(value) && FORBIDDEN_KEYS.has(key)) {
      return `property ${innerPath} is not allowed`;
    }
    const problem = findUnsafeInput(inner, innerPath, depth + 1, root);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * The global pipe: strict JSON types (no implicit conversion), unknown fields
 * rejected by name, a body's BodyRules checked with its decorators, and one
 * joined message for the contract's error body. `moduleRef` (the app's, when
 * Nest makes the pipe) resolves BodyRules providers; a pipe made with `new`
 * validates only classes without them.
 */
@Injectable()
export class StrictValidationPipe extends ValidationPipe {
  constructor(@Optional() private readonly moduleRef?: ModuleRef) {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      // The value, for the messages only (failedConstraintMessages); never echoed.
      validationError: { target: false, value: true },
      exceptionFactory: (errors) => new BadRequestException([...new Set(describeValidationErrors(errors))].join('; ')),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const unsafe = findUnsafeInput(value, metadata.type === 'body' ? '' : (metadata.data ?? ''), 0, metadata.type === 'query' ? 'the query' : 'the request body');
    if (unsafe) {
      throw new BadRequestException(unsafe);
    }
    if (metadata.type === 'body' && metadata.metatype && this.toValidate(metadata)) {
      if (value === undefined) {
        value = {};
      } else if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new BadRequestException(NOT_A_JSON_OBJECT);
      }
    }
    return super.transform(value, metadata);
  }

  protected override async validate(body: object, options?: ValidatorOptions): Promise<ValidationError[]> {
    const errors = await super.validate(body, options);
    const rulesClass = bodyRulesOf(body.constructor);
    if (!rulesClass) return errors;
    if (!this.moduleRef) throw new Error(`${body.constructor.name} is checked by ${rulesClass.name}, which only the app's own pipe can resolve`);
    const rules = this.moduleRef.get(rulesClass, { strict: false });
    const problems = rules.problems(body, new Set(errors.map((error) => error.property)));
    const ruleErrors = problems.map(({ property, message }): ValidationError => ({
      property,
      value: (body as Record<string, unknown>)[property],
      constraints: { [RULES_CONSTRAINT]: message },
      children: [],
    }));
    return [...errors, ...ruleErrors];
  }
}
