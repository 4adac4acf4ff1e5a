import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ApiInteger } from '../openapi/api-integer.decorator';

/** Query strings are text: only a plain decimal integer becomes a number; anything else fails `@IsInt`. */
export const toQueryInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;

/** The highest page asked for that is answered (an empty page beyond the last); higher is 400, so offsets stay exact. */
export const MAX_PAGE = 2_147_483_647;

/** Query strings are text: `true` and `false` become booleans; anything else fails `@IsBoolean`. */
export const toQueryBoolean = ({ value }: { value: unknown }): unknown => (value === 'true' ? true : value === 'false' ? false : value);

/** A repeatable query parameter: one value arrives as a string, several as an array. */
export const toQueryList = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? [value] : value);

export const MAX_PAGE_SIZE = 100;

/** The page number, for query classes whose `limit` has bounds of their own (see CatalogQueryDto). */
export class PageNumberQueryDto {
  /** 1-based page number. */
  @ApiInteger({ maximum: MAX_PAGE })
  @Transform(toQueryInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  page: number = 1;
}

export class PageQueryDto extends PageNumberQueryDto {
  /** Items per page, at most 100. */
  @ApiInteger()
  @Transform(toQueryInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = 10;
}

/**
 * What every paged reply carries beside its items (`nodes`, `entries`, …):
 * `{total, <items>, page, limit, totalPages}`.
 */
export abstract class PageDto {
  @ApiInteger()
  total!: number;
  @ApiInteger()
  page!: number;
  @ApiInteger()
  limit!: number;
  @ApiInteger()
  totalPages!: number;
}

export function totalPages(total: number, limit: number): number {
  return Math.ceil(total / limit);
}

/** How many items come before the page asked for. */
export function offsetOf({ page, limit }: { page: number; limit: number }): number {
  return (page - 1) * limit;
}

/** A paged reply, `{total, <itemsKey>: items, page, limit, totalPages}` in that order (the spec's, which the bytes keep). */
export function pageOf<K extends string, T>(total: number, itemsKey: K, items: T[], { page, limit }: { page: number; limit: number }): PageDto & Record<K, T[]> {
  return { total, [itemsKey]: items, page, limit, totalPages: totalPages(total, limit) } as PageDto & Record<K, T[]>;
}
