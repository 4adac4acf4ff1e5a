import { BadRequestException } from '@nestjs/common';

/** What a catalog page may be sorted by (docs/api-rules.md §9.1). */
export const CATALOG_SORT_FIELDS = [
  'downloads',
  'name',
  'created_at',
  'last_updated',
  'rating',
  'github_stars',
  'search_ranking',
  'publisher_name',
] as const;
export type CatalogSortField = (typeof CATALOG_SORT_FIELDS)[number];

/** The public registry's other names for some fields. */
const SORT_FIELD_ALIASES: Record<string, CatalogSortField> = {
  total_install: 'downloads',
  publisher_id: 'publisher_name',
};

export interface CatalogSortKey {
  field: CatalogSortField;
  descending: boolean;
}

/** The spellings a `sort` value's field may take, for the API's documentation. */
export const CATALOG_SORT_SPELLINGS = [...CATALOG_SORT_FIELDS, ...Object.keys(SORT_FIELD_ALIASES)];

/**
 * The `sort` parameters, in order: `field` (ascending) or `field;desc`
 * (`;asc` too). 400 naming the first unknown field or direction.
 */
export function parseCatalogSort(values: readonly string[]): CatalogSortKey[] {
  return values.map((value) => {
    const [name, direction = 'asc', ...rest] = value.split(';').map((part) => part.trim().toLowerCase());
    const field = SORT_FIELD_ALIASES[name] ?? CATALOG_SORT_FIELDS.find((known) => known === name);
    if (!field) {
      throw new BadRequestException(`unknown sort field '${name}'; sort by one of: ${CATALOG_SORT_SPELLINGS.join(', ')}`);
    }
    if (rest.length > 0 || (direction !== 'asc' && direction !== 'desc')) {
      throw new BadRequestException(`sort '${value}' must be 'field', 'field;asc' or 'field;desc'`);
    }
    return { field, descending: direction === 'desc' };
  });
}
