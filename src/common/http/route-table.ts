import { ExecutionContext, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { methodNamesOf } from './route-params';

/** A route as Nest registers it with the platform. */
export interface Route {
  /** `GET`, `PUT`, … */
  method: string;
  /** `/{controller path}/{route path}`, `:param` and all. */
  path: string;
  controller: Type;
  /** The controller's method, as a guard's ExecutionContext gives it. */
  handler: ReturnType<ExecutionContext['getHandler']>;
}

const pathsOf = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : [typeof value === 'string' ? value : '/']);

/** Every route of `controllers`, read from Nest's metadata (the routes a module adds are here without anyone listing them). */
export function routesOf(controllers: Type[]): Route[] {
  return controllers.flatMap((controller) =>
    methodNamesOf(controller).flatMap((name) => {
      const handler = (controller.prototype as Record<string, unknown>)[name];
      if (typeof handler !== 'function') return [];
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) return [];
      return pathsOf(Reflect.getMetadata(PATH_METADATA, controller)).flatMap((base) =>
        pathsOf(Reflect.getMetadata(PATH_METADATA, handler)).map((own) => ({
          method: RequestMethod[method],
          path: `/${base}/${own}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1'),
          controller,
          handler,
        })),
      );
    }),
  );
}
