import { Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';

const declared = new WeakMap<object, Set<RouteParamtypes>>();

/**
 * The kinds of parameter a route's handler declares (`@Body()`, `@Query()`,
 * …), read once per handler from the metadata Nest's router and
 * @nestjs/swagger read: under the method's name, keys `${RouteParamtypes}:${index}`.
 */
export function declaredParams(controller: Type, handler: object): Set<RouteParamtypes> {
  let kinds = declared.get(handler);
  if (kinds === undefined) {
    const parameters = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodNameOf(controller, handler)) as Record<string, unknown> | undefined;
    kinds = new Set(Object.keys(parameters ?? {}).map((key) => Number(key.split(':')[0]) as RouteParamtypes));
    declared.set(handler, kinds);
  }
  return kinds;
}

/** The name under which the controller (or a class it extends) holds `handler`: a decorator may have renamed the function. */
function methodNameOf(controller: { prototype: object }, handler: object): string {
  for (let prototype: object | null = controller.prototype; prototype !== null && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype) as object | null) {
    const name = Object.getOwnPropertyNames(prototype).find((key) => Object.getOwnPropertyDescriptor(prototype, key)?.value === handler);
    if (name !== undefined) return name;
  }
  return (handler as { name: string }).name;
}
