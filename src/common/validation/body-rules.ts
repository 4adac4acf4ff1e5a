import { Type } from '@nestjs/common';

/** A problem a BodyRules provider found: the field it names and what is wrong, as one sentence naming the field. */
export interface BodyProblem {
  property: string;
  message: string;
}

/**
 * The rules of a request body that depend on the service's own state (its
 * configuration), which a class-validator decorator cannot see. A provider
 * of the body's module; the global pipe (StrictValidationPipe) checks them
 * right after the decorators and reports both in one reply, as the contract
 * asks (CONTRACT §1: every problem, joined).
 */
export interface BodyRules<T extends object> {
  /** The problems of `body`; `failed` holds the fields whose decorators already failed (a rule skips them). */
  problems(body: T, failed: ReadonlySet<string>): BodyProblem[];
}

const BODY_RULES = Symbol('bodyRules');

/** Marks a body class as checked by `rules` too (a provider the pipe resolves from the app's modules). */
export function CheckedBy<T extends object>(rules: Type<BodyRules<T>>): (target: Type<T>) => void {
  return (target) => Reflect.defineMetadata(BODY_RULES, rules, target);
}

/** The rules a body class is checked by, if any. */
export function bodyRulesOf(bodyClass: object): Type<BodyRules<object>> | undefined {
  return Reflect.getMetadata(BODY_RULES, bodyClass) as Type<BodyRules<object>> | undefined;
}
