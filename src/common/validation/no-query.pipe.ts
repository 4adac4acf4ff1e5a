import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { unknownProperty } from './validation.pipe';

/**
 * The query of a route that takes no query parameter (`@Query(NoQuery)`): any
 * is a 400 naming it, as an unknown body field is (a typo must not be
 * silently ignored, docs/api-rules.md §1). A class with no property cannot
 * say so to class-validator, which refuses to validate it at all.
 */
@Injectable()
export class NoQuery implements PipeTransform<Record<string, unknown>, Record<string, never>> {
  transform(query: Record<string, unknown>): Record<string, never> {
    const names = Object.keys(query);
    if (names.length > 0) throw new BadRequestException(names.map(unknownProperty).join('; '));
    return {};
  }
}
