import { Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';

/** One parameter a route's method declares (`@Body()`, `@Query()`, …): its kind, and its class when TypeScript recorded one. */
export interface RouteParameter {
  kind: RouteParamtypes;
  type?: Type;
}

const byHandler = new WeakMap<object, RouteParameter[]>();

/**
 * The parameters the controller's `method` declares, read from the metadata
 * Nest's router and @nestjs/swagger read: under the method's name, keys
 * `${RouteParamtypes}:${index}`, the classes in `design:paramtypes`.
 */
export function routeParameters(controller: Type, method: string): RouteParameter[] {
  const parameters = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) as Record<string, { index: number }> | undefined;
  const types = Reflect.getMetadata('design:paramtypes', controller.prototype as object, method) as Type[] | undefined;
  return Object.entries(parameters ?? {}).map(([key, { index }]) => ({ kind: Number(key.split(':')[0]), type: types?.[index] }));
}

/** The names of the controller's methods, its own and those it inherits. */
export function methodNamesOf(controller: Type): string[] {
  const names = new Set<string>();
  for (let prototype: object | null = controller.prototype as object; prototype !== null && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype) as object | null) {
    Object.getOwnPropertyNames(prototype).forEach((name) => names.add(name));
  }
  return [...names];
}

/** The parameters a route's handler declares, read once per handler (see routeParameters). */
export function handlerParameters(controller: Type, handler: object): RouteParameter[] {
  let parameters = byHandler.get(handler);
  if (parameters === undefined) {
    parameters = routeParameters(controller, methodNameOf(controller, handler));
    byHandler.set(handler, parameters);
  }
  return parameters;
}

/** The name under which the controller (or a class it extends) holds `handler`: a decorator may have renamed the function. */
function methodNameOf(controller: Type, handler: object): string {
  for (let prototype: object | null = controller.prototype as object; prototype !== null && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype) as object | null) {
    const name = Object.getOwnPropertyNames(prototype).find((key) => Object.getOwnPropertyDescriptor(prototype, key)?.value === handler);
    if (name !== undefined) return name;
  }
  return (handler as { name: string }).name;
}
