import { Injectable, OnApplicationBootstrap, Type } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DiscoveryService, ModuleRef } from '@nestjs/core';
import { methodNamesOf, routeParameters } from '../http/route-params';
import { BodyRules, bodyRulesOf } from './body-rules';

/**
 * Fails the start when a route's body class is `@CheckedBy` a rules class
 * that no module provides. The pipe resolves the rules per request, so a
 * missing provider would otherwise answer every request of that route with
 * a 500 (docs/extending.md §3).
 */
@Injectable()
export class BodyRulesCheck implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly moduleRef: ModuleRef,
  ) {}

  onApplicationBootstrap(): void {
    const missing = [...this.rulesOfRouteBodies()].filter(([rules]) => !this.provided(rules));
    if (missing.length > 0) {
      const list = missing.map(([rules, body]) => `${body.name} is checked by ${rules.name}, which no module provides`);
      throw new Error(`${list.join('; ')}: add it to the providers of the body's module`);
    }
  }

  private provided(rules: Type<BodyRules<object>>): boolean {
    try {
      this.moduleRef.get(rules, { strict: false });
      return true;
    } catch {
      return false;
    }
  }

  /** Each rules class named by a `@Body()` parameter's class, with one body class naming it. */
  private rulesOfRouteBodies(): Map<Type<BodyRules<object>>, Type> {
    const found = new Map<Type<BodyRules<object>>, Type>();
    for (const { metatype } of this.discovery.getControllers()) {
      if (!metatype) continue;
      for (const bodyClass of bodyClassesOf(metatype as Type)) {
        const rules = bodyRulesOf(bodyClass);
        if (rules && !found.has(rules)) found.set(rules, bodyClass);
      }
    }
    return found;
  }
}

/** The classes of a controller's `@Body()` parameters, on its own routes and those it inherits. */
function bodyClassesOf(controller: Type): Type[] {
  return methodNamesOf(controller).flatMap((method) =>
    routeParameters(controller, method).flatMap(({ kind, type }) => (kind === RouteParamtypes.BODY && type ? [type] : [])),
  );
}
