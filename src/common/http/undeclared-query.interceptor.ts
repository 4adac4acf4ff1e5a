import { BadRequestException, CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Observable } from 'rxjs';
import { unknownProperty } from '../validation/validation.pipe';
import { declaredParams } from './route-params';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A write (any method but GET, HEAD and OPTIONS) whose handler declares no
 * `@Query()` refuses every query parameter, naming each (400), before its
 * body is read: a typo such as `DELETE …?dry_run=true` must not be silently
 * ignored (CONTRACT §1). Reads that take no query stay lenient, but the
 * registry's, which declare theirs (docs/api-rules.md §1).
 */
@Injectable()
export class UndeclaredQueryInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const req = context.switchToHttp().getRequest<{ method: string; query?: Record<string, unknown> }>();
      if (!READS.has(req.method) && !declaredParams(context.getClass(), context.getHandler()).has(RouteParamtypes.QUERY)) {
        const names = Object.keys(req.query ?? {});
        if (names.length > 0) throw new BadRequestException(names.map(unknownProperty).join('; '));
      }
    }
    return next.handle();
  }
}
